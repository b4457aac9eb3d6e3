// What a call that runs a program will run, as the person reads it before allowing it: the
// whole command line (quoted as a shell would need it), where it runs, and what its sandbox
// policy lets it do. No VS Code or DOM API here.
import type { SandboxPolicy } from "../protocol";

/** The argv a call runs, for the tools that take one: `run_command`'s `command` and `git`'s
 * `args` (git is implied). */
export function commandOf(tool: string, args: unknown): string[] | undefined {
  if (typeof args !== "object" || args === null) {
    return undefined;
  }
  const value = args as Record<string, unknown>;
  const strings = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === "string");
  if (strings(value["command"])) {
    return value["command"] as string[];
  }
  if (tool === "git" && strings(value["args"])) {
    return ["git", ...(value["args"] as string[])];
  }
  return undefined;
}

/** A call's argument `key` when it is a string; undefined when it is absent or another type. */
export function stringArg(args: unknown, key: string): string | undefined {
  const value = typeof args === "object" && args !== null ? (args as Record<string, unknown>)[key] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** The folder a call runs in, as given (relative to the workspace), or the workspace root. */
export function cwdOf(args: unknown): string {
  const cwd = stringArg(args, "cwd");
  return cwd?.trim() && cwd !== "." ? cwd : "the workspace folder";
}

/** The argv as one line a person can read and paste: words with spaces or quotes are quoted. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(" ");
}

const POLICY_TEXT: Record<SandboxPolicy, string> = {
  "read-only": "reads only: nothing writable but a private /tmp",
  "workspace-write": "may change the workspace (not .git/, .foehn/, .vscode/, .envrc)",
  full: "your own rights and the network, outside the sandbox",
};

/** What a sandbox policy lets a program do, in words, with its network: none, or only the
 * domains the call's grant names (through Foehn's proxy); `full` has the whole network. */
export function policyText(policy: SandboxPolicy | string, network: readonly string[] = []): string {
  const text = POLICY_TEXT[policy as SandboxPolicy];
  if (text === undefined) {
    return policy;
  }
  if (policy === "full") {
    return text;
  }
  return `${text}, ${network.length ? `the network only to ${network.join(", ")}` : "no network"}`;
}

/** The domains a call may reach, as the server says it (policy/approval.py's reaching). */
export function reaching(network: readonly string[]): string {
  return `${network.join(", ")} (and nothing else on the network)`;
}

/** A shell block's command lines, without the prompts a transcript shows (`$ `). */
export function commandLines(code: string): string {
  return code
    .split("\n")
    .map((line) => line.replace(/^\s*\$\s/, ""))
    .filter((line) => line.trim())
    .join("\n");
}
