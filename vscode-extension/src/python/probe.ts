// Asking a candidate interpreter what it is: it runs a few lines that print its version, its
// own executable and whether it has the venv module, as JSON. Anything else it does (not found,
// a shim that cannot find its Python, a Store alias, an error, a hang) makes it "broken", with
// what it said. The lines run with -E -s, so the person's PYTHON* variables and user site do not
// change the answer, and are valid Python 2 too, so an old Python says its version. No VS Code
// API here.
import { type Candidate, NOT_FOUND, type Probe } from "./interpreters";
import { type Ran, lastLines, run } from "./run";

export const PROBE_TIMEOUT_MS = 20_000;

const SCRIPT = [
  "import json, sys",
  "try:",
  "    import venv",
  "    has_venv = True",
  "except Exception:",
  "    has_venv = False",
  'print(json.dumps({"foehnProbe": 1, "version": list(sys.version_info[:3]), "executable": sys.executable, "venv": has_venv}))',
].join("\n");

/** What a probe's run said, as a Probe. */
export function readProbe(ran: Ran): Probe {
  if (ran.failure === "spawn") {
    return { kind: "broken", detail: ran.spawnError === "ENOENT" ? NOT_FOUND : `cannot be started (${ran.spawnError ?? "?"})` };
  }
  if (ran.failure === "timeout") {
    return { kind: "broken", detail: `no answer within ${PROBE_TIMEOUT_MS / 1000} s` };
  }
  if (ran.code !== 0) {
    const said = lastLines(ran, 2).replace(/\s+/g, " ").trim();
    return { kind: "broken", detail: `it exited with code ${ran.code ?? "?"}${said ? `: ${said}` : ""}` };
  }
  const line = ran.stdout.split("\n").find((l) => l.includes('"foehnProbe"'));
  try {
    const answer = JSON.parse(line ?? "") as { version?: unknown; executable?: unknown; venv?: unknown };
    const version = answer.version;
    if (
      Array.isArray(version) &&
      version.length === 3 &&
      version.every((n) => Number.isInteger(n)) &&
      typeof answer.executable === "string"
    ) {
      // An embedded or frozen Python may not know its executable: the candidate then stands.
      return { kind: "ok", version: version as [number, number, number], executable: answer.executable, venv: answer.venv === true };
    }
  } catch {
    // Not the probe's answer: below.
  }
  return { kind: "broken", detail: "it did not answer as a Python interpreter does" };
}

export async function probe(candidate: Candidate, env: NodeJS.ProcessEnv = process.env): Promise<Probe> {
  const ran = await run(candidate.command, [...candidate.args, "-E", "-s", "-c", SCRIPT], { timeoutMs: PROBE_TIMEOUT_MS, env });
  const found = readProbe(ran);
  return found.kind === "ok" && !found.executable ? { ...found, executable: candidate.command } : found;
}
