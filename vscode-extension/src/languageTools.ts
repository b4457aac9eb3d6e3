// The editor's language intelligence for the server's tools (server/foehn_lsp/lsp/language_tools.py):
// definition, references, workspace symbols and rename, answered from VS Code's providers and
// converted to LSP's shapes. A rename's edit is returned, never applied: the server shows it for
// approval and applies it itself. This module knows VS Code only through the Language interface,
// so the tests drive it with plain objects.

import {
  type LocationsAnswer,
  type PositionParams,
  type RenameParams,
  type SymbolsParams,
  type LspLocation,
  type LspPosition,
  type LspRange,
  REQUESTS,
  type RenameAnswer,
  type SymbolsAnswer,
} from "./protocol";

export const DEFINITION = REQUESTS.definition.method;
export const REFERENCES = REQUESTS.references.method;
export const WORKSPACE_SYMBOLS = REQUESTS.workspaceSymbols.method;
export const RENAME = REQUESTS.rename.method;

/** vscode.Uri as far as the answers need it. */
export interface EditorUri {
  toString(): string;
}

export interface EditorLocation {
  uri: EditorUri;
  range: LspRange;
}

export interface EditorLocationLink {
  targetUri: EditorUri;
  targetRange: LspRange;
  targetSelectionRange?: LspRange;
}

/** vscode.SymbolInformation (kind: vscode's 0-based SymbolKind); a WorkspaceSymbol that is not
 * resolved yet may have no range. */
export interface EditorSymbol {
  name: string;
  kind: number;
  containerName?: string;
  location: { uri: EditorUri; range?: LspRange };
}

export interface EditorTextEdit {
  range: LspRange;
  newText: string;
}

/** The part of VS Code the answers need: its execute…Provider commands. */
export interface Language {
  definitions(uri: string, position: LspPosition): Promise<readonly (EditorLocation | EditorLocationLink)[] | undefined>;
  references(uri: string, position: LspPosition): Promise<readonly EditorLocation[] | undefined>;
  symbols(query: string): Promise<readonly EditorSymbol[] | undefined>;
  /** The rename provider's edit, not applied. */
  rename(uri: string, position: LspPosition, newName: string): Promise<EditorWorkspaceEdit | undefined>;
}

/** vscode.WorkspaceEdit as far as the answer needs it. Its public API shows only the text edits
 * (`entries()`, and `size` counts those alone), so the file operations are found in VS Code's
 * own `_allEntries()`, where each one has `from` and `to` (a text edit has `uri` and `edit`).
 * Without `_allEntries` none can be seen. */
export interface EditorWorkspaceEdit {
  entries(): readonly [EditorUri, readonly EditorTextEdit[]][];
  _allEntries?(): readonly object[];
}

/** A withdrawn request's signal: the server sent $/cancelRequest. */
export type Cancelled = Promise<void>;

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0;

function position(params: unknown, method: string): { uri: string; position: LspPosition } {
  const p = params as Partial<PositionParams> | undefined;
  if (typeof p?.uri !== "string" || !isCount(p.position?.line) || !isCount(p.position?.character)) {
    throw new Error(`${method} wants {runId, uri, position: {line, character}}`);
  }
  return { uri: p.uri, position: { line: p.position.line, character: p.position.character } };
}

const plainRange = (range: LspRange): LspRange => ({
  start: { line: range.start.line, character: range.start.character },
  end: { line: range.end.line, character: range.end.character },
});

function plainLocation(found: EditorLocation | EditorLocationLink): LspLocation {
  if ("targetUri" in found) {
    return { uri: found.targetUri.toString(), range: plainRange(found.targetSelectionRange ?? found.targetRange) };
  }
  return { uri: found.uri.toString(), range: plainRange(found.range) };
}

/** `answer`, unless the server withdraws the request first: then an error, and the provider's
 * answer is no longer waited for. */
function unlessCancelled<T>(answer: Promise<T>, method: string, cancelled: Cancelled | undefined): Promise<T> {
  if (!cancelled) {
    return answer;
  }
  const withdrawn = cancelled.then((): never => {
    throw new Error(`${method} was cancelled`);
  });
  return Promise.race([answer, withdrawn]);
}

export async function answerLocations(
  language: Language,
  method: typeof DEFINITION | typeof REFERENCES,
  params: unknown,
  cancelled?: Cancelled,
): Promise<LocationsAnswer> {
  const at = position(params, method);
  const asking = method === DEFINITION ? language.definitions(at.uri, at.position) : language.references(at.uri, at.position);
  const found = (await unlessCancelled(asking, method, cancelled)) ?? [];
  return { locations: found.map(plainLocation) };
}

const NOWHERE: LspRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export async function answerSymbols(language: Language, params: unknown, cancelled?: Cancelled): Promise<SymbolsAnswer> {
  const query = (params as Partial<SymbolsParams> | undefined)?.query;
  if (typeof query !== "string") {
    throw new Error(`${WORKSPACE_SYMBOLS} wants {runId, query}`);
  }
  const found = (await unlessCancelled(language.symbols(query), WORKSPACE_SYMBOLS, cancelled)) ?? [];
  return {
    symbols: found.map((symbol) => ({
      name: symbol.name,
      // vscode's SymbolKind counts from 0 (File), LSP's from 1.
      kind: symbol.kind + 1,
      ...(symbol.containerName ? { containerName: symbol.containerName } : {}),
      location: { uri: symbol.location.uri.toString(), range: plainRange(symbol.location.range ?? NOWHERE) },
    })),
  };
}

export const FILE_OPERATIONS = "the rename also creates, renames or deletes files";

export async function answerRename(language: Language, params: unknown, cancelled?: Cancelled): Promise<RenameAnswer> {
  const at = position(params, RENAME);
  const newName = (params as Partial<RenameParams>).newName;
  if (typeof newName !== "string" || !newName) {
    throw new Error(`${RENAME} wants {runId, uri, position, newName}`);
  }
  const edit = await unlessCancelled(language.rename(at.uri, at.position, newName), RENAME, cancelled);
  // Answered as text edits alone, the rename would be made without its file operations; as an
  // error, the server refuses it whole.
  if (edit?._allEntries?.().some((entry) => "from" in entry || "to" in entry)) {
    throw new Error(FILE_OPERATIONS);
  }
  const entries = edit?.entries() ?? [];
  if (entries.length === 0) {
    return { edit: null };
  }
  const changes: Record<string, { range: LspRange; newText: string }[]> = {};
  for (const [uri, edits] of entries) {
    const key = uri.toString();
    changes[key] = [...(changes[key] ?? []), ...edits.map((e) => ({ range: plainRange(e.range), newText: e.newText }))];
  }
  return { edit: { changes } };
}
