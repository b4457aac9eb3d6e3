import assert from "node:assert/strict";
import { existsSync, utimesSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { LockTimeout, STALE_MS, withLock } from "../python/lock";
import { tempFolder } from "./pythonFixtures";

test("holders take turns: the work of one never overlaps another's", async () => {
  const file = path.join(tempFolder("lock"), "lock");
  let inside = 0;
  let most = 0;
  const work = async () => {
    inside++;
    most = Math.max(most, inside);
    await new Promise((resolve) => setTimeout(resolve, 50));
    inside--;
  };
  await Promise.all([0, 1, 2].map(() => withLock(file, work, { waitMs: 10_000 })));
  assert.equal(most, 1);
  assert.ok(!existsSync(file));
});

test("a lock left by a process that is gone is broken; one held by a live one is waited for", async () => {
  const file = path.join(tempFolder("lock"), "lock");
  writeFileSync(file, JSON.stringify({ pid: 999_999, host: os.hostname(), at: Date.now() }));
  assert.equal(await withLock(file, async () => "ran", { waitMs: 5_000, alive: () => false }), "ran");

  writeFileSync(file, JSON.stringify({ pid: 4242, host: os.hostname(), at: Date.now() }));
  const waited: string[] = [];
  await assert.rejects(
    withLock(file, async () => "never", { waitMs: 600, alive: () => true, onWait: (holder) => waited.push(holder) }),
    (error: unknown) => error instanceof LockTimeout && error.holder === `process 4242 on ${os.hostname()}`,
  );
  assert.deepEqual(waited, [`process 4242 on ${os.hostname()}`]);
  assert.ok(existsSync(file), "a live holder's lock is left alone");
});

test("a lock older than STALE_MS, or an empty one left by a crash, is broken", async () => {
  const file = path.join(tempFolder("lock"), "lock");
  writeFileSync(file, JSON.stringify({ pid: 1, host: "another-host", at: Date.now() - STALE_MS - 1000 }));
  assert.equal(await withLock(file, async () => "old", { waitMs: 5_000 }), "old");
  writeFileSync(file, "");
  const long = new Date(Date.now() - 60_000);
  utimesSync(file, long, long);
  assert.equal(await withLock(file, async () => "empty", { waitMs: 5_000 }), "empty");
});
