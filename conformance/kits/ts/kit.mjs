// @ts-check
// The protocol loop of PROTOCOL.md §2–§4: a driver registers one handler per command it serves.
import { lines, isBlank, decodeUtf8 } from "./framing.mjs";
import { parseJson } from "./ordered-json.mjs";
import { KitError, dquote } from "./errors.mjs";
import { servedSections } from "./sections.mjs";

/** The protocol this kit speaks (PROTOCOL.md §1). */
export const PROTOCOL = 1;

/** Commands the kit answers itself. */
const BUILTIN = new Set(["hello", "shutdown"]);

/**
 * @typedef {{ name: string, language: string, version: string }} PortInfo
 * @typedef {{ port: PortInfo, implements: string[], spec?: string }} KitOptions
 * @typedef {{ line: string }} RequestContext
 * @typedef {(req: Record<string, any>, ctx: RequestContext) => unknown} Handler
 */

/** One driver: its handlers, its `hello`, and the loop that feeds them. */
export class Kit {
  /** @param {KitOptions} options */
  constructor(options) {
    this.port = options.port;
    this.spec = options.spec;
    this.declared = [...options.implements];
    /** @type {Map<string, Handler>} */
    this.handlers = new Map();
    /** @type {(() => unknown)[]} */
    this.closers = [];
    this.closed = false;
  }

  /**
   * Serve `cmd` with `fn`; its result (an object, or nothing) becomes the fields of `{"ok":true,…}`.
   * @param {string} cmd
   * @param {Handler} fn
   */
  handle(cmd, fn) {
    if (BUILTIN.has(cmd)) throw new TypeError(`the kit answers ${cmd} itself; use onClose for cleanup`);
    this.handlers.set(cmd, fn);
    return this;
  }

  /**
   * Run `fn` once when the session ends (shutdown, EOF, SIGTERM, SIGINT): close what is open.
   * @param {() => unknown} fn
   */
  onClose(fn) {
    this.closers.push(fn);
    return this;
  }

  /** The declared sections whose CORE commands (sections.mjs) are all registered (§5.1 `implements`). */
  implemented() {
    return servedSections(this.declared, (c) => this.handlers.has(c));
  }

  /** The `hello` answer fields (§5.1). */
  hello() {
    /** @type {Record<string, unknown>} */
    const out = { protocol: PROTOCOL, implements: this.implemented(), port: this.port };
    if (this.spec !== undefined) out.spec = this.spec;
    return out;
  }

  /** Run every onClose hook once, in registration order; a throwing hook does not stop the rest. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    for (const fn of this.closers) {
      try {
        await fn();
      } catch (e) {
        process.stderr.write(`onClose hook failed: ${e instanceof Error ? e.stack : e}\n`);
      }
    }
  }

  /**
   * The answer to one request line, or null for a blank line (§2: ignored). Never throws.
   * @param {Buffer} raw
   * @returns {Promise<{ response: Record<string, unknown>, stop: boolean } | null>}
   */
  async answer(raw) {
    if (isBlank(raw)) return null;
    /** @type {Record<string, any>} */
    let req = {};
    /** @type {Record<string, unknown>} */
    let response;
    let stop = false;
    try {
      let text;
      try {
        text = decodeUtf8(raw);
      } catch (e) {
        throw new KitError("bad_request", `request is not UTF-8: ${e instanceof Error ? e.message : e}`);
      }
      let parsed;
      try {
        parsed = parseJson(text); // as JSON.parse, with each object's key order kept (§7 echo)
      } catch (e) {
        throw new KitError("bad_request", `request is not JSON: ${e instanceof Error ? e.message : e}`);
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new KitError("bad_request", "a request is a JSON object");
      }
      req = parsed;
      const cmd = req.cmd;
      if (typeof cmd !== "string") throw new KitError("bad_request", "missing field 'cmd' (a string)");
      let fields;
      if (cmd === "hello") {
        fields = this.hello();
      } else if (cmd === "shutdown") {
        stop = true; // §5.11: close everything, answer, exit 0 without reading further
        await this.close();
        fields = {};
      } else {
        const fn = this.handlers.get(cmd);
        if (!fn) throw new KitError("unsupported", `unknown command ${dquote(cmd)}`); // §4's wording
        fields = await fn(req, { line: text });
      }
      if (fields !== undefined && fields !== null && (typeof fields !== "object" || Array.isArray(fields))) {
        throw new TypeError(`the ${cmd} handler answered ${Array.isArray(fields) ? "an array" : typeof fields}, not an object`);
      }
      response = Object.assign({ ok: true }, fields ?? {}, { ok: true });
    } catch (e) {
      response = { ok: false, error: envelopeError(e) };
    }
    if ("seq" in req) response.seq = req.seq; // §2: a MUST, error envelopes included
    return { response, stop };
  }

  /**
   * Read requests from `input` until `shutdown` or EOF, one at a time, writing one line each.
   * @param {AsyncIterable<Buffer | Uint8Array | string>} input
   * @param {(line: string) => unknown} write called with each answer line (with its `\n`), awaited
   * @returns {Promise<"shutdown" | "eof">}
   */
  async serve(input, write) {
    for await (const raw of lines(input)) {
      const a = await this.answer(raw);
      if (!a) continue;
      await write(encode(a.response));
      if (a.stop) return "shutdown";
    }
    await this.close(); // §3: EOF ends the driver cleanly
    return "eof";
  }

  /**
   * The driver's main: stdin/stdout, stray stdout writes (console.log) sent to stderr, SIGTERM and
   * SIGINT closing cleanly; exits 0 at shutdown or EOF.
   */
  async main() {
    const stdout = process.stdout;
    const answerWrite = stdout.write.bind(stdout);
    // §2: stdout carries answers only; anything else the port prints goes to stderr.
    stdout.write = /** @type {any} */ (process.stderr.write.bind(process.stderr));
    const onSignal = async () => {
      await this.close();
      process.exit(0);
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
    const write = (/** @type {string} */ line) =>
      new Promise((resolve, reject) => answerWrite(line, (err) => (err ? reject(err) : resolve(undefined))));
    await this.serve(process.stdin, write);
    process.exit(0);
  }
}

/**
 * One compact answer line; an answer JSON cannot carry (a BigInt, a cycle) becomes `internal`.
 * @param {Record<string, unknown>} response
 */
function encode(response) {
  try {
    return JSON.stringify(response) + "\n";
  } catch (e) {
    const out = { ok: false, error: envelopeError(e), ...("seq" in response ? { seq: response.seq } : {}) };
    out.error.message = `the answer is not JSON: ${out.error.message}`;
    return JSON.stringify(out) + "\n";
  }
}

/**
 * The `error` object of §4: a KitError as itself, anything else `internal` (the driver broke).
 * @param {unknown} e
 */
function envelopeError(e) {
  if (e instanceof KitError) return { kind: e.kind, message: e.message };
  if (e instanceof Error) return { kind: "internal", message: `${e.name}: ${e.message}` };
  return { kind: "internal", message: String(e) };
}
