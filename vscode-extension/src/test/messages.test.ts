import assert from "node:assert/strict";
import { test } from "node:test";
import { parseViewMessage } from "../chat/messages";
import { describeSession, personText, turnsOf, undoneTurns } from "../savedSessions";

test("the host accepts only well-formed messages from the webview", () => {
  assert.deepEqual(parseViewMessage({ type: "ask", text: "hi" }), { type: "ask", text: "hi" });
  assert.deepEqual(parseViewMessage({ type: "approve", key: "r/1", decision: "deny", message: "no" }), {
    type: "approve",
    key: "r/1",
    decision: "deny",
    message: "no",
  });
  assert.equal(parseViewMessage({ type: "approve", key: "r/1", decision: "allowEverything" }), undefined);
  assert.equal(parseViewMessage({ type: "ask" }), undefined);
  assert.equal(parseViewMessage({ type: "undo", runId: 3 }), undefined);
  assert.equal(parseViewMessage({ type: "command", command: "workbench.action.terminal.sendSequence" }), undefined);
  assert.deepEqual(parseViewMessage({ type: "command", command: "foehn.setApiKey" }), { type: "command", command: "foehn.setApiKey" });
  assert.equal(parseViewMessage("ask"), undefined);
  assert.equal(parseViewMessage({ type: "eval" }), undefined);
});

test("a saved session's turns come back as finished turns; undo records mark what they undid", () => {
  const turns = turnsOf({
    id: "s1",
    title: "Fix",
    turns: [
      { index: 1, task: "Fix it", reason: "answer", answer: "Fixed.", iterations: 2, files: [{ path: "a.py", change: "modified" }] },
      { index: 2, task: "Rename it", reason: "answer", answer: "Renamed.", iterations: 1, files: [{ path: "a.py", change: "modified" }] },
      { index: 3, task: "undo", reason: "answer", answer: "", iterations: 0, files: [], undoOf: [2] },
    ],
  });
  assert.deepEqual(turns.map((t) => [t.index, t.task, t.undone]), [[1, "Fix it", false], [2, "Rename it", true]]);
  assert.deepEqual(turns[0]!.blocks, [{ kind: "text", text: "Fixed." }]);
  assert.equal(turns[1]!.files[0]!.state, "undone");
});

test("the history picker says how many turns and how long ago", () => {
  const now = Date.UTC(2026, 0, 1, 12);
  assert.equal(describeSession({ id: "s", title: "t", turns: 1, updated: now / 1000 - 300 }, now), "1 turn · 5 min ago");
  assert.equal(describeSession({ id: "s", title: "t", turns: 3, updated: now / 1000 - 7200 }, now), "3 turns · 2 h ago");
});

test("a resumed turn shows the person's words; the context the server added becomes a chip", () => {
  assert.deepEqual(personText("Explain it.\n\n[Foehn] The person undid turn 2: a.py put back.\n\nThe person is looking at a.py."), {
    text: "Explain it.",
    withContext: true,
  });
  assert.deepEqual(personText("First paragraph.\n\nSecond paragraph."), { text: "First paragraph.\n\nSecond paragraph.", withContext: false });
  assert.deepEqual(personText("compare @a.py\n\nThe person mentioned @a.py:\n```\nx\n```"), { text: "compare @a.py", withContext: true });
});

test("a resumed turn shows its tool calls and results when the saved messages line up", () => {
  const [turn] = turnsOf({
    id: "s1",
    title: "Fix",
    turns: [{ index: 1, task: "Fix it", reason: "answer", answer: "Fixed.", iterations: 1, files: [] }],
    messages: [
      { role: "system", content: "rules" },
      { role: "user", content: "Fix it" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "edit_file", arguments: '{"path": "a.py"}' }] },
      { role: "tool", call_id: "c1", name: "edit_file", content: "edited a.py" },
      { role: "assistant", content: "Fixed." },
    ],
  });
  assert.deepEqual(turn!.blocks, [
    { kind: "tool", card: { id: "c1", tool: "edit_file", arguments: { path: "a.py" }, risk: "", ok: true, output: "edited a.py" } },
    { kind: "text", text: "Fixed." },
  ]);
});

test("after a compaction the messages do not line up, and the answers are shown", () => {
  const turns = turnsOf({
    id: "s1",
    title: "Fix",
    turns: [
      { index: 1, task: "a", reason: "answer", answer: "A.", iterations: 0, files: [] },
      { index: 2, task: "b", reason: "answer", answer: "B.", iterations: 0, files: [] },
    ],
    messages: [
      { role: "user", content: "[summary of earlier turns]" },
      { role: "user", content: "b" },
      { role: "assistant", content: "B." },
      { role: "user", content: "extra" },
    ],
  });
  assert.deepEqual(turns.map((t) => t.blocks), [[{ kind: "text", text: "A." }], [{ kind: "text", text: "B." }]]);
});

test("the new actions of the view are accepted only well formed", () => {
  assert.ok(parseViewMessage({ type: "copy", text: "x", token: "copy-1" }));
  assert.equal(parseViewMessage({ type: "copy", text: "x" }), undefined);
  assert.ok(parseViewMessage({ type: "apply", text: "x", path: "app.py" }));
  assert.equal(parseViewMessage({ type: "apply", text: "x", path: 3 }), undefined);
  assert.ok(parseViewMessage({ type: "runInTerminal", text: "ls" }));
  assert.ok(parseViewMessage({ type: "retry", runId: "r1" }));
  assert.ok(parseViewMessage({ type: "openSettings", query: "foehn.baseUrl" }));
  assert.equal(parseViewMessage({ type: "openSettings", query: "terminal.integrated.shell" }), undefined);
  assert.ok(parseViewMessage({ type: "resume", session: "s1" }));
  assert.equal(parseViewMessage({ type: "dismissHint", hint: "everything" }), undefined);
});

test("undo, restore and redo records say which asked turns are undone", () => {
  const asked = [{ index: 1 }, { index: 2 }];
  // Restore to turn 1 undid turn 2 (turn 3); nothing else.
  assert.deepEqual([...undoneTurns([...asked, { index: 3, undoOf: [2] }])], [2]);
  // Redo: turn 4 undid the restore, so turn 2 counts again.
  const redone = [...asked, { index: 3, undoOf: [2] }, { index: 4, undoOf: [3] }];
  assert.deepEqual([...undoneTurns(redone)], []);
  // Undo turn 2 after that: the redo is undone too, and turn 2 again.
  assert.deepEqual([...undoneTurns([...redone, { index: 5, undoOf: [2, 3, 4] }])], [2]);
  // A turn asked after an undo is not undone by it.
  assert.deepEqual([...undoneTurns([...asked, { index: 3, undoOf: [2] }, { index: 4 }])].sort(), [2]);
  const session = turnsOf({
    id: "s",
    title: "t",
    turns: [
      { index: 1, task: "a", reason: "answer", answer: "", iterations: 0, files: [{ path: "a.py", change: "modified" }] },
      { index: 2, task: "b", reason: "answer", answer: "", iterations: 0, files: [{ path: "a.py", change: "modified" }] },
      { index: 3, task: "undo turn 2", reason: "answer", answer: "", iterations: 0, files: [], undoOf: [2] },
      { index: 4, task: "undo turn 3", reason: "answer", answer: "", iterations: 0, files: [], undoOf: [3] },
    ],
  });
  assert.deepEqual(session.map((t) => [t.index, t.undone]), [[1, false], [2, false]]);
});

test("a saved turn that failed comes back as a failure, not as an answer", () => {
  const [turn] = turnsOf({
    id: "s",
    title: "t",
    turns: [{ index: 1, task: "hi", reason: "error", answer: "rejected the API key (401)", iterations: 0, files: [] }],
  });
  assert.deepEqual(turn!.blocks, []);
  assert.deepEqual(turn!.failure, { kind: "saved", message: "rejected the API key (401)" });
});

test("an undo of one file leaves its turn in effect, and that file shows undone", () => {
  const turns = [
    { index: 1, task: "write two", reason: "answer" as const, answer: "ok", iterations: 1, files: [{ path: "a.md", change: "created" as const }, { path: "b.md", change: "created" as const }] },
    { index: 2, task: "undo a.md", reason: "answer" as const, answer: "", iterations: 0, files: [], undoOf: [1], paths: ["a.md"] },
  ];
  assert.deepEqual([...undoneTurns(turns)], []);
  const [turn] = turnsOf({ id: "s", title: "t", turns });
  assert.equal(turn!.undone, false);
  assert.deepEqual(turn!.files.map((f) => [f.path, f.state]), [["a.md", "undone"], ["b.md", "kept"]]);
});
