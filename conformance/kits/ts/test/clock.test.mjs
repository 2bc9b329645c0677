// The virtual clock of PROTOCOL.md §5.27: starts at 0, moves only on advance, timers fire in due
// order when the clock passes them. No real time is waited on anywhere here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { VirtualClock } from "../index.mjs";

test("the clock starts at 0 and moves only on advance", async () => {
  const clock = new VirtualClock();
  assert.equal(clock.now(), 0);
  await new Promise((r) => setImmediate(r));
  assert.equal(clock.now(), 0, "time passing outside does not move it");
  // §5.27 example: > {"cmd":"agent_clock","runtime":"rt1","advanceMs":250} after 100 ms waited: < {"now":350}
  assert.equal(await clock.advance(100), 100);
  assert.equal(await clock.advance(250), 350);
  assert.equal(clock.now(), 350);
  await assert.rejects(clock.advance(-1), RangeError);
});

test("timers fire in due order, ties in the order set, each seeing its own due time", async () => {
  const clock = new VirtualClock();
  const fired = [];
  clock.setTimeout(() => fired.push(`c@${clock.now()}`), 30);
  clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
  clock.setTimeout(() => fired.push(`b1@${clock.now()}`), 20);
  clock.setTimeout(() => fired.push(`b2@${clock.now()}`), 20);
  const gone = clock.setTimeout(() => fired.push("cleared"), 15);
  clock.clearTimeout(gone);
  await clock.advance(25);
  assert.deepEqual(fired, ["a@10", "b1@20", "b2@20"]);
  assert.equal(clock.now(), 25);
  assert.equal(clock.pending, 1);
  await clock.advance(5);
  assert.deepEqual(fired, ["a@10", "b1@20", "b2@20", "c@30"]);
});

test("sleeps resolve when the clock passes them; a sleep set by a woken one within the span fires too", async () => {
  const clock = new VirtualClock();
  const log = [];
  const chain = (async () => {
    assert.equal(await clock.sleep(100), true);
    log.push(clock.now());
    await clock.sleep(50);
    log.push(clock.now());
  })();
  await clock.advance(99);
  assert.deepEqual(log, []);
  await clock.advance(101); // to 200: wakes at 100, the next sleep is due at 150
  await chain;
  assert.deepEqual(log, [100, 150]);
});

test("a sleep cut short by its AbortSignal resolves false and leaves no timer", async () => {
  const clock = new VirtualClock();
  const ac = new AbortController();
  const s = clock.sleep(1000, ac.signal);
  assert.equal(clock.pending, 1);
  ac.abort();
  assert.equal(await s, false);
  assert.equal(clock.pending, 0);
  assert.equal(await clock.sleep(5, ac.signal), false, "an aborted signal ends the sleep at once");
  assert.equal(clock.now(), 0);
});
