// Finding the Foehn server the way people expect: the foehn.serverPath setting, then
// foehn.pythonPath, then the workspace's .venv, then `foehn` on PATH. No VS Code API here, so
// the rules are unit-tested directly.
import * as path from "node:path";

export interface ServerCommand {
  command: string;
  args: string[];
  source: string;
}

export interface DiscoveryInput {
  serverPath: string;
  pythonPath: string;
  workspaceFolders: readonly string[];
  pathVariable: string;
  platform: NodeJS.Platform;
  isExecutable: (file: string) => boolean;
}

export const INSTALL_HINT =
  "Foehn's language server was not found. Install it with `pip install foehn-lsp` " +
  "(add `[local]` for the offline model) in the workspace's .venv or on PATH, or set " +
  "foehn.serverPath or foehn.pythonPath.";

export function findServer(input: DiscoveryInput): ServerCommand | { error: string } {
  const windows = input.platform === "win32";
  if (input.serverPath) {
    return input.isExecutable(input.serverPath)
      ? { command: input.serverPath, args: ["serve"], source: "foehn.serverPath" }
      : { error: `foehn.serverPath (${input.serverPath}) is not an executable file.` };
  }
  if (input.pythonPath) {
    return input.isExecutable(input.pythonPath)
      ? { command: input.pythonPath, args: ["-m", "foehn_lsp", "serve"], source: "foehn.pythonPath" }
      : { error: `foehn.pythonPath (${input.pythonPath}) is not an executable file.` };
  }
  const executable = windows ? "foehn.exe" : "foehn";
  for (const folder of input.workspaceFolders) {
    const candidate = path.join(folder, ".venv", windows ? "Scripts" : "bin", executable);
    if (input.isExecutable(candidate)) {
      return { command: candidate, args: ["serve"], source: "the workspace's .venv" };
    }
  }
  const separator = windows ? ";" : ":";
  for (const folder of input.pathVariable.split(separator).filter(Boolean)) {
    const candidate = path.join(folder, executable);
    if (input.isExecutable(candidate)) {
      return { command: candidate, args: ["serve"], source: "PATH" };
    }
  }
  return { error: INSTALL_HINT };
}
