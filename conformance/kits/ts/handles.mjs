// @ts-check
import { KitError, dquote } from "./errors.mjs";

/**
 * Objects a session names by id (toolkits, clients, servers, runtimes; PROTOCOL.md §3): ids are
 * reused across scenarios, a closed id is forgotten, and naming an unknown id is an error answer.
 * @template T
 */
export class HandleTable {
  /**
   * @param {string} noun what the ids name, for messages (`no toolkit "tk9"`, as PROTOCOL.md §4)
   * @param {"unknown_toolkit" | "bad_request"} [kind] the error kind of an unknown id
   */
  constructor(noun, kind = "unknown_toolkit") {
    this.noun = noun;
    this.kind = kind;
    /** @type {Map<string, T>} */
    this.map = new Map();
  }

  /**
   * Store `value` under `id`, returning what it replaces (for the caller to close).
   * @param {string} id
   * @param {T} value
   * @returns {T | undefined}
   */
  put(id, value) {
    const old = this.map.get(id);
    this.map.set(id, value);
    return old;
  }

  /**
   * The value under `id`, or an error answer (`unknown_toolkit` by default).
   * @param {string} id
   * @returns {T}
   */
  get(id) {
    if (!this.map.has(id)) throw new KitError(this.kind, `no ${this.noun} ${dquote(String(id))}`);
    return /** @type {T} */ (this.map.get(id));
  }

  /** @param {string} id */
  has(id) {
    return this.map.has(id);
  }

  /**
   * Forget `id` and hand back its value (undefined when absent): `close` is idempotent (§5.10).
   * @param {string} id
   * @returns {T | undefined}
   */
  take(id) {
    const v = this.map.get(id);
    this.map.delete(id);
    return v;
  }

  /**
   * Forget every id, awaiting `close` on each value in insertion order (shutdown, EOF, signals).
   * A close that throws is logged to stderr and the rest still close.
   * @param {(value: T, id: string) => unknown} [close]
   */
  async clear(close) {
    const entries = [...this.map];
    this.map.clear();
    if (!close) return;
    for (const [id, v] of entries) {
      try {
        await close(v, id);
      } catch (e) {
        process.stderr.write(`closing ${this.noun} ${id} failed: ${e}\n`);
      }
    }
  }

  get size() {
    return this.map.size;
  }
}
