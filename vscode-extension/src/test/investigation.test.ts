import assert from "node:assert/strict";
import { test } from "node:test";
import { stringArg } from "../chat/commandline";
import { applyEvent, newTurn, type Turn } from "../chat/state";
import { renderTurn } from "../chat/view";

const QUESTION = "Where is <parse> defined?";

function investigating(): Turn {
  let turn = newTurn("r1", "Explain the parser");
  turn = applyEvent(turn, { event: "tool_call", id: "c1", tool: "investigate", arguments: { question: QUESTION }, risk: "read_only" });
  return turn;
}

function card(html: string): string {
  const [found] = html.match(/<div class="card[^"]*" data-card="c1">[\s\S]*?<\/details>/) ?? [];
  assert.ok(found, html);
  return found;
}

test("an investigation is one collapsible card: the question while it runs, then its summary and cited files", () => {
  const running = card(renderTurn(investigating(), { restorable: false }));
  assert.match(running, /<details data-details="c1"><summary><code>Where is &lt;parse&gt; defined\?<\/code><\/summary>/);
  assert.match(running, /running…/);
  assert.match(running, /<div class="question">Where is &lt;parse&gt; defined\?<\/div>/);
  assert.ok(!running.includes("Files cited"));

  const turn = applyEvent(investigating(), {
    event: "tool_result",
    id: "c1",
    tool: "investigate",
    ok: true,
    output: "In `src/parse.py`.\n\nFiles cited: src/parse.py, src/lex.py",
    data: { summary: "In `src/parse.py`, line 3; it calls `src/lex.py`.", files: ["src/parse.py", "src/lex.py"], reason: "answer", steps: 2, tokens: 300 },
  });
  const done = card(renderTurn(turn, { restorable: false }));
  assert.equal(done.match(/<details/g)?.length, 1);
  assert.match(done, /✓ done/);
  assert.match(done, /<div class="label">Summary · 2 tool rounds<\/div>/);
  assert.match(done, /<code>src\/parse.py<\/code>, line 3/);
  assert.match(done, /<ul class="cited"><li><code>src\/parse.py<\/code><\/li><li><code>src\/lex.py<\/code><\/li><\/ul>/);
  assert.ok(!done.includes('class="arguments"'), "the JSON is not repeated");
});

test("an investigation stopped at its limit says so, and a result without findings shows its output", () => {
  const limited = applyEvent(investigating(), {
    event: "tool_result",
    id: "c1",
    tool: "investigate",
    ok: true,
    output: "partial",
    data: { summary: "Partly: see a.py", files: [], reason: "max_iterations", steps: 8 },
  });
  const html = card(renderTurn(limited, { restorable: false }));
  assert.match(html, /Summary · 8 tool rounds · stopped: max iterations/);
  assert.ok(!html.includes("Files cited"));

  const plain = applyEvent(investigating(), { event: "tool_result", id: "c1", tool: "investigate", ok: false, output: "bad arguments: question" });
  const shown = card(renderTurn(plain, { restorable: false }));
  assert.match(shown, /✗ failed/);
  assert.match(shown, /<pre class="output">bad arguments: question<\/pre>/);
});

test("a call's string argument is read as such; anything else is absent", () => {
  assert.equal(stringArg({ question: QUESTION }, "question"), QUESTION);
  assert.equal(stringArg({ question: 3 }, "question"), undefined);
  assert.equal(stringArg({}, "question"), undefined);
  assert.equal(stringArg(null, "question"), undefined);
});
