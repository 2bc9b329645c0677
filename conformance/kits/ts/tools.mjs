// @ts-check
// PROTOCOL.md §7 for the toolkit options: extra tools (behaviours and HTTP declarations), the
// skill provider and `waitFor`, each handed to the port as a plain function or a typed view.
import { oneKey, badValue, isObject, newRequestId } from "./behaviour.mjs";
import { compactJson, cloneJson } from "./ordered-json.mjs";
import { realTimers } from "./clock.mjs";

/** The extra-tool behaviours of §7. */
export const TOOL_BEHAVIOURS = Object.freeze(["echo", "text", "template", "fail", "panic", "parts", "awaitCancel", "suspend"]);

/** The §1 sources an extra tool may name (`relay` is declared through `relayTools`). */
const SOURCES = ["mcp", "skill", "builtin", "native", "http", "a2a", "agent", "custom"];

/** `awaitCancel`'s bound when the behaviour names none (§7). */
export const AWAIT_CANCEL_DEFAULT_MS = 10000;

/**
 * @typedef {{ id: string, ok: boolean, data?: any, reason?: string }} Answer
 * @typedef {{ id: string, kind: string, prompt: string, url?: string, data?: any, expiresAt?: string }} PendingRequest
 * @typedef {{ output: string, isError: boolean, parts?: any[], metadata?: Record<string, any> }} ToolResult
 * @typedef {{ answer?: Answer | null, signal?: AbortSignal }} ToolContext
 * @typedef {(args: any, ctx?: ToolContext) => Promise<string | ToolResult>} ToolBody
 * @typedef {{ type: "native", name: string, description: string, inputSchema: Record<string, any>,
 *   source: string, behaviour: string, panics: boolean, execute: ToolBody }} NativeTool
 * @typedef {{ type: "http", name: string, description: string, inputSchema?: Record<string, any>,
 *   source: "http", http: Record<string, any> & { method: string, url: string } }} HttpTool
 * @typedef {{ records?: import("./records.mjs").Records, timers?: import("./clock.mjs").Timers }} ToolOptions
 */

/**
 * An extra tool of §7: `{name, description?, inputSchema?, source?, behaviour}` becomes a
 * `NativeTool` whose `execute(args, ctx)` is the behaviour (a string is a success output, an
 * object a whole ToolResult; `fail` and `panic` throw). `{…, http}` becomes an `HttpTool`, the
 * typed declaration the port hands its own `httpTool`. Build a tool whose `panics` is true
 * outside the port's native-tool helper: its throw must reach the port's own containment.
 * @param {any} spec the tool as received
 * @param {ToolOptions} [options] `records` gets `awaitCancel`'s `toolCancels`; `timers` is what
 *   `awaitCancel` waits with (real time by default)
 * @returns {NativeTool | HttpTool}
 */
export function extraTool(spec, { records, timers = realTimers } = {}) {
  if (!isObject(spec) || typeof spec.name !== "string") throw badValue("extra tool", `needs a string "name", got ${JSON.stringify(spec)}`);
  const name = spec.name;
  const where = `extra tool ${JSON.stringify(name)}`;
  const description = spec.description ?? "";
  if (typeof description !== "string") throw badValue(where, "description is a string");
  if (spec.inputSchema !== undefined && spec.inputSchema !== null && !isObject(spec.inputSchema)) {
    throw badValue(where, "inputSchema must be a JSON-Schema object (§1)");
  }
  if (("http" in spec) === ("behaviour" in spec)) throw badValue(where, 'needs one of "behaviour" and "http"');
  if ("http" in spec) return httpTool(name, description, spec.inputSchema ?? undefined, spec.http, where);
  const source = spec.source ?? "native";
  if (!SOURCES.includes(source)) throw badValue(where, `source ${JSON.stringify(source)} is not one of ${SOURCES.join(", ")}`);
  const [kind, arg] = oneKey(spec.behaviour, where, TOOL_BEHAVIOURS);
  return {
    type: "native", name, description, source, behaviour: kind, panics: kind === "panic",
    inputSchema: spec.inputSchema ?? { type: "object", properties: {} },
    execute: toolBody(name, kind, arg, where, records, timers),
  };
}

/**
 * @param {string} name
 * @param {string} kind
 * @param {any} arg
 * @param {string} where
 * @param {import("./records.mjs").Records | undefined} records
 * @param {import("./clock.mjs").Timers} timers
 * @returns {ToolBody}
 */
function toolBody(name, kind, arg, where, records, timers) {
  const text = () => {
    if (typeof arg !== "string") throw badValue(where, `${kind} takes a string`);
    return arg;
  };
  switch (kind) {
    case "echo":
      if (arg !== true) throw badValue(where, "echo takes true");
      return async (args) => compactJson(args ?? {}); // keys as received: the args carry their order
    case "text": {
      const t = text();
      return async () => t;
    }
    case "template": {
      const t = text();
      return async (args) => fillTemplate(t, args);
    }
    case "fail": {
      const m = text();
      return async () => {
        throw new Error(m); // the port's ordinary native-tool error path (SPEC §6)
      };
    }
    case "panic": {
      const m = text();
      return async () => {
        throw new Error(m); // never caught here: the port's containment is what is checked
      };
    }
    case "parts": {
      if (!isObject(arg) || typeof arg.output !== "string" || !Array.isArray(arg.parts)) {
        throw badValue(where, "parts takes {output: string, parts: [ContentPart, …]}");
      }
      const { output, parts } = arg;
      return async () => ({ output, isError: false, parts: cloneJson(parts) });
    }
    case "awaitCancel": {
      const ms = arg?.ms ?? AWAIT_CANCEL_DEFAULT_MS;
      if (!isObject(arg) || !Number.isInteger(ms) || ms < 0) throw badValue(where, "awaitCancel takes {ms?: integer >= 0}");
      return async (_args, ctx) => {
        const cancelled = !(await timers.sleep(ms, ctx?.signal));
        records?.push("toolCancels", { name, cancelled });
        return cancelled ? "cancelled" : "not cancelled";
      };
    }
    default: // suspend (oneKey admitted nothing else)
      if (!isObject(arg)) throw badValue(where, "suspend takes an object");
      return async (args, ctx) => suspend(arg, args, ctx?.answer);
  }
}

/**
 * `{"template": T}`: each `{{name}}` becomes the argument `name`: a string as itself, another
 * value as compact JSON, an absent one as nothing. An unclosed `{{` stays as written.
 * @param {string} template
 * @param {any} args
 */
export function fillTemplate(template, args) {
  return template.replace(/\{\{(.*?)\}\}/gs, (_, raw) => {
    const key = raw.trim();
    if (!isObject(args) || !Object.prototype.hasOwnProperty.call(args, key)) return "";
    const v = args[key];
    return typeof v === "string" ? v : compactJson(v);
  });
}

/**
 * `{"suspend": …}` (SPEC §10): a pending Request without an answer (or with `always`); with
 * one, `answerText` (an ok answer), the arguments (`echoArgs`) or `answer.data`, compact.
 * @param {Record<string, any>} spec
 * @param {any} args
 * @param {Answer | null | undefined} answer
 * @returns {ToolResult}
 */
function suspend(spec, args, answer) {
  if (answer != null && spec.always !== true) {
    if (typeof spec.answerText === "string" && answer.ok === true) return { output: spec.answerText, isError: false };
    const out = spec.echoArgs === true ? args ?? {} : answer.data ?? null;
    return { output: compactJson(out), isError: false };
  }
  /** @type {PendingRequest} */
  const request = { id: newRequestId(), kind: spec.kind ?? "approval", prompt: spec.prompt ?? "" };
  for (const k of /** @type {const} */ (["url", "data", "expiresAt"])) if (spec[k] !== undefined) request[k] = spec[k];
  return { output: request.prompt, isError: true, metadata: { pending: request } };
}

/**
 * An HTTP tool's declaration (§7 "HTTP tools"): every key of `http` as given.
 * @param {string} name
 * @param {string} description
 * @param {Record<string, any> | undefined} inputSchema
 * @param {any} http
 * @param {string} where
 * @returns {HttpTool}
 */
function httpTool(name, description, inputSchema, http, where) {
  if (!isObject(http) || typeof http.method !== "string" || typeof http.url !== "string") {
    throw badValue(where, "http needs a string method and url");
  }
  /** @type {HttpTool} */
  const tool = { type: "http", name, description, source: "http", http: { ...http, method: http.method, url: http.url } };
  if (inputSchema !== undefined) tool.inputSchema = inputSchema;
  return tool;
}

/**
 * The `skillProvider` behaviour (§7): `{"skills": [SkillDef, …]}` returns copies of these defs
 * each call; `{"fail": "M"}` throws `M` (the build must survive it).
 * @param {unknown} b
 * @returns {() => any[]}
 */
export function skillProvider(b) {
  const where = "skillProvider";
  const [kind, arg] = oneKey(b, where, ["skills", "fail"]);
  if (kind === "fail") {
    if (typeof arg !== "string") throw badValue(where, "fail takes a string");
    return () => {
      throw new Error(arg);
    };
  }
  if (!Array.isArray(arg)) throw badValue(where, "skills takes an array of SkillDef");
  return () => cloneJson(arg);
}

/**
 * The `waitFor` behaviour (§7), for `build` and for the client: a function of the port's
 * Request returning the Answer. With `records`, each Request is recorded in `waitForCalls`
 * before it answers (§5.13).
 * @param {unknown} b
 * @param {import("./records.mjs").Records} [records]
 * @returns {(request: PendingRequest) => Answer}
 */
export function waitFor(b, records) {
  const where = "waitFor";
  const [kind, arg] = oneKey(b, where, ["answer", "echoRequest"]);
  /** @type {(request: PendingRequest) => Answer} */
  let answer;
  if (kind === "echoRequest") {
    if (arg !== true) throw badValue(where, "echoRequest takes true");
    answer = (request) => ({ id: request.id, ok: true, data: flatRequest(request) });
  } else {
    if (!isObject(arg)) throw badValue(where, "answer takes {ok?, data?, reason?}");
    const { ok = true, data, reason } = arg;
    answer = (request) => {
      /** @type {Answer} */
      const a = { id: request.id, ok };
      if (data !== undefined) a.data = cloneJson(data);
      if (reason !== undefined) a.reason = reason;
      return a;
    };
  }
  return (request) => {
    records?.push("waitForCalls", request);
    return answer(request);
  };
}

/**
 * `echoRequest`'s data: the Request with primitive values only, `data` as compact JSON text.
 * @param {PendingRequest} r
 */
function flatRequest(r) {
  /** @type {Record<string, string>} */
  const flat = { id: r.id, kind: r.kind, prompt: r.prompt };
  if (r.url != null) flat.url = r.url;
  if (r.data != null) flat.data = compactJson(r.data);
  if (r.expiresAt != null) flat.expiresAt = r.expiresAt;
  return flat;
}
