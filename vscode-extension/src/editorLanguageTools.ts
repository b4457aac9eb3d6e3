// VS Code's side of languageTools.ts: its definition, reference, workspace symbol and rename
// providers, through the built-in execute…Provider commands.
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import {
  DEFINITION,
  type Language,
  type LspPosition,
  REFERENCES,
  RENAME,
  WORKSPACE_SYMBOLS,
  answerDefinition,
  answerReferences,
  answerRename,
  answerSymbols,
} from "./languageTools";

const at = (position: LspPosition) => new vscode.Position(position.line, position.character);

const language: Language = {
  definitions: (uri, position) =>
    Promise.resolve(
      vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[] | undefined>(
        "vscode.executeDefinitionProvider",
        vscode.Uri.parse(uri),
        at(position),
      ),
    ),
  references: (uri, position) =>
    Promise.resolve(
      vscode.commands.executeCommand<vscode.Location[] | undefined>("vscode.executeReferenceProvider", vscode.Uri.parse(uri), at(position)),
    ),
  symbols: (query) =>
    Promise.resolve(vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>("vscode.executeWorkspaceSymbolProvider", query)),
  rename: async (uri, position, newName) => {
    const edit = await vscode.commands.executeCommand<vscode.WorkspaceEdit | undefined>(
      "vscode.executeDocumentRenameProvider",
      vscode.Uri.parse(uri),
      at(position),
      newName,
    );
    return edit?.entries();
  },
};

/** Answer the server's language requests from VS Code's providers. */
export function answerLanguageRequests(client: LanguageClient): void {
  client.onRequest(DEFINITION, (params: unknown) => answerDefinition(language, params));
  client.onRequest(REFERENCES, (params: unknown) => answerReferences(language, params));
  client.onRequest(WORKSPACE_SYMBOLS, (params: unknown) => answerSymbols(language, params));
  client.onRequest(RENAME, (params: unknown) => answerRename(language, params));
}
