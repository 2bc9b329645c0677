// The starter driver in JavaScript: conformance/PROTOCOL.md through the TypeScript kit
// (conformance/kits/ts) against a toy toolkit in this file. Node 20, no dependencies.
//
// It mirrors conformance/ports/starter/driver.py: SPEC §0, §1 and §4 as far as a toolkit of extra
// tools goes, `unsupported` for the rest (skipped, never failed). For your port, replace the toy
// with calls into it; the kit does the protocol.
import { Kit, KitError, HandleTable, extraTool, need, quote } from "../../kits/ts/index.mjs";

// ---- The toy toolkit: it stands in for your port (SPEC §4 with extra tools only). ----

/** SPEC §0.2: every character outside [a-zA-Z0-9_-] becomes "_". */
const sanitize = (name) => name.replace(/[^a-zA-Z0-9_-]/gu, "_");

/** createToolkit({extraTools, disableTools, builtins: false}): no MCP, skills or builtins. */
class ToyToolkit {
  constructor(tools, disableTools) {
    this.tools = []; // the descriptions in tools() order
    this.fns = new Map(); // name -> function
    for (const [desc, fn] of tools) {
      const d = { ...desc, name: sanitize(desc.name) }; // SPEC §1: a tool's name is sanitized
      if (!disableTools.includes(d.name) && !this.fns.has(d.name)) { // SPEC §4: first wins
        this.tools.push(d);
        this.fns.set(d.name, fn);
      }
    }
  }

  async execute(name, args, ctx) {
    const fn = this.fns.get(name);
    if (!fn) return { output: `Unknown tool: ${name}`, isError: true }; // SPEC §4: not a throw
    let out;
    try {
      out = await fn(args, ctx);
    } catch (e) { // SPEC §6: a tool that throws is an isError result with its message
      return { output: e instanceof Error ? e.message : String(e), isError: true };
    }
    return typeof out === "object" && out !== null ? out : { output: out, isError: false };
  }

  adapter(format) { // SPEC §4 "Adapter mapping": schema only, in tools() order
    const ts = this.tools.map((t) => [t.name, t.description, t.inputSchema]);
    if (format === "anthropic") return ts.map(([name, description, s]) => ({ name, description, input_schema: s }));
    const decls = ts.map(([name, description, parameters]) => ({ name, description, parameters }));
    if (format === "gemini") return [{ functionDeclarations: decls }]; // one element wrapping every tool
    return decls.map((f) => ({ type: "function", function: f }));
  }
}

// ---- The driver: the port-specific handlers; the loop, envelopes and hello are the kit's. ----

// The toy's native tools are the kit's §7 interpreters (conformance/kits/ts/tools.mjs); it has no
// cancellation signal, no content parts and no HTTP tools, so it takes these behaviours only.
const TOY_BEHAVIOURS = ["text", "echo", "fail", "suspend"];

function toyTool(spec) { // PROTOCOL.md §7 "Extra tools": a description, and the kit's tool body
  const tool = extraTool(spec);
  const kind = tool.type === "http" ? "http" : tool.behaviour;
  if (!TOY_BEHAVIOURS.includes(kind)) throw new KitError("unsupported", `the extra tool behaviour ${quote(kind)}`);
  const { name, description, inputSchema, source } = tool;
  return [{ name, description, inputSchema, source }, (args, ctx) => tool.execute(args, { answer: ctx?.answer })];
}

const OPTIONS = new Set(["mcpConfig", "skillsDir", "skills", "skillProvider", "skillsFilter", "skillSampleLimit",
  "extraTools", "builtins", "agents", "waitFor", "disableTools", "disableSkills", "relayTools"]);

const kits = new HandleTable("toolkit"); // toolkit id -> toolkit, for the session (§3)
const kit = new Kit({ port: { name: "starter-ts", language: "javascript", version: "0.1.0" },
  spec: "0.16.0", implements: ["0", "1", "4"] });

kit.handle("build", (req) => { // PROTOCOL.md §5.2
  const opts = Object.fromEntries(Object.entries(need(req, "options")).filter(([, v]) => v !== null)); // §6: null = absent
  for (const key of Object.keys(opts)) { // §6: an unknown key is a typo; a known one the port lacks is unsupported
    if (!OPTIONS.has(key)) throw new KitError("bad_request", `unknown option ${quote(key)}`);
    if (!["extraTools", "disableTools", "builtins"].includes(key)) throw new KitError("unsupported", `the option ${quote(key)}`);
  }
  if (opts.builtins !== false) { // absent means on (SPEC §4A), and the toy has none
    throw new KitError("unsupported", "builtin tools (SPEC §4A); only builtins: false");
  }
  const tools = (opts.extraTools ?? []).map(toyTool);
  const tk = new ToyToolkit(tools, opts.disableTools ?? []);
  kits.put(need(req, "id"), tk); // replaces an earlier one
  return { toolkit: req.id, tools: tk.tools, names: tk.tools.map((t) => t.name).sort(),
    statuses: { builtin: "disabled" }, errors: {}, skills: [] }; // builtins are off
});
kit.handle("sanitize", (req) => ({ value: sanitize(need(req, "value")) }));
kit.handle("close", (req) => { kits.take(need(req, "toolkit")); return {}; }); // §5.10: idempotent
kit.handle("tools", (req) => ({ tools: kits.get(need(req, "toolkit")).tools }));
kit.handle("execute", async (req) => { // args carry their received key order (the kit parsed them)
  const tk = kits.get(need(req, "toolkit"));
  return { result: await tk.execute(need(req, "name"), req.args ?? {}, req.context) };
});
kit.handle("adapter", (req) => {
  const tk = kits.get(need(req, "toolkit"));
  const format = need(req, "format");
  if (!["openai", "anthropic", "gemini"].includes(format)) {
    throw new KitError("bad_request", `unknown adapter format ${quote(format)}`);
  }
  return { output: tk.adapter(format) };
});
kit.onClose(() => kits.clear()); // §5.11: shutdown (and EOF, signals) close every toolkit

await kit.main();
