import assert from "node:assert/strict";
import { test } from "node:test";
import { renderInline, renderMarkdown } from "../chat/markdown";

test("the model's HTML is shown as text, never as markup", () => {
  const html = renderMarkdown('<script>alert(1)</script> <img src="https://x/y.png" onerror=alert(1)>');
  assert.ok(!html.includes("<script"));
  assert.ok(!html.includes("<img"));
  assert.match(html, /&lt;script&gt;/);
});

test("links go only to http(s), and carry no script", () => {
  assert.equal(renderInline("[docs](https://example.org/a?b=1&c=2)"), '<a href="https://example.org/a?b=1&amp;c=2" title="https://example.org/a?b=1&amp;c=2">docs</a>');
  assert.equal(renderInline("[x](javascript:alert(1))"), "[x](javascript:alert(1))");
  assert.ok(!renderInline('[x](https://a.org/"onmouseover="alert(1))').includes('"onmouseover'));
});

test("inline code keeps its text literally, emphasis and bold inside text", () => {
  assert.equal(renderInline("use `a < b` and **bold** and *em*"), "use <code>a &lt; b</code> and <strong>bold</strong> and <em>em</em>");
  assert.equal(renderInline("`**not bold**`"), "<code>**not bold**</code>");
  assert.equal(renderInline("snake_case_name stays"), "snake_case_name stays");
});

test("fenced code becomes a block with Copy and Insert buttons", () => {
  const html = renderMarkdown("Here:\n```python\ndef f():\n    return 1 < 2\n```\nDone.");
  assert.match(html, /<p>Here:<\/p>/);
  assert.match(html, /<pre><code>def f\(\):\n    return 1 &lt; 2<\/code><\/pre>/);
  assert.match(html, /data-action="copy" aria-label="Copy python"/);
  assert.match(html, /data-action="insert"/);
  assert.match(html, /<p>Done\.<\/p>/);
});

test("a fence still streaming is a code block so far", () => {
  const html = renderMarkdown("```js\nconst a = 1;");
  assert.match(html, /<pre><code>const a = 1;<\/code><\/pre>/);
});

test("headings, lists, quotes and rules", () => {
  const html = renderMarkdown("# Title\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\n---");
  assert.match(html, /<h3>Title<\/h3>/);
  assert.match(html, /<ul><li>one<\/li><li>two<\/li><\/ul>/);
  assert.match(html, /<ol><li>first<\/li><li>second<\/li><\/ol>/);
  assert.match(html, /<blockquote><p>quoted<\/p><\/blockquote>/);
  assert.match(html, /<hr>/);
});

test("a table with a header row", () => {
  const html = renderMarkdown("| file | change |\n|---|:---:|\n| `a.py` | <b> |\n\nafter");
  assert.match(html, /<table><thead><tr><th>file<\/th><th>change<\/th><\/tr><\/thead><tbody><tr><td><code>a.py<\/code><\/td><td>&lt;b&gt;<\/td><\/tr><\/tbody><\/table>/);
  assert.match(html, /<p>after<\/p>/);
  assert.match(renderMarkdown("| not a table |"), /<p>\| not a table \|<\/p>/);
});
