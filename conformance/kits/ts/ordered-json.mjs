// @ts-check
// JSON that keeps object keys in the order received. PROTOCOL.md §7 asks `echo`, `suspend`'s
// answer data and `echoRequest` for compact JSON "keys in the order received"; a JS object puts
// integer-like keys first, so JSON.parse cannot give that order back.

/** A JSON number kept as its text, so it is written back digit for digit. */
export class RawNumber {
  /** @param {string} text */
  constructor(text) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

/**
 * Parse JSON text into an order-keeping tree: objects become `Map`s (insertion order = text
 * order), numbers `RawNumber`s; strings, booleans, null and arrays as usual. Throws SyntaxError.
 * @param {string} text
 * @returns {unknown}
 */
export function parseOrdered(text) {
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
    if (c === "{") {
      i++;
      const map = new Map();
      ws();
      if (text[i] === "}") {
        i++;
        return map;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a key");
        const key = string();
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        map.delete(key); // a repeated key: the last value wins, as in JSON.parse, in its own place
        map.set(key, value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") {
          i++;
          return map;
        } else fail("expected ',' or '}'");
      }
    }
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
    if (!m) fail("unexpected character");
    i += /** @type {RegExpExecArray} */ (m)[0].length;
    return new RawNumber(/** @type {RegExpExecArray} */ (m)[0]);
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
 * Compact JSON of an order-keeping tree (or any plain value): no whitespace, `Map` keys in their
 * order, non-ASCII characters as themselves, like Python's
 * `json.dumps(v, separators=(",", ":"), ensure_ascii=False)`.
 * @param {unknown} v
 * @returns {string}
 */
export function compactJson(v) {
  if (v instanceof RawNumber) return v.text;
  if (v instanceof Map) {
    const parts = [];
    for (const [k, x] of v) parts.push(`${JSON.stringify(String(k))}:${compactJson(x)}`);
    return `{${parts.join(",")}}`;
  }
  if (Array.isArray(v)) return `[${v.map(compactJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${compactJson(x)}`).join(",")}}`;
  }
  return v === undefined ? "null" : JSON.stringify(v);
}
