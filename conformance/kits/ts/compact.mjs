// @ts-check
// PROTOCOL.md §5.26: the options of a SPEC §7F compactor, with `summarize` and `countTokens`
// interpreted as plain functions. The port builds its own compactor from them.
import { KitError, dquote } from "./errors.mjs";
import { oneKey, badValue, isObject } from "./behaviour.mjs";
import { snapshot } from "./records.mjs";

const KEYS = ["maxTokens", "keepTail", "summarize", "countTokens", "flushToMemory"];

/**
 * @typedef {{ maxTokens: number, keepTail?: number, summarize: (older: any[]) => string,
 *   countTokens?: (messages: any[]) => number, flushToMemory?: boolean }} CompactorOptions
 */

/**
 * `compact`'s `options` (or a `compactor` hook's): `summarize` `{text: T}` answers T,
 * `{template: T}` answers T with each `<N>` replaced by the number of messages it got;
 * `countTokens` `{perMessage: K}` answers K × the number of messages. Every `summarize`
 * argument is copied into `summarizeCalls`, in call order. Unknown keys are `bad_request`.
 * @param {unknown} raw
 * @returns {{ options: CompactorOptions, summarizeCalls: any[][] }}
 */
export function compactOptions(raw) {
  const where = "compact options";
  if (!isObject(raw)) throw badValue(where, "an object");
  for (const k of Object.keys(raw)) if (!KEYS.includes(k)) throw new KitError("bad_request", `unknown compact option ${dquote(k)}`);
  const { maxTokens, keepTail, flushToMemory } = raw;
  if (!Number.isInteger(maxTokens) || maxTokens < 0) throw badValue(where, "maxTokens is a required integer >= 0");
  if (keepTail != null && (!Number.isInteger(keepTail) || keepTail < 0)) throw badValue(where, "keepTail is an integer >= 0");
  if (flushToMemory != null && typeof flushToMemory !== "boolean") throw badValue(where, "flushToMemory is a boolean");
  if (raw.summarize == null) throw badValue(where, "summarize is required");
  const [kind, text] = oneKey(raw.summarize, "summarize", ["text", "template"]);
  if (typeof text !== "string") throw badValue("summarize", `${kind} takes a string`);
  /** @type {any[][]} */
  const summarizeCalls = [];
  /** @type {CompactorOptions} */
  const options = {
    maxTokens,
    summarize(older) {
      summarizeCalls.push(snapshot(older));
      return kind === "text" ? text : text.replaceAll("<N>", String(older.length));
    },
  };
  if (keepTail != null) options.keepTail = keepTail;
  if (flushToMemory != null) options.flushToMemory = flushToMemory;
  if (raw.countTokens != null) {
    const [, k] = oneKey(raw.countTokens, "countTokens", ["perMessage"]);
    if (!Number.isInteger(k) || k < 0) throw badValue("countTokens", "perMessage takes an integer >= 0");
    options.countTokens = (messages) => k * messages.length;
  }
  return { options, summarizeCalls };
}
