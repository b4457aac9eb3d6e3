import assert from "node:assert/strict";
import { test } from "node:test";
import { commandLines, commandOf, shellQuote } from "../chat/commandline";
import { fenceInfo, renderInline, renderMarkdown } from "../chat/markdown";

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

test("fenced code becomes a highlighted block with Copy, Insert and Apply", () => {
  const html = renderMarkdown("Here:\n```python\ndef f():\n    return 1 < 2\n```\nDone.");
  assert.match(html, /<p>Here:<\/p>/);
  assert.match(html, /<code class="hljs language-python"><span class="hljs-keyword">def<\/span> <span class="hljs-title function_">f<\/span>/);
  assert.match(html, /&lt; <span class="hljs-number">2<\/span>/);
  assert.match(html, /data-action="copy" aria-label="Copy python"/);
  assert.match(html, /data-action="insert"/);
  assert.match(html, /data-action="apply" aria-label="Apply python to a file: shows the diff first"/);
  assert.ok(!html.includes('data-action="runInTerminal"'), "only shell blocks run");
  assert.match(html, /<p>Done\.<\/p>/);
});

test("the highlighter's output has the code's text escaped and nothing but its spans", () => {
  const html = renderMarkdown("```js\nconst s = \"<img src=x onerror=alert(1)>\"; // </script>\n```");
  const tags = [...html.matchAll(/<\/?([a-z]+)[^>]*>/g)].map((m) => m[1]);
  assert.ok(tags.every((t) => ["div", "span", "button", "pre", "code"].includes(t!)), tags.join());
  assert.ok(!html.includes("<img") && !html.includes("</script>"));
  assert.match(html, /&lt;img src=x onerror=alert\(1\)&gt;/);
});

test("a language that is not bundled is shown escaped, uncoloured", () => {
  const html = renderMarkdown("```brainfuck\n<+>\n```");
  assert.match(html, /<pre><code>&lt;\+&gt;<\/code><\/pre>/);
});

test("a shell block can be run (after the person sees it); a fence may name its file", () => {
  const html = renderMarkdown("```bash\n$ pytest -q\n```");
  assert.match(html, /data-action="runInTerminal" aria-label="Run bash in a terminal: shows the command first"/);
  assert.deepEqual(fenceInfo("python", "src/app.py"), { language: "python", path: "src/app.py" });
  assert.deepEqual(fenceInfo("app.py", ""), { language: "py", path: "app.py" });
  assert.deepEqual(fenceInfo("python", ""), { language: "python" });
  assert.match(renderMarkdown("```python app.py\nx = 1\n```"), /data-path="app.py"/);
  assert.equal(commandLines("$ cd src\n\n$ pytest -q\nls"), "cd src\npytest -q\nls");
});

test("a command line is quoted as a shell needs it", () => {
  assert.equal(shellQuote(["python", "-c", "print('hi there')", "a_b.py"]), `python -c 'print('\\''hi there'\\'')' a_b.py`);
  assert.deepEqual(commandOf("run_command", { command: ["ls", "-l"] }), ["ls", "-l"]);
  assert.equal(commandOf("run_command", { command: "ls -l" }), undefined);
  assert.equal(commandOf("read_file", { path: "x" }), undefined);
});

test("a fence still streaming is a code block so far", () => {
  const html = renderMarkdown("```js\nconst a = 1;");
  assert.match(html, /<pre><code class="hljs language-js"><span class="hljs-keyword">const<\/span> a = <span class="hljs-number">1<\/span>;<\/code><\/pre>/);
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
