import assert from "node:assert/strict";
import { test } from "node:test";
import { ContextChips, MAX_MENTION_CHARS, mentionContext, mentionsIn, rankFiles } from "../chat/context";

const selection = { start: { line: 2, character: 0 }, end: { line: 5, character: 0 } };

test("the active file and selection are chips; removed chips are not sent", () => {
  const chips = new ContextChips();
  assert.equal(chips.track({ path: "src/app.py", uri: "file:///w/src/app.py", selection }), true);
  assert.deepEqual(chips.chips().map((c) => c.label), ["src/app.py", "src/app.py:3-5"]);
  assert.deepEqual(chips.arguments(), { uri: "file:///w/src/app.py", range: selection, labels: ["src/app.py", "src/app.py:3-5"] });
  chips.remove("selection");
  assert.deepEqual(chips.arguments(), { uri: "file:///w/src/app.py", labels: ["src/app.py"] });
  chips.remove("file");
  assert.deepEqual(chips.arguments(), { labels: [] });
});

test("a new selection brings its chip back; another file brings both", () => {
  const chips = new ContextChips();
  chips.track({ path: "a.py", uri: "file:///w/a.py", selection });
  chips.remove("selection");
  chips.track({ path: "a.py", uri: "file:///w/a.py", selection: { ...selection, end: { line: 7, character: 3 } } });
  assert.deepEqual(chips.chips().map((c) => c.id), ["file", "selection"]);
  chips.remove("file");
  assert.equal(chips.track({ path: "a.py", uri: "file:///w/a.py" }), false);
  assert.equal(chips.track({ path: "b.py", uri: "file:///w/b.py" }), true);
  assert.deepEqual(chips.chips().map((c) => c.label), ["b.py"]);
});

test("@mentions are paths, in order, once; e-mail addresses are not mentions", () => {
  assert.deepEqual(mentionsIn("compare @src/a.py with @b.md, then @src/a.py again; mail x@y.org"), ["src/a.py", "b.md"]);
  assert.deepEqual(mentionsIn("@README.md."), ["README.md"]);
});

test("mentioned files go to the model with their text, cut at a limit", () => {
  const text = mentionContext([{ path: "a.py", text: "x = 1" }, { path: "big.txt", text: "y".repeat(MAX_MENTION_CHARS + 10) }]);
  assert.match(text, /The person mentioned @a.py:\n```\nx = 1\n```/);
  assert.match(text, /cut at 40000 characters/);
});

test("completion puts name matches before path matches, shorter first", () => {
  const files = ["src/app.py", "tests/test_app.py", "docs/application.md", "lib/mapper.py", "README.md"];
  assert.deepEqual(rankFiles(files, "app"), ["src/app.py", "docs/application.md", "lib/mapper.py", "tests/test_app.py"]);
  assert.deepEqual(rankFiles(files, "src/"), ["src/app.py"]);
  assert.deepEqual(rankFiles(files, "", 2), ["README.md", "src/app.py"]);
});
