// VS Code's side of languageTools.ts: its definition, reference, workspace symbol and rename
// providers, through the built-in execute…Provider commands.
import * as vscode from "vscode";
import type { LspPosition } from "./protocol";
import type { LanguageClient } from "vscode-languageclient/node";
import {
  type Cancelled,
  DEFINITION,
  type Language,
  REFERENCES,
  RENAME,
  WORKSPACE_SYMBOLS,
  answerLocations,
  answerRename,
  answerSymbols,
} from "./languageTools";

const at = (position: LspPosition) => new vscode.Position(position.line, position.character);

const ask = <T>(command: string, ...args: unknown[]): Promise<T> => Promise.resolve(vscode.commands.executeCommand<T>(command, ...args));

const language: Language = {
  definitions: (uri, position) =>
    ask<(vscode.Location | vscode.LocationLink)[] | undefined>("vscode.executeDefinitionProvider", vscode.Uri.parse(uri), at(position)),
  references: (uri, position) => ask<vscode.Location[] | undefined>("vscode.executeReferenceProvider", vscode.Uri.parse(uri), at(position)),
  symbols: (query) => ask<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", query),
  rename: (uri, position, newName) =>
    ask<vscode.WorkspaceEdit | undefined>("vscode.executeDocumentRenameProvider", vscode.Uri.parse(uri), at(position), newName),
};

const cancellation = (token: vscode.CancellationToken): Cancelled =>
  new Promise<void>((resolve) => token.onCancellationRequested(() => resolve()));

/** Answer the server's language requests from VS Code's providers; a request the server
 * withdraws stops being waited on. */
export function answerLanguageRequests(client: LanguageClient): void {
  client.onRequest(DEFINITION, (params: unknown, token) => answerLocations(language, DEFINITION, params, cancellation(token)));
  client.onRequest(REFERENCES, (params: unknown, token) => answerLocations(language, REFERENCES, params, cancellation(token)));
  client.onRequest(WORKSPACE_SYMBOLS, (params: unknown, token) => answerSymbols(language, params, cancellation(token)));
  client.onRequest(RENAME, (params: unknown, token) => answerRename(language, params, cancellation(token)));
}
