// @ts-check
// PROTOCOL.md §7 "Client behaviours" and "Classifier behaviours", plus §5.27's `onBudget`: each
// behaviour becomes the plain function the port's option takes, recording what it received in
// the `Records` it is handed, before it acts.
import { KitError, dquote } from "./errors.mjs";
import { oneKey, badValue, isObject } from "./behaviour.mjs";
import { cloneJson } from "./ordered-json.mjs";
import { compactOptions } from "./compact.mjs";
import { waitFor } from "./tools.mjs";

/** @typedef {import("./records.mjs").Records} Records */
/** @typedef {import("./compact.mjs").CompactorOptions} CompactorOptions */

/** The behaviours each hook takes (§7 "Client hooks"). */
export const HOOK_BEHAVIOURS = Object.freeze({
  beforeLLM: Object.freeze(["observe", "replaceMessages", "keepTools", "abort", "appendMessage", "compactor"]),
  afterLLM: Object.freeze(["observe"]),
  beforeTool: Object.freeze(["observe", "result", "args"]),
  afterTool: Object.freeze(["observe", "result", "prefix"]),
});
const ANY_HOOK = [...new Set(Object.values(HOOK_BEHAVIOURS).flat())];

/**
 * @typedef {{ turn: number, model: string, messages: any[], tools: any[] }} BeforeLLMCall
 * @typedef {{ turn: number, model: string, response: any }} AfterLLMCall
 * @typedef {{ name: string, args: any, id: string, turn: number }} BeforeToolCall
 * @typedef {{ name: string, args: any, result: import("./tools.mjs").ToolResult, id: string, turn: number }} AfterToolCall
 * @typedef {{ messages?: any[], tools?: any[] }} LLMOverride
 * @typedef {{
 *   beforeLLM?: (call: BeforeLLMCall) => Promise<LLMOverride | undefined | null | void>,
 *   afterLLM?: (call: AfterLLMCall) => Promise<void>,
 *   beforeTool?: (call: BeforeToolCall) => Promise<{ result?: import("./tools.mjs").ToolResult, args?: any } | undefined>,
 *   afterTool?: (call: AfterToolCall) => Promise<{ result: import("./tools.mjs").ToolResult } | undefined>,
 * }} Hooks
 * @typedef {(options: CompactorOptions) => (call: BeforeLLMCall) => unknown} CompactorFactory
 */

/**
 * `options.hooks` (§7): the installed hooks only, each recording
 * `{hook, …the call's listed keys}` in `hookCalls` before its behaviour acts. A `compactor`
 * behaviour needs `compactor`, the port's own SPEC §7F compactor built from the interpreted
 * options (`unsupported` without it); its answer is the hook's.
 * @param {unknown} spec
 * @param {Records} records
 * @param {{ compactor?: CompactorFactory }} [port]
 * @returns {Hooks}
 */
export function hooks(spec, records, { compactor } = {}) {
  if (!isObject(spec)) throw badValue("hooks", "an object of hook behaviours");
  /** @type {Hooks} */
  const out = {};
  for (const [hook, b] of Object.entries(spec)) {
    if (b == null) continue; // §6: null is absent
    if (!(hook in HOOK_BEHAVIOURS)) throw new KitError("bad_request", `unknown hook ${dquote(hook)}`);
    const where = `hooks.${hook}`;
    const [kind, arg] = oneKey(b, where, ANY_HOOK);
    if (!HOOK_BEHAVIOURS[/** @type {keyof HOOK_BEHAVIOURS} */ (hook)].includes(kind)) {
      throw badValue(where, `${kind} is not a behaviour of this hook`);
    }
    if (kind === "observe" && arg !== true) throw badValue(where, "observe takes true");
    const record = (/** @type {Record<string, any>} */ call, /** @type {string[]} */ keys) =>
      records.push("hookCalls", { hook, ...Object.fromEntries(keys.map((k) => [k, call[k]])) });
    if (hook === "beforeLLM") out.beforeLLM = beforeLLM(kind, arg, where, records, record, compactor);
    else if (hook === "afterLLM") {
      out.afterLLM = async (call) => {
        record(call, ["turn", "model", "response"]);
      };
    } else if (hook === "beforeTool") {
      if (kind === "result" && !isObject(arg)) throw badValue(where, "result takes a ToolResult");
      if (kind === "args" && !isObject(arg)) throw badValue(where, "args takes an object");
      out.beforeTool = async (call) => {
        record(call, ["name", "args", "id", "turn"]);
        if (kind === "result") return { result: cloneJson(arg) };
        if (kind === "args") return { args: cloneJson(arg) };
        return undefined;
      };
    } else {
      if (kind === "result" && !isObject(arg)) throw badValue(where, "result takes a ToolResult");
      if (kind === "prefix" && typeof arg !== "string") throw badValue(where, "prefix takes a string");
      out.afterTool = async (call) => {
        record(call, ["name", "args", "result", "id", "turn"]);
        if (kind === "result") return { result: cloneJson(arg) };
        if (kind === "prefix") return { result: { ...call.result, output: arg + call.result.output } };
        return undefined;
      };
    }
  }
  return out;
}

/**
 * @param {string} kind
 * @param {any} arg
 * @param {string} where
 * @param {Records} records
 * @param {(call: Record<string, any>, keys: string[]) => void} record
 * @param {CompactorFactory | undefined} compactor
 * @returns {NonNullable<Hooks["beforeLLM"]>}
 */
function beforeLLM(kind, arg, where, records, record, compactor) {
  const keys = ["turn", "model", "messages", "tools"];
  switch (kind) {
    case "observe":
      return async (call) => void record(call, keys);
    case "replaceMessages":
      if (!Array.isArray(arg)) throw badValue(where, "replaceMessages takes an array of messages");
      return async (call) => {
        record(call, keys);
        if (records.replaced) return undefined; // the first call of the run only
        records.replaced = true;
        return { messages: cloneJson(arg) };
      };
    case "keepTools": {
      if (!Array.isArray(arg) || !arg.every((n) => typeof n === "string")) throw badValue(where, "keepTools takes an array of names");
      const keep = new Set(arg);
      return async (call) => {
        record(call, keys);
        return { tools: (call.tools ?? []).filter((t) => keep.has(t?.function?.name ?? t?.name)) };
      };
    }
    case "abort":
      if (typeof arg !== "string") throw badValue(where, "abort takes a string");
      return async (call) => {
        record(call, keys);
        throw new Error(arg); // the route gate: the run raises
      };
    case "appendMessage":
      if (!isObject(arg)) throw badValue(where, "appendMessage takes a message");
      return async (call) => {
        record(call, keys);
        return { messages: [...call.messages, cloneJson(arg)] };
      };
    default: {
      if (!compactor) throw new KitError("unsupported", `${where}: behaviour "compactor" (SPEC §7F)`);
      const hook = compactor(compactOptions(arg).options);
      return async (call) => {
        record(call, keys);
        return /** @type {any} */ (await hook(call));
      };
    }
  }
}

/**
 * `onError` (§7): `{"answer": "retry" | "fail"}` for every failed attempt, each `info`
 * (`{status?, error?, attempt, retryable}`) recorded in `onErrorCalls` first.
 * @param {unknown} b
 * @param {Records} records
 * @returns {(info: Record<string, any>) => "retry" | "fail"}
 */
export function onError(b, records) {
  const [, answer] = oneKey(b, "onError", ["answer"]);
  if (answer !== "retry" && answer !== "fail") throw badValue("onError", 'answer is "retry" or "fail"');
  return (info) => {
    records.push("onErrorCalls", info);
    return answer;
  };
}

/**
 * `onMetric` (§6A): `{"collect": true}` records every event in `metricEvents`.
 * @param {unknown} b
 * @param {Records} records
 * @returns {(event: Record<string, any>) => void}
 */
export function onMetric(b, records) {
  const [, on] = oneKey(b, "onMetric", ["collect"]);
  if (on !== true) throw badValue("onMetric", "collect takes true");
  return (event) => records.push("metricEvents", event);
}

/**
 * @typedef {{ content?: string, toolCalls?: { id?: string, name: string, arguments: any }[],
 *   usage?: { prompt_tokens: number, completion_tokens: number, total_tokens: number } }} Generated
 */

/**
 * `generate` (§7): `{"script": [step, …]}`; the n-th call (0-based) answers step n, the last step
 * again once used up; a `{"fail": "M"}` step throws `M`. Each request is recorded in
 * `generateCalls` first. `usage` stays snake_case, the value a port's `generate` returns.
 * @param {unknown} b
 * @param {Records} records
 * @returns {(request: Record<string, any>) => Generated}
 */
export function generate(b, records) {
  const [, script] = oneKey(b, "generate", ["script"]);
  if (!Array.isArray(script) || script.length === 0) throw badValue("generate", "script takes a non-empty array of steps");
  script.forEach((step, n) => checkStep(step, `generate.script[${n}]`));
  let calls = 0;
  return (request) => {
    records.push("generateCalls", request);
    const step = script[Math.min(calls++, script.length - 1)];
    if ("fail" in step) throw new Error(step.fail);
    /** @type {Generated} */
    const out = {};
    for (const k of /** @type {const} */ (["content", "toolCalls", "usage"])) if (step[k] !== undefined) out[k] = cloneJson(step[k]);
    return out;
  };
}

/**
 * @param {any} step
 * @param {string} where
 */
function checkStep(step, where) {
  if (!isObject(step)) throw badValue(where, "a step is an object");
  for (const k of Object.keys(step)) if (!["content", "toolCalls", "usage", "fail"].includes(k)) throw badValue(where, `unknown key ${dquote(k)}`);
  if ("fail" in step && (typeof step.fail !== "string" || Object.keys(step).length !== 1)) throw badValue(where, "fail takes a string, alone");
  if (step.content != null && typeof step.content !== "string") throw badValue(where, "content is a string");
  if (step.toolCalls != null && !(Array.isArray(step.toolCalls) && step.toolCalls.every((c) => isObject(c) && typeof c.name === "string"))) {
    throw badValue(where, "toolCalls is an array of {id?, name, arguments}");
  }
  if (step.usage != null) {
    const keys = ["prompt_tokens", "completion_tokens", "total_tokens"];
    const u = step.usage;
    if (!isObject(u) || Object.keys(u).length !== 3 || !keys.every((k) => Number.isInteger(u[k]))) {
      throw badValue(where, "usage is {prompt_tokens, completion_tokens, total_tokens}, integers, nothing else");
    }
  }
}

/**
 * `bodyTransform` (§7): `{"set": {k: v}}` sets these top-level keys; `{"copy": {from: to}}` sets
 * `body[to] = body[from]` (`null` when absent), every source read before any is written.
 * Answers a new object; a body that is not an object is answered unchanged.
 * @param {unknown} b
 * @returns {(body: any) => any}
 */
export function bodyTransform(b) {
  const [kind, arg] = oneKey(b, "bodyTransform", ["set", "copy"]);
  if (!isObject(arg)) throw badValue("bodyTransform", `${kind} takes an object`);
  if (kind === "copy" && !Object.values(arg).every((to) => typeof to === "string")) throw badValue("bodyTransform", "copy maps names to names");
  return (body) => {
    if (!isObject(body)) return body;
    if (kind === "set") return { ...body, ...cloneJson(arg) };
    const copies = Object.entries(arg).map(([from, to]) => [to, from in body ? body[from] : null]);
    return { ...body, ...Object.fromEntries(copies) };
  };
}

/**
 * @typedef {{ get(id: string): any[] | undefined, save(id: string, messages: any[]): void }} Store
 */

/**
 * `store` (§7): `{"seeded": {id: [message, …]}}`, a host ConversationStore of its own (an
 * in-memory map, not the port's default) holding these transcripts; it hands out and keeps
 * copies.
 * @param {unknown} b
 * @returns {Store}
 */
export function seededStore(b) {
  const [, seed] = oneKey(b, "store", ["seeded"]);
  if (!isObject(seed) || !Object.values(seed).every(Array.isArray)) throw badValue("store", "seeded maps ids to message arrays");
  const threads = new Map(Object.entries(cloneJson(seed)));
  return {
    get: (id) => (threads.has(id) ? cloneJson(threads.get(id)) : undefined),
    save: (id, messages) => void threads.set(id, cloneJson(messages)),
  };
}

/**
 * The classifier's `evaluate` (§7, `style: "custom"`): `{"decision": D}` returns a copy of D (in
 * the systemone wire form, for the port's decoder); `{"fail": "M"}` throws `M`. Each call is
 * recorded as `{state, questions}` in `evaluateCalls` before it acts.
 * @param {unknown} b
 * @param {Records} records
 * @returns {(state: any, questions: any) => any}
 */
export function evaluate(b, records) {
  const [kind, arg] = oneKey(b, "evaluate", ["decision", "fail"]);
  if (kind === "fail" && typeof arg !== "string") throw badValue("evaluate", "fail takes a string");
  if (kind === "decision" && !isObject(arg)) throw badValue("evaluate", "decision takes an object");
  return (state, questions) => {
    records.push("evaluateCalls", { state, questions });
    if (kind === "fail") throw new Error(arg);
    return cloneJson(arg);
  };
}

/**
 * §5.27's `onBudget`: `{"answer": "stop" | "extend" | "suspend"}` for every budget stop, each
 * `info` recorded in `onBudgetCalls` first.
 * @param {unknown} b
 * @param {Records} records
 * @returns {(info: any) => "stop" | "extend" | "suspend"}
 */
export function onBudget(b, records) {
  const [, answer] = oneKey(b, "onBudget", ["answer"]);
  if (!["stop", "extend", "suspend"].includes(answer)) throw badValue("onBudget", 'answer is "stop", "extend" or "suspend"');
  return (info) => {
    records.push("onBudgetCalls", info);
    return answer;
  };
}

/** Which recorded list each client seam fills (§5.13). */
const RECORDED_BY = Object.freeze({ hooks: "hookCalls", onMetric: "metricEvents", onError: "onErrorCalls", generate: "generateCalls", waitFor: "waitForCalls" });

/**
 * Every behaviour-shaped option of `client` (§6A) at once: `seams` holds the functions of the
 * options present (`hooks`, `onError`, `onMetric`, `generate`, `bodyTransform`, `store`,
 * `waitFor`), `recorded` the list names a loop command answers (those of installed seams).
 * The other option keys are the port's to map.
 * @param {Record<string, any>} options
 * @param {Records} records
 * @param {{ compactor?: CompactorFactory }} [port]
 */
export function clientBehaviours(options, records, port = {}) {
  /** @type {{ hooks?: Hooks, onError?: ReturnType<typeof onError>, onMetric?: ReturnType<typeof onMetric>,
   *   generate?: ReturnType<typeof generate>, bodyTransform?: ReturnType<typeof bodyTransform>,
   *   store?: Store, waitFor?: ReturnType<typeof waitFor> }} */
  const seams = {};
  const has = (/** @type {string} */ k) => options[k] != null;
  if (has("hooks")) seams.hooks = hooks(options.hooks, records, port);
  if (has("onError")) seams.onError = onError(options.onError, records);
  if (has("onMetric")) seams.onMetric = onMetric(options.onMetric, records);
  if (has("generate")) seams.generate = generate(options.generate, records);
  if (has("bodyTransform")) seams.bodyTransform = bodyTransform(options.bodyTransform);
  if (has("store")) seams.store = seededStore(options.store);
  if (has("waitFor")) seams.waitFor = waitFor(options.waitFor, records);
  const recorded = Object.entries(RECORDED_BY).filter(([k]) => has(k)).map(([, list]) => list);
  return { seams, recorded };
}
