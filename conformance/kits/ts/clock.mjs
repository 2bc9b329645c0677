// @ts-check
// Clocks behind the kit's waits: real time for a driver, and the virtual clock of PROTOCOL.md
// §5.27 (starts at 0, moves only on `advance`) for a port's injectable clock and for tests.

/**
 * @typedef {object} Timers what the kit waits with (`awaitCancel`), real or virtual
 * @property {() => number} now milliseconds on this clock
 * @property {(ms: number, signal?: AbortSignal) => Promise<boolean>} sleep resolves `true` once
 *   `ms` have passed, `false` as soon as `signal` aborts first (at once when already aborted)
 */

/**
 * A sleep on any setTimeout/clearTimeout pair, cut short by `signal`.
 * @param {(fn: () => void, ms: number) => unknown} set
 * @param {(id: any) => void} clear
 * @param {number} ms
 * @param {AbortSignal} [signal]
 * @returns {Promise<boolean>}
 */
function sleepOn(set, clear, ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clear(id);
      resolve(false);
    };
    const id = set(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Wall-clock timers (`Date.now`, `setTimeout`): what a driver uses outside tests. @type {Timers} */
export const realTimers = Object.freeze({
  now: () => Date.now(),
  sleep: (/** @type {number} */ ms, /** @type {AbortSignal | undefined} */ signal) =>
    sleepOn((fn, t) => setTimeout(fn, t), (id) => clearTimeout(id), ms, signal),
});

/**
 * A virtual clock (§5.27): `now()` starts at 0 and moves only on `advance(ms)`, which fires the
 * timers it passes in due order (ties in the order they were set), letting each one's
 * continuations run before the next fires, so a timer set by a fired one within the advanced
 * span fires too. No real time is involved.
 * @implements {Timers}
 */
export class VirtualClock {
  constructor() {
    /** @type {number} */
    this.current = 0;
    /** @type {{ id: number, due: number, fn: () => void }[]} */
    this.timers = [];
    this.nextId = 1;
  }

  /** The virtual time in ms. */
  now() {
    return this.current;
  }

  /**
   * Run `fn` once the clock reaches now + `ms` (a negative or non-finite `ms` counts as 0).
   * @param {() => void} fn
   * @param {number} ms
   * @returns {number} an id for clearTimeout
   */
  setTimeout(fn, ms) {
    const id = this.nextId++;
    const due = this.current + (Number.isFinite(ms) && ms > 0 ? ms : 0);
    let at = this.timers.length; // keep sorted by due time, ties in the order set
    while (at > 0 && this.timers[at - 1].due > due) at--;
    this.timers.splice(at, 0, { id, due, fn });
    return id;
  }

  /**
   * Forget a timer that has not fired (unknown ids are ignored).
   * @param {number} id
   */
  clearTimeout(id) {
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  /**
   * @param {number} ms
   * @param {AbortSignal} [signal]
   * @returns {Promise<boolean>}
   */
  sleep(ms, signal) {
    return sleepOn((fn, t) => this.setTimeout(fn, t), (id) => this.clearTimeout(id), ms, signal);
  }

  /** How many timers wait to fire. */
  get pending() {
    return this.timers.length;
  }

  /**
   * Move the clock `ms` forward, firing every timer due by then in due order.
   * @param {number} ms
   * @returns {Promise<number>} the new time
   */
  async advance(ms) {
    if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`advance by a finite ms >= 0, got ${ms}`);
    const target = this.current + ms;
    while (this.timers.length > 0 && this.timers[0].due <= target) {
      const t = /** @type {{ due: number, fn: () => void }} */ (this.timers.shift());
      this.current = t.due;
      t.fn();
      await new Promise((resolve) => setImmediate(resolve)); // let what the timer woke run
    }
    this.current = target;
    return this.current;
  }
}
