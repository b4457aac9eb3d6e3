import assert from "node:assert/strict";
import { test } from "node:test";
import { type Editor, type EditorDiagnostic, type Settling, collect, settlingFor, toLsp } from "../diagnostics";

const at = (line: number, character: number) => ({ line, character });
const problem = (message: string, severity = 0, line = 2): EditorDiagnostic => ({
  range: { start: at(line, 4), end: at(line, 9) },
  message,
  severity,
  source: "Pylance",
});

/** VS Code as the answer sees it: documents, diagnostics and their change event. Its
 * "language server" is whatever the test publishes, when the test publishes it. */
class FakeEditor implements Editor {
  readonly opened: string[] = [];
  private readonly open_ = new Set<string>();
  private readonly reported = new Map<string, EditorDiagnostic[]>();
  private listeners: ((uris: readonly string[]) => void)[] = [];
  constructor(
    open: string[],
    private readonly existing: Set<string>,
    private readonly onOpen: (uri: string) => void = () => undefined,
  ) {
    open.forEach((u) => this.open_.add(u));
  }
  isOpen(uri: string) {
    return this.open_.has(uri);
  }
  async open(uri: string) {
    if (!this.existing.has(uri)) {
      throw new Error(`cannot open ${uri}: not found`);
    }
    this.opened.push(uri);
    this.open_.add(uri);
    this.onOpen(uri);
  }
  diagnostics(uri: string) {
    return this.reported.get(uri) ?? [];
  }
  publish(uri: string, diagnostics: EditorDiagnostic[]) {
    this.reported.set(uri, diagnostics);
    this.listeners.forEach((l) => l([uri]));
  }
  onDidChange(listener: (uris: readonly string[]) => void) {
    this.listeners.push(listener);
    return { dispose: () => void (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }
  get listening() {
    return this.listeners.length;
  }
}

const quick: Settling = { quietMs: 150, firstMs: 300, boundMs: 60_000 };

test("a vscode diagnostic becomes LSP's: same 0-based range, severity one higher, code unwrapped", () => {
  assert.deepEqual(toLsp({ ...problem("bad type", 0), code: { value: "reportArgumentType" } }), {
    range: { start: at(2, 4), end: at(2, 9) },
    message: "bad type",
    severity: 1,
    source: "Pylance",
    code: "reportArgumentType",
  });
  assert.equal(toLsp(problem("w", 1)).severity, 2);
  assert.equal(toLsp(problem("i", 2)).severity, 3);
  assert.equal(toLsp(problem("h", 3)).severity, 4);
  assert.equal(toLsp({ range: problem("x").range, message: "x", severity: 0, code: 7 }).code, 7);
  // No source, no code: the fields are absent, not empty.
  assert.deepEqual(Object.keys(toLsp({ range: problem("x").range, message: "x", severity: 0 })).sort(), ["message", "range", "severity"]);
});

test("a file the language servers have not seen is opened and its late report is the answer", async () => {
  const shown = "file:///w/app.py";
  const unseen = "file:///w/lib.py";
  const editor: FakeEditor = new FakeEditor([shown], new Set([shown, unseen]), (uri) => {
    // The language server reports the opened file twice: a first pass, then the full one.
    setTimeout(() => editor.publish(uri, [problem("first pass")]), 50);
    setTimeout(() => editor.publish(uri, [problem("first pass"), problem("Argument of type \"str\"", 0, 7)]), 200);
  });
  editor.publish(shown, [problem("already there", 1)]);
  // Quiet for much longer than the gap between the two reports.
  const answer = await collect(editor, { runId: "r1", uris: [shown, unseen, shown] }, { ...quick, quietMs: 1000 });
  assert.deepEqual(editor.opened, [unseen]);
  assert.deepEqual(
    answer.files.map((f) => [f.uri, f.diagnostics.map((d) => [d.range.start.line, d.message, d.severity])]),
    [
      [shown, [[2, "already there", 2]]],
      [unseen, [[2, "first pass", 1], [7, "Argument of type \"str\"", 1]]],
    ],
  );
  assert.equal(editor.listening, 0, "the answer stops listening");
});

test("a file that does not exist yet (asked before its creation) has no diagnostics", async () => {
  const editor = new FakeEditor([], new Set());
  const answer = await collect(editor, { runId: "r1", uris: ["file:///w/new.py"] }, quick);
  assert.deepEqual(answer, { files: [{ uri: "file:///w/new.py", diagnostics: [] }] });
});

test("language servers that do not settle are answered at the bound with what they said last", async () => {
  const uri = "file:///w/app.py";
  const editor = new FakeEditor([uri], new Set([uri]));
  setTimeout(() => editor.publish(uri, [problem("pass 1")]), 50);
  setTimeout(() => editor.publish(uri, [problem("pass 2")]), 100);
  const started = Date.now();
  const answer = await collect(editor, { runId: "r1", uris: [uri] }, { quietMs: 60_000, firstMs: 60_000, boundMs: 500 });
  assert.ok(Date.now() - started >= 500 - 20, "it waited the bound");
  assert.deepEqual(answer.files[0]!.diagnostics.map((d) => d.message), ["pass 2"]);
});

test("a withdrawn request stops waiting", { timeout: 30_000 }, async () => {
  const uri = "file:///w/app.py";
  const editor = new FakeEditor([uri], new Set([uri]));
  const answer = await collect(editor, { runId: "r1", uris: [uri] }, { quietMs: 60_000, firstMs: 60_000, boundMs: 120_000 }, Promise.resolve());
  assert.deepEqual(answer.files, [{ uri, diagnostics: [] }]);
  assert.equal(editor.listening, 0);
});

test("params of another shape are refused with a clear error, and nothing is opened", async () => {
  const editor = new FakeEditor([], new Set(["file:///w/a.py"]));
  for (const params of [{ runId: "r" }, { runId: "r", uris: "file:///w/a.py" }, { runId: "r", uris: [1] }, null]) {
    await assert.rejects(collect(editor, params as never, quick), /foehn\/diagnostics wants \{runId, uris: string\[\]\}/);
  }
  assert.deepEqual(editor.opened, []);
  assert.equal(editor.listening, 0);
});

test("the wait ends before the server's timeout gives up on it", () => {
  assert.equal(settlingFor(30).boundMs, 25_000);
  assert.equal(settlingFor(4).boundMs, 2_000);
  assert.equal(settlingFor(0).boundMs, 25_000);
  assert.equal(settlingFor(Number.NaN).boundMs, 25_000);
});
