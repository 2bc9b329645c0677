// @ts-check
// The error envelope of PROTOCOL.md §4.

/** The error kinds PROTOCOL.md §4 defines, and nothing else. */
export const ERROR_KINDS = Object.freeze(["unsupported", "bad_request", "unknown_toolkit", "internal"]);

/** A driver failure, answered as `{"ok":false,"error":{kind,message}}`. */
export class KitError extends Error {
  /**
   * @param {"unsupported" | "bad_request" | "unknown_toolkit" | "internal"} kind
   * @param {string} message
   */
  constructor(kind, message) {
    super(message);
    if (!ERROR_KINDS.includes(kind)) throw new TypeError(`not an error kind of PROTOCOL.md §4: ${kind}`);
    this.name = "KitError";
    this.kind = kind;
  }
}

/**
 * A string quoted the way Python's repr() quotes it, so messages read as the Python starter's
 * (`the option 'skills'`): single quotes unless the text holds one and no double quote.
 * @param {string} s
 */
export function quote(s) {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  const body = s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
  return q + (q === "'" ? body.replace(/'/g, "\\'") : body) + q;
}

/**
 * A string in double quotes with JSON's escapes, the quoting of PROTOCOL.md §4's examples
 * (`unknown command "transmogrify"`, `no toolkit "tk9"`).
 * @param {string} s
 */
export function dquote(s) {
  return JSON.stringify(s);
}

/**
 * A required request field, or `bad_request` naming it (a request that parses but lacks a field).
 * @param {Record<string, unknown>} obj
 * @param {string} name
 * @returns {any}
 */
export function need(obj, name) {
  if (obj === null || typeof obj !== "object" || !(name in obj)) {
    throw new KitError("bad_request", `missing field ${dquote(name)}`);
  }
  return obj[name];
}
