"""Conformance driver (conformance/PROTOCOL.md, protocol 1) for the published Python port.

Runs `toolnexus` (PyPI, pinned by setup.sh) through its public API only, except where noted
(the loaded skill catalog, which Toolkit keeps only in a private attribute). It reports what
the port really does: no status, error or skill data is invented on the port's behalf.
"""
import asyncio
import dataclasses
import importlib.metadata
import itertools
import json
import os
import re
import sys
import uuid

# Only protocol lines may reach the real stdout. Keep a private handle on it, then point fd 1
# (inherited by child processes) and sys.stdout (Python prints) at stderr. Done before
# importing toolnexus so even import-time output is diverted.
OUT = open(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr

import toolnexus  # noqa: E402
from toolnexus import (  # noqa: E402
    Answer, Request, SkillDef, Tool, ToolContext, ToolResult, create_toolkit, define_tool,
    http_tool, list_mcp_tools, list_skills, parse_agents_config, sanitize, select_builtins)

VERSION = getattr(toolnexus, "__version__", None) or importlib.metadata.version("toolnexus")
# toolnexus releases are numbered by the SPEC version they implement: `hello.spec`.
SPEC = importlib.metadata.version("toolnexus")
SECTIONS = ["0", "1", "2", "3", "4", "4A", "6", "7", "7A"]
# The port reports a failed MCP server only as this stderr line (no errors map).
MCP_FAILED = re.compile(r'^MCP server "(.*)" failed: (.*)$')
# ... and a failed A2A agent (toolkit.py: `[toolnexus] A2A agent "<card>" failed: <e>`).
AGENT_FAILED = re.compile(r'^A2A agent "(.*)" failed: (.*)$')
# PROTOCOL.md §7 "HTTP tools": the keys an `http` block may carry.
HTTP_KEYS = {"method", "url", "headers", "query", "body", "timeout", "resultMode"}
KEYS = {"mcpConfig": "mcp_config", "skillsDir": "skills_dir", "skills": "skills",
        "skillProvider": "skill_provider", "skillsFilter": "skills_filter",
        "skillSampleLimit": "skill_sample_limit", "extraTools": "extra_tools",
        "builtins": "builtins", "agents": "agents", "waitFor": "wait_for",
        "disableTools": "disable_tools", "disableSkills": "disable_skills"}
DEFAULT_SCHEMA = {"type": "object", "properties": {}}
_seq = itertools.count()


class Failure(Exception):
    """A driver failure answered as {"ok": false, "error": {"kind": ..., "message": ...}}."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


def bad(message):
    return Failure("bad_request", message)


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def plain(value):
    """Port values (dataclasses such as Request) as JSON data, keeping every field as-is."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def field(req, key, types, what):
    if key not in req:
        raise bad(f'missing field "{key}"')
    if not isinstance(req[key], types):
        raise bad(f'"{key}" must be {what}')
    return req[key]


def one_key(behaviour, what):
    if not isinstance(behaviour, dict) or len(behaviour) != 1:
        raise bad(f"a {what} behaviour is an object with exactly one key, got {compact(behaviour)}")
    return next(iter(behaviour.items()))


# --- §7 behaviour catalogue -------------------------------------------------------------------

def extra_tool(spec):
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        raise bad('an extra tool needs a string "name"')
    name = spec["name"]
    if "http" in spec and "behaviour" not in spec:
        return http_extra_tool(name, spec)
    key, arg = one_key(spec.get("behaviour"), "tool")
    desc = spec.get("description", "")
    schema = spec.get("inputSchema", DEFAULT_SCHEMA)
    source = spec.get("source", "native")

    if key == "panic":
        # Raises from the Tool's own execute, outside define_tool's error handling.
        async def crash(args=None, ctx=None):
            raise RuntimeError(arg)
        return Tool(name=name, description=desc, input_schema=schema, source=source, execute=crash)

    if key == "echo" and arg is True:
        async def run(**args):
            return compact(args)
    elif key == "text" and isinstance(arg, str):
        async def run(**args):
            return arg
    elif key == "fail" and isinstance(arg, str):
        async def run(**args):
            raise Exception(arg)  # the native helper's ordinary error path
    elif key == "suspend" and isinstance(arg, dict):
        async def run(ctx=None, **args):
            if ctx is not None and ctx.answer is not None:
                return compact(ctx.answer.data)
            req = Request(id=f"req-{uuid.uuid4().hex[:16]}-{next(_seq)}",
                          kind=arg.get("kind", "approval"), prompt=arg.get("prompt", ""),
                          url=arg.get("url"), data=arg.get("data"), expiresAt=arg.get("expiresAt"))
            return ToolResult(output=req.prompt, is_error=True, metadata={"pending": req})
    else:
        raise Failure("unsupported", f"unknown tool behaviour {compact(spec.get('behaviour'))}")
    return define_tool(run, name=name, description=desc, input_schema=schema, source=source)


def http_extra_tool(name, spec):
    """PROTOCOL.md §7 "HTTP tools": a SPEC §7 HTTP tool built with the port's `http_tool`."""
    h = spec["http"]
    if not isinstance(h, dict):
        raise bad(f'extra tool "{name}": "http" must be an object')
    unknown = sorted(set(h) - HTTP_KEYS)
    if unknown:
        raise bad(f'extra tool "{name}": unknown http key(s) {", ".join(unknown)}')
    if not isinstance(h.get("url"), str):
        raise bad(f'extra tool "{name}": http.url must be a string')
    kwargs = {"name": name, "description": spec.get("description", ""),
              # `method` is a required keyword of the port's http_tool; the protocol's default
              # is GET.
              "method": h.get("method") or "GET", "url": h["url"]}
    if spec.get("inputSchema") is not None:
        kwargs["input_schema"] = spec["inputSchema"]  # absent: the port's own default schema
    for key, kw in (("headers", "headers"), ("query", "query"), ("body", "body"),
                    ("resultMode", "result_mode")):
        if h.get(key) is not None:
            kwargs[kw] = h[key]
    if h.get("timeout") is not None:
        if not isinstance(h["timeout"], (int, float)) or isinstance(h["timeout"], bool):
            raise bad(f'extra tool "{name}": http.timeout must be a number (ms)')
        # UNITS: the protocol (like SPEC §7) gives `timeout` in milliseconds; the Python port's
        # http_tool(timeout=…) is in SECONDS (urllib's timeout, DEFAULT_TIMEOUT = 30.0), so
        # the value is converted here.
        kwargs["timeout"] = h["timeout"] / 1000.0
    return http_tool(**kwargs)


def skill_defs(value):
    if not isinstance(value, list) or not all(isinstance(d, dict) for d in value):
        raise bad("skills must be an array of skill defs")
    return [SkillDef(name=d.get("name") or "", content=d.get("content", ""),
                     description=d.get("description"), resources=d.get("resources"),
                     base=d.get("base")) for d in value]


def skill_provider(behaviour):
    key, arg = one_key(behaviour, "skill provider")
    if key == "skills":
        defs = skill_defs(arg)
        return lambda: list(defs)
    if key == "fail" and isinstance(arg, str):
        def provider():
            raise Exception(arg)
        return provider
    raise Failure("unsupported", f"unknown skill provider behaviour {compact(behaviour)}")


def wait_for(behaviour):
    key, arg = one_key(behaviour, "waitFor")
    if key == "echoRequest" and arg is True:
        async def echo(request):
            # Primitive values only (an MCP elicitation result allows nothing else): the
            # Request's `data` travels as compact JSON text.
            flat = {"id": request.id, "kind": request.kind, "prompt": request.prompt}
            if request.url:
                flat["url"] = request.url
            if request.data is not None:
                flat["data"] = compact(plain(request.data))
            if getattr(request, "expiresAt", None):
                flat["expiresAt"] = request.expiresAt
            return Answer(id=request.id, ok=True, data=flat)
        return echo
    if key != "answer" or not isinstance(arg, dict):
        raise Failure("unsupported", f"unknown waitFor behaviour {compact(behaviour)}")

    async def resolve(request):
        return Answer(id=request.id, ok=arg.get("ok", True), data=arg.get("data"),
                      reason=arg.get("reason"))
    return resolve


def toolkit_kwargs(options):
    if not isinstance(options, dict):
        raise bad("options must be an object")
    kwargs = {}
    for key, value in options.items():
        if key not in KEYS:
            raise bad(f'unknown option "{key}"')
        if value is None:
            continue
        if key == "skills":
            value = skill_defs(value)
        elif key == "skillProvider":
            value = skill_provider(value)
        elif key == "extraTools":
            if not isinstance(value, list):
                raise bad("extraTools must be an array")
            value = [extra_tool(t) for t in value]
        elif key == "waitFor":
            value = wait_for(value)
        elif key == "agents":
            if not isinstance(value, list):
                raise bad("agents must be an array")
            # The port's own parser of a config `agents` block (enabled/disabled precedence,
            # the camelCase `pollEvery`), fed the array as `{index: entry}` in order. UNITS:
            # a2a.Agent's timeout / poll_every are milliseconds, as the protocol's (a2a.py
            # "Units note"), so nothing is converted.
            value = parse_agents_config({str(i): a for i, a in enumerate(value)})
        kwargs[KEYS[key]] = value
    return kwargs


# --- responses --------------------------------------------------------------------------------

def describe(tool):
    return {"name": tool.name, "description": tool.description,
            "inputSchema": plain(tool.input_schema), "source": tool.source}


def tool_result(result):
    # Exactly output/isError (+ metadata when present). The port's `parts` (SPEC §1B, after
    # 0.16.0) has no place in the protocol's pinned ToolResult and is not sent.
    out = {"output": result.output, "isError": result.is_error}
    if result.metadata is not None:
        out["metadata"] = plain(result.metadata)
    return out


def skill_info(info):
    out = {"name": info.name, "description": info.description, "location": info.location}
    if info.base is not None:
        out["base"] = info.base
    return out


class _Tee:
    """A stderr stand-in that forwards everything and keeps the port's `[toolnexus] ` lines."""

    def __init__(self, target):
        self.target, self.text = target, []

    def write(self, data):
        self.text.append(data)
        return self.target.write(data)

    def flush(self):
        self.target.flush()

    def lines(self):
        return [line[len("[toolnexus] "):] for line in "".join(self.text).splitlines()
                if line.startswith("[toolnexus] ")]

    def warnings(self):
        return [line for line in self.lines()
                if not MCP_FAILED.match(line) and not AGENT_FAILED.match(line)]

    def errors(self):
        """The port's own `MCP server "X" failed: …` lines, keyed by server, and its
        `A2A agent "<card>" failed: …` lines, keyed `agent:<card>` (PROTOCOL.md §7 "Agents")."""
        out = {m.group(1): m.group(0) for m in map(MCP_FAILED.match, self.lines()) if m}
        out.update({f"agent:{m.group(1)}": m.group(0)
                    for m in map(AGENT_FAILED.match, self.lines()) if m})
        return out


class Session:
    def __init__(self):
        self.kits = {}

    def kit(self, req):
        tid = field(req, "toolkit", str, "a string")
        if tid not in self.kits:
            raise Failure("unknown_toolkit", f'no toolkit "{tid}"')
        return self.kits[tid]

    async def handle(self, req):
        cmd = req.get("cmd")
        if cmd == "hello":
            return {"protocol": 1, "spec": SPEC, "implements": SECTIONS,
                    "port": {"name": "python", "language": "python", "version": VERSION}}
        if cmd == "build":
            tid = field(req, "id", str, "a string")
            kwargs = toolkit_kwargs(req.get("options") or {})
            await self.close(tid)
            # The port reports warnings (duplicate skills, unknown filter names) only by
            # printing `[toolnexus] …` to stderr; collect them for the `warnings` field while
            # still passing them through to the log.
            real_err, tee = sys.stderr, _Tee(sys.stderr)
            sys.stderr = tee
            try:
                tk = await create_toolkit(**kwargs)
            finally:
                sys.stderr = real_err
            self.kits[tid] = tk
            tools = [describe(t) for t in tk.tools()]
            # The Python Toolkit exposes no public accessor for its filtered skill catalog:
            # it lives in the private SkillSource `tk._skill` (`.skills`, in catalog order).
            catalog = list(tk._skill.skills.values()) if tk._skill is not None else []
            return {"toolkit": tid, "tools": tools, "names": sorted(t["name"] for t in tools),
                    # Only MCP statuses exist in the port (no "builtin" entry), and it keeps
                    # no errors map: a failed MCP server or A2A agent is only printed to
                    # stderr, so the errors are those printed lines, keyed by server or by
                    # `agent:<card>`.
                    "statuses": tk.mcp_status(), "errors": tee.errors(),
                    "skills": [skill_info(s) for s in catalog],
                    "warnings": tee.warnings()}
        if cmd == "tools":
            return {"tools": [describe(t) for t in self.kit(req).tools()]}
        if cmd == "execute":
            tk = self.kit(req)
            name = field(req, "name", str, "a string")
            args = req.get("args") or {}
            if not isinstance(args, dict):
                raise bad('"args" must be an object')
            ctx = None
            context = req.get("context")
            if isinstance(context, dict):
                a = context.get("answer")
                answer = None if a is None else Answer(
                    id=a.get("id", ""), ok=a.get("ok", True), data=a.get("data"), reason=a.get("reason"))
                ctx = ToolContext(answer=answer)
            return {"result": tool_result(await tk.execute(name, args, ctx))}
        if cmd == "adapter":
            tk = self.kit(req)
            fmt = req.get("format")
            adapters = {"openai": tk.to_openai, "anthropic": tk.to_anthropic, "gemini": tk.to_gemini}
            if fmt not in adapters:
                raise bad(f"unknown adapter format {compact(fmt)}")
            return {"output": plain(adapters[fmt]())}
        if cmd == "skills_prompt":
            return {"prompt": self.kit(req).skills_prompt()}
        if cmd == "list_skills":
            opts = req.get("options") or {}
            if not isinstance(opts, dict):
                raise bad("options must be an object")
            defs = skill_defs(opts["skills"]) if opts.get("skills") is not None else []
            if opts.get("skillProvider") is not None:
                # list_skills takes no provider in Python: the host resolves it and passes its
                # defs after the data skills, as create_toolkit does.
                try:
                    defs += list(skill_provider(opts["skillProvider"])())
                except Failure:
                    raise
                except Exception as e:  # noqa: BLE001 — a failing provider only loses its defs
                    print(f"driver: skill provider failed: {e}", file=sys.stderr)
            inv = list_skills(opts.get("skillsDir"), skills=defs or None)
            return {"skills": [skill_info(s) for s in inv.skills],
                    "skipped": [plain(s) for s in inv.skipped]}
        if cmd == "list_mcp_tools":
            if "config" not in req:
                raise bad('missing field "config"')
            real_err, tee = sys.stderr, _Tee(sys.stderr)
            sys.stderr = tee
            try:
                inv = await list_mcp_tools(req["config"])
            finally:
                sys.stderr = real_err
            return {"statuses": dict(inv.status), "errors": tee.errors(),
                    "tools": {server: [{"name": t.name, "description": t.description,
                                        "inputSchema": t.input_schema} for t in tools]
                              for server, tools in inv.tools.items()}}
        if cmd == "select_builtins":
            if "config" not in req:
                raise bad('missing field "config"')
            return {"tools": [describe(t) for t in select_builtins(req["config"])]}
        if cmd == "sanitize":
            return {"value": sanitize(field(req, "value", str, "a string"))}
        if cmd == "close":
            await self.close(field(req, "toolkit", str, "a string"))
            return {}
        if cmd == "shutdown":
            for tid in list(self.kits):
                await self.close(tid)
            return {}
        raise Failure("unsupported", f"unknown command {compact(cmd)}")

    async def close(self, tid):
        tk = self.kits.pop(tid, None)
        if tk is not None:
            await tk.close()


async def serve():
    # The whole session runs in ONE task: the port's MCP transports are anyio task groups
    # and cancel scopes, which must be left in the task that entered them, so `build` and
    # the `close` that tears its servers down have to run in the same task (a host that
    # builds and closes a toolkit in one coroutine does exactly that). The event loop keeps
    # running between requests (stdin is read in a worker thread), as it would in a host.
    loop = asyncio.get_running_loop()
    session = Session()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.buffer.readline)
        if not line:
            break
        if not line.strip():
            continue
        cmd = None
        seq = None
        try:
            try:
                req = json.loads(line.decode("utf-8"))
            except ValueError as e:  # JSONDecodeError and UnicodeDecodeError alike
                raise bad(f"unparseable line: {e}") from None
            if not isinstance(req, dict):
                raise bad("a request is a JSON object")
            cmd = req.get("cmd")
            seq = req.get("seq")
            resp = {"ok": True, **(await session.handle(req))}
        except Failure as e:
            resp = {"ok": False, "error": {"kind": e.kind, "message": str(e)}}
        except BaseException as e:  # noqa: BLE001 — never crash, never a traceback on stdout
            if isinstance(e, KeyboardInterrupt):
                raise
            print(f"driver: {cmd} raised {type(e).__name__}: {e}", file=sys.stderr)
            resp = {"ok": False, "error": {"kind": "internal",
                                           "message": f"{type(e).__name__}: {e}"}}
        if seq is not None:  # PROTOCOL.md: echo the request's sequence number
            resp["seq"] = seq
        OUT.write(json.dumps(resp, ensure_ascii=False, separators=(",", ":"), default=repr) + "\n")
        OUT.flush()
        if cmd == "shutdown":
            break
    for tid in list(session.kits):  # EOF: close whatever is still open
        try:
            await session.close(tid)
        except Exception:  # noqa: BLE001
            pass


def main():
    asyncio.run(serve())


if __name__ == "__main__":
    main()
