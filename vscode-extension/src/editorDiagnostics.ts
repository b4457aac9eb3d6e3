// VS Code's side of diagnostics.ts: its open documents, its language servers' diagnostics.
import * as vscode from "vscode";
import { type DiagnosticsAnswer, type DiagnosticsParams, type Editor, collect, settlingFor } from "./diagnostics";

const editor: Editor = {
  isOpen: (uri) => vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri),
  open: async (uri) => {
    await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  },
  diagnostics: (uri) => vscode.languages.getDiagnostics(vscode.Uri.parse(uri)),
  onDidChange: (listener) => vscode.languages.onDidChangeDiagnostics((e) => listener(e.uris.map((u) => u.toString()))),
};

/** The foehn/diagnostics handler: waits no longer than the server does
 * (`foehn.clientTimeouts.diagnosticsSeconds`), and stops when the server withdraws the request. */
export function answerDiagnostics(params: DiagnosticsParams, token: vscode.CancellationToken): Promise<DiagnosticsAnswer> {
  const timeouts = vscode.workspace.getConfiguration("foehn").get<Record<string, unknown>>("clientTimeouts") ?? {};
  const seconds = timeouts["diagnosticsSeconds"];
  const cancelled = new Promise<void>((resolve) => token.onCancellationRequested(() => resolve()));
  return collect(editor, params, settlingFor(typeof seconds === "number" ? seconds : 30), cancelled);
}
