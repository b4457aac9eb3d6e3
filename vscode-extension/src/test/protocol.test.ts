import assert from "node:assert/strict";
import { test } from "node:test";
import { isCancellation, parseRunEvent, REQUEST_CANCELLED } from "../protocol";

test("every event the server sends parses to its typed form", () => {
  const events = [
    { event: "text", text: "Hi" },
    { event: "thinking", iteration: 1 },
    { event: "tool_call", id: "c1", tool: "edit_file", arguments: { path: "a.py" }, risk: "write", policy: "workspace-write" },
    { event: "approval", id: "c1", tool: "edit_file", decision: "allow", reason: "approved once" },
    { event: "tool_result", id: "c1", tool: "edit_file", ok: true, output: "edited", data: { diff: "-a\n+b" } },
    { event: "usage", input_tokens: 10, output_tokens: 5, total_tokens: 15, budget: 1000, window: 32000, context_tokens: 12 },
    { event: "turn", session: "s1", turn: 1 },
    { event: "files_changed", session: "s1", turn: 1, files: [{ path: "a.py", change: "modified" }] },
    { event: "compacted", before_tokens: 9000, after_tokens: 2000, summary: "older turns" },
    { event: "done", reason: "answer", answer: "Done.", iterations: 2 },
  ];
  for (const event of events) {
    const parsed = parseRunEvent({ runId: "r1", ...event });
    assert.deepEqual(parsed, { runId: "r1", ...event }, event.event);
  }
});

test("an approval without a reason gets an empty one", () => {
  const parsed = parseRunEvent({ runId: "r", event: "approval", id: "c", tool: "t", decision: "deny" });
  assert.equal(parsed?.event === "approval" && parsed.reason, "");
});

test("unknown events and wrong shapes are skipped, not misread", () => {
  assert.equal(parseRunEvent({ runId: "r", event: "brand_new", x: 1 }), undefined);
  assert.equal(parseRunEvent({ runId: "r", event: "toString" }), undefined);
  assert.equal(parseRunEvent({ event: "text", text: "no run id" }), undefined);
  assert.equal(parseRunEvent({ runId: "r", event: "text", text: 3 }), undefined);
  assert.equal(parseRunEvent({ runId: "r", event: "tool_call", id: "c", tool: "t", risk: "write" }), undefined);
  assert.equal(parseRunEvent({ runId: "r", event: "files_changed", session: "s", turn: 1, files: "a.py" }), undefined);
  assert.equal(parseRunEvent(null), undefined);
  assert.equal(parseRunEvent("text"), undefined);
});

test("cancellation is told by the error code, whatever the message says", () => {
  assert.equal(isCancellation({ code: REQUEST_CANCELLED, message: "anything" }), true);
  assert.equal(isCancellation({ code: -32603, message: "Request cancelled by the user" }), false);
  assert.equal(isCancellation(new Error("cancelled")), false);
  assert.equal(isCancellation(undefined), false);
});
