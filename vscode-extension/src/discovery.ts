// Which Foehn runs: the foehn.serverPath setting (a foehn executable), then foehn.pythonPath (a
// Python with foehn-lsp installed), both read from the person's user settings only; else the
// managed environment the extension makes from the wheels it carries (python/environment.ts).
// Neither the workspace's .venv nor PATH is searched: a repository does not choose which program
// runs as the person's agent, and the extension's own Foehn matches its version. No VS Code API
// here, so the rules are unit-tested directly.

/** How to start Foehn: `command ...prefix SUBCOMMAND ...` (`serve`, `mcp`). */
export interface Launch {
  command: string;
  prefix: string[];
  /** Where it came from, for the log: "foehn.serverPath", "the managed environment". */
  source: string;
}

export interface DiscoveryInput {
  serverPath: string;
  pythonPath: string;
  isExecutable: (file: string) => boolean;
}

export const MANAGED = "the managed environment";

/** The managed environment's interpreter as a Launch: isolated (-I), so no PYTHON* variable,
 * user site or working folder can put other code in front of Foehn's. */
export function managedLaunch(python: string): Launch {
  return { command: python, prefix: ["-I", "-m", "foehn_lsp"], source: MANAGED };
}

/** The server the person set, an error for a setting that names no executable, or undefined:
 * then the managed environment runs. */
export function explicitServer(input: DiscoveryInput): Launch | { error: string } | undefined {
  if (input.serverPath) {
    return input.isExecutable(input.serverPath)
      ? { command: input.serverPath, prefix: [], source: "foehn.serverPath" }
      : { error: `foehn.serverPath (${input.serverPath}) is not an executable file.` };
  }
  if (input.pythonPath) {
    return input.isExecutable(input.pythonPath)
      ? { command: input.pythonPath, prefix: ["-m", "foehn_lsp"], source: "foehn.pythonPath" }
      : { error: `foehn.pythonPath (${input.pythonPath}) is not an executable file.` };
  }
  return undefined;
}
