// The editor's own diagnostics for checking a turn's edits (server/foehn_lsp/lsp/editor_checks.py).
// The server asks foehn/diagnostics before a file's first change and again after the edits; the
// answer is what VS Code's language servers report once they have settled. This module knows
// VS Code only through the small Editor interface, so the tests drive it with real timers.

import { type DiagnosticsAnswer, type DiagnosticsParams, type LspDiagnostic, type LspPosition, REQUESTS } from "./protocol";

export type { DiagnosticsAnswer, DiagnosticsParams, LspDiagnostic } from "./protocol";

/** The request the server sends (the client opts in with initializationOptions.diagnostics). */
export const DIAGNOSTICS = REQUESTS.diagnostics.method;

/** vscode.Diagnostic as far as the answer needs it (severity: vscode's 0 = Error … 3 = Hint). */
export interface EditorDiagnostic {
  range: { start: LspPosition; end: LspPosition };
  message: string;
  severity: number;
  source?: string;
  code?: string | number | { value: string | number };
}

/** The part of VS Code the answer needs. */
export interface Editor {
  /** Whether the editor (so its language servers) has the document open. */
  isOpen(uri: string): boolean;
  /** Opens the document without showing it; rejects for a file that does not exist. */
  open(uri: string): Promise<void>;
  diagnostics(uri: string): readonly EditorDiagnostic[];
  /** vscode.languages.onDidChangeDiagnostics, by uri string. */
  onDidChange(listener: (uris: readonly string[]) => void): { dispose(): void };
}

/** How long to wait for the language servers. */
export interface Settling {
  /** After a file's last change, this long without another means it has settled. */
  quietMs: number;
  /** A file that has not changed this long after the request has nothing new to say. */
  firstMs: number;
  /** Never wait longer than this in all. */
  boundMs: number;
}

/** The waits for a server timeout of `timeoutSeconds` (`foehn.clientTimeouts.diagnosticsSeconds`):
 * the answer must reach the server before it gives up, so the bound leaves it time. */
export function settlingFor(timeoutSeconds: number): Settling {
  const timeoutMs = (Number.isFinite(timeoutSeconds) && timeoutSeconds > 0 ? timeoutSeconds : 30) * 1000;
  return { quietMs: 1000, firstMs: 2500, boundMs: Math.max(timeoutMs / 2, timeoutMs - 5000) };
}

/** vscode's severity (0 = Error … 3 = Hint) as LSP's (1 … 4); anything else has none. */
function lspSeverity(severity: number): LspDiagnostic["severity"] {
  return severity === 0 || severity === 1 || severity === 2 || severity === 3 ? ((severity + 1) as 1 | 2 | 3 | 4) : undefined;
}

/** A vscode.Diagnostic as LSP's: same 0-based range, severity shifted by one, code unwrapped. */
export function toLsp(diagnostic: EditorDiagnostic): LspDiagnostic {
  const { start, end } = diagnostic.range;
  const severity = lspSeverity(diagnostic.severity);
  const code = typeof diagnostic.code === "object" ? diagnostic.code.value : diagnostic.code;
  return {
    range: { start: { line: start.line, character: start.character }, end: { line: end.line, character: end.character } },
    message: diagnostic.message,
    ...(severity !== undefined ? { severity } : {}),
    ...(diagnostic.source ? { source: diagnostic.source } : {}),
    ...(code !== undefined ? { code } : {}),
  };
}

/** Resolves once the diagnostics of `uris` have settled (each has been quiet for `quietMs`
 * since its last change, or has not changed in `firstMs`), after `boundMs` at the latest, or
 * when `cancelled` fires. */
export function settled(editor: Editor, uris: readonly string[], settling: Settling, cancelled?: Promise<void>): Promise<void> {
  const start = Date.now();
  const lastChange = new Map<string, number>();
  const wanted = new Set(uris);
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    };
    const schedule = () => {
      clearTimeout(timer);
      const ready = Math.max(...[...wanted].map((uri) => {
        const changed = lastChange.get(uri);
        return changed === undefined ? start + settling.firstMs : changed + settling.quietMs;
      }));
      const at = Math.min(ready, start + settling.boundMs);
      timer = setTimeout(finish, Math.max(0, at - Date.now()));
    };
    const subscription = editor.onDidChange((changed) => {
      const now = Date.now();
      let ours = false;
      for (const uri of changed) {
        if (wanted.has(uri)) {
          lastChange.set(uri, now);
          ours = true;
        }
      }
      if (ours) {
        schedule();
      }
    });
    schedule();
    void cancelled?.then(finish);
  });
}

/** The answer to foehn/diagnostics: opens what the language servers have not seen, waits for
 * them to settle and gives each asked file its diagnostics (none for a file that does not exist:
 * the request before a file's creation). */
export async function collect(
  editor: Editor,
  params: DiagnosticsParams,
  settling: Settling,
  cancelled?: Promise<void>,
): Promise<DiagnosticsAnswer> {
  if (!Array.isArray(params?.uris) || !params.uris.every((u) => typeof u === "string")) {
    throw new Error("foehn/diagnostics wants {runId, uris: string[]}");
  }
  const uris = [...new Set(params.uris)];
  // Listening starts before the documents open, so their first report is not missed.
  const waiting = settled(editor, uris, settling, cancelled);
  const missing = new Set<string>();
  await Promise.all(
    uris.filter((uri) => !editor.isOpen(uri)).map((uri) => editor.open(uri).catch(() => void missing.add(uri))),
  );
  await waiting;
  return {
    files: uris.map((uri) => ({ uri, diagnostics: missing.has(uri) ? [] : editor.diagnostics(uri).map(toLsp) })),
  };
}
