import assert from "node:assert/strict";
import { test } from "node:test";
import { RunLog } from "../render";

test("a run's events become a Markdown log", () => {
  const log = new RunLog("r1", "fix the TODO");
  log.apply({ runId: "r1", event: "thinking", iteration: 0 });
  assert.equal(log.status, "Thinking…");
  log.apply({ runId: "r1", event: "tool_call", id: "c1", tool: "edit_file", arguments: { path: "a.py" }, risk: "write" });
  assert.equal(log.status, "Calling edit_file…");
  log.apply({ runId: "r1", event: "approval", id: "c1", tool: "edit_file", decision: "allow", reason: "approved once" });
  log.apply({ runId: "r1", event: "tool_result", id: "c1", tool: "edit_file", ok: true, output: "edit a.py (1 block)\n+x" });
  log.apply({ runId: "r1", event: "text", text: "Fixed " });
  log.apply({ runId: "r1", event: "text", text: "it." });
  assert.equal(log.answer, "Fixed it.");
  log.apply({ runId: "r1", event: "done", reason: "answer", answer: "Fixed it.", iterations: 1 });
  assert.ok(log.finished);
  const markdown = log.markdown();
  assert.match(markdown, /^# Foehn: fix the TODO/);
  assert.match(markdown, /_Finished: answer, 1 tool iterations\._/);
  assert.match(markdown, /## Answer\n\nFixed it\./);
  assert.match(markdown, /- `edit_file` \{"path":"a.py"\} — write — ✓ ok/);
  assert.match(markdown, / {4}edit a\.py \(1 block\)/);
});

test("denied calls say why, and long arguments are cut", () => {
  const log = new RunLog("r2", "x");
  log.apply({ runId: "r2", event: "tool_call", id: "c", tool: "write_file", arguments: { content: "y".repeat(500) }, risk: "write" });
  log.apply({ runId: "r2", event: "approval", id: "c", tool: "write_file", decision: "deny", reason: "dismissed" });
  log.apply({ runId: "r2", event: "tool_result", id: "c", tool: "write_file", ok: false, output: "denied" });
  const markdown = log.markdown();
  assert.match(markdown, /— write — ✗ failed \(denied: dismissed\)/);
  assert.ok(markdown.includes("…"));
  assert.ok(!markdown.includes("y".repeat(300)));
});

test("text streamed before a tool call is not the answer", () => {
  const log = new RunLog("r3", "x");
  log.apply({ runId: "r3", event: "text", text: "Let me look." });
  log.apply({ runId: "r3", event: "tool_call", id: "c", tool: "scan", arguments: {}, risk: "read_only" });
  assert.equal(log.answer, "");
});
