// The MCP server definition provider `foehn` (package.json's mcpServerDefinitionProviders): the
// servers of mcpServers.ts for the open folders, offered while foehn.mcp.offerTools is on, once
// the chat's server has started (so they start Foehn exactly as it does); the editor is told again
// whenever that, the folders, the setting or the workspace's trust change.
import * as vscode from "vscode";
import { MCP_PROVIDER, mcpServers } from "./mcpServers";
import type { Server } from "./server";

export function registerMcpServers(server: Server, foehnVersion: () => Promise<string>): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  let shown = "";
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: async () => {
      const launch = server.launched;
      if (!launch || !vscode.workspace.getConfiguration("foehn").get<boolean>("mcp.offerTools", true)) {
        return [];
      }
      const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
      const version = await foehnVersion().catch(() => "");
      return mcpServers(launch, folders, !vscode.workspace.isTrusted, version).map((s) => {
        const definition = new vscode.McpStdioServerDefinition(s.label, s.command, s.args, {}, s.version);
        definition.cwd = vscode.Uri.file(s.folder);
        return definition;
      });
    },
  };
  const refresh = () => {
    const now = JSON.stringify(server.launched ?? null);
    if (now !== shown) {
      shown = now;
      changed.fire();
    }
  };
  return vscode.Disposable.from(
    changed,
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER, provider),
    server.onStatus(refresh),
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((change) => (change.affectsConfiguration("foehn.mcp.offerTools") ? changed.fire() : undefined)),
  );
}
