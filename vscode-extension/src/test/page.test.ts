import assert from "node:assert/strict";
import { test } from "node:test";
import { chatPage } from "../chat/page";

const html = chatPage({
  cspSource: "https://file+.vscode-resource.example",
  nonce: "n0nce+/=",
  script: "https://file+.vscode-resource.example/out/webview.js",
  style: "https://file+.vscode-resource.example/out/webview.css",
});

test("the page's policy allows nothing by default and only the nonce's script", () => {
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? "";
  const rules = Object.fromEntries(csp.split("; ").map((r) => [r.split(" ")[0], r.split(" ").slice(1)]));
  assert.deepEqual(rules["default-src"], ["'none'"]);
  assert.deepEqual(rules["script-src"], ["'nonce-n0nce+/='"]);
  assert.deepEqual(rules["style-src"], ["https://file+.vscode-resource.example"]);
  assert.ok(!csp.includes("unsafe-inline") && !csp.includes("unsafe-eval") && !csp.includes("*"));
});

test("the one script carries the nonce; nothing else runs or loads from elsewhere", () => {
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
  assert.deepEqual(scripts, [' nonce="n0nce+/=" src="https://file+.vscode-resource.example/out/webview.js"']);
  assert.ok(!/\son\w+=/.test(html), "no inline event handlers");
  assert.ok(!/style="/.test(html), "no inline styles");
  for (const url of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
    assert.ok(url[1]!.startsWith("https://file+.vscode-resource.example/"), url[1]);
  }
});

test("every button in the page has a name", () => {
  for (const [, attributes, text] of html.matchAll(/<button([^>]*)>([^<]*)<\/button>/g)) {
    assert.ok(/aria-label="[^"]+"/.test(attributes!) || text!.trim(), attributes);
  }
  assert.match(html, /<textarea id="input"[^>]*aria-label="Ask Foehn"/);
});
