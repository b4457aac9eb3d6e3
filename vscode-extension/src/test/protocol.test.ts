import assert from "node:assert/strict";
import { test } from "node:test";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { COMMANDS, EVENT_KINDS, NOTIFICATIONS, REQUESTS, isCancellation, parseRunEvent, REQUEST_CANCELLED } from "../protocol";

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
    { event: "plan", status: "proposed", plan: "1. Edit a.py", steps: ["Edit a.py"], files: ["a.py"], reason: "" },
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

/** The server's schema of run events (server/foehn_lsp/schema/events-v1.json). */
function schemaKinds(): string[] {
  const file = path.resolve(__dirname, "..", "..", "..", "server", "foehn_lsp", "schema", "events-v1.json");
  const schema = JSON.parse(readFileSync(file, "utf8")) as { $defs: Record<string, { properties?: { event?: { const?: string } } }> };
  return Object.values(schema.$defs)
    .map((definition) => definition.properties?.event?.const)
    .filter((kind): kind is string => typeof kind === "string")
    .sort();
}

test("the client knows every kind of run event the server's schema has, and no other", () => {
  const kinds = schemaKinds();
  assert.ok(kinds.length >= 13, `the schema lists ${kinds.length} kinds`);
  assert.deepEqual([...EVENT_KINDS].sort(), kinds);
});

test("a plan event parses; one without its steps is skipped, not misread", () => {
  const plan = { runId: "r", event: "plan", status: "approved", plan: "p", steps: ["a"], files: [] };
  assert.deepEqual(parseRunEvent(plan), plan);
  assert.equal(parseRunEvent({ ...plan, steps: "a" }), undefined);
});

test("every wire name is declared once, in the protocol table", () => {
  const names = [
    ...Object.values(COMMANDS).map((c) => c.command),
    ...Object.values(REQUESTS).map((r) => r.method),
    ...Object.values(NOTIFICATIONS).map((n) => n.method),
  ];
  assert.equal(new Set(names).size, names.length);
  for (const name of names) {
    assert.match(name, /^foehn[./][A-Za-z.]+$/);
  }
});
