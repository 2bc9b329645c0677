// Types of the toolnexus conformance driver kit (index.mjs), kept by hand beside the JSDoc of the
// modules; test/exports.test.mjs fails when an export of index.mjs is not declared here.
/// <reference types="node" />

/** The protocol this kit speaks (PROTOCOL.md §1). */
export declare const PROTOCOL: 1;

/** The commands a section needs before `hello` lists it; a section absent here is listed as declared. */
export declare const SECTION_COMMANDS: Readonly<Record<string, readonly string[]>>;

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

/** A parsed request: `cmd`, `seq` and the command's fields (PROTOCOL.md §5). */
export type Request = { cmd: string; seq?: number } & Record<string, any>;

/** A JSON value with object key order kept: objects are Maps, numbers RawNumbers. */
export type Ordered = null | boolean | string | RawNumber | Ordered[] | Map<string, Ordered>;

/** The handler's view of the raw request line. */
export interface RequestContext {
  /** The request line as received (decoded UTF-8, without its newline). */
  line: string;
  /** The order-keeping parse of the request at `path` (undefined when absent), parsed on first use. */
  ordered(...path: (string | number)[]): Ordered | undefined;
}

/** A command's handler: its result becomes the fields of `{"ok":true,…}`. */
export type Handler = (
  req: Request,
  ctx: RequestContext,
) => Record<string, unknown> | void | Promise<Record<string, unknown> | void>;

/** One driver: handlers, `hello`, and the loop of PROTOCOL.md §2–§4. */
export declare class Kit {
  constructor(options: KitOptions);
  readonly port: PortInfo;
  readonly spec: string | undefined;
  /** Serve `cmd` with `fn` (not `hello` or `shutdown`, which the kit answers). */
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

/** A JSON number kept as its text. */
export declare class RawNumber {
  constructor(text: string);
  readonly text: string;
}

/** Parse JSON keeping object key order (Maps) and number text (RawNumber). */
export declare function parseOrdered(text: string): Ordered;

/** Compact JSON, Map keys in order, non-ASCII as itself (Python's separators=(",", ":"), ensure_ascii=False). */
export declare function compactJson(value: unknown): string;

/** Split a byte stream into lines (without `\n`), one at a time. */
export declare function lines(input: AsyncIterable<Buffer | Uint8Array | string>): AsyncGenerator<Buffer>;

/** Whether a line is only ASCII whitespace. */
export declare function isBlank(line: Buffer): boolean;

/** Strict UTF-8 decoding: throws on a bad byte. */
export declare function decodeUtf8(line: Buffer): string;
