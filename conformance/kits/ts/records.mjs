// @ts-check
// What host code observed (PROTOCOL.md §5.13, §5.25, §5.27): the recorded lists a driver answers.

/** A driver keeps at most this many entries per recorded list (§5.13). */
export const RECORD_CAP = 1000;

/** The names of the recorded lists, as their answer fields are spelt. */
export const RECORD_LISTS = Object.freeze([
  "hookCalls", "onErrorCalls", "metricEvents", "generateCalls", "evaluateCalls", "waitForCalls",
  "toolCancels", "onBudgetCalls",
]);

/**
 * A deep copy of `value` as plain JSON, taken now (§5.13 "Copied when they happen"): a port
 * mutating its transcript later cannot change an entry. `undefined` members are left out, as
 * JSON leaves them; a value JSON cannot carry (a cycle, a BigInt) throws.
 * @param {unknown} value
 * @returns {any}
 */
export function snapshot(value) {
  const text = JSON.stringify(value);
  return text === undefined ? null : JSON.parse(text);
}

/**
 * The recorded lists of a session, a client or a command: each interpreter that records is
 * handed one explicitly. `push` copies the entry and drops it past `RECORD_CAP`.
 */
export class Records {
  constructor() {
    /** @type {Record<string, any[]>} */
    this.lists = Object.fromEntries(RECORD_LISTS.map((n) => [n, []]));
    /** `replaceMessages` acts on the first `beforeLLM` call of a run only (§7). */
    this.replaced = false;
  }

  /**
   * Append a copy of `entry` to `list`, unless the list is full.
   * @param {string} list one of RECORD_LISTS
   * @param {unknown} entry
   */
  push(list, entry) {
    const l = this.lists[list];
    if (!l) throw new TypeError(`not a recorded list: ${list}`);
    if (l.length < RECORD_CAP) l.push(snapshot(entry));
  }

  /**
   * The entries of `list` so far (the live array).
   * @param {string} list
   * @returns {any[]}
   */
  get(list) {
    const l = this.lists[list];
    if (!l) throw new TypeError(`not a recorded list: ${list}`);
    return l;
  }

  /**
   * Empty `names` (all lists when none given) and forget `replaceMessages` having acted: a loop
   * command starts (§5.13), or a `build` empties `toolCancels` (§5.25).
   * @param {...string} names
   */
  reset(...names) {
    for (const n of names.length ? names : RECORD_LISTS) {
      if (!this.lists[n]) throw new TypeError(`not a recorded list: ${n}`);
      this.lists[n] = [];
    }
    if (!names.length) this.replaced = false;
  }

  /**
   * The answer fields `{name: entries}` for `names` (a command answers only the lists of the
   * seams it installed), each list emptied.
   * @param {Iterable<string>} names
   * @returns {Record<string, any[]>}
   */
  take(names) {
    /** @type {Record<string, any[]>} */
    const out = {};
    for (const n of names) {
      out[n] = this.get(n);
      this.lists[n] = [];
    }
    return out;
  }
}
