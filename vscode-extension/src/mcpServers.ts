// Foehn's tools for every agent in VS Code: one MCP server definition per workspace folder, each
// starting `foehn mcp --workspace FOLDER` the way the chat's server is started (the person's
// foehn.serverPath or foehn.pythonPath, else the managed environment). Writes are offered
// (--allow-writes) and asked through the client's own confirmation (MCP elicitation); in
// Restricted Mode only the read-only tools are. No VS Code API here.
import * as path from "node:path";
import type { Launch } from "./discovery";

export const MCP_PROVIDER = "foehn";

export interface McpServer {
  label: string;
  command: string;
  args: string[];
  /** The folder the server serves (and starts in). */
  folder: string;
  /** Changes when what it offers changes, so the editor refreshes its tools. */
  version: string;
}

export function mcpServers(launch: Launch, folders: readonly string[], restricted: boolean, foehnVersion: string): McpServer[] {
  return folders.map((folder) => ({
    label: folders.length > 1 ? `Foehn: ${path.basename(folder)}` : "Foehn",
    command: launch.command,
    args: [...launch.prefix, "mcp", "--workspace", folder, ...(restricted ? [] : ["--allow-writes"])],
    folder,
    version: `${foehnVersion}${restricted ? "-read-only" : ""}`,
  }));
}
