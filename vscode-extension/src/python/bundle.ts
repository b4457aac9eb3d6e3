// What the platform .vsix carries for the server (scripts/bundle.py writes it): Foehn's wheel and
// its dependencies' wheels, pip's own wheel, the pinned offline-model list, and the manifest that
// names them. A .vsix without a bundle (a development build) has none, and the extension says so.
// No VS Code API here.
import { promises as fs } from "node:fs";
import * as path from "node:path";

export interface Bundle {
  /** Foehn's version, as `foehn --version` says it. */
  foehn: string;
  /** The VS Code target the wheels are for, e.g. linux-x64. */
  target: string;
  /** The "3.N" Pythons the wheels serve. */
  pythons: string[];
  /** Names the managed environment; changes whenever any bundled wheel does. */
  key: string;
  /** pip's wheel, run as `python PIP/pip`. */
  pip: string;
  /** The folder of wheels (`pip install --no-index --find-links`). */
  wheels: string;
  /** The offline model's requirements, pinned by hash. */
  offlineModel: string;
}

export class NoBundle extends Error {}

/** The bundle under `folder` (the extension's `bundled/`), checked; NoBundle if it has none or a
 * broken one. */
export async function readBundle(folder: string): Promise<Bundle> {
  let raw: unknown;
  try {
    raw = JSON.parse(await fs.readFile(path.join(folder, "manifest.json"), "utf8"));
  } catch (error) {
    throw new NoBundle(`this build of the extension carries no server (${(error as Error).message})`);
  }
  const m = raw as Record<string, unknown>;
  const text = (key: string) => (typeof m[key] === "string" && m[key] ? (m[key] as string) : undefined);
  const pythons = Array.isArray(m["pythons"]) && m["pythons"].every((p) => typeof p === "string") ? (m["pythons"] as string[]) : undefined;
  const [foehn, target, key, pip, offlineModel] = ["foehn", "target", "key", "pip", "offlineModel"].map(text);
  if (!foehn || !target || !key || !pip || !offlineModel || !pythons?.length) {
    throw new NoBundle("the extension's bundled/manifest.json is incomplete");
  }
  return {
    foehn,
    target,
    pythons,
    key,
    pip: path.join(folder, pip),
    wheels: path.join(folder, "wheels"),
    offlineModel: path.join(folder, offlineModel),
  };
}
