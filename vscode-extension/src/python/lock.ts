// One window at a time makes the managed environment: a lock file created exclusively (O_EXCL)
// in the extension's global storage, holding who took it. Another window waits for it to go; a
// lock whose process is gone (a window that crashed) or that is older than STALE_MS is broken.
// Breaking renames the file away first, so of two windows that both judge it stale only one
// breaks it, and a lock taken meanwhile by a third is put back. No VS Code API here.
import { promises as fs } from "node:fs";
import * as os from "node:os";

export const STALE_MS = 15 * 60_000;
const POLL_MS = 250;
const UNWRITTEN_MS = 30_000;

interface Holder {
  pid: number;
  host: string;
  at: number;
}

export class LockTimeout extends Error {
  constructor(readonly file: string, readonly holder: string) {
    super(`${file} is held by ${holder}`);
  }
}

export interface LockOptions {
  /** How long to wait for another holder before giving up. */
  waitMs: number;
  /** Called once, when the lock is found held by someone else. */
  onWait?: (holder: string) => void;
  /** Whether a process of this machine still runs (tests give their own). */
  alive?: (pid: number) => boolean;
  now?: () => number;
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function read(file: string): Promise<Holder | undefined> {
  try {
    const value = JSON.parse(await fs.readFile(file, "utf8")) as Partial<Holder>;
    return typeof value.pid === "number" && typeof value.host === "string" && typeof value.at === "number"
      ? (value as Holder)
      : undefined;
  } catch {
    return undefined;
  }
}

function describe(holder: Holder | undefined): string {
  return holder ? `process ${holder.pid} on ${holder.host}` : "another process";
}

async function tryTake(file: string, now: number): Promise<Holder | undefined> {
  const holder: Holder = { pid: process.pid, host: os.hostname(), at: now };
  try {
    const handle = await fs.open(file, "wx");
    try {
      await handle.writeFile(JSON.stringify(holder));
    } finally {
      await handle.close();
    }
    return holder;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      return undefined;
    }
    throw error;
  }
}

/** Breaks `file` if it still holds `judged`; true if it was broken (or was gone already). */
async function breakStale(file: string, judged: Holder | undefined): Promise<boolean> {
  const aside = `${file}.stale-${process.pid}-${Date.now()}`;
  try {
    await fs.rename(file, aside);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
  const moved = await read(aside);
  if (judged && moved && (moved.pid !== judged.pid || moved.at !== judged.at || moved.host !== judged.host)) {
    // Someone took the lock between the look and the rename: theirs goes back.
    await fs.rename(aside, file).catch(() => undefined);
    return false;
  }
  await fs.rm(aside, { force: true });
  return true;
}

/** Runs `work` holding the lock `file`; throws LockTimeout after `waitMs` of waiting. */
export async function withLock<T>(file: string, work: () => Promise<T>, options: LockOptions): Promise<T> {
  const alive = options.alive ?? running;
  const now = options.now ?? Date.now;
  const deadline = now() + options.waitMs;
  let told = false;
  let mine: Holder | undefined;
  for (;;) {
    mine = await tryTake(file, now());
    if (mine) {
      break;
    }
    const holder = await read(file);
    // A file with no holder in it is being written, or was left by a crash while it was.
    const stale = holder
      ? now() - holder.at > STALE_MS || (holder.host === os.hostname() && !alive(holder.pid))
      : await fs.stat(file).then((s) => now() - s.mtimeMs > UNWRITTEN_MS, () => false);
    if (stale && (await breakStale(file, holder))) {
      continue;
    }
    if (now() > deadline) {
      throw new LockTimeout(file, describe(holder));
    }
    if (!told) {
      told = true;
      options.onWait?.(describe(holder));
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    return await work();
  } finally {
    // Only our own: a lock held past STALE_MS may have been broken and taken by another.
    const held = await read(file);
    if (held && held.pid === mine.pid && held.at === mine.at && held.host === mine.host) {
      await fs.rm(file, { force: true });
    }
  }
}
