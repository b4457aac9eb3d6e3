import assert from "node:assert/strict";
import { test } from "node:test";
import { policyText, reaching } from "../chat/commandline";
import { confirmMessage } from "../chat/confirm";
import { ruleLine, ruleSummary } from "../chat/rules";
import { applyEvent, askInline, newTurn, type Turn } from "../chat/state";
import { MAX_NETWORK_SHOWN, renderTurn } from "../chat/view";
import type { ConfirmParams, RunEvent } from "../protocol";

const INSTALL: ConfirmParams = {
  runId: "r1",
  callId: "c1",
  tool: "run_command",
  arguments: { command: ["pip", "install", "-e", "."] },
  risk: "write",
  program: "pip",
  sandbox: "workspace-write",
  remember: "run_command pip install",
  network: ["pypi.org", "files.pythonhosted.org"],
  why: {
    decision: "ask",
    rule: null,
    source: "table",
    risk: "write",
    network: [
      { domain: "pypi.org", source: "~/.config/foehn/config.toml:4" },
      { domain: "files.pythonhosted.org", source: "~/.config/foehn/config.toml:4" },
    ],
  },
  proposedRule: { tool: "run_command", program: "pip", args: ["install", "*"], decision: "allow", sandbox: "workspace-write", network: ["pypi.org"] },
};

function play(events: RunEvent[], turn: Turn = newTurn("r1", "install")): Turn {
  return events.reduce(applyEvent, turn);
}

const CALL: RunEvent = { event: "tool_call", id: "c1", tool: "run_command", arguments: INSTALL.arguments, risk: "write", policy: "workspace-write" };

test("a running call's card shows its latest progress, replaced as it changes and gone once it ends", () => {
  let turn = play([CALL, { event: "tool_progress", id: "c1", tool: "run_command", message: "3 of 10 files" }]);
  turn = applyEvent(turn, { event: "tool_progress", id: "c1", tool: "run_command", message: "7 of 10 files" });
  let html = renderTurn(turn, { restorable: false });
  assert.match(html, /<div class="progress" role="status">7 of 10 files<\/div>/);
  assert.ok(!html.includes("3 of 10 files"));
  turn = applyEvent(turn, { event: "tool_result", id: "c1", tool: "run_command", ok: true, output: "done" });
  html = renderTurn(turn, { restorable: false });
  assert.ok(!html.includes('class="progress"'));
});

test("each connection a call attempted is a line on its card: allowed with its bytes, refused with why", () => {
  const turn = play([
    CALL,
    { event: "network", call: "c1", host: "pypi.org", port: 443, allowed: true, reason: "granted pypi.org (config.toml:4)", bytes_out: 812, bytes_in: 48_300 },
    { event: "network", call: "c1", host: "evil.example", port: 443, allowed: false, reason: "evil.example is not granted", bytes_out: 0, bytes_in: 0 },
    { event: "network", call: "other", host: "x.example", port: 80, allowed: false, reason: "x", bytes_out: 0, bytes_in: 0 },
  ]);
  const html = renderTurn(turn, { restorable: false });
  assert.match(html, /<li class="allowed"><code>pypi.org:443<\/code> allowed \(granted pypi.org \(config.toml:4\)\) · 812 B out, 48.3 kB in<\/li>/);
  assert.match(html, /<li class="refused"><code>evil.example:443<\/code> refused: evil.example is not granted<\/li>/);
  assert.ok(!html.includes("x.example"), "a connection of a call with no card is not drawn on another's");
});

test("the attempts the proxy did not record one by one are said in its words", () => {
  const turn = play([
    CALL,
    { event: "network", call: "c1", host: "*", port: 0, allowed: false, reason: "1,204 more attempts, not recorded one by one", bytes_out: 0, bytes_in: 0 },
  ]);
  assert.match(renderTurn(turn, { restorable: false }), /<li class="refused">1,204 more attempts, not recorded one by one<\/li>/);
});

test("a call with many connections lists the latest ones and says how many came before", () => {
  const events: RunEvent[] = [CALL];
  for (let i = 0; i < MAX_NETWORK_SHOWN + 5; i++) {
    events.push({ event: "network", call: "c1", host: `h${i}.example`, port: 443, allowed: false, reason: "not granted", bytes_out: 0, bytes_in: 0 });
  }
  const html = renderTurn(play(events), { restorable: false });
  assert.match(html, /<li>… 5 earlier<\/li>/);
  assert.ok(!html.includes("h4.example:"));
  assert.ok(html.includes(`h${MAX_NETWORK_SHOWN + 4}.example:443`));
});

test("the approval card says which domains the call may reach, where each is granted, and that the sandbox has nothing else", () => {
  const turn = askInline(play([CALL]), "r1/1", INSTALL, "c1");
  const html = renderTurn(turn, { restorable: false });
  assert.match(html, /It may reach <strong>pypi.org, files.pythonhosted.org \(and nothing else on the network\)<\/strong>\./);
  assert.match(html, /Granted: pypi.org at ~\/.config\/foehn\/config.toml:4/);
  assert.match(html, /sandbox <strong>workspace-write<\/strong>: may change the workspace \([^)]*\), the network only to pypi.org, files.pythonhosted.org/);
  assert.ok(!html.includes("no network"));
  assert.match(html, /network=\[&quot;pypi.org&quot;\]/, "the rule Always allow saves shows the network it grants");
});

test("without a grant the card and the modal keep saying no network", () => {
  const plain = { ...INSTALL, network: [], why: { ...INSTALL.why!, network: [] } };
  const html = renderTurn(askInline(play([CALL]), "r1/1", plain, "c1"), { restorable: false });
  assert.match(html, /\(not .git\/, .foehn\/, .vscode\/, .envrc\), no network/);
  assert.ok(!html.includes("It may reach"));
  const { detail } = confirmMessage(plain);
  assert.match(detail, /Sandbox: workspace-write \(may change the workspace [^\n]*, no network\)/);
  assert.ok(!detail.includes("It may reach"));
});

test("the modal names the domains, each grant, and the sandbox's network", () => {
  const { detail } = confirmMessage(INSTALL);
  assert.match(detail, /Sandbox: workspace-write \(may change the workspace [^\n]*, the network only to pypi.org, files.pythonhosted.org\)/);
  assert.match(detail, /It may reach pypi.org, files.pythonhosted.org \(and nothing else on the network\)\./);
  assert.match(detail, /Granted: files.pythonhosted.org at ~\/.config\/foehn\/config.toml:4/);
});

test("the policies in words: read-only and workspace-write have no network but the grant's, full has it all", () => {
  assert.equal(policyText("read-only"), "reads only: nothing writable but a private /tmp, no network");
  assert.equal(policyText("read-only", ["a.example"]), "reads only: nothing writable but a private /tmp, the network only to a.example");
  assert.equal(policyText("full", ["a.example"]), "your own rights and the network, outside the sandbox");
  assert.equal(policyText("something-new"), "something-new");
  assert.equal(reaching(["*.example.org", "registry.example:8443"]), "*.example.org, registry.example:8443 (and nothing else on the network)");
});

test("a rule that grants domains says so on one line and in the picker", () => {
  const rule = INSTALL.proposedRule!;
  assert.equal(
    ruleLine(rule),
    'tool="run_command" program="pip" args=["install","*"] decision="allow" sandbox="workspace-write" network=["pypi.org"]',
  );
  assert.equal(ruleSummary(rule), "allow run_command pip install * (workspace-write sandbox, reaching pypi.org)");
});
