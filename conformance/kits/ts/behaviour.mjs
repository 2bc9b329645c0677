// @ts-check
// What every interpreter of PROTOCOL.md §7 shares: a behaviour is an object with exactly one key.
import { randomBytes } from "node:crypto";
import { KitError, dquote } from "./errors.mjs";

/**
 * The one key of a behaviour object and its value. Not an object, or not exactly one key, is
 * `bad_request`; a key outside `known` is `unsupported` naming it (§7: a behaviour the driver
 * does not know skips the scenario).
 * @param {unknown} b the behaviour as received
 * @param {string} where what it configures, for messages (`the extra tool "x"`, `hooks.beforeLLM`)
 * @param {readonly string[]} known the keys of the catalogue for this place
 * @returns {[string, any]}
 */
export function oneKey(b, where, known) {
  if (b === null || typeof b !== "object" || Array.isArray(b)) {
    throw new KitError("bad_request", `${where}: a behaviour is an object with one key, got ${JSON.stringify(b)}`);
  }
  const keys = Object.keys(b);
  if (keys.length !== 1) {
    throw new KitError("bad_request", `${where}: a behaviour has exactly one key, got ${keys.length}`);
  }
  if (!known.includes(keys[0])) throw new KitError("unsupported", `${where}: behaviour ${dquote(keys[0])}`);
  return [keys[0], /** @type {any} */ (b)[keys[0]]];
}

/**
 * A `bad_request` about a behaviour's value.
 * @param {string} where
 * @param {string} what
 */
export function badValue(where, what) {
  return new KitError("bad_request", `${where}: ${what}`);
}

/**
 * Whether `v` is a plain JSON object (not null, not an array).
 * @param {unknown} v
 * @returns {v is Record<string, any>}
 */
export function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const RUN = randomBytes(8).toString("hex");
let counter = 0;

/**
 * A fresh, unique SPEC §10 Request id, `req-<hex>-<n>` like the reference's: the hex differs per
 * process, the counter per call.
 */
export function newRequestId() {
  return `req-${RUN}-${counter++}`;
}
