import assert from "node:assert/strict";
import { test } from "node:test";
import { askInline, applyEvent, newTurn, type Turn } from "../chat/state";
import { renderStatus, renderTurn } from "../chat/view";
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
  const html = renderTurn(busyTurn(), { last: true });
  assert.match(html, /Fix &lt;b&gt;it&lt;\/b&gt;/);
  assert.match(html, /<span class="chip">app.py:1-2<\/span>/);
  assert.match(html, /<span class="d-del">-x = 1<\/span>/);
  assert.match(html, /<span class="d-add">\+x = 2<\/span>/);
  assert.match(html, /data-decision="allow" data-key="r1\/1">Allow</);
  assert.match(html, /data-decision="allowRun"[^>]*>Allow for this turn</);
  assert.match(html, /remembers: edit_file on app.py, until this turn ends/);
  assert.match(html, /data-decision="deny"[^>]*>Deny</);
  assert.match(html, /data-action="openDiff"/);
  assert.match(html, /aria-label="Message to the model if you deny \(optional\)"/);
  assert.deepEqual(unnamedButtons(html), []);
});

test("a finished turn shows its stop reason, its changed files with Keep and Undo, and Restore when not last", () => {
  let turn = busyTurn();
  turn = applyEvent(turn, { event: "approval", id: "c1", tool: "edit_file", decision: "allow", reason: "approved once" });
  turn = applyEvent(turn, { event: "tool_result", id: "c1", tool: "edit_file", ok: true, output: "edited app.py" });
  turn = applyEvent(turn, { event: "files_changed", session: "s", turn: 1, files: [{ path: "app.py", change: "modified" }] });
  turn = applyEvent(turn, { event: "done", reason: "max_iterations", answer: "", iterations: 3 });
  const last = renderTurn(turn, { last: true });
  assert.match(last, /Stopped: too many tool rounds · 3 tool rounds/);
  assert.match(last, /aria-label="Keep app.py"/);
  assert.match(last, /aria-label="Undo app.py"/);
  assert.match(last, />Undo turn</);
  assert.ok(!last.includes("Restore to here"));
  assert.ok(!last.includes('class="approval"'));
  const earlier = renderTurn(turn, { last: false });
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
