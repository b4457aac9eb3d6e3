// The editor's language intelligence for the server's tools (server/foehn_lsp/lsp/language_tools.py):
// definition, references, workspace symbols and rename, answered from VS Code's providers and
// converted to LSP's shapes. A rename's edit is returned, never applied: the server shows it for
// approval and applies it itself. This module knows VS Code only through the Language interface,
// so the tests drive it with plain objects.

/** The requests the server sends (the client opts in with initializationOptions.languageTools). */
export const DEFINITION = "foehn/definition";
export const REFERENCES = "foehn/references";
export const WORKSPACE_SYMBOLS = "foehn/workspaceSymbols";
export const RENAME = "foehn/rename";

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface LspLocation {
  uri: string;
  range: LspRange;
}

export interface PositionParams {
  runId: string;
  uri: string;
  position: LspPosition;
}

export interface SymbolsParams {
  runId: string;
  query: string;
}

export interface RenameParams extends PositionParams {
  newName: string;
}

export interface LocationsAnswer {
  locations: LspLocation[];
}

export interface SymbolsAnswer {
  symbols: { name: string; kind: number; containerName?: string; location: LspLocation }[];
}

export interface RenameAnswer {
  edit: { changes: Record<string, { range: LspRange; newText: string }[]> } | null;
}

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
  /** The rename provider's edit, not applied: its text edits by document. */
  rename(uri: string, position: LspPosition, newName: string): Promise<readonly [EditorUri, readonly EditorTextEdit[]][] | undefined>;
}

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

export async function answerDefinition(language: Language, params: unknown): Promise<LocationsAnswer> {
  const at = position(params, DEFINITION);
  const found = (await language.definitions(at.uri, at.position)) ?? [];
  return { locations: found.map(plainLocation) };
}

export async function answerReferences(language: Language, params: unknown): Promise<LocationsAnswer> {
  const at = position(params, REFERENCES);
  const found = (await language.references(at.uri, at.position)) ?? [];
  return { locations: found.map(plainLocation) };
}

const NOWHERE: LspRange = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export async function answerSymbols(language: Language, params: unknown): Promise<SymbolsAnswer> {
  const query = (params as Partial<SymbolsParams> | undefined)?.query;
  if (typeof query !== "string") {
    throw new Error(`${WORKSPACE_SYMBOLS} wants {runId, query}`);
  }
  const found = (await language.symbols(query)) ?? [];
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

export async function answerRename(language: Language, params: unknown): Promise<RenameAnswer> {
  const at = position(params, RENAME);
  const newName = (params as Partial<RenameParams>).newName;
  if (typeof newName !== "string" || !newName) {
    throw new Error(`${RENAME} wants {runId, uri, position, newName}`);
  }
  const entries = await language.rename(at.uri, at.position, newName);
  if (!entries || entries.length === 0) {
    return { edit: null };
  }
  const changes: Record<string, { range: LspRange; newText: string }[]> = {};
  for (const [uri, edits] of entries) {
    const key = uri.toString();
    changes[key] = [...(changes[key] ?? []), ...edits.map((e) => ({ range: plainRange(e.range), newText: e.newText }))];
  }
  return { edit: { changes } };
}
