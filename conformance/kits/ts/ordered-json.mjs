// @ts-check
// JSON that keeps object keys in the order received. PROTOCOL.md §7 asks `echo`, `suspend`'s
// answer data and `echoRequest` for compact JSON "keys in the order received"; a JS object lists
// integer-like keys first, so JSON.parse cannot give that order back. The kit parses every
// request with `parseJson`, so the values a driver hands its port carry their order with them.

/**
 * The key order an object was received in, where it differs from the object's own order
 * (integer-like keys): a non-enumerable property, so JSON.stringify, Object.keys and spreads
 * do not see it and structuredClone drops it.
 */
export const KEY_ORDER = Symbol("toolnexus.keyOrder");

/**
 * Parse JSON text into plain values, like JSON.parse, but each object whose received key order
 * differs from its JS order carries that order under `KEY_ORDER` (`compactJson` writes it).
 * Numbers become JS numbers (integers beyond 2^53 lose digits, as with JSON.parse).
 * Throws SyntaxError.
 * @param {string} text
 * @returns {any}
 */
export function parseJson(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const fail = (/** @type {string} */ what) => {
    throw new SyntaxError(`${what} at position ${i}`);
  };
  /** @returns {any} */
  const value = () => {
    ws();
    const c = text[i];
    if (c === "{") return object();
    if (c === "[") {
      i++;
      /** @type {unknown[]} */
      const arr = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return arr;
        } else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const [word, v] of /** @type {const} */ ([["true", true], ["false", false], ["null", null]])) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 512));
    if (!m) return fail("unexpected character");
    i += m[0].length;
    return Number(m[0]);
  };
  const object = () => {
    i++;
    /** @type {Record<string, unknown>} */
    const obj = {};
    /** @type {string[]} */
    const keys = [];
    ws();
    if (text[i] === "}") {
      i++;
      return obj;
    }
    for (;;) {
      ws();
      if (text[i] !== '"') fail("expected a key");
      const key = string();
      ws();
      if (text[i] !== ":") fail("expected ':'");
      i++;
      const v = value();
      if (Object.prototype.hasOwnProperty.call(obj, key)) {
        keys.splice(keys.indexOf(key), 1); // a repeated key: the last value wins, in its own place
        delete obj[key];
      }
      keys.push(key);
      // defineProperty, so a "__proto__" key is an own property as with JSON.parse
      Object.defineProperty(obj, key, { value: v, writable: true, enumerable: true, configurable: true });
      ws();
      if (text[i] === ",") i++;
      else if (text[i] === "}") {
        i++;
        break;
      } else fail("expected ',' or '}'");
    }
    const own = Object.keys(obj);
    if (own.some((k, n) => k !== keys[n])) Object.defineProperty(obj, KEY_ORDER, { value: keys });
    return obj;
  };
  const string = () => {
    // Find the closing quote, then let JSON.parse do the escapes: it is exact and fast.
    const start = i;
    i++;
    for (;;) {
      const q = text.indexOf('"', i);
      if (q === -1) fail("unterminated string");
      let backslashes = 0;
      for (let k = q - 1; k > start && text[k] === "\\"; k--) backslashes++;
      i = q + 1;
      if (backslashes % 2 === 0) break;
    }
    return /** @type {string} */ (JSON.parse(text.slice(start, i)));
  };
  const out = value();
  ws();
  if (i !== text.length) fail("trailing text");
  return out;
}

/**
 * An object's keys in the order received (`KEY_ORDER`, minus keys deleted since, plus keys
 * added since at the end), else its own order.
 * @param {object} obj
 * @returns {string[]}
 */
export function keysInOrder(obj) {
  const own = Object.keys(obj);
  /** @type {string[] | undefined} */
  const order = /** @type {any} */ (obj)[KEY_ORDER];
  if (!order) return own;
  const present = new Set(own);
  const kept = order.filter((k) => present.has(k));
  const seen = new Set(kept);
  return [...kept, ...own.filter((k) => !seen.has(k))];
}

/**
 * Compact JSON of a value: no whitespace, keys in the order received (`keysInOrder`), non-ASCII
 * characters as themselves, no HTML escaping, like Python's
 * `json.dumps(v, separators=(",", ":"), ensure_ascii=False)`. `undefined` members are left out
 * as JSON.stringify leaves them; a top-level `undefined` is `null`.
 * @param {unknown} v
 * @returns {string}
 */
export function compactJson(v) {
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined || typeof x === "function" ? "null" : compactJson(x))).join(",")}]`;
  if (v !== null && typeof v === "object" && typeof (/** @type {any} */ (v).toJSON) !== "function") {
    const o = /** @type {Record<string, unknown>} */ (v);
    const parts = [];
    for (const k of keysInOrder(o)) {
      if (o[k] === undefined || typeof o[k] === "function") continue;
      parts.push(`${JSON.stringify(k)}:${compactJson(o[k])}`);
    }
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/**
 * A deep copy as JSON that keeps each object's received key order (structuredClone drops it).
 * @param {unknown} v
 * @returns {any}
 */
export function cloneJson(v) {
  return parseJson(compactJson(v));
}
