import assert from "node:assert/strict";
import { test } from "node:test";
import type { LspPosition } from "../protocol";
import {
  type EditorLocation,
  type EditorLocationLink,
  type EditorSymbol,
  type EditorTextEdit,
  type EditorWorkspaceEdit,
  type Language,
  DEFINITION,
  REFERENCES,
  answerLocations,
  answerRename,
  answerSymbols,
} from "../languageTools";

const at = (line: number, character: number) => ({ line, character });
const span = (line: number, from: number, to: number) => ({ start: at(line, from), end: at(line, to) });

/** A vscode.Uri: its string form is what the answers send. */
class Uri {
  constructor(private readonly text: string) {}
  toString() {
    return this.text;
  }
}

const LIB = new Uri("file:///ws/lib.ts");
const APP = new Uri("file:///ws/app.ts");

/** A vscode.WorkspaceEdit as VS Code builds it: text edits and file operations in one list
 * (`_allEntries()`), of which `entries()` shows the text edits alone. */
class WorkspaceEdit implements EditorWorkspaceEdit {
  private readonly edits: ({ uri: Uri; edit: EditorTextEdit } | { from?: Uri; to?: Uri })[] = [];
  replace(uri: Uri, range: EditorTextEdit["range"], newText: string) {
    this.edits.push({ uri, edit: { range, newText } });
    return this;
  }
  renameFile(from: Uri, to: Uri) {
    this.edits.push({ from, to });
    return this;
  }
  entries() {
    const found = new Map<Uri, EditorTextEdit[]>();
    for (const entry of this.edits) {
      if ("uri" in entry) {
        found.set(entry.uri, [...(found.get(entry.uri) ?? []), entry.edit]);
      }
    }
    return [...found];
  }
  _allEntries() {
    return this.edits;
  }
}

/** VS Code's providers as the answers see them, recording what they were asked. */
class FakeLanguage implements Language {
  readonly asked: unknown[][] = [];
  definitionsFound: readonly (EditorLocation | EditorLocationLink)[] | undefined = [];
  referencesFound: readonly EditorLocation[] | undefined = [];
  symbolsFound: readonly EditorSymbol[] | undefined = [];
  renameFound: EditorWorkspaceEdit | undefined = undefined;
  async definitions(uri: string, position: LspPosition) {
    this.asked.push(["definitions", uri, position]);
    return this.definitionsFound;
  }
  async references(uri: string, position: LspPosition) {
    this.asked.push(["references", uri, position]);
    return this.referencesFound;
  }
  async symbols(query: string) {
    this.asked.push(["symbols", query]);
    return this.symbolsFound;
  }
  async rename(uri: string, position: LspPosition, newName: string) {
    this.asked.push(["rename", uri, position, newName]);
    return this.renameFound;
  }
}

const asked = { runId: "r1", uri: APP.toString(), position: at(2, 6) };

test("a definition is asked at the server's position; links become locations at their selection", async () => {
  const language = new FakeLanguage();
  language.definitionsFound = [
    { uri: LIB, range: span(0, 16, 22) },
    { targetUri: LIB, targetRange: span(0, 0, 40), targetSelectionRange: span(0, 16, 22) },
    { targetUri: APP, targetRange: span(4, 0, 9) },
  ];
  const answer = await answerLocations(language, DEFINITION, asked);
  assert.deepEqual(language.asked, [["definitions", APP.toString(), at(2, 6)]]);
  assert.deepEqual(answer, {
    locations: [
      { uri: LIB.toString(), range: span(0, 16, 22) },
      { uri: LIB.toString(), range: span(0, 16, 22) },
      { uri: APP.toString(), range: span(4, 0, 9) },
    ],
  });
});

test("references answer every location, and none when the provider has no answer", async () => {
  const language = new FakeLanguage();
  language.referencesFound = [{ uri: APP, range: span(2, 6, 12) }];
  assert.deepEqual(await answerLocations(language, REFERENCES, asked), { locations: [{ uri: APP.toString(), range: span(2, 6, 12) }] });
  language.referencesFound = undefined;
  assert.deepEqual(await answerLocations(language, REFERENCES, asked), { locations: [] });
});

test("workspace symbols count their kind from 1 as LSP does and an unresolved one points at its file's start", async () => {
  const language = new FakeLanguage();
  language.symbolsFound = [
    { name: "helper", kind: 11, containerName: "lib", location: { uri: LIB, range: span(0, 16, 22) } },
    { name: "Helper", kind: 4, containerName: "", location: { uri: APP } },
  ];
  const answer = await answerSymbols(language, { runId: "r1", query: "help" });
  assert.deepEqual(language.asked, [["symbols", "help"]]);
  assert.deepEqual(answer, {
    symbols: [
      { name: "helper", kind: 12, containerName: "lib", location: { uri: LIB.toString(), range: span(0, 16, 22) } },
      { name: "Helper", kind: 5, location: { uri: APP.toString(), range: span(0, 0, 0) } },
    ],
  });
});

test("a rename's edit is returned by document, not applied; no edit is null", async () => {
  const language = new FakeLanguage();
  language.renameFound = new WorkspaceEdit()
    .replace(LIB, span(0, 16, 22), "assist")
    .replace(APP, span(0, 9, 15), "assist")
    .replace(APP, span(2, 6, 12), "assist");
  const answer = await answerRename(language, { ...asked, newName: "assist" });
  assert.deepEqual(language.asked, [["rename", APP.toString(), at(2, 6), "assist"]]);
  assert.deepEqual(answer, {
    edit: {
      changes: {
        [LIB.toString()]: [{ range: span(0, 16, 22), newText: "assist" }],
        [APP.toString()]: [
          { range: span(0, 9, 15), newText: "assist" },
          { range: span(2, 6, 12), newText: "assist" },
        ],
      },
    },
  });
  language.renameFound = undefined;
  assert.deepEqual(await answerRename(language, { ...asked, newName: "assist" }), { edit: null });
});

test("a rename that also renames a file is an error, not its text edits alone", async () => {
  const language = new FakeLanguage();
  const moved = new Uri("file:///ws/assist.ts");
  language.renameFound = new WorkspaceEdit().replace(APP, span(0, 9, 15), "assist").renameFile(LIB, moved);
  await assert.rejects(answerRename(language, { ...asked, newName: "assist" }), {
    message: "the rename also creates, renames or deletes files",
  });
});

test("a request the server withdraws is not waited on", async () => {
  const never = new Promise<never>(() => undefined);
  const language = new FakeLanguage();
  language.definitions = async () => never;
  language.symbols = async () => never;
  language.rename = async () => never;
  const cancelled = Promise.resolve();
  await assert.rejects(answerLocations(language, DEFINITION, asked, cancelled), /foehn\/definition was cancelled/);
  await assert.rejects(answerSymbols(language, { runId: "r1", query: "x" }, cancelled), /foehn\/workspaceSymbols was cancelled/);
  await assert.rejects(answerRename(language, { ...asked, newName: "x" }, cancelled), /foehn\/rename was cancelled/);
  language.referencesFound = [{ uri: APP, range: span(2, 6, 12) }];
  const pending = new Promise<void>(() => undefined);
  assert.equal((await answerLocations(language, REFERENCES, asked, pending)).locations.length, 1);
});

test("a request of another shape is an error that names the shape, and no provider is asked", async () => {
  const language = new FakeLanguage();
  await assert.rejects(answerLocations(language, DEFINITION, { runId: "r1", uri: APP.toString() }), /foehn\/definition wants \{runId, uri, position/);
  await assert.rejects(answerLocations(language, REFERENCES, { ...asked, position: at(-1, 0) }), /foehn\/references wants/);
  await assert.rejects(answerSymbols(language, { runId: "r1" }), /foehn\/workspaceSymbols wants \{runId, query\}/);
  await assert.rejects(answerRename(language, asked), /foehn\/rename wants \{runId, uri, position, newName\}/);
  await assert.rejects(answerRename(language, undefined), /foehn\/rename wants/);
  assert.deepEqual(language.asked, []);
});
