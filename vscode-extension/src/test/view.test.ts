import assert from "node:assert/strict";
import { test } from "node:test";
import { askInline, applyEvent, newTurn, type Turn } from "../chat/state";
import { STATUS_COMMANDS } from "../chat/actions";
import { OFFLINE_OFFER, cardSummary, renderCard, renderEmpty, renderFailure, renderQueued, renderStatus, renderTurn } from "../chat/view";
import type { ServerStatus } from "../chat/messages";

/** Every <button> has a visible text or an aria-label: the accessibility smoke check's first
 * half (the other half, keyboard reach, runs in the browser). */
function unnamedButtons(html: string): string[] {
  return [...html.matchAll(/<button([^>]*)>([\s\S]*?)<\/button>/g)]
    .filter(([, attributes, text]) => !/aria-label="[^"]+"/.test(attributes!) && !text!.replace(/<[^>]+>/g, "").trim())
    .map(([whole]) => whole);
}

function busyTurn(): Turn {
  let turn = newTurn("r1", "Fix <b>it</b>", ["app.py", "app.py:1-2"]);
  turn = applyEvent(turn, { event: "turn", session: "s", turn: 1 });
  turn = applyEvent(turn, { event: "text", text: "Here is `code`:\n```py\nx = 1\n```" });
  turn = applyEvent(turn, { event: "tool_call", id: "c1", tool: "edit_file", arguments: { path: "app.py" }, risk: "write" });
  return askInline(turn, "r1/1", {
    runId: "r1",
    tool: "edit_file",
    arguments: { path: "app.py" },
    risk: "write",
    preview: { summary: "edit app.py (1 block)", diff: "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2" },
    remember: "edit_file on app.py",
  });
}

test("a turn asking inline shows the call, the diff and the three answers, naming the scope", () => {
  const html = renderTurn(busyTurn(), { restorable: false });
  assert.match(html, /Fix &lt;b&gt;it&lt;\/b&gt;/);
  assert.match(html, /<span class="chip">app.py:1-2<\/span>/);
  assert.match(html, /<span class="d-del">-x = 1<\/span>/);
  assert.match(html, /<span class="d-add">\+x = 2<\/span>/);
  assert.match(html, /data-decision="allow" data-key="r1\/1">Allow</);
  assert.match(html, /data-decision="allowRun"[^>]*>Allow for this run</);
  assert.match(html, /remembers: edit_file on app.py, until this run ends/);
  assert.match(html, /data-decision="deny"[^>]*>Deny</);
  assert.match(html, /data-action="openDiff"/);
  assert.match(html, /aria-label="Message to the model if you deny \(optional\)"/);
  assert.deepEqual(unnamedButtons(html), []);
});

test("a finished turn shows its stop reason, its changed files with Keep and Undo, and Restore when offered", () => {
  let turn = busyTurn();
  turn = applyEvent(turn, { event: "approval", id: "c1", tool: "edit_file", decision: "allow", reason: "approved once" });
  turn = applyEvent(turn, { event: "tool_result", id: "c1", tool: "edit_file", ok: true, output: "edited app.py" });
  turn = applyEvent(turn, { event: "files_changed", session: "s", turn: 1, files: [{ path: "app.py", change: "modified" }] });
  turn = applyEvent(turn, { event: "done", reason: "max_iterations", answer: "", iterations: 3 });
  const last = renderTurn(turn, { restorable: false });
  assert.match(last, /Stopped: too many tool rounds · 3 tool rounds/);
  assert.match(last, /aria-label="Keep app.py"/);
  assert.match(last, /aria-label="Undo app.py"/);
  assert.match(last, />Undo turn</);
  assert.ok(!last.includes("Restore to here"));
  assert.ok(!last.includes('class="approval"'));
  const earlier = renderTurn(turn, { restorable: true });
  assert.match(earlier, /Restore to here/);
  assert.deepEqual(unnamedButtons(earlier), []);
});

test("every server state has a clear banner whose buttons have names", () => {
  const states: ServerStatus[] = [
    { kind: "starting" },
    { kind: "notFound", message: "not found" },
    { kind: "noKey", provider: "mistral" },
    { kind: "restricted" },
    { kind: "failed", message: "boom" },
    { kind: "ready", provider: "local", model: "qwen", embedded: true },
    { kind: "settingUp" },
    { kind: "noModel" },
    { kind: "setupFailed", message: "no Python", action: "pickInterpreter" },
    { kind: "setupFailed", message: "pip failed", action: "openLog" },
    { kind: "setupFailed", message: "disk full", action: "retry" },
  ];
  for (const status of states) {
    const html = renderStatus(status);
    assert.ok(html.length > 0, status.kind);
    assert.deepEqual(unnamedButtons(html), [], status.kind);
  }
  assert.match(renderStatus({ kind: "noKey", provider: "mistral" }), /No API key for mistral/);
  assert.match(renderStatus({ kind: "ready", provider: "local", model: "q", embedded: true }), /embedded model \(small, offline\)/);
  assert.match(renderStatus({ kind: "restricted" }), /Restricted mode/);
  assert.equal(renderStatus({ kind: "ready", provider: "mistral", model: "m", embedded: false }), "");
});

test("run_command's approval shows the whole command line, where it runs and what its sandbox allows", () => {
  const args = { command: ["python", "-m", "pytest", "-k", "not slow", "tests/test_app.py"], cwd: "src" };
  let turn = applyEvent(newTurn("r", "t"), { event: "tool_call", id: "c1", tool: "run_command", arguments: args, risk: "write", policy: "workspace-write" });
  turn = askInline(turn, "r/1", {
    runId: "r",
    callId: "c1",
    tool: "run_command",
    arguments: args,
    risk: "write",
    program: "python",
    sandbox: "workspace-write",
    remember: "run_command calls that run `python`, at risk write, in the workspace-write sandbox",
  });
  const html = renderTurn(turn, { restorable: false });
  assert.match(html, /<pre class="command-line">python -m pytest -k &#39;not slow&#39; tests\/test_app.py<\/pre>/);
  assert.match(html, /in <code>src<\/code>, sandbox <strong>workspace-write<\/strong>: may change the workspace/);
  assert.match(html, /remembers: run_command calls that run <code>python<\/code>, at risk write/);
  assert.ok(!html.includes("`"), "no literal backticks");
});

test("a card's summary is the file or command it is about, underscores and all", () => {
  assert.equal(cardSummary({ tool: "read_file", arguments: { path: "tests/test_app.py" } }), "tests/test_app.py");
  assert.equal(cardSummary({ tool: "run_command", arguments: { command: ["git", "log", "-n", "3"] } }), "git log -n 3");
  assert.equal(cardSummary({ tool: "git", arguments: { args: ["status"] } }), "git status");
  assert.equal(cardSummary({ tool: "search", arguments: { pattern: "TODO", path: "src" } }), "TODO in src");
  assert.equal(cardSummary({ tool: "move_path", arguments: { source: "a.py", destination: "b.py" } }), "a.py → b.py");
  assert.equal(cardSummary({ tool: "other", arguments: { items: [] } }), '{"items":[]}');
  assert.equal(cardSummary({ tool: "todo", arguments: { items: [] } }), "0 tasks");
});

test("why a call failed or was refused is shown without opening the card", () => {
  const failedCard = renderCard({ id: "c", tool: "read_file", arguments: { path: "x" }, risk: "read_only", ok: false, output: "x: no such file\nmore\nmore\nhidden" });
  assert.match(failedCard, /<div class="why">x: no such file\nmore\nmore<\/div>/);
  const denied = renderCard({ id: "c", tool: "edit_file", arguments: {}, risk: "write", decision: "deny", reason: "Restricted Mode: only read-only tools run; trust the folder to allow changes" });
  assert.match(denied, /<div class="why">Restricted Mode: only read-only tools run; trust the folder to allow changes<\/div><details/);
});

test("a failure is its own card, in VS Code's words, with the buttons that fix it", () => {
  const html = renderFailure("r1", {
    kind: "auth",
    message: "the OpenAI-compatible server at http://h/v1/chat/completions rejected the API key (401): bad; check the key (FOEHN_API_KEY or the provider's own variable)",
  });
  assert.match(html, /role="alert"/);
  assert.match(html, /The provider refused the API key/);
  assert.match(html, /data-command="foehn.setApiKey">Set API key…</);
  assert.match(html, /data-action="retry" data-run="r1">Retry</);
  assert.ok(!html.includes("FOEHN_"), html);
  const unreachable = renderFailure("r2", { kind: "unavailable", message: "cannot reach x" });
  assert.match(unreachable, /data-action="openSettings" data-query="foehn.baseUrl">Open settings</);
  assert.deepEqual(unnamedButtons(html + unreachable), []);
  let turn = applyEvent(newTurn("r3", "hi"), { event: "done", reason: "error", answer: "boom", iterations: 0, error: "internal" });
  turn = { ...turn, index: 1 };
  const drawn = renderTurn(turn, { restorable: false });
  assert.match(drawn, /class="failure"/);
  assert.ok(!/<div class="markdown">.*boom/.test(drawn), "the message is not drawn as an answer");
});

test("the empty chat says which model answers, offers questions and the recent chats", () => {
  const html = renderEmpty({ kind: "ready", provider: "openai", model: "gpt-4.1-mini", embedded: false }, [
    { id: "s1", title: "Fix the TODO", detail: "3 turns · 5 min ago" },
  ]);
  assert.match(html, /Answering: <strong>openai<\/strong> · <code>gpt-4.1-mini<\/code>/);
  assert.equal([...html.matchAll(/data-action="suggest"/g)].length, 3);
  assert.match(html, /data-action="resume" data-session="s1"/);
  assert.match(html, /3 turns · 5 min ago/);
  assert.deepEqual(unnamedButtons(html), []);
  assert.ok(!renderEmpty({ kind: "starting" }, []).includes("Answering"));
});

test("an OpenAI-compatible server without a key is said once, with a way to set one", () => {
  const html = renderStatus({ kind: "ready", provider: "openai", model: "llama", embedded: false, keyless: true });
  assert.match(html, /No key set for openai: requests go without Authorization/);
  assert.match(html, /data-action="dismissHint"/);
  assert.deepEqual(unnamedButtons(html), []);
});

test("a failed setup's banner says why and offers its one action, a command the host allows", () => {
  const cases = [
    ["pickInterpreter", "foehn.pickPython", "Pick a Python…"],
    ["openLog", "foehn.showLog", "Open the log"],
    ["retry", "foehn.restartServer", "Retry"],
  ] as const;
  for (const [action, command, label] of cases) {
    const html = renderStatus({ kind: "setupFailed", message: "Foehn needs Python 3.11", action });
    assert.match(html, /Foehn's server is not set up\.<\/strong> Foehn needs Python 3\.11/);
    assert.match(html, new RegExp(`data-command="${command}">${label}</button>`));
    assert.ok((STATUS_COMMANDS as readonly string[]).includes(command));
  }
  assert.match(renderStatus({ kind: "settingUp" }), /Setting up Foehn's server/);
});

test("the empty chat offers the offline model with its size, where a chat could use it", () => {
  const ready: ServerStatus = { kind: "ready", provider: "mistral", model: "m", embedded: false };
  assert.equal(OFFLINE_OFFER, "Use the offline model (1.1 GB)");
  assert.match(renderEmpty(ready, []), /data-command="foehn.useOfflineModel">Use the offline model \(1\.1 GB\)</);
  assert.match(renderEmpty({ kind: "noKey", provider: "mistral" }, []), /Use the offline model/);
  assert.doesNotMatch(renderEmpty({ ...ready, provider: "local", embedded: true }, []), /Use the offline model/);
  assert.ok((STATUS_COMMANDS as readonly string[]).includes("foehn.useOfflineModel"));
});

test("queued messages are listed in order, each removable by name; a turn's notice is shown", () => {
  assert.equal(renderQueued([]), "");
  const html = renderQueued([
    { id: "q1", text: "What next?", plan: false },
    { id: "q2", text: "<b>plan</b> it", plan: true },
  ]);
  assert.match(html, /Sent when the turn that is working ends/);
  assert.ok(html.indexOf("What next?") < html.indexOf("&lt;b&gt;plan"));
  assert.match(html, /Queued · Plan/);
  assert.match(html, /data-action="unqueue" data-id="q1" aria-label="Remove the queued message: What next\?">Remove</);
  assert.deepEqual(unnamedButtons(html), []);
  const turn = { ...newTurn("r", "Fix it"), status: "done" as const, notice: "Undo turn waits until the turn that is working ends: stop it, or wait." };
  assert.match(renderTurn(turn, { restorable: false }), /<p class="notice" role="status">Undo turn waits until/);
});

test("with no model yet, the banner offers a provider or the offline model", () => {
  const html = renderStatus({ kind: "noModel" });
  assert.match(html, /Choose a model\./);
  assert.match(html, /data-command="foehn.chooseProvider"/);
  assert.match(html, /data-command="foehn.useOfflineModel">Use the offline model \(1\.1 GB\)</);
});
