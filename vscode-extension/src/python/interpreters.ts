// Which Python makes Foehn's managed environment. The candidates, in order: the interpreter the
// person picked ("Foehn: Pick a Python…"), the Python extension's selected interpreter where that
// extension is installed, then python3 and python on PATH (py -3, python, python3 on Windows).
// Each is probed (probe.ts) and the first that runs, is 3.11 or newer and is one the bundle
// carries packages for is used; every candidate gets one line saying what it is and why it was or
// was not used, shown in the log and, when none fits, in the message. An interpreter inside a
// workspace folder is never used: a repository does not choose the program that runs as the
// person's agent. No VS Code API here.
import * as path from "node:path";

export type Source = "picked" | "pythonExtension" | "path";

export interface Candidate {
  /** The program to run, a full path where one was found. */
  command: string;
  /** Arguments before any of ours (`-3` for the Windows launcher). */
  args: string[];
  source: Source;
  /** How the person knows it: "python3 on PATH", "the Python extension's interpreter". */
  label: string;
}

/** What running a candidate told (probe.ts). */
export type Probe =
  | { kind: "ok"; version: [number, number, number]; executable: string; venv: boolean }
  /** It could not be started, stopped with an error, or printed no answer. */
  | { kind: "broken"; detail: string };

export interface Tried {
  candidate: Candidate;
  /** Undefined when the candidate was skipped without being run. */
  probe?: Probe;
  used: boolean;
  /** Why it was (or was not) used, in words. */
  note: string;
}

export type ChoiceProblem = "noPython" | "tooOld" | "broken" | "unsupported";

export interface Choice {
  /** The interpreter to make the environment with (its own executable, as it said). */
  chosen?: { executable: string; version: string; label: string };
  tried: Tried[];
  /** Notes about sources that gave no candidate ("The Python extension is not installed."). */
  notes: string[];
  /** Why nothing fits, when nothing does: the worst thing found among the candidates. */
  problem?: ChoiceProblem;
}

export const MINIMUM: [number, number] = [3, 11];
/** A probe's detail for a program that is not there (it counts as none found). */
export const NOT_FOUND = "not found";

/** The candidates found on PATH, in order, with full paths (none for a name not there). */
export function onPath(
  pathVariable: string,
  platform: NodeJS.Platform,
  isExecutable: (file: string) => boolean,
): Candidate[] {
  const windows = platform === "win32";
  const names: [string, string[]][] = windows
    ? [["py.exe", ["-3"]], ["python.exe", []], ["python3.exe", []]]
    : [["python3", []], ["python", []]];
  const folders = pathVariable.split(windows ? ";" : ":").filter(Boolean);
  const found: Candidate[] = [];
  for (const [name, args] of names) {
    const folder = folders.find((f) => isExecutable(path.join(f, name)));
    if (folder) {
      const shown = name.replace(/\.exe$/, "") + (args.length ? ` ${args.join(" ")}` : "");
      found.push({ command: path.join(folder, name), args, source: "path", label: `${shown} on PATH` });
    }
  }
  return found;
}

/** Whether `file` lies inside one of `folders`. */
export function inside(file: string, folders: readonly string[], platform: NodeJS.Platform): boolean {
  const norm = (p: string) => (platform === "win32" ? path.win32.resolve(p).toLowerCase() : path.posix.resolve(p));
  const sep = platform === "win32" ? "\\" : "/";
  const target = norm(file);
  return folders.some((folder) => {
    const root = norm(folder);
    return target === root || target.startsWith(root.endsWith(sep) ? root : root + sep);
  });
}

function versionText(version: readonly number[]): string {
  return version.join(".");
}

function atLeast(version: readonly number[], minimum: readonly number[]): boolean {
  return version[0]! > minimum[0]! || (version[0] === minimum[0] && version[1]! >= minimum[1]!);
}

/** The range of Pythons the bundle serves, in words: "3.11 to 3.14". */
export function servedRange(pythons: readonly string[]): string {
  if (!pythons.length) {
    return "none";
  }
  return pythons.length === 1 ? pythons[0]! : `${pythons[0]} to ${pythons[pythons.length - 1]}`;
}

/**
 * The choice among `candidates`, probed in order by `probe` until one fits. A candidate inside
 * one of `workspaceFolders` is skipped unprobed. `pythons` are the "3.N" versions the bundle
 * carries packages for.
 */
export async function choose(
  candidates: readonly Candidate[],
  probe: (candidate: Candidate) => Promise<Probe>,
  pythons: readonly string[],
  workspaceFolders: readonly string[],
  platform: NodeJS.Platform,
  notes: readonly string[] = [],
): Promise<Choice> {
  const tried: Tried[] = [];
  const problems = new Set<ChoiceProblem>();
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const where = `${candidate.label} (${candidate.command})`;
    if (inside(candidate.command, workspaceFolders, platform)) {
      tried.push({
        candidate,
        used: false,
        note: `${where}: not used, it lies inside the workspace folder (a repository does not choose the program that runs as your agent).`,
      });
      continue;
    }
    const result = await probe(candidate);
    if (result.kind === "broken") {
      if (result.detail !== NOT_FOUND) {
        problems.add("broken");
      }
      tried.push({ candidate, probe: result, used: false, note: `${where}: does not run: ${result.detail}` });
      continue;
    }
    const version = versionText(result.version);
    if (seen.has(result.executable)) {
      tried.push({ candidate, probe: result, used: false, note: `${where}: Python ${version}, the same interpreter as above.` });
      continue;
    }
    seen.add(result.executable);
    const minor = `${result.version[0]}.${result.version[1]}`;
    let note: string | undefined;
    if (!atLeast(result.version, MINIMUM)) {
      problems.add("tooOld");
      note = `Python ${version}, too old (Foehn needs ${MINIMUM.join(".")} or newer).`;
    } else if (!pythons.includes(minor)) {
      problems.add("unsupported");
      note = `Python ${version}: this Foehn carries its packages for Python ${servedRange(pythons)} only.`;
    } else if (!result.venv) {
      problems.add("broken");
      note = `Python ${version} has no venv module (on Debian and Ubuntu: apt install python${minor}-venv).`;
    }
    if (note) {
      tried.push({ candidate, probe: result, used: false, note: `${where}: ${note}` });
      continue;
    }
    tried.push({ candidate, probe: result, used: true, note: `${where}: Python ${version}, used.` });
    return { chosen: { executable: result.executable, version, label: candidate.label }, tried, notes: [...notes] };
  }
  const problem: ChoiceProblem = problems.has("unsupported")
    ? "unsupported"
    : problems.has("tooOld")
      ? "tooOld"
      : problems.has("broken")
        ? "broken"
        : "noPython";
  return { tried, notes: [...notes], problem };
}

/** Every line of the choice, for the log. */
export function describeChoice(choice: Choice): string[] {
  return [...choice.notes, ...choice.tried.map((t) => t.note)];
}
