import assert from "node:assert/strict";
import { test } from "node:test";
import { parseViewMessage } from "../chat/messages";
import { answered, applyEvent, askInline, newTurn, planSteps } from "../chat/state";
import { cardSummary, renderTodo, renderTurn } from "../chat/view";
import { type ConfirmParams, type TodoItem, parseRunEvent } from "../protocol";

// DESIGN.md's pinned event: {"event": "todo", "items": [{id, text, status}]}, the whole list.
const items: TodoItem[] = [
  { id: "1", text: "Read `app.py`", status: "done" },
  { id: "2", text: "Fix main <now>", status: "in_progress" },
  { id: "3", text: "Run the tests", status: "pending" },
];

test("a todo event of the pinned shape is read; one with a bad item is skipped, not misread", () => {
  const event = parseRunEvent({ runId: "r", event: "todo", items });
  assert.deepEqual(event, { runId: "r", event: "todo", items });
  assert.equal(parseRunEvent({ runId: "r", event: "todo", items: [{ id: "1", text: "x", status: "started" }] }), undefined);
  assert.equal(parseRunEvent({ runId: "r", event: "todo", items: [{ id: 1, text: "x", status: "done" }] }), undefined);
  assert.equal(parseRunEvent({ runId: "r", event: "todo", items: [null] }), undefined);
  assert.equal(parseRunEvent({ runId: "r", event: "todo", items: "1. read" }), undefined);
  assert.deepEqual(parseRunEvent({ runId: "r", event: "todo", items: [] }), { runId: "r", event: "todo", items: [] });
});

test("each todo event replaces the list; the turn shows it as a checklist above the answer", () => {
  let turn = newTurn("r1", "Fix it");
  turn = applyEvent(turn, { event: "todo", items: items.map((i) => ({ ...i, status: "pending" as const })) });
  turn = applyEvent(turn, { event: "text", text: "Working on it." });
  turn = applyEvent(turn, { event: "todo", items });
  assert.deepEqual(turn.todo, items);
  const html = renderTurn(turn, { restorable: false });
  assert.ok(html.indexOf('class="todo"') < html.indexOf("Working on it."));
  assert.match(html, /Tasks \(1 of 3 done\)/);
  assert.match(html, /<li class="todo-done"><span class="mark" aria-hidden="true">✓<\/span><span class="text">Read <code>app.py<\/code><\/span><span class="visually-hidden"> \(done\)<\/span><\/li>/);
  assert.match(html, /<li class="todo-in_progress">.*Fix main &lt;now&gt;.*\(in progress\)/);
  assert.match(html, /<li class="todo-pending">.*Run the tests.*\(to do\)/);
  // An empty list shows nothing; a turn without one neither.
  assert.ok(!renderTurn(applyEvent(turn, { event: "todo", items: [] }), { restorable: false }).includes('class="todo"'));
  assert.ok(!renderTurn(newTurn("r2", "x"), { restorable: false }).includes('class="todo"'));
  assert.match(renderTodo([{ id: "a", text: "only", status: "pending" }]), /Tasks \(0 of 1 done\)/);
});

test("the mode picker's Plan goes with the question; nothing else passes as a mode", () => {
  assert.deepEqual(parseViewMessage({ type: "ask", text: "x", mode: "plan" }), { type: "ask", text: "x", mode: "plan" });
  assert.deepEqual(parseViewMessage({ type: "ask", text: "x" }), { type: "ask", text: "x" });
  assert.equal(parseViewMessage({ type: "ask", text: "x", mode: "act" }), undefined);
  assert.equal(parseViewMessage({ type: "ask", text: "x", mode: "yolo" }), undefined);
  const turn = { ...newTurn("r1", "Plan the fix"), plan: true };
  assert.match(renderTurn(turn, { restorable: false }), /You <span class="badge mode">Plan<\/span>/);
  assert.ok(!renderTurn(newTurn("r1", "x"), { restorable: false }).includes("badge mode"));
});

// The planning branch's foehn/confirm for plan mode's plan: the tool `plan`, its steps.
const plan: ConfirmParams = {
  runId: "r1",
  callId: "plan-1",
  tool: "plan",
  arguments: { plan: "1. Edit app.py", steps: ["Edit `app.py` to return 2.", "Run the tests."], files: ["app.py"] },
  risk: "write",
  program: null,
  sandbox: null,
  remember: "",
};

test("plan mode's plan is asked as a plan: its steps, Approve plan or Reject with a message", () => {
  assert.deepEqual(planSteps(plan), ["Edit `app.py` to return 2.", "Run the tests."]);
  assert.equal(planSteps({ ...plan, tool: "edit_file" }), undefined);
  assert.equal(planSteps({ ...plan, arguments: { steps: [1, 2] } }), undefined);
  const turn = askInline(newTurn("r1", "Make main return 2"), "r1/1", plan, plan.callId);
  const html = renderTurn(turn, { restorable: false });
  assert.match(html, /Carry out this plan\?/);
  assert.match(html, /<ol class="plan"><li>Edit <code>app.py<\/code> to return 2.<\/li><li>Run the tests.<\/li><\/ol>/);
  assert.match(html, /data-decision="allow" data-key="r1\/1">Approve plan</);
  assert.match(html, /data-decision="deny" data-key="r1\/1">Reject</);
  assert.ok(!html.includes("allowRun"));
  assert.ok(!html.includes("Always allow"));
  assert.equal(cardSummary({ tool: "plan", arguments: plan.arguments }), "2 steps");
  assert.equal(cardSummary({ tool: "plan", arguments: { steps: ["one"] } }), "1 step");
  assert.equal(cardSummary({ tool: "todo", arguments: { items } }), "3 tasks");
});

test("a plan's answer is its card's outcome", () => {
  const asked = askInline(newTurn("r1", "x"), "r1/1", plan, plan.callId);
  const card = (t: typeof asked) => t.blocks.flatMap((b) => (b.kind === "tool" ? [b.card] : []))[0]!;
  const approved = card(answered(asked, "r1/1", "allow"));
  assert.equal(approved.decision, "allow");
  assert.equal(approved.ok, true);
  const rejected = card(answered(asked, "r1/1", "deny"));
  assert.equal(rejected.decision, "deny");
  assert.equal(rejected.reason, "you rejected the plan");
  assert.match(renderTurn(answered(asked, "r1/1", "deny"), { restorable: false }), /class="outcome denied"/);
});
