#!/usr/bin/env python3
"""The starter driver: conformance/PROTOCOL.md on stdin/stdout against a toy toolkit in this file.

Python 3.9+, standard library only. The protocol side (the loop, envelopes, `hello`, `shutdown`,
the toolkit table, the §7 tool behaviours) is the kit, conformance/kits/python (`toolnexus_kit`);
this file is the port-specific part: one thin handler per command. It serves SPEC §0, §1 and §4
as far as a toolkit of extra tools goes and answers `unsupported` to the rest, so those
scenarios are skipped, never failed. For your port, replace the toy with calls into it;
docs/writing-a-driver.md goes on from here.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kits", "python"))
import toolnexus_kit as kit  # noqa: E402

# ---- The toy toolkit: it stands in for your port (SPEC §4 with extra tools only). ----


def sanitize(name):  # SPEC §0.2: every character outside [a-zA-Z0-9_-] becomes "_"
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)


class ToyToolkit:  # createToolkit({extraTools, disableTools, builtins: false}): no MCP, skills or builtins
    def __init__(self, tools, disable_tools):
        self.tools, self.fns = [], {}  # the descriptions in tools() order; name -> function
        for desc, fn in tools:
            desc = dict(desc, name=sanitize(desc["name"]))  # SPEC §1: a tool's name is sanitized
            if desc["name"] not in disable_tools and desc["name"] not in self.fns:  # SPEC §4: first wins
                self.tools.append(desc)
                self.fns[desc["name"]] = fn

    def execute(self, name, args, ctx):
        if name not in self.fns:  # SPEC §4: an unknown name is an isError result, not a throw
            return {"output": f"Unknown tool: {name}", "isError": True}
        try:
            out = self.fns[name](args, ctx)
        except Exception as e:  # SPEC §6: a tool that throws is an isError result with its message
            return {"output": str(e), "isError": True}
        return out if isinstance(out, dict) else {"output": out, "isError": False}

    def adapter(self, fmt):  # SPEC §4 "Adapter mapping": schema only, in tools() order
        ts = [(t["name"], t["description"], t["inputSchema"]) for t in self.tools]
        if fmt == "anthropic":
            return [{"name": n, "description": d, "input_schema": s} for n, d, s in ts]
        decls = [{"name": n, "description": d, "parameters": s} for n, d, s in ts]
        if fmt == "gemini":
            return [{"functionDeclarations": decls}]  # one element wrapping every tool
        return [{"type": "function", "function": f} for f in decls]


# ---- The driver: one handler per command; the kit does the rest. ----

driver = kit.Kit(port={"name": "starter", "language": "python", "version": "0.1.0"},
                 implements=["0", "1", "4"], spec="0.16.0")  # §5.1: other sections are skipped
kits = kit.HandleTable("toolkit")  # toolkit id -> toolkit, for the session (§3); `no toolkit "tk9"`
driver.on_close(kits.clear)  # shutdown, EOF, SIGTERM: forget every toolkit (the toy holds nothing)

OPTIONS = {"mcpConfig", "skillsDir", "skills", "skillProvider", "skillsFilter", "skillSampleLimit",
           "extraTools", "builtins", "agents", "waitFor", "disableTools", "disableSkills", "relayTools"}
BEHAVIOURS = ("text", "echo", "fail", "suspend")  # not panic, awaitCancel, parts, … or HTTP tools


def extra_tool(spec):  # PROTOCOL.md §7 "Extra tools": its description, and the code its behaviour names
    kind = kit.tools.behaviour_key(spec)
    if kind not in BEHAVIOURS:
        raise kit.unsupported(f"the extra tool behaviour {kind!r}")
    tool = kit.tools.extra_tool(spec)  # the kit's interpreter: body() answers a str or a Pending
    desc = {"name": tool.name, "description": tool.description, "inputSchema": tool.input_schema,
            "source": tool.source}

    def body(args, ctx):
        out = tool.run(args, (ctx or {}).get("answer"))
        if isinstance(out, kit.tools.Pending):  # SPEC §10: a suspension carries its Request
            return {"output": out.output, "isError": True, "metadata": {"pending": out.request}}
        return out
    return desc, body


@driver.command("build")
def build(req):  # PROTOCOL.md §5.2
    opts = {k: v for k, v in kit.field(req, "options", dict).items() if v is not None}  # §6: null is absent
    for key in opts:  # §6: an unknown key is a typo; a known one the port lacks is unsupported
        if key not in OPTIONS:
            raise kit.bad(f"unknown option {key!r}")
        if key not in ("extraTools", "disableTools", "builtins"):
            raise kit.unsupported(f"the option {key!r}")
    if opts.get("builtins") is not False:  # absent means on (SPEC §4A), and the toy has none
        raise kit.unsupported("builtin tools (SPEC §4A); only builtins: false")
    tools = [extra_tool(t) for t in opts.get("extraTools", [])]
    tk = ToyToolkit(tools, opts.get("disableTools", []))
    kits.put(kit.field(req, "id", str), tk)  # replaces an earlier one (the toy has nothing to close)
    return {"toolkit": req["id"], "tools": tk.tools, "names": sorted(t["name"] for t in tk.tools),
            "statuses": {"builtin": "disabled"}, "errors": {}, "skills": []}  # builtins are off


@driver.command("sanitize")
def sanitize_command(req):  # §5.9
    return {"value": sanitize(kit.field(req, "value", str))}


@driver.command("close")
def close(req):  # §5.10: idempotent; a closed id is forgotten
    kits.pop(kit.field(req, "toolkit", str))


@driver.command("tools")
def tools(req):  # §5.3
    return {"tools": kits.of(req, "toolkit").tools}


@driver.command("execute")
def execute(req):  # §5.4
    tk = kits.of(req, "toolkit")
    return {"result": tk.execute(kit.field(req, "name", str), req.get("args", {}), req.get("context"))}


@driver.command("adapter")
def adapter(req):  # §5.5
    tk = kits.of(req, "toolkit")
    if req.get("format") not in ("openai", "anthropic", "gemini"):
        raise kit.bad(f"unknown adapter format {req.get('format')!r}")
    return {"output": tk.adapter(req["format"])}


if __name__ == "__main__":
    driver.main()
