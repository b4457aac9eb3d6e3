import assert from "node:assert/strict";
import { test } from "node:test";
import { applyEvent, newTurn } from "../chat/state";
import { MAX_PROBLEMS_SHOWN, renderTurn } from "../chat/view";
import { type CheckedProblem, parseRunEvent } from "../protocol";

// server/foehn_lsp/events.py's Checked: {"event": "checked", "problems": [{path, line, message, source}], "skipped": [...]}
const problems: CheckedProblem[] = [
  { path: "app.py", line: 3, message: 'Argument of type "str" cannot be assigned to <int>', source: "Pylance" },
  { path: "lib/util.py", line: 12, message: "undefined name 'x'", source: "ruff" },
];

test("a checked event of the server's shape is read; one with a bad problem is skipped, not misread", () => {
  assert.deepEqual(parseRunEvent({ runId: "r", event: "checked", problems, skipped: [] }), { runId: "r", event: "checked", problems, skipped: [] });
  const bad = [
    { problems: [{ ...problems[0], line: "3" }], skipped: [] },
    { problems: [{ path: "a.py", line: 1, message: "m" }], skipped: [] },
    { problems: [null], skipped: [] },
    { problems, skipped: [1] },
    { problems },
    { problems: "app.py:3: bad", skipped: [] },
  ];
  for (const fields of bad) {
    assert.equal(parseRunEvent({ runId: "r", event: "checked", ...fields }), undefined, JSON.stringify(fields));
  }
});

test("the turn shows the new problems in the terminal's words, each as file:line: message", () => {
  let turn = newTurn("r1", "Make total an int");
  turn = applyEvent(turn, { event: "text", text: "Editing." });
  turn = applyEvent(turn, { event: "checked", problems, skipped: ["mypy skipped: not found"] });
  turn = applyEvent(turn, { event: "text", text: "Fixed the call." });
  assert.deepEqual(turn.blocks.map((b) => b.kind), ["text", "checks", "text"]);
  const html = renderTurn(turn, { restorable: false });
  assert.match(html, /checks: 2 new problems/);
  assert.match(html, /<code>app\.py:3<\/code>: Argument of type &quot;str&quot; cannot be assigned to &lt;int&gt;/);
  assert.match(html, /<code>lib\/util\.py:12<\/code>: undefined name &#39;x&#39; <span class="source">\(ruff\)<\/span>/);
  assert.match(html, /checks: mypy skipped: not found/);
  assert.ok(html.indexOf("checks: 2") > html.indexOf("Editing.") && html.indexOf("checks: 2") < html.indexOf("Fixed the call."));
});

test("one problem is singular; many are cut to the terminal's count; a check with nothing to say shows nothing", () => {
  const one = applyEvent(newTurn("r1", "t"), { event: "checked", problems: problems.slice(0, 1), skipped: [] });
  assert.match(renderTurn(one, { restorable: false }), /checks: 1 new problem</);
  const many = Array.from({ length: MAX_PROBLEMS_SHOWN + 3 }, (_, i) => ({ ...problems[1]!, line: i + 1 }));
  const html = renderTurn(applyEvent(newTurn("r1", "t"), { event: "checked", problems: many, skipped: [] }), { restorable: false });
  assert.match(html, /checks: 13 new problems/);
  assert.equal(html.match(/<code>lib\/util\.py:\d+<\/code>/g)?.length, MAX_PROBLEMS_SHOWN);
  assert.match(html, /… and 3 more/);
  const quiet = newTurn("r1", "t");
  assert.equal(applyEvent(quiet, { event: "checked", problems: [], skipped: [] }), quiet);
});
