import assert from "node:assert/strict";
import { test } from "node:test";
import { Restarts } from "../restarts";

/** A restart that takes its time, counting how many run at once. */
function slowCycles() {
  const log = { started: 0, finished: 0, overlapping: 0, running: 0 };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
  const restarts = new Restarts(async (reading) => {
    log.started++;
    log.running++;
    log.overlapping = Math.max(log.overlapping, log.running);
    await pause(); // stopping the old server
    reading();
    await pause(); // starting the new one
    log.running--;
    log.finished++;
  });
  return { restarts, log };
}

test("triggers that come together make one restart, never two at once", async () => {
  // Set API Key stores the key (secrets.onDidChange restarts) and then restarts itself.
  const { restarts, log } = slowCycles();
  await Promise.all([restarts.request(), restarts.request(), restarts.request()]);
  assert.deepEqual([log.started, log.finished, log.overlapping], [1, 1, 1]);
});

test("a trigger after the settings were read gets one more restart, after the first", async () => {
  const { restarts, log } = slowCycles();
  const first = restarts.request();
  await new Promise((resolve) => setTimeout(resolve, 8)); // the first has read its settings
  const later = [restarts.request(), restarts.request(), restarts.request()];
  await Promise.all([first, ...later]);
  assert.deepEqual([log.started, log.finished, log.overlapping], [2, 2, 1]);
  // Once idle, a new trigger restarts again.
  await restarts.request();
  assert.equal(log.started, 3);
});

test("a restart that fails before reading anything does not spin", async () => {
  let calls = 0;
  const restarts = new Restarts(async () => {
    calls++;
  });
  await restarts.request();
  await restarts.idle();
  assert.equal(calls, 1);
});
