// Foehn's managed environment: a virtual environment in the extension's global storage, made
// from the wheels the .vsix carries and nothing else (pip install --no-index), once per bundle,
// under a lock so that two windows starting at once make it once. Layout, under `root`:
//
//   envs/<key>/                 the environment of one bundle (key: bundle.ts)
//   envs/<key>/foehn-ready.json written once the environment has started Foehn: only then is it used
//   envs/<key>/foehn-used       touched whenever a window starts Foehn from it
//   current.json                {key, python}: the environment in use
//   lock                        lock.ts
//   offline-model/site/         the offline model's packages, shared by every environment (offlineModel.ts)
//
// A new bundle (a new extension version) gets a new environment beside the one in use; only once
// it has started Foehn does current.json point at it, and only then are environments no window
// has used for a day removed. A failure removes what it made and leaves the working one as it was.
// No VS Code API here.
import { promises as fs } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Bundle } from "./bundle";
import type { SetupFailure } from "./failures";
import type { Choice } from "./interpreters";
import { LockTimeout, withLock } from "./lock";
import { linkOfflineModel, offlineModelInstalled } from "./offlineModel";
import { type Ran, lastLines, run } from "./run";

export interface ManagedEnvironment {
  /** The environment's own interpreter: runs `-I -m foehn_lsp serve`. */
  python: string;
  key: string;
  /** Whether this call made it (false: it was there already). */
  made: boolean;
}

export interface EnvironmentInput {
  bundle: Bundle;
  /** The folder for Foehn's environments (the extension's global storage + "python"). */
  root: string;
  /** Finds the interpreter to make the environment with; asked only when one must be made. */
  findPython: () => Promise<Choice>;
  /** A step's words, for the progress notification. */
  progress: (message: string) => void;
  /** A line for the log. */
  log: (line: string) => void;
  platform: NodeJS.Platform;
  signal?: AbortSignal;
  /** How long to wait for another window that is making it. */
  lockWaitMs?: number;
}

export type Outcome = { ok: true; environment: ManagedEnvironment } | { ok: false; failure: SetupFailure };

const UNUSED_MS = 24 * 3600_000;
const VENV_TIMEOUT_MS = 5 * 60_000;
const INSTALL_TIMEOUT_MS = 15 * 60_000;
const CHECK_TIMEOUT_MS = 2 * 60_000;

export function envPython(folder: string, platform: NodeJS.Platform): string {
  return platform === "win32" ? path.join(folder, "Scripts", "python.exe") : path.join(folder, "bin", "python");
}

/** pip's environment: no configuration file of the person's (their index, their find-links)
 * may add to the wheels the .vsix carries. */
export function isolatedPipEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith("PIP_") && !name.startsWith("PYTHON")) {
      env[name] = value;
    }
  }
  return { ...env, PIP_CONFIG_FILE: os.devNull, PIP_DISABLE_PIP_VERSION_CHECK: "1", PYTHONNOUSERSITE: "1" };
}

const FULL = /No space left on device|\[Errno 28\]|ENOSPC/;
const READ_ONLY = /Read-only file system|\[Errno 30\]|EROFS|Permission denied|\[Errno 13\]|EACCES|EPERM/;

/** A fs error as a failure the person can act on, else undefined. */
function fsFailure(error: unknown, folder: string): SetupFailure | undefined {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === "ENOSPC") {
    return { kind: "diskFull", folder };
  }
  if (code === "EROFS" || code === "EACCES" || code === "EPERM") {
    return { kind: "readOnly", folder };
  }
  return undefined;
}

/** What a program's failure means for the person. */
function ranFailure(ran: Ran, folder: string, step: "install" | "verify"): SetupFailure {
  if (ran.failure === "aborted") {
    return { kind: "cancelled" };
  }
  const said = `${ran.stdout}\n${ran.stderr}`;
  if (FULL.test(said)) {
    return { kind: "diskFull", folder };
  }
  if (READ_ONLY.test(said)) {
    return { kind: "readOnly", folder };
  }
  const detail = ran.failure === "timeout" ? "it took too long and was stopped" : lastLines(ran, 3) || `exit code ${ran.code ?? "?"}`;
  return { kind: step, detail };
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

async function readCurrent(root: string): Promise<{ key: string; python: string } | undefined> {
  try {
    const value = JSON.parse(await fs.readFile(path.join(root, "current.json"), "utf8")) as { key?: unknown; python?: unknown };
    return typeof value.key === "string" && typeof value.python === "string" ? { key: value.key, python: value.python } : undefined;
  } catch {
    return undefined;
  }
}

/** The bundle's environment when it is ready (made, and started Foehn), else undefined. */
async function ready(input: EnvironmentInput): Promise<ManagedEnvironment | undefined> {
  const folder = path.join(input.root, "envs", input.bundle.key);
  const python = envPython(folder, input.platform);
  const current = await readCurrent(input.root);
  if (current?.key !== input.bundle.key || !(await exists(path.join(folder, "foehn-ready.json"))) || !(await exists(python))) {
    return undefined;
  }
  await touch(path.join(folder, "foehn-used"));
  return { python, key: input.bundle.key, made: false };
}

async function touch(file: string): Promise<void> {
  const now = new Date();
  await fs.utimes(file, now, now).catch(() => fs.writeFile(file, "").catch(() => undefined));
}

/** Writes `file` whole or not at all. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const partial = `${file}.${process.pid}.partial`;
  await fs.writeFile(partial, text);
  await fs.rename(partial, file);
}

/** The bundle's environment, made if it is not there yet; a failure says why (failures.ts). */
export async function ensureEnvironment(input: EnvironmentInput): Promise<Outcome> {
  const { root } = input;
  try {
    await fs.mkdir(path.join(root, "envs"), { recursive: true });
  } catch (error) {
    const failure = fsFailure(error, root);
    if (failure) {
      return { ok: false, failure };
    }
    throw error;
  }
  const found = await ready(input);
  if (found) {
    return { ok: true, environment: found };
  }
  try {
    return await withLock(
      path.join(root, "lock"),
      async () => {
        // Another window may have made it while this one waited.
        const madeMeanwhile = await ready(input);
        return madeMeanwhile ? { ok: true, environment: madeMeanwhile } : make(input);
      },
      {
        waitMs: input.lockWaitMs ?? 10 * 60_000,
        onWait: (holder) => input.progress(`Another VS Code window (${holder}) is setting up Foehn; waiting for it…`),
      },
    );
  } catch (error) {
    if (error instanceof LockTimeout) {
      return { ok: false, failure: { kind: "busy", holder: error.holder } };
    }
    const failure = fsFailure(error, root);
    if (failure) {
      return { ok: false, failure };
    }
    throw error;
  }
}

async function make(input: EnvironmentInput): Promise<Outcome> {
  const { bundle, root, platform } = input;
  const folder = path.join(root, "envs", bundle.key);
  input.progress("Looking for Python…");
  const choice = await input.findPython();
  for (const line of [...choice.notes, ...choice.tried.map((t) => t.note)]) {
    input.log(line);
  }
  if (!choice.chosen) {
    return { ok: false, failure: { kind: "python", choice, pythons: bundle.pythons } };
  }
  const interpreter = choice.chosen;
  const outcome = await build(input, folder, interpreter.executable, `${interpreter.version} (${interpreter.label})`);
  if (!outcome.ok) {
    await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
    return outcome;
  }
  try {
    const python = envPython(folder, platform);
    await fs.writeFile(
      path.join(folder, "foehn-ready.json"),
      JSON.stringify({ foehn: bundle.foehn, interpreter: interpreter.executable, version: interpreter.version, made: new Date().toISOString() }),
    );
    await touch(path.join(folder, "foehn-used"));
    await writeAtomically(path.join(root, "current.json"), JSON.stringify({ key: bundle.key, python }));
    input.log(`Foehn ${bundle.foehn}'s environment is ready: ${folder} (Python ${interpreter.version}, ${interpreter.label}).`);
    await removeUnused(root, bundle.key, input.log);
    return { ok: true, environment: { python, key: bundle.key, made: true } };
  } catch (error) {
    await fs.rm(folder, { recursive: true, force: true }).catch(() => undefined);
    const failure = fsFailure(error, root);
    if (failure) {
      return { ok: false, failure };
    }
    throw error;
  }
}

async function build(input: EnvironmentInput, folder: string, interpreter: string, python: string): Promise<Outcome> {
  const { bundle, platform, signal } = input;
  // What an earlier attempt left half made (no foehn-ready.json, or current.json lost) goes.
  await fs.rm(folder, { recursive: true, force: true });
  input.progress(`Making its environment with Python ${python}…`);
  const venv = await run(interpreter, ["-E", "-s", "-m", "venv", "--without-pip", folder], { timeoutMs: VENV_TIMEOUT_MS, signal });
  input.log(`${interpreter} -m venv --without-pip ${folder}: ${venv.failure ?? `exit ${venv.code}`}`);
  if (venv.code !== 0) {
    return { ok: false, failure: ranFailure(venv, folder, "install") };
  }
  const environment = envPython(folder, platform);
  input.progress(`Installing Foehn ${bundle.foehn} from the extension (no download)…`);
  const pip = await run(
    environment,
    [
      path.join(bundle.pip, "pip"),
      "install",
      "--no-index",
      "--find-links",
      bundle.wheels,
      "--no-cache-dir",
      "--no-warn-script-location",
      "--progress-bar",
      "off",
      `foehn-lsp==${bundle.foehn}`,
    ],
    { timeoutMs: INSTALL_TIMEOUT_MS, env: isolatedPipEnv(), signal },
  );
  input.log(`pip install foehn-lsp==${bundle.foehn}: ${pip.failure ?? `exit ${pip.code}`}\n${lastLines(pip, 20)}`);
  if (pip.code !== 0) {
    return { ok: false, failure: ranFailure(pip, folder, "install") };
  }
  input.progress("Checking that Foehn starts…");
  const check = await run(
    environment,
    ["-I", "-c", "import sysconfig, foehn_lsp; print(foehn_lsp.__version__); print(sysconfig.get_path('purelib'))"],
    { timeoutMs: CHECK_TIMEOUT_MS, signal },
  );
  const [said, purelib] = check.stdout.trim().split(/\r?\n/);
  if (check.code !== 0 || said !== bundle.foehn || !purelib) {
    const detail = check.code === 0 ? `it says version ${said ?? "?"}, not ${bundle.foehn}` : lastLines(check, 3);
    return { ok: false, failure: check.code === 0 ? { kind: "verify", detail } : ranFailure(check, folder, "verify") };
  }
  if (await offlineModelInstalled(input.root)) {
    await linkOfflineModel(input.root, purelib);
  }
  return { ok: true, environment: { python: environment, key: bundle.key, made: true } };
}

/** Removes the environments other than `keep` that no window has started Foehn from for a day
 * (an older window may still run one). */
async function removeUnused(root: string, keep: string, log: (line: string) => void): Promise<void> {
  const envs = path.join(root, "envs");
  for (const name of await fs.readdir(envs).catch(() => [] as string[])) {
    if (name === keep) {
      continue;
    }
    const used = await fs.stat(path.join(envs, name, "foehn-used")).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (Date.now() - used > UNUSED_MS) {
      await fs.rm(path.join(envs, name), { recursive: true, force: true }).catch(() => undefined);
      log(`Removed the unused environment ${name}.`);
    }
  }
}
