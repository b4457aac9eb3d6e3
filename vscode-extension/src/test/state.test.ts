import assert from "node:assert/strict";
import { test } from "node:test";
import {
  answered,
  applyEvent,
  askInline,
  canRestore,
  failed,
  markFiles,
  meterFrom,
  meterText,
  newTurn,
  noticeEditorText,
  type Turn,
  withUndone,
} from "../chat/state";
import type { RunEvent } from "../protocol";

function play(events: RunEvent[], turn: Turn = newTurn("r1", "Fix it", ["app.py"])): Turn {
  return events.reduce(applyEvent, turn);
}

test("streamed text joins into one block until a tool call splits it", () => {
  const turn = play([
    { event: "text", text: "Let me " },
    { event: "text", text: "look." },
    { event: "tool_call", id: "c1", tool: "read_file", arguments: { path: "app.py" }, risk: "read_only" },
    { event: "approval", id: "c1", tool: "read_file", decision: "allow", reason: "policy" },
    { event: "tool_result", id: "c1", tool: "read_file", ok: true, output: "x = 1" },
    { event: "text", text: "It sets x." },
    { event: "done", reason: "answer", answer: "It sets x.", iterations: 1 },
  ]);
  assert.deepEqual(
    turn.blocks.map((b) => (b.kind === "text" ? b.text : b.kind === "tool" ? b.card.tool : b.kind)),
    ["Let me look.", "read_file", "It sets x."],
  );
  const card = turn.blocks[1]!.kind === "tool" ? turn.blocks[1]!.card : undefined;
  assert.equal(card?.ok, true);
  assert.equal(card?.decision, "allow");
  assert.equal(turn.status, "done");
  assert.equal(turn.stop, "answer");
});

test("an answer that did not stream is shown from done", () => {
  const turn = play([{ event: "done", reason: "answer", answer: "Short answer.", iterations: 0 }]);
  assert.deepEqual(turn.blocks, [{ kind: "text", text: "Short answer." }]);
});

test("applying an event returns a new turn and leaves the old one alone", () => {
  const before = newTurn("r", "t");
  const after = applyEvent(before, { event: "text", text: "a" });
  assert.equal(before.blocks.length, 0);
  assert.notEqual(before, after);
  assert.equal(applyEvent(after, { event: "thinking", iteration: 1 }), after);
});

test("the turn event gives the index; files_changed the review list", () => {
  const turn = play([
    { event: "turn", session: "s", turn: 2 },
    { event: "files_changed", session: "s", turn: 2, files: [{ path: "a.py", change: "modified" }, { path: "b.py", change: "created" }] },
  ]);
  assert.equal(turn.index, 2);
  assert.deepEqual(turn.files.map((f) => [f.path, f.state]), [["a.py", "changed"], ["b.py", "changed"]]);
  const kept = markFiles(turn, ["a.py"], "kept");
  assert.deepEqual(kept.files.map((f) => f.state), ["kept", "changed"]);
  assert.ok(!kept.undone);
  const undone = markFiles(turn, "all", "undone");
  assert.equal(undone.undone, true);
});

test("an inline question attaches to its call's card and goes when answered or decided", () => {
  let turn = play([{ event: "tool_call", id: "c1", tool: "edit_file", arguments: { path: "a.py" }, risk: "write" }]);
  turn = askInline(turn, "r1/1", {
    runId: "r1",
    tool: "edit_file",
    arguments: { path: "a.py" },
    risk: "write",
    preview: { summary: "edit a.py (1 block)", diff: "-1\n+2", files: [{ uri: "file:///w/a.py", before: "1", after: "2" }] },
    remember: "edit_file on a.py",
  });
  const card = () => (turn.blocks[0]!.kind === "tool" ? turn.blocks[0]!.card : undefined);
  assert.equal(turn.blocks.length, 1);
  assert.equal(card()?.approval?.remember, "edit_file on a.py, until this run ends");
  assert.equal(card()?.approval?.diff, "-1\n+2");
  turn = answered(turn, "r1/1");
  assert.equal(card()?.approval, undefined);
  turn = askInline(turn, "r1/2", { runId: "r1", tool: "edit_file", arguments: {}, risk: "write" });
  assert.equal(card()?.approval?.remember, "edit_file calls, at risk write, until this run ends");
  turn = applyEvent(turn, { event: "approval", id: "c1", tool: "edit_file", decision: "deny", reason: "no" });
  assert.equal(card()?.approval, undefined);
  assert.equal(card()?.decision, "deny");
});

test("a question about a call the chat has no card for gets its own card", () => {
  const turn = askInline(newTurn("r", "t"), "r/1", { runId: "r", tool: "write_file", arguments: { path: "n.py" }, risk: "write" });
  assert.equal(turn.blocks.length, 1);
  assert.equal(turn.blocks[0]!.kind === "tool" && turn.blocks[0]!.card.tool, "write_file");
});

test("a failed request ends the turn with its message and closes open questions", () => {
  let turn = askInline(newTurn("r", "t"), "r/1", { runId: "r", tool: "write_file", arguments: {}, risk: "write" });
  turn = failed(turn, { kind: "server", message: "Client is not running" });
  assert.equal(turn.status, "done");
  assert.equal(turn.stop, "error");
  assert.deepEqual(turn.failure, { kind: "server", message: "Client is not running" });
  assert.equal(turn.blocks[0]!.kind === "tool" && turn.blocks[0]!.card.approval, undefined);
});

test("the meter shows the context in use against the window, and the cost when known", () => {
  let meter = meterFrom(undefined, { event: "usage", input_tokens: 1200, output_tokens: 300, total_tokens: 1500, budget: 1e6, window: 32768, context_tokens: 1400 });
  assert.equal(meterText(meter), "1.4k / 33k tokens");
  meter = meterFrom(meter, { event: "usage", input_tokens: 5, output_tokens: 5, total_tokens: 10, budget: 1e6, cost: 0.0123 });
  assert.equal(meterText(meter), "10 / 33k tokens · $0.012");
  assert.equal(meterText(undefined), "");
  assert.equal(meterFrom(meter, { event: "text", text: "x" }), meter);
});

test("a model without a price shows no cost, not $0.000", () => {
  assert.equal(meterText({ used: 1400, window: 8192, cost: 0 }), "1.4k / 8.2k tokens");
  assert.equal(meterText({ used: 10, cost: 0.0002 }), "10 tokens · < $0.001");
});

test("a failed turn keeps the server's message off the answer and on its failure", () => {
  const turn = play([
    { event: "text", text: "Let me look." },
    { event: "done", reason: "error", answer: "the OpenAI-compatible server rejected the API key (401)", iterations: 0, error: "auth" },
  ]);
  assert.deepEqual(
    turn.blocks.map((b) => b.kind === "text" && b.text),
    ["Let me look."],
  );
  assert.deepEqual(turn.failure, { kind: "auth", message: "the OpenAI-compatible server rejected the API key (401)" });
  const old = play([{ event: "done", reason: "error", answer: "boom", iterations: 0 }]);
  assert.equal(old.failure?.kind, "internal");
});

function changed(runId: string, index: number, files: string[] = ["app.py"]): Turn {
  return { ...newTurn(runId, "t"), index, status: "done", files: files.map((path) => ({ path, change: "modified", state: "changed" })) };
}

test("Ctrl+Z in the editor back to the text before the turn shows in the review, and redo undoes that", () => {
  let turn = changed("r1", 1);
  turn = noticeEditorText(turn, "app.py", "before\n", "before\n");
  assert.equal(turn.files[0]!.state, "reverted");
  assert.equal(noticeEditorText(turn, "app.py", "before\n", "before\n"), turn);
  turn = noticeEditorText(turn, "app.py", "after\n", "before\n");
  assert.equal(turn.files[0]!.state, "changed");
  assert.equal(noticeEditorText(turn, "other.py", "x", "y"), turn);
  // A kept file is the person's decision: an edit does not change it.
  const kept = markFiles(changed("r2", 2), "all", "kept");
  assert.equal(noticeEditorText(kept, "app.py", "b", "b").files[0]!.state, "kept");
});

test("Restore to here is offered only under a turn that changed files with changed files after it", () => {
  const asked = { ...newTurn("r2", "just asking"), index: 2, status: "done" as const };
  const turns = [changed("r1", 1), asked, changed("r3", 3), { ...newTurn("r4", "q"), index: 4, status: "done" as const }];
  assert.deepEqual(turns.map((_, i) => canRestore(turns, i)), [true, false, false, false]);
  const undoneLater = [changed("r1", 1), withUndone(changed("r3", 3), true)];
  assert.equal(canRestore(undoneLater, 0), false);
});

test("a turn a redo brings back is changed again", () => {
  const undone = withUndone(changed("r1", 1), true);
  assert.deepEqual([undone.undone, undone.files[0]!.state], [true, "undone"]);
  const back = withUndone(undone, false);
  assert.deepEqual([back.undone, back.files[0]!.state], [false, "changed"]);
});
