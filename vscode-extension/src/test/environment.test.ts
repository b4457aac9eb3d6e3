import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import type { Bundle } from "../python/bundle";
import { type EnvironmentInput, type Outcome, ensureEnvironment } from "../python/environment";
import { setupMessage } from "../python/failures";
import type { Choice } from "../python/interpreters";
import { canUnshare, pipWheel, python3, tempFolder, testBundle } from "./pythonFixtures";

const PYTHON = python3();
const PIP = PYTHON ? pipWheel(PYTHON) : undefined;
const skip = !PYTHON || !PIP ? "needs python3 3.11+ with ensurepip's pip wheel" : false;

function found(python: string): () => Promise<Choice> {
  return async () => ({ chosen: { executable: python, version: "3.11", label: "python3 on PATH" }, tried: [], notes: [] });
}

function input(bundle: Bundle, root: string, extra: Partial<EnvironmentInput> = {}): EnvironmentInput {
  return { bundle, root, findPython: found(PYTHON!), progress: () => undefined, log: () => undefined, platform: process.platform, ...extra };
}

function ok(outcome: Outcome): Extract<Outcome, { ok: true }>["environment"] {
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return outcome.environment;
}

function version(python: string): string {
  return spawnSync(python, ["-I", "-c", "import foehn_lsp; print(foehn_lsp.__version__)"], { encoding: "utf8" }).stdout.trim();
}

test("the environment is made once from the bundle's wheels and reused", { skip }, async () => {
  const root = tempFolder("env");
  const bundle = testBundle(PYTHON!, PIP!, "9.9.1");
  let asked = 0;
  const made = ok(await ensureEnvironment(input(bundle, root, { findPython: () => (asked++, found(PYTHON!)()) })));
  assert.equal(made.made, true);
  assert.equal(version(made.python), "9.9.1");
  const again = ok(await ensureEnvironment(input(bundle, root, { findPython: () => (asked++, found(PYTHON!)()) })));
  assert.deepEqual({ ...again, made: true }, made);
  assert.equal(again.made, false);
  assert.equal(asked, 1);
  assert.deepEqual(JSON.parse(readFileSync(path.join(root, "current.json"), "utf8")), { key: bundle.key, python: made.python });
});

test("two windows starting at once make it once", { skip }, async () => {
  const root = tempFolder("env");
  const bundle = testBundle(PYTHON!, PIP!, "9.9.2");
  let asked = 0;
  const waits: string[] = [];
  const both = await Promise.all(
    [0, 1].map(() =>
      ensureEnvironment(input(bundle, root, { findPython: () => (asked++, found(PYTHON!)()), progress: (m) => waits.push(m) })),
    ),
  );
  assert.deepEqual(both.map((o) => ok(o).made).sort(), [false, true]);
  assert.equal(asked, 1);
  assert.ok(waits.some((m) => m.includes("Another VS Code window")), waits.join("\n"));
  assert.deepEqual(readdirSync(path.join(root, "envs")), [bundle.key]);
  assert.ok(!existsSync(path.join(root, "lock")));
});

test("a new bundle gets a new environment; the working one stays until the new one works", { skip }, async () => {
  const root = tempFolder("env");
  const old = ok(await ensureEnvironment(input(testBundle(PYTHON!, PIP!, "9.9.3"), root)));
  const broken = testBundle(PYTHON!, PIP!, "9.9.4");
  writeFileSync(path.join(broken.wheels, "foehn_lsp-9.9.4-py3-none-any.whl"), "not a wheel");
  const failed = await ensureEnvironment(input(broken, root));
  assert.ok(!failed.ok && failed.failure.kind === "install", JSON.stringify(failed));
  assert.equal(version(old.python), "9.9.3");
  assert.equal(JSON.parse(readFileSync(path.join(root, "current.json"), "utf8")).key, "9.9.3-test");
  assert.ok(!existsSync(path.join(root, "envs", broken.key)), "what the failed attempt made is gone");
  const fresh = ok(await ensureEnvironment(input(testBundle(PYTHON!, PIP!, "9.9.5"), root)));
  assert.equal(version(fresh.python), "9.9.5");
  // Used within the day: an older window may still run it.
  assert.equal(version(old.python), "9.9.3");
});

test("no Python is one message whose action is to pick an interpreter", { skip }, async () => {
  const root = tempFolder("env");
  const choice: Choice = {
    tried: [
      {
        candidate: { command: "/usr/bin/python3", args: [], source: "path", label: "python3 on PATH" },
        probe: { kind: "ok", version: [3, 10, 13], executable: "/usr/bin/python3", venv: true },
        used: false,
        note: "python3 on PATH (/usr/bin/python3): Python 3.10.13, too old (Foehn needs 3.11 or newer).",
      },
    ],
    notes: ["The Python extension is not installed."],
    problem: "tooOld",
  };
  const outcome = await ensureEnvironment(input(testBundle(PYTHON!, PIP!, "9.9.6"), root, { findPython: async () => choice }));
  assert.ok(!outcome.ok);
  const said = setupMessage(outcome.failure);
  assert.equal(said.action, "pickInterpreter");
  assert.match(said.message, /Python 3\.10\.13, too old/);
  assert.ok(!existsSync(path.join(root, "envs", "9.9.6-test")));
});

test("stopped while it installs: nothing is left half made", { skip }, async () => {
  const root = tempFolder("env");
  const abort = new AbortController();
  const outcome = await ensureEnvironment(
    input(testBundle(PYTHON!, PIP!, "9.9.7"), root, {
      signal: abort.signal,
      progress: (message) => (message.startsWith("Installing") ? abort.abort() : undefined),
    }),
  );
  assert.ok(!outcome.ok && outcome.failure.kind === "cancelled", JSON.stringify(outcome));
  assert.deepEqual(readdirSync(path.join(root, "envs")), []);
  assert.ok(!existsSync(path.join(root, "current.json")));
});

/** Runs ensureEnvironment in a mount namespace where `root` is `mount` (a 1 MB tmpfs, or the same
 * folder read-only), after making `first` there; the outcomes, and what `root` then holds. */
interface Seen {
  outcomes: Outcome[];
  current: { key: string } | null;
  envs: string[];
}

function inNamespace(mount: "tmpfs" | "readOnly", root: string, first: Bundle | undefined, second: Bundle): Seen {
  const driver = path.join(tempFolder("driver"), "driver.cjs");
  const modules = path.resolve(__dirname, "..", "modules");
  writeFileSync(
    driver,
    `const { ensureEnvironment } = require(${JSON.stringify(path.join(modules, "environment.js"))});
const fs = require("node:fs");
const [root, python, first, second] = process.argv.slice(2);
const input = (bundle) => ({ bundle: JSON.parse(bundle), root, platform: process.platform, progress() {}, log() {},
  findPython: async () => ({ chosen: { executable: python, version: "3.11", label: "python3 on PATH" }, tried: [], notes: [] }) });
(async () => {
  const outcomes = [];
  if (first !== "-") outcomes.push(await ensureEnvironment(input(first)));
  outcomes.push(await ensureEnvironment(input(second)));
  let current = null;
  try { current = JSON.parse(fs.readFileSync(root + "/current.json", "utf8")); } catch {}
  process.stdout.write(JSON.stringify({ outcomes, current, envs: fs.existsSync(root + "/envs") ? fs.readdirSync(root + "/envs") : [] }));
})();`,
  );
  const setup =
    mount === "tmpfs" ? `mount -t tmpfs -o size=1m none "$1"` : `mkdir -p "$1/envs" && mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"`;
  const ran = spawnSync(
    "unshare",
    ["-rm", "sh", "-c", `${setup} && exec "${process.execPath}" "$0" "$1" "$2" "$3" "$4"`, driver, root, PYTHON!, first ? JSON.stringify(first) : "-", JSON.stringify(second)],
    { encoding: "utf8", timeout: 120_000 },
  );
  assert.equal(ran.status, 0, ran.stderr);
  return JSON.parse(ran.stdout) as Seen;
}

const noNamespace = skip || (!canUnshare() ? "needs unshare -rm (a mount namespace)" : false);

test("a disk that fills while it installs: one message, and the working environment stays", { skip: noNamespace }, () => {
  const root = tempFolder("full");
  const small = testBundle(PYTHON!, PIP!, "9.8.1");
  const large = testBundle(PYTHON!, PIP!, "9.8.2", 4_000_000);
  const { outcomes, current, envs } = inNamespace("tmpfs", root, small, large);
  const [first, second] = outcomes;
  assert.ok(first!.ok, JSON.stringify(first));
  assert.ok(!second!.ok && second!.failure.kind === "diskFull", JSON.stringify(second));
  const said = setupMessage(second!.failure);
  assert.equal(said.action, "retry");
  assert.match(said.message, /is full/);
  assert.equal(current?.key, small.key);
  assert.deepEqual(envs, [small.key], "the half-made environment is gone, the working one is there");
});

test("a read-only storage folder: one message with its fix", { skip: noNamespace }, () => {
  const root = tempFolder("readonly");
  const { outcomes } = inNamespace("readOnly", root, undefined, testBundle(PYTHON!, PIP!, "9.8.3"));
  const [only] = outcomes;
  assert.ok(!only!.ok && only!.failure.kind === "readOnly", JSON.stringify(only));
  const said = setupMessage(only!.failure);
  assert.match(said.message, /read-only/);
  assert.match(said.message, /foehn\.serverPath/);
});
