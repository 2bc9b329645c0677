#!/usr/bin/env python3
"""The starter driver: conformance/PROTOCOL.md on stdin/stdout against a toy toolkit in this file.

Python 3.9+, standard library only. It serves SPEC §0, §1 and §4 as far as a toolkit of extra tools
goes and answers `unsupported` to the rest, so those scenarios are skipped, never failed. For your
port, replace the toy with calls into it; docs/writing-a-driver.md goes on from here.
"""
import json
import re
import sys
import uuid

OUT, sys.stdout = sys.stdout, sys.stderr  # PROTOCOL.md §2: stdout is for answers; print() goes to stderr


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


# ---- The driver: the protocol side, the same for every port. ----

class Failure(Exception):  # Failure(kind, message): an error envelope (PROTOCOL.md §4)
    pass


def behave(kind, arg, args, ctx):  # PROTOCOL.md §7: what an extra tool's behaviour does on execute
    answer = (ctx or {}).get("answer")
    if kind == "text":
        return arg
    if kind == "fail":
        raise Exception(arg)  # a plain throw, through the port's ordinary error path (SPEC §6)
    if kind == "suspend" and (answer is None or arg.get("always")):  # SPEC §10: a pending Request
        req = {"id": f"req-{uuid.uuid4().hex}", "kind": arg.get("kind", "approval"),
               "prompt": arg.get("prompt", "")}  # a fresh id per call
        req.update({k: arg[k] for k in ("url", "data", "expiresAt") if k in arg})  # only when given
        return {"output": req["prompt"], "isError": True, "metadata": {"pending": req}}
    if kind == "suspend" and not arg.get("echoArgs"):  # the retry after waitFor: the answer's data
        args = answer.get("data")
    # echo, or the resolved retry: compact JSON, keys in the order received, non-ASCII as itself
    return json.dumps(args, separators=(",", ":"), ensure_ascii=False)


def extra_tool(spec):  # PROTOCOL.md §7 "Extra tools": its description, and the code its behaviour names
    (kind, arg), = spec["behaviour"].items() if "behaviour" in spec else [("http", None)]  # one key
    if kind not in ("text", "echo", "fail", "suspend"):  # not panic, awaitCancel or HTTP tools (SPEC §7)
        raise Failure("unsupported", f"the extra tool behaviour {kind!r}")
    desc = {"name": spec["name"], "description": spec.get("description", ""),
            "inputSchema": spec.get("inputSchema", {"type": "object", "properties": {}}),
            "source": spec.get("source", "native")}
    return desc, lambda args, ctx: behave(kind, arg, args, ctx)


OPTIONS = {"mcpConfig", "skillsDir", "skills", "skillProvider", "skillsFilter", "skillSampleLimit",
           "extraTools", "builtins", "agents", "waitFor", "disableTools", "disableSkills", "relayTools"}


def build(req, kits):  # PROTOCOL.md §5.2
    opts = {k: v for k, v in req["options"].items() if v is not None}  # §6: null means absent
    for key in opts:  # §6: an unknown key is a typo; a known one the port lacks is unsupported
        if key not in OPTIONS:
            raise Failure("bad_request", f"unknown option {key!r}")
        if key not in ("extraTools", "disableTools", "builtins"):
            raise Failure("unsupported", f"the option {key!r}")
    if opts.get("builtins") is not False:  # absent means on (SPEC §4A), and the toy has none
        raise Failure("unsupported", "builtin tools (SPEC §4A); only builtins: false")
    tools = [extra_tool(t) for t in opts.get("extraTools", [])]
    tk = kits[req["id"]] = ToyToolkit(tools, opts.get("disableTools", []))  # replaces an earlier one
    return {"toolkit": req["id"], "tools": tk.tools, "names": sorted(t["name"] for t in tk.tools),
            "statuses": {"builtin": "disabled"}, "errors": {}, "skills": []}  # builtins are off


def handle(req, kits):  # PROTOCOL.md §5: a command's answer fields
    cmd = req["cmd"]
    if cmd == "hello":  # §5.1: scenarios of sections not in `implements` are skipped
        return {"protocol": 1, "spec": "0.16.0", "implements": ["0", "1", "4"],
                "port": {"name": "starter", "language": "python", "version": "0.1.0"}}
    if cmd == "build":
        return build(req, kits)
    if cmd == "sanitize":
        return {"value": sanitize(req["value"])}
    if cmd == "close":  # §5.10: idempotent; a closed id is forgotten
        kits.pop(req["toolkit"], None)
        return {}
    if cmd == "shutdown":  # §5.11: close every toolkit and answer; main() then exits
        kits.clear()
        return {}
    if cmd not in ("tools", "execute", "adapter"):
        raise Failure("unsupported", f"the command {cmd!r}")
    if req["toolkit"] not in kits:
        raise Failure("unknown_toolkit", f"no toolkit {req['toolkit']!r}")
    tk = kits[req["toolkit"]]
    if cmd == "tools":
        return {"tools": tk.tools}
    if cmd == "execute":
        return {"result": tk.execute(req["name"], req.get("args", {}), req.get("context"))}
    if req["format"] not in ("openai", "anthropic", "gemini"):
        raise Failure("bad_request", f"unknown adapter format {req['format']!r}")
    return {"output": tk.adapter(req["format"])}


def main():
    kits = {}  # toolkit id -> toolkit, for the session (§3)
    for line in iter(sys.stdin.buffer.readline, b""):  # until EOF, which ends the driver cleanly (§3)
        if not line.strip():
            continue  # §2: blank lines are never sent, and ignored anyway
        req = {}
        try:
            req = json.loads(line.decode("utf-8"))  # ValueError when not UTF-8 or not JSON
            if not isinstance(req, dict):
                req = {}
                raise Failure("bad_request", "a request is a JSON object")
            resp = {"ok": True, **handle(req, kits)}
        except Failure as e:
            resp = {"ok": False, "error": {"kind": e.args[0], "message": e.args[1]}}
        except (KeyError, ValueError) as e:  # a field missing; a line not UTF-8 or not JSON (§2, §4)
            resp = {"ok": False, "error": {"kind": "bad_request", "message": f"{type(e).__name__}: {e}"}}
        except Exception as e:  # the driver itself broke: an answer, never a crash or a traceback (§11)
            resp = {"ok": False, "error": {"kind": "internal", "message": f"{type(e).__name__}: {e}"}}
        if "seq" in req:
            resp["seq"] = req["seq"]  # §2: a MUST, error envelopes included; an unparseable line has none
        # One compact line, flushed (§2); ASCII-escaped, which is the same JSON whatever stdout's encoding
        OUT.write(json.dumps(resp, separators=(",", ":")) + "\n")
        OUT.flush()
        if req.get("cmd") == "shutdown":
            return  # §3: after answering shutdown, exit 0


if __name__ == "__main__":
    main()
