// Types of the toolnexus conformance driver kit (index.mjs), kept by hand beside the JSDoc of the
// modules; test/exports.test.mjs fails when an export of index.mjs is not declared here.
/// <reference types="node" />

/** The protocol this kit speaks (PROTOCOL.md §1). */
export declare const PROTOCOL: 1;

import type { Command, Requests } from "./protocol_gen.mjs";

/** The protocol's generated types (protocol_gen.d.mts, from conformance/protocol.schema.json): a record per message, `Requests`/`Answers` per command. */
export type * as protocol from "./protocol_gen.mjs";

/** The protocol version, every command, and the CORE commands per SPEC section (generated): `hello` lists a declared section only when all of its CORE commands are registered; a section absent there is listed as declared. */
export { PROTOCOL_VERSION, COMMANDS, CORE_COMMANDS } from "./protocol_gen.mjs";

/** The declared sections whose CORE commands are all registered, in the order declared. */
export declare function servedSections(declared: readonly string[], registered: (cmd: string) => boolean): string[];

/** The error kinds of PROTOCOL.md §4. */
export type ErrorKind = "unsupported" | "bad_request" | "unknown_toolkit" | "internal";
export declare const ERROR_KINDS: readonly ErrorKind[];

/** Who the port is, for `hello` (§5.1). */
export interface PortInfo {
  name: string;
  language: string;
  version: string;
}

export interface KitOptions {
  port: PortInfo;
  /** The SPEC sections the driver serves; `hello` lists those whose commands are all registered. */
  implements: string[];
  /** The SPEC version the port targets. */
  spec?: string;
}

/** A parsed request: `cmd`, `seq` and the command's fields (PROTOCOL.md §5), typed by the generated `Requests` for a known command. */
export type Request<K extends string = string> = { cmd: K; seq?: number } & (K extends Command
  ? Requests[K]
  : {}) &
  Record<string, any>;

/** The handler's view of the raw request line. */
export interface RequestContext {
  /** The request line as received (decoded UTF-8, without its newline). */
  line: string;
}

/** A command's handler: its result becomes the fields of `{"ok":true,…}`. */
export type Handler<K extends string = string> = (
  req: Request<K>,
  ctx: RequestContext,
) => Record<string, unknown> | void | Promise<Record<string, unknown> | void>;

/** One driver: handlers, `hello`, and the loop of PROTOCOL.md §2–§4. */
export declare class Kit {
  constructor(options: KitOptions);
  readonly port: PortInfo;
  readonly spec: string | undefined;
  /** Serve `cmd` with `fn` (not `hello` or `shutdown`, which the kit answers). */
  handle<K extends Command>(cmd: K, fn: Handler<K>): this;
  handle(cmd: string, fn: Handler): this;
  /** Run `fn` once when the session ends: shutdown, EOF, SIGTERM, SIGINT. */
  onClose(fn: () => unknown): this;
  /** The declared sections whose commands are all registered. */
  implemented(): string[];
  /** The `hello` answer fields. */
  hello(): { protocol: 1; implements: string[]; port: PortInfo; spec?: string };
  /** Run the onClose hooks (once). */
  close(): Promise<void>;
  /** The answer to one request line, or null for a blank line; never throws. */
  answer(raw: Buffer): Promise<{ response: Record<string, unknown>; stop: boolean } | null>;
  /** Read requests until shutdown or EOF, writing one answer line each. */
  serve(
    input: AsyncIterable<Buffer | Uint8Array | string>,
    write: (line: string) => unknown,
  ): Promise<"shutdown" | "eof">;
  /** stdin/stdout, console.log to stderr, signals; exits 0 at shutdown or EOF. */
  main(): Promise<never>;
}

/** A driver failure, answered `{"ok":false,"error":{kind,message}}`. */
export declare class KitError extends Error {
  constructor(kind: ErrorKind, message: string);
  readonly kind: ErrorKind;
}

/** A required request field, or a `bad_request` naming it. */
export declare function need(obj: Record<string, unknown>, name: string): any;

/** A string quoted as Python's repr() does, for messages matching the Python starter's. */
export declare function quote(s: string): string;

/** A string in double quotes with JSON's escapes, as PROTOCOL.md §4's examples quote (`no toolkit "tk9"`). */
export declare function dquote(s: string): string;

/** Objects of a session by id (toolkits, clients, servers, runtimes). */
export declare class HandleTable<T> {
  constructor(noun: string, kind?: "unknown_toolkit" | "bad_request");
  readonly noun: string;
  /** Store `value` under `id`, returning what it replaces. */
  put(id: string, value: T): T | undefined;
  /** The value under `id`, or a KitError (`unknown_toolkit` by default). */
  get(id: string): T;
  has(id: string): boolean;
  /** Forget `id`, returning its value (idempotent). */
  take(id: string): T | undefined;
  /** Forget every id, awaiting `close` on each. */
  clear(close?: (value: T, id: string) => unknown): Promise<void>;
  readonly size: number;
}

/** The received key order of a parsed object, where it differs from its JS order (non-enumerable). */
export declare const KEY_ORDER: unique symbol;

/** Parse JSON like JSON.parse, each object keeping its received key order under KEY_ORDER. */
export declare function parseJson(text: string): any;

/** An object's keys in the order received (deleted ones gone, added ones last), else its own order. */
export declare function keysInOrder(obj: object): string[];

/** Compact JSON, keys in the order received, non-ASCII as itself (Python's separators=(",", ":"), ensure_ascii=False). */
export declare function compactJson(value: unknown): string;

/** A deep copy as JSON keeping each object's received key order. */
export declare function cloneJson<T = any>(value: T): T;

/** Split a byte stream into lines (without `\n`), one at a time. */
export declare function lines(input: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<Buffer>;

/** Whether a line is only ASCII whitespace. */
export declare function isBlank(line: Buffer): boolean;

/** Strict UTF-8 decoding: throws on a bad byte. */
export declare function decodeUtf8(line: Buffer): string;

// ---- Recorded lists (PROTOCOL.md §5.13, §5.25, §5.27) ----

/** At most this many entries per recorded list (§5.13). */
export declare const RECORD_CAP: 1000;

/** The recorded lists, spelt as their answer fields. */
export type RecordList =
  | "hookCalls" | "onErrorCalls" | "metricEvents" | "generateCalls" | "evaluateCalls" | "waitForCalls"
  | "toolCancels" | "onBudgetCalls";
export declare const RECORD_LISTS: readonly RecordList[];

/** A deep copy as plain JSON, taken now (§5.13 "Copied when they happen"). */
export declare function snapshot(value: unknown): any;

/** The recorded lists a driver answers from; interpreters that record are handed one. */
export declare class Records {
  constructor();
  readonly lists: Record<RecordList, any[]>;
  /** Whether `replaceMessages` has acted in this run (reset with all lists). */
  replaced: boolean;
  /** Append a copy of `entry`, dropped past RECORD_CAP. */
  push(list: RecordList, entry: unknown): void;
  /** The entries so far. */
  get(list: RecordList): any[];
  /** Empty these lists (all, and `replaced`, when none named). */
  reset(...names: RecordList[]): void;
  /** `{name: entries}` for these lists, each emptied. */
  take(names: Iterable<RecordList>): Partial<Record<RecordList, any[]>>;
}

// ---- Clocks (PROTOCOL.md §5.27) ----

/** What the kit waits with: real or virtual time. */
export interface Timers {
  /** Milliseconds on this clock. */
  now(): number;
  /** `true` once `ms` passed, `false` as soon as `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean>;
}

/** Wall-clock timers. */
export declare const realTimers: Timers;

/** A virtual clock: starts at 0, moves only on `advance`, firing due timers in due order. */
export declare class VirtualClock implements Timers {
  constructor();
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<boolean>;
  /** Run `fn` once the clock reaches now + ms. */
  setTimeout(fn: () => void, ms: number): number;
  clearTimeout(id: number): void;
  /** How many timers wait to fire. */
  readonly pending: number;
  /** Move forward `ms`, firing each timer passed (ties in the order set); resolves to the new time. */
  advance(ms: number): Promise<number>;
}

// ---- Behaviours (PROTOCOL.md §7) ----

/** A fresh, unique SPEC §10 Request id (`req-<hex>-<n>`). */
export declare function newRequestId(): string;

/** SPEC §10 Answer. */
export interface Answer { id: string; ok: boolean; data?: any; reason?: string }
/** SPEC §10 Request. */
export interface PendingRequest { id: string; kind: string; prompt: string; url?: string; data?: any; expiresAt?: string }
/** SPEC §1 ToolResult. */
export interface ToolResult { output: string; isError: boolean; parts?: any[]; metadata?: Record<string, any> }
/** What a tool body gets from the port's call context. */
export interface ToolContext { answer?: Answer | null; signal?: AbortSignal }
/** A tool body: a string is a success output, an object a whole ToolResult; `fail`/`panic` throw. */
export type ToolBody = (args: any, ctx?: ToolContext) => Promise<string | ToolResult>;

/** An extra tool with a behaviour: build it with the port's native-tool helper (outside it when `panics`). */
export interface NativeTool {
  type: "native";
  name: string;
  description: string;
  inputSchema: Record<string, any>;
  source: string;
  /** The behaviour's key: echo, text, template, fail, panic, parts, awaitCancel, suspend. */
  behaviour: string;
  /** The body must reach the port's own containment: no helper catching its throw. */
  panics: boolean;
  execute: ToolBody;
}

/** The `http` block of an HTTP tool, every key as given. */
export interface HttpToolDecl {
  method: string;
  url: string;
  headers?: Record<string, string>;
  query?: string[];
  body?: "json" | "form" | "raw";
  timeout?: number;
  resultMode?: "text" | "json" | "status+text";
  [key: string]: unknown;
}

/** An extra tool with an `http` block: the port builds it with its own `httpTool`. */
export interface HttpTool {
  type: "http";
  name: string;
  description: string;
  inputSchema?: Record<string, any>;
  source: "http";
  http: HttpToolDecl;
}

export declare const TOOL_BEHAVIOURS: readonly string[];
export declare const AWAIT_CANCEL_DEFAULT_MS: 10000;

/** An extra tool of §7; `records` gets `toolCancels`, `timers` is what `awaitCancel` waits with. */
export declare function extraTool(spec: unknown, options?: { records?: Records; timers?: Timers }): NativeTool | HttpTool;

/** `{"template": T}`'s filling: `{{name}}` = the argument (a string itself, else compact JSON, absent empty). */
export declare function fillTemplate(template: string, args: unknown): string;

/** The `skillProvider` behaviour: returns the defs, or throws. */
export declare function skillProvider(b: unknown): () => any[];

/** The `waitFor` behaviour; with `records`, each Request lands in `waitForCalls` first. */
export declare function waitFor(b: unknown, records?: Records): (request: PendingRequest) => Answer;

export interface BeforeLLMCall { turn: number; model: string; messages: any[]; tools: any[]; [key: string]: unknown }
export interface AfterLLMCall { turn: number; model: string; response: any; [key: string]: unknown }
export interface BeforeToolCall { name: string; args: any; id: string; turn: number; [key: string]: unknown }
export interface AfterToolCall { name: string; args: any; result: ToolResult; id: string; turn: number; [key: string]: unknown }
export interface LLMOverride { messages?: any[]; tools?: any[] }

/** The installed client hooks; each records its call in `hookCalls` before acting. */
export interface Hooks {
  beforeLLM?: (call: BeforeLLMCall) => Promise<LLMOverride | undefined | null | void>;
  afterLLM?: (call: AfterLLMCall) => Promise<void>;
  beforeTool?: (call: BeforeToolCall) => Promise<{ result?: ToolResult; args?: any } | undefined>;
  afterTool?: (call: AfterToolCall) => Promise<{ result: ToolResult } | undefined>;
}

/** The SPEC §7F compactor options with `summarize`/`countTokens` as functions. */
export interface CompactorOptions {
  maxTokens: number;
  keepTail?: number;
  summarize: (older: any[]) => string;
  countTokens?: (messages: any[]) => number;
  flushToMemory?: boolean;
}

/** Builds the port's own compactor hook from the interpreted options. */
export type CompactorFactory = (options: CompactorOptions) => (call: BeforeLLMCall) => unknown;

export declare const HOOK_BEHAVIOURS: Readonly<Record<"beforeLLM" | "afterLLM" | "beforeTool" | "afterTool", readonly string[]>>;

/** `options.hooks`: the installed hooks; `compactor` is the port's, needed for that behaviour. */
export declare function hooks(spec: unknown, records: Records, port?: { compactor?: CompactorFactory }): Hooks;

/** `onError`: "retry" or "fail" for every failure, each info recorded first. */
export declare function onError(b: unknown, records: Records): (info: Record<string, any>) => "retry" | "fail";

/** `onMetric: {collect: true}`: every event recorded in `metricEvents`. */
export declare function onMetric(b: unknown, records: Records): (event: Record<string, any>) => void;

/** What a `generate` step answers (`usage` snake_case, the value the port's generate returns). */
export interface Generated {
  content?: string;
  toolCalls?: { id?: string; name: string; arguments: any }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** `generate: {script}`: step n on call n, the last repeated; a fail step throws; requests recorded first. */
export declare function generate(b: unknown, records: Records): (request: Record<string, any>) => Generated;

/** `bodyTransform`: `set` keys or `copy` from → to, on a new object. */
export declare function bodyTransform(b: unknown): (body: any) => any;

/** A host ConversationStore of its own. */
export interface Store {
  get(id: string): any[] | undefined;
  save(id: string, messages: any[]): void;
}

/** `store: {seeded}`: an in-memory store holding these transcripts. */
export declare function seededStore(b: unknown): Store;

/** The classifier's `evaluate`: returns the decision or throws; `{state, questions}` recorded first. */
export declare function evaluate(b: unknown, records: Records): (state: any, questions: any) => any;

/** §5.27 `onBudget`: the same answer for every stop, each info recorded first. */
export declare function onBudget(b: unknown, records: Records): (info: any) => "stop" | "extend" | "suspend";

/** Every behaviour-shaped `client` option at once, and the recorded lists a loop command answers. */
export declare function clientBehaviours(
  options: Record<string, any>,
  records: Records,
  port?: { compactor?: CompactorFactory },
): {
  seams: {
    hooks?: Hooks;
    onError?: (info: Record<string, any>) => "retry" | "fail";
    onMetric?: (event: Record<string, any>) => void;
    generate?: (request: Record<string, any>) => Generated;
    bodyTransform?: (body: any) => any;
    store?: Store;
    waitFor?: (request: PendingRequest) => Answer;
  };
  recorded: RecordList[];
};

/** §5.26 `compact` options: the interpreted options, and the `summarize` arguments as they come. */
export declare function compactOptions(raw: unknown): { options: CompactorOptions; summarizeCalls: any[][] };
