"""Conformance driver (conformance/PROTOCOL.md, protocol 1) for the published Python port.

Runs `toolnexus` (PyPI, pinned by setup.sh) through its public API only, except where noted
(the loaded skill catalog, which Toolkit keeps only in a private attribute). It reports what
the port really does: no status, error or skill data is invented on the port's behalf.

It serves any release from 0.9.0 on (`python@VERSION`): what a release lacks is found by
feature detection (`api`, `takes`, `supported`) and answered `unsupported`, naming it
(`toolnexus 0.9.0 has no create_client(on_error=…)`), never by a table of versions.

The §8 client commands (PROTOCOL.md §5.13–§5.20) drive the port's own `create_client` /
`create_in_process_client`; where the port's client observably departs from SPEC §8, see
CLIENT-NOTES.md beside this file. The §8B classifier commands (§5.29–§5.30) drive
`toolnexus.classifier.create_classifier` (0.18.0 on).

The port-neutral part (the protocol loop, envelopes, handle tables, the §7 behaviour
interpreters, the recorded lists, the §5.27 virtual clock) is the kit, conformance/kits/python
(`toolnexus_kit`): this file is what is specific to the python port.
"""
import asyncio
import base64
import importlib.metadata
import inspect
import json
import math
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kits", "python"))
import toolnexus_kit as kit  # noqa: E402
from toolnexus_kit import Failure, Records, bad, camel, camel_keys, compact, field, plain  # noqa: E402

# Only protocol lines may reach the real stdout: guarded before importing toolnexus so even
# import-time output is diverted.
kit.guard_stdout()


def unimportable(error):
    """A release that does not import (say, a dependency has moved on since it was published)
    answers every request, `hello` first, with why, so the harness reports a clear handshake
    error rather than a driver that died with a traceback."""
    try:
        release = "toolnexus " + importlib.metadata.version("toolnexus")
    except importlib.metadata.PackageNotFoundError:
        release = "toolnexus (not installed)"
    message = f"{release} does not import: {type(error).__name__}: {error}"
    print(f"driver: {message}", file=sys.stderr)
    refusing = kit.Kit(port={"name": "python", "language": "python", "version": "?"}, implements=[])
    refusing.refuse_all(message)
    refusing.main()


try:
    import toolnexus  # noqa: E402
    # Every release since 0.1.1 has these; the rest of the API is looked up where it is used
    # (`api`), so a release without it answers `unsupported` there.
    from toolnexus import Tool, ToolResult, create_toolkit, define_tool  # noqa: E402
except Exception as e:  # noqa: BLE001
    unimportable(e)

VERSION = getattr(toolnexus, "__version__", None) or importlib.metadata.version("toolnexus")
# toolnexus releases are numbered by the SPEC version they implement: `hello.spec`.
SPEC = importlib.metadata.version("toolnexus")
SECTIONS = ["0", "1", "2", "3", "4", "4A", "6", "7", "7A"]
# The port reports a failed MCP server only as this stderr line (no errors map).
MCP_FAILED = re.compile(r'^MCP server "(.*)" failed: (.*)$')
# ... and a failed A2A agent (toolkit.py: `[toolnexus] A2A agent "<card>" failed: <e>`).
AGENT_FAILED = re.compile(r'^A2A agent "(.*)" failed: (.*)$')
KEYS = {"mcpConfig": "mcp_config", "skillsDir": "skills_dir", "skills": "skills",
        "skillProvider": "skill_provider", "skillsFilter": "skills_filter",
        "skillSampleLimit": "skill_sample_limit", "extraTools": "extra_tools",
        "builtins": "builtins", "agents": "agents", "waitFor": "wait_for",
        "disableTools": "disable_tools", "disableSkills": "disable_skills"}
# The Request fields the port's Request takes (a kit Pending holds the given ones only).
REQUEST_FIELDS = ("id", "kind", "prompt", "url", "data", "expiresAt")
# The §7 hook behaviours python's hooks could take but this driver does not wire yet: answered
# `unsupported` (the kit's `compactor` needs the port's compactor, passed where it is wired).
REFUSED_HOOKS = ("appendMessage",)


def lacks(what):
    """`unsupported`, naming the API this release does not have."""
    return Failure("unsupported", f"toolnexus {VERSION} has no {what}")


def api(name):
    """The port's public `toolnexus.<name>`, or `unsupported` naming it."""
    found = getattr(toolnexus, name, None)
    if found is None:
        raise lacks(name)
    return found


def _params(fn):
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


def takes(fn, name):
    """Whether `fn` accepts the keyword `name` (a signature it cannot tell is taken as yes)."""
    params = _params(fn)
    return not params or name in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def supported(fn, kwargs, what):
    """`kwargs`, once `fn` (spelled `what` in the message) is known to take every one."""
    for k in kwargs:
        if not takes(fn, k):
            raise lacks(f"{what}({k}=…)")
    return kwargs


# --- §7 behaviour catalogue (the kit interprets; the port's helpers build) ----------------------

def extra_tool(spec):
    t = kit.tools.extra_tool(spec)
    if t.kind == "http":
        return http_extra_tool(t.http)
    if t.kind == "panic":
        # Raises from the Tool's own execute, outside define_tool's error handling.
        async def crash(args=None, ctx=None):
            t.run(args)
        return Tool(name=t.name, description=t.description, input_schema=t.input_schema,
                    source=t.source, execute=crash)
    if t.kind == "parts":
        content = content_module()
        parts = [content.to_dict(content.part(**p)) for p in t.arg.get("parts", [])]

        async def run(**args):
            return ToolResult(output=t.arg.get("output", ""), is_error=False, parts=parts)
    elif t.kind == "awaitCancel":
        async def run(ctx=None, **args):
            signal = getattr(ctx, "signal", None) if ctx is not None else None
            return await t.await_cancel(lambda: _signal_fired(signal), TOOL_CANCELS)
    elif t.kind == "suspend":
        request_type = api("Request")

        async def run(ctx=None, **args):
            a = ctx.answer if ctx is not None else None
            out = t.run(args, None if a is None else {"ok": a.ok, "data": a.data})
            if isinstance(out, kit.tools.Pending):
                req = request_type(**{k: out.request.get(k) for k in REQUEST_FIELDS})
                return ToolResult(output=req.prompt, is_error=True, metadata={"pending": req})
            return out
    else:
        async def run(**args):
            return t.run(args)
    return define_tool(run, name=t.name, description=t.description, input_schema=t.input_schema,
                       source=t.source)


# PROTOCOL.md §5.25 `toolCancels`: every finished awaitCancel call since the latest build.
TOOL_CANCELS = Records()


def _signal_fired(signal):
    """Whether the port's advisory `ctx.signal` (SPEC: an abort signal) has fired, in the
    shapes the port's own a2a.py `_aborted` accepts: an Event-like `is_set()`, an
    `aborted` flag, or a plain truthy value."""
    if signal is None:
        return False
    is_set = getattr(signal, "is_set", None)
    if callable(is_set):
        return bool(is_set())
    aborted = getattr(signal, "aborted", None)
    if aborted is not None:
        return bool(aborted)
    return bool(signal)


def http_extra_tool(h):
    """PROTOCOL.md §7 "HTTP tools": a SPEC §7 HTTP tool built with the port's `http_tool`."""
    kwargs = {"name": h.name, "description": h.description,
              # `method` is a required keyword of the port's http_tool (the kit's view fills GET).
              "method": h.method, "url": h.url}
    if h.input_schema is not None:
        kwargs["input_schema"] = h.input_schema  # absent: the port's own default schema
    for kw, value in (("headers", h.headers), ("query", h.query), ("body", h.body),
                      ("result_mode", h.result_mode)):
        if value is not None:
            kwargs[kw] = value
    if h.timeout_ms is not None:
        # UNITS: the protocol (like SPEC §7) gives `timeout` in milliseconds; the Python port's
        # http_tool(timeout=…) is in SECONDS (urllib's timeout, DEFAULT_TIMEOUT = 30.0), so
        # the value is converted here.
        kwargs["timeout"] = h.timeout_ms / 1000.0
    return api("http_tool")(**kwargs)


def skill_defs(value):
    defs = kit.sources.skill_defs(value)
    skill_def = api("SkillDef")
    return [skill_def(**d) for d in defs]


def skill_provider(behaviour):
    provide = kit.sources.skill_provider(behaviour)
    skill_def = api("SkillDef")
    return lambda: [skill_def(**d) for d in provide()]


def wait_for(behaviour, rec=None):
    """The §7 `waitFor` as the port's resolver (the toolkit's, a client's: each Request then
    recorded in `rec`'s `waitForCalls` first, PROTOCOL.md §5.13, or an agent def's)."""
    answer_for = kit.sources.wait_for(behaviour, rec)
    answer = api("Answer")

    async def resolve(request):
        return answer(**answer_for(request_json(request)))
    return resolve


def toolkit_kwargs(options):
    if not isinstance(options, dict):
        raise bad("options must be an object")
    kwargs = {}
    for key, value in options.items():
        if key == "relayTools":
            # SPEC §10 addendum (a preview, golang only): python 0.21.0 has no relay tools.
            raise lacks("relay tools (SPEC §10 addendum, a preview)")
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
            value = api("parse_agents_config")({str(i): a for i, a in enumerate(value)})
        kwargs[KEYS[key]] = value
    return kwargs


# --- responses --------------------------------------------------------------------------------

def describe(tool):
    return {"name": tool.name, "description": tool.description,
            "inputSchema": plain(tool.input_schema), "source": tool.source}


def tool_result(result):
    # Exactly output/isError (+ parts and metadata when present). `parts` (SPEC §1B) exists
    # from 0.17.0; a part the port holds as its ContentPart object is rendered by the port's
    # own `to_dict`, a dict is passed on as it is. An empty list is sent as it is (never
    # dropped: the protocol's decode reports it).
    out = {"output": result.output, "isError": result.is_error}
    parts = getattr(result, "parts", None)
    if parts is not None:
        out["parts"] = [part_json(p) for p in parts]
    if result.metadata is not None:
        out["metadata"] = plain(result.metadata)
    return out


def content_module():
    """The port's §1B module (`toolnexus.content`, from 0.17.0), or `unsupported`."""
    try:
        return importlib.import_module("toolnexus.content")
    except ImportError:
        raise lacks("content parts (toolnexus.content)") from None


def loop_prompt(req):
    """A loop command's `prompt` (PROTOCOL.md §5.15): a string as it is; a list of parts (SPEC
    0.17.0) built with the port's own `toolnexus.content.part`, passed where the string goes
    (its `run`/`stream`/`ask` take `str | list`). A release without content parts: unsupported."""
    prompt = req.get("prompt")
    if isinstance(prompt, str):
        return prompt
    if not isinstance(prompt, list) or not all(isinstance(p, dict) for p in prompt):
        raise bad('"prompt" must be a string or an array of content parts')
    content = content_module()
    try:
        return [content.part(**p) for p in prompt]
    except content.ContentPartError as e:
        raise bad(f"prompt: {e}") from None


def part_json(p):
    if isinstance(p, dict):
        return plain(p)
    return plain(content_module().to_dict(p))


def content_part(source):
    """PROTOCOL.md §5.28: one part from the port's own constructors (`image`/`file`/`audio`
    for a path, bytes or URL; `part` for the raw fields), and what the port renders of it."""
    content = content_module()
    if not isinstance(source, dict):
        raise bad('content_part needs an object "from"')
    given = [k for k in ("path", "bytes", "url", "part") if k in source]
    if len(given) != 1:
        raise bad("content_part: `from` needs exactly one of path, bytes, url, part")
    mime = source.get("mimeType")
    kind = source.get("type")
    try:
        if "part" in source:
            fields = source["part"]
            if not isinstance(fields, dict):
                raise bad("content_part: `part` must be an object")
            made = content.part(**fields)
        else:
            value = source[given[0]]
            if given[0] == "bytes":
                value = base64.b64decode(value, validate=True)
            if kind is None and given[0] == "path":
                # The constructor per type is the caller's choice; a path's row of the port's
                # own table names it (an unknown extension reaches the port's error below).
                ext = os.path.splitext(value)[1].lstrip(".").lower()
                kind = content.MEDIA_TYPES.get(ext, (None, "file"))[1]
            if kind not in ("image", "file", "audio"):
                raise bad("content_part: bytes and url need a `type` (image, file or audio)")
            made = getattr(content, kind)(value, mime_type=mime)
    except content.ContentPartError as e:
        return {"raised": str(e)}
    except TypeError as e:
        return {"raised": str(e)}
    except OSError as e:
        # SPEC §1B: a source the constructor cannot read is reported the port's own way (for
        # python, the OSError it raises), never as a part.
        return {"raised": f"{type(e).__name__}: {e}"}
    out = {"part": part_json(made), "bytes": content.decoded_len(made.data) if made.data else 0,
           "descriptor": plain(content.summarize(made)), "tokens": content.estimate_tokens(made)}
    if hasattr(content, "describe_part"):
        out["described"] = content.describe_part(made)
    if hasattr(content, "placeholder_text"):
        out["placeholder"] = content.placeholder_text(made, "openai")
    return out


def skill_info(info):
    out = {"name": info.name, "description": info.description, "location": info.location}
    if info.base is not None:
        out["base"] = info.base
    return out


# --- §8 client (PROTOCOL.md §5.13–§5.20, §6A, §7 "Client behaviours") ---------------------

# The published port has had a client since 0.16.0; feature-detect anyway so an older or
# stripped build answers `unsupported` instead of crashing the driver.
_create_client = getattr(toolnexus, "create_client", None)
_create_in_process = getattr(toolnexus, "create_in_process_client", None)
HAS_CLIENT = callable(_create_client)
# SPEC §7B/§7C: the port serves a toolkit (`Toolkit.serve`, with the MCP profile's `mcp=`).
HAS_SERVE = callable(getattr(toolnexus.Toolkit, "serve", None)) if hasattr(toolnexus, "Toolkit") else False
# §6A key → the port's create_client keyword, for the options passed through unchanged.
CLIENT_KEYS = {"baseUrl": "base_url", "style": "style", "model": "model", "apiKey": "api_key",
               "headers": "headers", "systemPrompt": "system_prompt", "maxTurns": "max_turns",
               "retries": "retries", "retryBaseMs": "retry_base_ms", "timeoutMs": "timeout_ms",
               "requestParams": "request_params", "bodyTransform": "body_transform",
               "hooks": "hooks", "onError": "on_error", "onMetric": "on_metric",
               "store": "store", "generate": "generate", "waitFor": "wait_for",
               # After SPEC 0.17.0 (python 0.18.0): statuses added to the retryable set.
               "retryableStatuses": "retryable_statuses",
               # SPEC 0.17.0 §8A / §1B: a release without them answers `unsupported` (create_client's
               # signature lacks the keyword).
               "onUnsupportedPart": "on_unsupported_part", "maxPartBytes": "max_part_bytes"}
HOOK_KEYS = {"beforeLLM": "before_llm", "afterLLM": "after_llm", "beforeTool": "before_tool",
             "afterTool": "after_tool"}


def usage_json(usage):
    """SPEC §8 usage in the protocol's spelling (python: prompt_tokens, …)."""
    u = usage or {}
    return {"promptTokens": u.get("prompt_tokens", 0), "completionTokens": u.get("completion_tokens", 0),
            "totalTokens": u.get("total_tokens", 0)}


def run_result(r):
    """PROTOCOL.md §8 RunResult from the port's RunResult dataclass."""
    calls = []
    for c in r.tool_calls or []:
        call = {"name": c.get("name"), "args": plain(c.get("args")), "output": c.get("output"),
                "isError": c.get("is_error")}
        if c.get("metadata") is not None:
            call["metadata"] = plain(c["metadata"])
        calls.append(call)
    out = {"text": r.text, "messages": plain(r.messages), "toolCalls": calls,
           "toolCallCount": r.tool_call_count, "turns": r.turns, "usage": usage_json(r.usage),
           "model": r.model}
    # Open type: the port's §10/§7D extras, when it has them.
    for key in ("status", "limit", "pending"):
        value = getattr(r, key, None)
        if value is not None:
            out[key] = request_json(value) if key == "pending" else plain(value)
    return out


def request_json(request):
    """A §10 Request as the port holds it: every dataclass field, as for `execute`'s
    `metadata.pending` (so a null optional key shows, see DIVERGENCES.md)."""
    return plain(request)


def stream_event(ev):
    """PROTOCOL.md §8 stream event; unknown types (the port's `pending`) pass through camelCased."""
    t = ev.get("type")
    if t == "done":
        return {"type": "done", "result": run_result(ev["result"])}
    if t == "usage":
        return {"type": "usage", "usage": usage_json(ev.get("usage"))}
    if t == "pending":
        return {"type": "pending", "request": request_json(ev.get("request"))}
    # Copy the usage dict a text/tool event might alias: later turns mutate it in place.
    return camel_keys(ev)


class PortResults(kit.client.ToolResults):
    """The port's ToolResult for the kit's hook interpreters."""

    def from_json(self, value):
        metadata = value.get("metadata")
        pending = metadata.get("pending") if isinstance(metadata, dict) else None
        if isinstance(pending, dict):
            # §10: the port's suspension carries its own Request type, not a JSON object.
            metadata = dict(metadata, pending=api("Request")(
                id=pending.get("id", ""), kind=pending.get("kind", ""), prompt=pending.get("prompt", ""),
                url=pending.get("url"), data=pending.get("data"), expiresAt=pending.get("expiresAt")))
        if value.get("parts") is not None:
            return ToolResult(output=value["output"], is_error=bool(value.get("isError", False)),
                              metadata=metadata, parts=value["parts"])
        return ToolResult(output=value["output"], is_error=bool(value.get("isError", False)),
                          metadata=metadata)

    def to_json(self, result):
        return tool_result(result) if isinstance(result, ToolResult) else plain(result)

    def prefixed(self, result, prefix):
        return ToolResult(output=prefix + (result.output or ""), is_error=result.is_error,
                          metadata=result.metadata)


RESULTS = PortResults()


# --- §7F compaction (PROTOCOL.md §5.26) ------------------------------------------------------

try:
    from toolnexus.agents import compaction as _compaction
except ImportError:  # a release without §7F: `compact` answers unsupported
    _compaction = None
HAS_COMPACT = callable(getattr(_compaction, "compactor", None))


async def compact_command(req):
    """One §7F compaction through the port's public `compactor` (a before_llm hook)."""
    if not HAS_COMPACT:
        raise lacks("toolnexus.agents.compaction.compactor (SPEC §7F)")
    messages = field(req, "messages", list, "an array")
    o = kit.compaction.compact_options(field(req, "options", dict, "an object"))
    kwargs = {"max_tokens": o.max_tokens, "summarize": o.summarize}
    if o.keep_tail is not None:
        kwargs["keep_tail"] = o.keep_tail
    if o.count_tokens is not None:
        kwargs["count_tokens"] = o.count_tokens
    if o.flush_to_memory:
        kwargs["flush_to_memory"] = True
    hook = _compaction.compactor(**kwargs)
    out = await hook({"messages": messages, "tools": [], "model": "", "turn": 1})
    return {"messages": None if out is None else plain(out.get("messages")),
            "summarizeCalls": o.summarize_calls}


# --- §7D agent runtime (PROTOCOL.md §5.27) ---------------------------------------------------

try:
    from toolnexus import agents as _agents
except ImportError:  # a release without §7D: every agent_* command answers unsupported
    _agents = None
HAS_AGENTS = callable(getattr(_agents, "AgentRuntime", None))
AGENT_DEF_KEYS = {"does", "model", "soul", "team", "tools", "budget", "waitFor", "hooks", "onMetric"}
# SPEC §7D Budget field → the port's Budget keyword.
BUDGET_KEYS = {"maxTurns": "max_turns", "maxTokens": "max_tokens", "maxToolCalls": "max_tool_calls",
               "maxWallMs": "max_wall_ms", "maxChildren": "max_children",
               "maxConcurrent": "max_concurrent", "maxDepth": "max_depth"}
# A trace line's `from→to` (python writes `<id>: <from>→<to> (<why>)`).
TRANSITION = re.compile(r"^(\w*)→(\w+)")
# Python's wording of the steps the reference records as events, and the reference's text.
EVENT_TEXTS = [(re.compile(r"^wake QUEUED\b.*$"), lambda m: "wake QUEUED"),
               (re.compile(r"^DEQUEUED wake\b.*$"), lambda m: "DEQUEUED wake"),
               (re.compile(r"^task replay → REATTACH to (\S+) \(state (\w+)\)$"),
                lambda m: f"task replay → REATTACH {m.group(1)} ({m.group(2)})")]


def _number(v):
    """A python budget figure as JSON: ints stay ints, infinity is no limit (None)."""
    if v is None or (isinstance(v, float) and math.isinf(v)):
        return None
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def agent_budget(value, what):
    return _agents.Budget(**{BUDGET_KEYS[k]: v for k, v in kit.agents.budget(value, what).items()})


def agent_result(handle_id, r):
    """A TaskResult in the protocol's shape (reference `AgentResult::to_json`). Python keeps
    one `total_tokens` (the handle's cumulative tree total) and no prompt/completion split, and
    one `text`, which is also the failure message: `error` repeats it on every non-done status."""
    out = {"handle": handle_id, "status": r.status, "text": r.text, "isError": r.is_error,
           "turns": r.turns, "usage": {"total_tokens": r.total_tokens}}
    limit = getattr(r, "limit", None)  # 0.16.0 has no limit field
    if limit:
        out["limit"] = limit
    if r.pending is not None:
        out["pending"] = request_json(r.pending)
    if r.status != "done":
        out["error"] = r.text
    return out


class AgentSession:
    """One `agent_runtime`: the port's AgentRuntime, its virtual clock, and what the host
    callbacks (onSpawn, onClose, waitFor, hooks, onMetric) recorded."""

    def __init__(self):
        self.rt = None
        self.clock = kit.VirtualClock()
        self.recorders = []  # (owner, Records)
        self.on_spawn, self.on_close, self.wait_for_calls = [], [], []
        self.specs = {}  # def name → the Agent keywords (agent_execute's Level-1 surface)
        self.rt_opts = {}

    def find(self, hid):
        if self.rt is None:
            return None
        stack = [self.rt.root]
        while stack:
            h = stack.pop()
            if h.id == hid:
                return h
            stack.extend(h.children)
        return None

    def handle(self, req, key="handle"):
        hid = field(req, key, str, "a string")
        h = self.find(hid)
        if h is None:
            raise bad(f'no handle "{hid}"')
        return h

    def recorded_wait_for(self, inner):
        async def wf(request):
            # The port calls a def's waitFor without the answering handle; its own trace
            # names it on the line just written: `<asker>: escalate → <id|self> answers …`.
            who = None
            for line in reversed(self.rt.trace if self.rt is not None else []):
                hid, _, rest = line.partition(": ")
                m = re.match(r"^escalate → (\S+) answers", rest)
                if m:
                    who = hid if m.group(1) == "self" else m.group(1)
                    break
            if len(self.wait_for_calls) < kit.MAX_RECORDED:
                self.wait_for_calls.append({"handle": who, "request": request_json(request)})
            return await inner(request)
        return wf

    def trace(self):
        transitions, events = {}, {}
        running, peak = {}, 0
        for line in self.rt.trace:
            hid, sep, rest = line.partition(": ")
            if not sep:
                events.setdefault("", []).append(line)
                continue
            m = TRANSITION.match(rest)
            if m and rest.startswith("running→idle (interrupt;"):
                # Python traces the interrupt verb AND the aborted turn's own settle, both
                # `running→idle`: one transition (the settle), the verb's line an event.
                events.setdefault(hid, []).append(rest)
                continue
            if m:
                frm, to = m.groups()
                transitions.setdefault(hid, []).append(f"{frm}→{to}")
                parent = hid.rsplit("/", 1)[0]
                if to == "running":
                    running.setdefault(parent, set()).add(hid)
                    peak = max(peak, len(running[parent]))
                elif frm == "running":
                    running.get(parent, set()).discard(hid)
                continue
            for pattern, text in EVENT_TEXTS:
                em = pattern.match(rest)
                if em:
                    rest = text(em)
                    break
            events.setdefault(hid, []).append(rest)
        hook_calls, metric_events = [], []
        for owner, rec in self.recorders:
            for e in rec.lists.get("hookCalls", []):
                hook_calls.append({**e, "owner": owner})
            for e in rec.lists.get("metricEvents", []):
                metric_events.append({**e, "owner": owner})
        return {"transitions": transitions, "events": events, "onSpawn": list(self.on_spawn),
                "onClose": list(self.on_close), "waitForCalls": list(self.wait_for_calls),
                "onBudgetCalls": [], "beats": [], "peakRunningSiblings": peak,
                "peakConcurrentTurns": getattr(self.rt, "max_observed_concurrent_turns", 0),
                "hookCalls": hook_calls[:kit.MAX_RECORDED], "metricEvents": metric_events[:kit.MAX_RECORDED],
                "now": self.clock.now_ms()}

    def effective(self, h):
        """The handle's effective budget as python computed it at spawn (`eff`, its pool)."""
        eff = getattr(h, "eff", {}) or {}
        out = {"maxTurns": eff.get("max_turns"), "maxTokens": _number(eff.get("max_tokens")),
               "maxToolCalls": None, "maxWallMs": _number(eff.get("max_wall_ms")),
               "maxChildren": _number(eff.get("max_children")),
               "maxConcurrent": eff.get("max_concurrent"), "maxDepth": eff.get("max_depth")}
        own = getattr(h.defn, "budget", None)
        if own is not None and own.max_tool_calls is not None:
            out["maxToolCalls"] = _number(own.max_tool_calls)
        return {k: v for k, v in out.items() if v is not None}

    def inspect(self, h):
        pool = getattr(h, "pool", None)
        remaining = {}
        if pool is not None:
            for key, value in (("maxTokens", pool.tokens), ("maxToolCalls", pool.tool_calls)):
                remaining[key] = _number(value)
        pending = getattr(h, "pending_req", None)
        return {"id": h.id, "def": h.defn.name, "state": h.state,
                "queued": bool(getattr(h, "wake_queue", None)),
                "inboxLen": len(h.inbox),
                "inbox": [{"from": i.from_, "channel": i.channel, "text": i.text} for i in h.inbox],
                "budget": {"effective": self.effective(h),
                           "used": {"turns": h.turns_total, "tokens": h.usage_total},
                           "remaining": remaining},
                "children": [c.id for c in h.children], "turns": h.turns_total,
                "usage": {"total_tokens": h.usage_total},
                "pending": None if pending is None else request_json(pending)}

    async def settle(self, task, advance_ms, tries=200):
        """Awaits `task`, moving the virtual clock by `advance_ms` whenever it is parked on one
        of the clock's timers (python's wait timeouts and close grace run on it)."""
        for _ in range(tries):
            if task.done():
                break
            await asyncio.sleep(0.002)
            if not task.done() and advance_ms and self.clock.live():
                self.clock.advance(advance_ms)
        return await task


class AgentCommands:
    """The `agent_*` commands over python's `toolnexus.agents` (see AGENT-NOTES.md)."""

    def __init__(self):
        self.sessions = kit.HandleTable("agent runtime", kit.BAD_REQUEST)

    def session(self, req):
        return self.sessions.of(req, "runtime")

    async def handle(self, cmd, req):
        if not HAS_AGENTS:
            raise lacks("toolnexus.agents.AgentRuntime (SPEC §7D)")
        if cmd == "agent_runtime":
            return await self.create(req)
        if cmd == "agent_close_runtime":
            s = self.sessions.pop(field(req, "runtime", str, "a string"))
            if s is not None:
                await self.close_all(s)
            return {}
        s = self.session(req)
        rt = s.rt
        if cmd == "agent_spawn":
            parent_id = req.get("parent") or "root"
            parent = s.find(parent_id)
            if parent is None:
                return {"error": {"output": f'no handle "{parent_id}"', "isError": True}}
            budget = None
            if req.get("budget") is not None:
                budget = agent_budget(req["budget"], "spawn")
            h = rt.spawn(parent, field(req, "def", str, "a string"), budget)
            if isinstance(h, _agents.SpawnError):
                return {"error": {"output": h.error, "isError": True}}
            return {"handle": h.id, "budget": {"effective": s.effective(h)}}
        if cmd == "agent_post":
            h = s.find(field(req, "handle", str, "a string"))
            if h is None:
                return {"accepted": False, "error": f'no handle "{req["handle"]}"'}
            item = _agents.InboxItem(from_=req.get("from") or "external",
                                     channel=req.get("channel") or "external",
                                     text=field(req, "text", str, "a string"))
            r = rt.post(h, item)
            return {"accepted": True} if r.ok else {"accepted": False, "error": r.error}
        if cmd == "agent_wake":
            h = s.find(field(req, "handle", str, "a string"))
            if h is None:
                return {"error": f'no handle "{req["handle"]}"'}
            before = len(rt.trace)
            r = rt.wake(h, req.get("prompt"))
            if not r.ok:
                return {"error": r.error}
            queued = any(line.startswith(f"{h.id}: wake QUEUED") for line in rt.trace[before:])
            return {"state": h.state, "queued": queued}
        if cmd == "agent_wait":
            h = s.handle(req)
            timeout = req.get("timeoutMs")
            advance = req.get("advanceMs")
            for key, v in (("timeoutMs", timeout), ("advanceMs", advance)):
                if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                    raise bad(f'"{key}" must be a non-negative integer')
            task = asyncio.ensure_future(rt.wait(h, timeout_ms=timeout))
            await asyncio.sleep(0)  # the wait registers its waiter and its timer first
            if advance:
                s.clock.advance(advance)
            return {"result": agent_result(h.id, await task)}
        if cmd == "agent_interrupt":
            h = s.handle(req)
            if h.state == "closed":
                return {"error": f"closed: {h.id} is closed"}
            rt.interrupt(h)
            # Python's abort is cooperative: the turn settles to idle on its next step.
            for _ in range(500):
                if h.state != "running":
                    break
                await asyncio.sleep(0.002)
            return {"state": h.state}
        if cmd == "agent_close":
            h = s.handle(req)
            force = req.get("force") is True
            advance = req.get("advanceMs")
            if advance is None:
                advance = s.rt_opts.get("shutdown_ms", 200)
            task = asyncio.ensure_future(rt.close(h, force=force))
            await s.settle(task, advance)
            return {"state": h.state}
        if cmd == "agent_list":
            out = []
            for v in rt.list():  # HandleView {id, state, tokens, inbox}; the def is the handle's
                h = s.find(v.id)
                out.append({"id": v.id, "def": h.defn.name if h is not None else None, "state": v.state})
            return {"handles": out}
        if cmd == "agent_inspect":
            return s.inspect(s.handle(req))
        if cmd == "agent_run":
            entry = field(req, "entry", str, "a string")
            prompt = field(req, "prompt", str, "a string")
            h = rt.spawn(rt.root, entry)
            if isinstance(h, _agents.SpawnError):
                return {"error": h.error}
            rt.wake(h, prompt)
            return {"handle": h.id, "result": agent_result(h.id, await rt.wait(h))}
        if cmd == "agent_resume":
            a = field(req, "answer", dict, "an object {id, ok, data?, reason?}")
            answer = api("Answer")(id=a.get("id", ""), ok=a.get("ok", True), data=a.get("data"),
                                   reason=a.get("reason"))
            # The handle whose result resume answers: the topmost of the suspended chain
            # above the deepest suspended handle (python's own routing, in DFS order).
            top = self.suspended_top(s)
            try:
                r = await rt.resume(answer)
            except RuntimeError as e:
                return {"raised": str(e)}
            if r is None and top is not None:  # 0.16.0: resume answers None; wait has it
                r = await rt.wait(top)
            if r is None:
                return {"raised": "resume answered nothing"}
            return {"result": agent_result(top.id if top is not None else "", r)}
        if cmd == "agent_execute":
            return await self.execute(s, req)
        if cmd == "agent_clock":
            advance = req.get("advanceMs") or 0
            if not isinstance(advance, int) or isinstance(advance, bool) or advance < 0:
                raise bad('"advanceMs" must be a non-negative integer')
            now = s.clock.advance(advance)
            await asyncio.sleep(0)
            return {"now": now}
        if cmd == "agent_heartbeat":
            raise Failure("unsupported", "python's heartbeat is start_agent(agent, every_ms=…), which "
                          "builds its own runtime and handle; it cannot start on an existing handle")
        if cmd == "agent_store_get":
            got = await rt.conversation_store.get(field(req, "id", str, "a string"))
            return {"messages": [] if got is None else plain(got)}
        if cmd == "agent_store_save":
            await rt.conversation_store.save(field(req, "id", str, "a string"),
                                             field(req, "messages", list, "an array"))
            return {}
        if cmd == "agent_trace":
            return s.trace()
        raise Failure("unsupported", f"unknown command {compact(cmd)}")

    @staticmethod
    def suspended_top(s):
        def deepest(h):
            for c in h.children:
                found = deepest(c)
                if found is not None:
                    return found
            return h if h.state == "suspended" else None
        leaf = deepest(s.rt.root)
        top = leaf
        while top is not None and top.parent is not None and top.parent is not s.rt.root \
                and top.parent.state == "suspended":
            top = top.parent
        return top

    async def close_all(self, s):
        if s.rt is None:
            return
        try:
            task = asyncio.ensure_future(s.rt.close(s.rt.root, force=True))
            await asyncio.wait_for(s.settle(task, 0), timeout=5)
        except BaseException as e:  # noqa: BLE001 — stop-all never fails the session
            if isinstance(e, KeyboardInterrupt):
                raise
            print(f"driver: closing an agent runtime: {type(e).__name__}: {e}", file=sys.stderr)

    async def create(self, req):
        rid = field(req, "id", str, "a string")
        base_url = field(req, "baseUrl", str, "a string")
        style = field(req, "style", str, "a string")
        if style not in ("openai", "anthropic"):
            raise bad(f"unknown style {compact(style)} (openai | anthropic)")
        llm = {"base_url": base_url, "style": style}
        if isinstance(req.get("apiKey"), str):
            llm["api_key"] = req["apiKey"]
        opts = kit.agents.runtime_options(req.get("options") or {})
        if opts.get("onBudget") is not None:
            raise Failure("unsupported", "python's AgentRuntime has no onBudget (SPEC §7D budgets)")
        s = AgentSession()
        kwargs = {"llm": llm, "clock": s.clock}
        for key, kw in (("inboxCap", "inbox_cap"), ("maxConcurrentTurns", "max_concurrent_turns"),
                        ("shutdownMs", "shutdown_ms")):
            if opts.get(key) is not None:
                kwargs[kw] = opts[key]
        rec = Records()
        if opts.get("hooks") is not None:
            kwargs["hooks"] = agent_hooks(opts["hooks"], rec)
        if opts.get("onMetric") is not None:
            kwargs["on_metric"] = agent_on_metric(opts["onMetric"], rec)
        s.recorders.append(("runtime", rec))
        tools = {}
        for spec in req.get("tools") or []:
            t = extra_tool(spec)
            tools[t.name] = t
        defs = {}
        for name, d in kit.agents.registry(req.get("registry"), tools, AGENT_DEF_KEYS).items():
            team = d["team"]
            spec = {"does": d.get("does") or "", "soul": d.get("soul"), "model": d["model"],
                    "team": team, "tools": [tools[t] for t in d["tools"]],
                    "budget": agent_budget(d["budget"], f"registry entry {name}") if d.get("budget") is not None else None}
            if d.get("waitFor") is not None:
                spec["wait_for"] = s.recorded_wait_for(wait_for(d["waitFor"]))
            drec = Records()
            if d.get("hooks") is not None:
                spec["hooks"] = agent_hooks(d["hooks"], drec)
            if d.get("onMetric") is not None:
                spec["on_metric"] = agent_on_metric(d["onMetric"], drec)
            s.recorders.append((name, drec))
            spec["on_spawn"] = lambda h, s=s: s.on_spawn.append(h.id)
            spec["on_close"] = lambda h, reason, s=s: s.on_close.append({"handle": h.id, "reason": reason})
            s.specs[name] = spec
            defs[name] = _agents.AgentDef(
                name=name, description=spec["does"], system_prompt=spec["soul"] or "",
                model=spec["model"], budget=spec["budget"], tools=spec["tools"] or None,
                wait_for=spec.get("wait_for"), on_spawn=spec["on_spawn"], on_close=spec["on_close"],
                task_targets=list(team) or None,
                **supported(_agents.AgentDef,
                            {k: spec[k] for k in ("hooks", "on_metric") if k in spec}, "AgentDef"))
        kwargs = supported(_agents.AgentRuntime, kwargs, "AgentRuntime")
        s.rt_opts = kwargs
        s.rt = _agents.AgentRuntime(registry=defs, **kwargs)
        old = self.sessions.pop(rid)
        if old is not None:
            await self.close_all(old)
        self.sessions.put(rid, s)
        return {}

    async def execute(self, s, req):
        """`agent(name).as_tool()` then its execute: python's Level-1 bridge, which runs the
        agent in a runtime of its own (the same LLM, clock and options)."""
        name = field(req, "def", str, "a string")
        if name not in s.specs:
            raise bad(f'unknown agent "{name}"')
        built = {}

        def build(n):
            if n in built:
                return built[n]
            sp = s.specs[n]
            kw = {"does": sp["does"], "uses": {"tools": sp["tools"]}, "soul": sp["soul"],
                  "budget": sp["budget"], "model": sp["model"], "wait_for": sp.get("wait_for"),
                  "on_spawn": sp["on_spawn"], "on_close": sp["on_close"]}
            for k in ("hooks", "on_metric"):
                if k in sp:
                    kw[k] = sp[k]
            a = _agents.Agent(n, **supported(_agents.Agent, kw, "Agent"))
            built[n] = a
            a.team = [build(m) for m in sp["team"]]
            return a
        a = build(name)
        opts = {k: v for k, v in s.rt_opts.items()}
        tool = a.as_tool(**opts)
        args = req.get("args") or {}
        if not isinstance(args, dict):
            raise bad('"args" must be an object')
        return {"tool": describe(tool), "result": tool_result(await tool.execute(args, None))}


def agent_hooks(value, rec):
    """The §7 hook behaviours as the port's hooks dict (a client's or an agent def's)."""
    return {HOOK_KEYS[name]: fn for name, fn in
            kit.client.hooks(value, rec, RESULTS, refuse=REFUSED_HOOKS).items()}


def agent_on_metric(value, rec):
    return kit.client.on_metric(value, rec, strict=True)


# --- §11 translate (PROTOCOL.md §5.21) ----------------------------------------------------

_client_class = getattr(toolnexus, "Client", None)
HAS_TRANSLATE = HAS_CLIENT and callable(getattr(_client_class, "translate", None))
# SPEC §11 request key → the port's translate keyword, with its JSON type (None: any JSON).
TRANSLATE_KEYS = [("tools", "tools", list, "an array"), ("toolChoice", "tool_choice", None, ""),
                  ("system", "system", str, "a string"), ("maxTokens", "max_tokens", int, "an integer")]


def translate_result(r):
    """SPEC §11 result in the protocol's spelling (python: tool_calls, finish_reason, …)."""
    out = {"text": r.text,
           "toolCalls": [{"id": c.id, "name": c.name, "arguments": plain(c.arguments)}
                         for c in r.tool_calls or []],
           "finishReason": r.finish_reason, "usage": usage_json(r.usage), "model": r.model}
    if getattr(r, "raw", None) is not None:
        out["raw"] = plain(r.raw)
    return out


class ClientEntry:
    """A created client and the recorder its host-supplied code writes into."""

    def __init__(self, client, rec, recorded):
        self.client, self.rec = client, rec
        # PROTOCOL.md §5.13: the lists a loop answer carries, one per host seam installed.
        self.recorded = recorded


def make_client(options):
    if not HAS_CLIENT:
        raise lacks("create_client (SPEC §8)")
    if not isinstance(options, dict):
        raise bad("options must be an object")
    rec = Records()
    kwargs = {}
    for key, value in options.items():
        if key not in CLIENT_KEYS:
            raise bad(f'unknown client option "{key}"')
        if value is None:
            continue
        kit.client.check_option(key, value)  # the §6A type of a plain option
        if key == "hooks":
            value = agent_hooks(value, rec)
        elif key == "onError":
            value = kit.client.on_error(value, rec)
        elif key == "onMetric":
            value = kit.client.on_metric(value, rec)
        elif key == "store":
            value = kit.client.store(value)
        elif key == "bodyTransform":
            value = kit.client.body_transform(value)
        elif key == "generate":
            value = kit.client.generate(value, rec)
        elif key == "waitFor":
            value = wait_for(value, rec)
        elif key == "retryableStatuses":
            value = kit.client.retryable_statuses(value)
        kwargs[CLIENT_KEYS[key]] = value
    seams = (("hooks", "hookCalls"), ("on_metric", "metricEvents"), ("on_error", "onErrorCalls"),
             ("generate", "generateCalls"), ("wait_for", "waitForCalls"))
    recorded = [key for kw, key in seams if kw in kwargs]
    generate = kwargs.pop("generate", None)
    if generate is not None:
        if not callable(_create_in_process):
            raise lacks("create_in_process_client(generate=…)")
        for k in ("base_url", "style", "api_key"):
            if k in kwargs:
                raise bad(f'"{camel(k)}" is not an option of an in-process client (generate)')
        # The in-process constructor passes its **options on to create_client.
        supported(_create_client, kwargs, "create_client")
        if "model" not in kwargs:
            raise bad('missing client option "model"')
        return ClientEntry(_create_in_process(generate=generate, **kwargs), rec, recorded)
    for k in ("base_url", "style", "model"):
        if k not in kwargs:
            raise bad(f'missing client option "{camel(k)}"')
    if kwargs["style"] not in ("openai", "anthropic"):
        raise bad(f'unknown style {compact(kwargs["style"])}')
    client = _create_client(**supported(_create_client, kwargs, "create_client"))
    return ClientEntry(client, rec, recorded)


# --- §8B classifier (PROTOCOL.md §5.29–§5.30, §6B, §7 "Classifier behaviours") --------------

try:
    from toolnexus import classifier as _classifier
except ImportError:  # before 0.18.0: `classifier` and `evaluate` answer unsupported
    _classifier = None
HAS_CLASSIFIER = callable(getattr(_classifier, "create_classifier", None))
# §6B key → the port's create_classifier keyword (`timeoutMs` becomes seconds).
CLASSIFIER_KEYS = {"style": "style", "baseUrl": "base_url", "model": "model",
                   "apiKeyEnv": "api_key_env", "headers": "headers", "timeoutMs": "timeout",
                   "retries": "retries", "retryBaseMs": "retry_base_ms",
                   "retryableStatuses": "retryable_statuses", "onError": "on_error",
                   "requestParams": "request_params", "bodyTransform": "body_transform",
                   "onMetric": "on_metric", "client": "client", "evaluate": "evaluate",
                   "decisions": "decisions"}


def questions_of(value, what):
    """Protocol questions as the port's question dataclasses, in the order written. A noul's
    `criteria` absent stays None; given (even `{}`) is a NoulCriteria of the cases given, the
    port's defaults filling the rest."""
    if not isinstance(value, dict):
        raise bad(f"{what} must be an object")
    out = {}
    for key, q in value.items():
        w = f"{what}.{key}"
        if not isinstance(q, dict) or not isinstance(q.get("instructions"), str):
            raise bad(f'{w}: a question is an object with a string "instructions"')
        kind, criteria = q.get("type"), q.get("criteria")
        if kind == "noul":
            if criteria is not None and not (isinstance(criteria, dict) and set(criteria) <= {"true", "false"}
                                             and all(isinstance(v, str) for v in criteria.values())):
                raise bad(f'{w}.criteria: a noul\'s criteria is {{"true"?, "false"?}} of strings')
            out[key] = _classifier.NoulQuestion(
                q["instructions"], criteria=None if criteria is None else _classifier.NoulCriteria(**criteria))
        elif kind == "choice":
            if not (isinstance(criteria, dict) and all(isinstance(v, str) for v in criteria.values())):
                raise bad(f"{w}.criteria: a choice's criteria is an object of strings")
            out[key] = _classifier.ChoiceQuestion(q["instructions"], criteria=dict(criteria))
        elif kind == "score":
            if not (isinstance(criteria, list) and all(isinstance(v, str) for v in criteria)):
                raise bad(f"{w}.criteria: a score's criteria is an array of strings")
            out[key] = _classifier.ScoreQuestion(q["instructions"], criteria=list(criteria))
        else:
            raise bad(f"{w}: unknown question type {compact(kind)}")
    return out


def questions_json(questions):
    """The questions in the SPEC's wire form, by the port's own projection (0.18.0 has no
    `questions_wire`; its public `canonical_request` is the same projection, keys sorted)."""
    wire = getattr(_classifier, "questions_wire", None)
    if callable(wire):
        return plain(wire(questions))
    return json.loads(_classifier.canonical_request("", questions))["questions"]


def decision_of(value):
    """`{"decision": D}`: D (the systemone wire form) as the port's Decision. The port's decoder
    (`_decision_from_wire`) is private, so each answer is built with its public dataclass, and a
    choice's `near_uniform` by the port's public `near_uniform`; an absent or null `calibrated`
    is the Decision's own default."""
    c = _classifier
    if not isinstance(value, dict) or not isinstance(value.get("answers", {}), dict):
        raise bad('evaluate.decision must be an object with an "answers" object')
    answers = {}
    for key, a in value.get("answers", {}).items():
        kind = a.get("type") if isinstance(a, dict) else None
        try:
            if kind == "noul":
                answers[key] = c.NoulAnswer(noul=a["noul"])
            elif kind == "choice":
                probs = dict(a["probabilities"])
                answers[key] = c.ChoiceAnswer(choice=a["choice"], probabilities=probs,
                                              confidence=a["confidence"], near_uniform=c.near_uniform(probs))
            elif kind == "score":
                answers[key] = c.ScoreAnswer(score=a["score"], legend=dict(a["legend"]),
                                             probabilities=dict(a["probabilities"]), confidence=a["confidence"])
            else:
                raise bad(f"evaluate.decision.answers.{key}: unknown answer type {compact(kind)}")
        except (KeyError, TypeError, ValueError) as e:
            raise bad(f"evaluate.decision.answers.{key}: {type(e).__name__}: {e}") from None
    usage = value.get("usage") or {}
    kwargs = {"model": value.get("model", ""), "answers": answers,
              "usage": c.ClassifierUsage(**{k: usage[k] for k in ("input_tokens", "output_tokens", "cost")
                                            if k in usage})}
    if value.get("calibrated") is not None:
        kwargs["calibrated"] = value["calibrated"]
    return c.Decision(**kwargs)


def decision_json(d):
    """PROTOCOL.md §8 Decision from the port's Decision: every field camelCased (`nearUniform`,
    `inputTokens`), an unset usage `cost` left out."""
    return {"model": d.model,
            "answers": {k: {camel(f): v for f, v in plain(a).items()} for k, a in d.answers.items()},
            "usage": {camel(f): v for f, v in plain(d.usage).items() if v is not None},
            "calibrated": d.calibrated}


def evaluate_fn(behaviour, rec):
    """§7 `evaluate` (`style: "custom"`): the kit's interpreter with the port's Decision."""
    return kit.client.evaluate(behaviour, rec, decision_of, questions_json)


def recorded_decisions(value):
    """`decisions`: the static corpus, each entry the port's own RecordedDecision."""
    if not isinstance(value, list):
        raise bad("decisions must be an array")
    out = []
    for i, d in enumerate(value):
        if not isinstance(d, dict) or "questions" not in d or "response" not in d:
            raise bad(f'decisions[{i}] needs "questions" and "response"')
        out.append(_classifier.RecordedDecision(
            state=d.get("state"), questions=questions_of(d["questions"], f"decisions[{i}].questions"),
            response=d["response"]))
    return out


class ClassifierEntry:
    """A created classifier and the recorder its host-supplied code writes into."""

    def __init__(self, classifier, rec, recorded):
        self.classifier, self.rec, self.recorded = classifier, rec, recorded


def classifier_kwargs(options, clients, rec):
    """§6B options as create_classifier keywords; only the options given, so the port's
    defaults apply."""
    if not HAS_CLASSIFIER:
        raise lacks("toolnexus.classifier (SPEC §8B)")
    if not isinstance(options, dict):
        raise bad("options must be an object")
    kwargs = {}
    for key, value in options.items():
        if key not in CLASSIFIER_KEYS:
            raise bad(f'unknown classifier option "{key}"')
        if value is None:
            continue
        kit.client.check_option(key, value)  # the §6B type of a plain option
        if key == "onError":
            value = kit.client.on_error(value, rec)
        elif key == "onMetric":
            value = kit.client.on_metric(value, rec)
        elif key == "bodyTransform":
            value = kit.client.body_transform(value)
        elif key == "evaluate":
            value = evaluate_fn(value, rec)
        elif key == "decisions":
            value = recorded_decisions(value)
        elif key == "retryableStatuses":
            value = kit.client.retryable_statuses(value)
        elif key == "client":
            if not isinstance(value, str) or value not in clients:
                raise bad(f"no client {compact(value)}")
            value = clients.get(value).client
        elif key == "timeoutMs":
            value = value / 1000.0  # UNITS: python's create_classifier(timeout=…) is in seconds
        kwargs[CLASSIFIER_KEYS[key]] = value
    return supported(_classifier.create_classifier, kwargs, "create_classifier")


def _toolkit_optional(fn):
    p = _params(fn).get("toolkit")
    return p is not None and p.default is not inspect.Parameter.empty


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


def on_task_entry(ev):
    """An `onTask` argument as JSON, with the port's keys; a RunResult as `run` answers it."""
    out = {}
    for k, v in (ev.items() if isinstance(ev, dict) else plain(ev).items()):
        if k == "result" and v is not None and hasattr(v, "tool_calls"):
            out[k] = run_result(v)
        else:
            out[k] = plain(v)
    return out


class Served:
    """One `serve` handle: the port's ServeHandle, its toolkit id, what its host code saw."""

    def __init__(self, toolkit):
        self.toolkit, self.handle, self.rec, self.stopped = toolkit, None, Records(), False

    async def stop(self):
        if self.stopped or self.handle is None:
            self.stopped = True
            return
        self.stopped = True
        await self.handle.stop()


def client_method(client, name):
    """The client's method `name` (SPEC §8), or `unsupported` naming it."""
    method = getattr(client, name, None)
    if not callable(method):
        raise lacks(f"Client.{name}")
    return method


def implemented():
    """`hello.implements`: the core sections, and each later one whose API this release has."""
    optional = [("7B", HAS_SERVE), ("7C", HAS_SERVE and takes(toolnexus.Toolkit.serve, "mcp")),
                ("8", HAS_CLIENT), ("10", HAS_CLIENT and takes(_create_client, "wait_for")),
                ("8A", HAS_CLIENT and takes(_create_client, "on_unsupported_part")),
                ("11", HAS_TRANSLATE), ("7D", HAS_AGENTS), ("7F", HAS_COMPACT),
                ("8B", HAS_CLASSIFIER)]
    return SECTIONS + [section for section, present in optional if present]


class Session:
    """The session's handles, and one handler per command (registered in `main`)."""

    def __init__(self):
        self.kits = kit.HandleTable("toolkit")
        self.clients = kit.HandleTable("client", kit.BAD_REQUEST)
        self.classifiers = kit.HandleTable("classifier", kit.BAD_REQUEST)
        self.serves = kit.HandleTable("serve handle", kit.BAD_REQUEST)
        self.empty_kit = None
        self.agents = AgentCommands()

    def kit(self, req):
        return self.kits.of(req, "toolkit")

    async def build(self, req):
        tid = field(req, "id", str, "a string")
        kwargs = toolkit_kwargs(req.get("options") or {})
        supported(create_toolkit, kwargs, "create_toolkit")
        await self.close(tid)
        # The port reports warnings (duplicate skills, unknown filter names) only by
        # printing `[toolnexus] …` to stderr; collect them for the `warnings` field while
        # still passing them through to the log.
        # PROTOCOL.md §5.25: `toolCancels` holds the calls since the latest build.
        TOOL_CANCELS.clear("toolCancels")
        real_err, tee = sys.stderr, _Tee(sys.stderr)
        sys.stderr = tee
        try:
            tk = await create_toolkit(**kwargs)
        except Exception as e:  # noqa: BLE001 — the port's createToolkit threw: §5.2 `raised`
            return {"raised": str(e) or type(e).__name__}
        finally:
            sys.stderr = real_err
        self.kits.put(tid, tk)
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

    def tools(self, req):
        return {"tools": [describe(t) for t in self.kit(req).tools()]}

    async def execute(self, req):
        tk = self.kit(req)
        name = field(req, "name", str, "a string")
        args = req.get("args") or {}
        if not isinstance(args, dict):
            raise bad('"args" must be an object')
        ctx_kwargs = {}
        context = req.get("context")
        if isinstance(context, dict):
            a = context.get("answer")
            ctx_kwargs["answer"] = None if a is None else api("Answer")(
                id=a.get("id", ""), ok=a.get("ok", True), data=a.get("data"), reason=a.get("reason"))
        abort_ms = kit.nonneg_int(req, "abortAfterMs")
        timer = None
        if abort_ms is not None:
            # PROTOCOL.md §5.4: the port's advisory abort signal (`ToolContext.signal`, an
            # Event its a2a.py reads), set by a timer abortAfterMs after the call starts.
            signal = asyncio.Event()
            ctx_kwargs["signal"] = signal
            timer = asyncio.get_running_loop().call_later(abort_ms / 1000.0, signal.set)
        ctx = None
        if ctx_kwargs:
            context_type = api("ToolContext")
            ctx = context_type(**supported(context_type, ctx_kwargs, "ToolContext"))
        try:
            return {"result": tool_result(await tk.execute(name, args, ctx))}
        finally:
            if timer is not None:
                timer.cancel()

    def adapter(self, req):
        tk = self.kit(req)
        fmt = req.get("format")
        adapters = {"openai": tk.to_openai, "anthropic": tk.to_anthropic, "gemini": tk.to_gemini}
        if fmt not in adapters:
            raise bad(f"unknown adapter format {compact(fmt)}")
        return {"output": plain(adapters[fmt]())}

    def skills_prompt(self, req):
        return {"prompt": self.kit(req).skills_prompt()}

    def list_skills(self, req):
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
        list_skills = api("list_skills")
        kwargs = supported(list_skills, {"skills": defs} if defs else {}, "list_skills")
        inv = list_skills(opts.get("skillsDir"), **kwargs)
        return {"skills": [skill_info(s) for s in inv.skills],
                "skipped": [plain(s) for s in inv.skipped]}

    async def list_mcp_tools(self, req):
        field(req, "config")
        real_err, tee = sys.stderr, _Tee(sys.stderr)
        sys.stderr = tee
        try:
            inv = await api("list_mcp_tools")(req["config"])
        finally:
            sys.stderr = real_err
        return {"statuses": dict(inv.status), "errors": tee.errors(),
                "tools": {server: [{"name": t.name, "description": t.description,
                                    "inputSchema": t.input_schema} for t in tools]
                          for server, tools in inv.tools.items()}}

    def select_builtins(self, req):
        field(req, "config")
        return {"tools": [describe(t) for t in api("select_builtins")(req["config"])]}

    def content_part(self, req):
        return content_part(req.get("from"))

    def sanitize(self, req):
        return {"value": api("sanitize")(field(req, "value", str, "a string"))}

    async def close_command(self, req):
        await self.close(field(req, "toolkit", str, "a string"))

    def client(self, req):
        cid = field(req, "id", str, "a string")
        options = req.get("options")
        self.clients.put(cid, make_client({} if options is None else options))
        return {"client": cid}

    def classifier(self, req):
        kid = field(req, "id", str, "a string")
        rec = Records()
        options = req.get("options")
        kwargs = classifier_kwargs({} if options is None else options, self.clients, rec)
        try:
            classifier = _classifier.create_classifier(**kwargs)
        except Exception as e:  # noqa: BLE001 — the port's constructor refused: §5.29 `raised`
            return {"raised": str(e) or type(e).__name__}
        seams = (("on_metric", "metricEvents"), ("on_error", "onErrorCalls"), ("evaluate", "evaluateCalls"))
        self.classifiers.put(kid, ClassifierEntry(classifier, rec, [k for kw, k in seams if kw in kwargs]))
        return {"classifier": kid}

    def metrics(self, req):
        return {"text": client_method(self.client_entry(req).client, "metrics")()}

    async def serve_stop(self, req):
        await self.serves.of(req, "serve").stop()

    def serve_records(self, req):
        rec = self.serves.of(req, "serve").rec
        return {**rec.answer(("onTask", "onCall", "storeCalls")), "toolCancels": TOOL_CANCELS.get("toolCancels")}

    async def shutdown(self):
        for rid in self.agents.sessions.ids():
            await self.agents.close_all(self.agents.sessions.pop(rid))
        for entry in self.serves.values():
            await entry.stop()
        await self.clients.clear()
        await self.classifiers.clear()
        for tid in self.kits.ids():
            await self.close(tid)

    # --- §8 client commands -------------------------------------------------------------------

    def client_entry(self, req):
        return self.clients.of(req, "client")

    async def loop_toolkit(self, req, method):
        if req.get("toolkit") is None:
            if not _toolkit_optional(method):
                # toolnexus 0.16.0's run/stream/ask/conversation take a required toolkit:
                # "no toolkit" is then an empty one (no sources, no builtins: no tools).
                if self.empty_kit is None:
                    off = supported(create_toolkit, {"builtins": False}, "create_toolkit")
                    self.empty_kit = await create_toolkit(**off)
                return self.empty_kit
            return None
        return self.kit(req)

    def loop_options(self, req, method, allowed):
        """Keyword arguments for a loop call, refusing what this port's method cannot take."""
        kwargs = {}
        for key, kw in allowed:
            if req.get(key) is None:
                continue
            kwargs[kw] = req[key]
        supported(method, kwargs, f"Client.{method.__name__}")
        if "history" in kwargs and not isinstance(kwargs["history"], list):
            raise bad('"history" must be an array')
        if "id" in kwargs and not isinstance(kwargs["id"], str):
            raise bad('"id" must be a string')
        return kwargs

    def arm_cancel(self, req, method):
        """PROTOCOL.md §5.15 cancelAfterMs: an asyncio.Event the driver sets on a timer."""
        ms = req.get("cancelAfterMs")
        if ms is None:
            return None, None
        if not isinstance(ms, int) or isinstance(ms, bool) or ms < 0:
            raise bad('"cancelAfterMs" must be a non-negative integer')
        if not takes(method, "cancel"):
            raise lacks(f"Client.{method.__name__}(cancel=…)")
        event = asyncio.Event()
        timer = asyncio.get_running_loop().call_later(ms / 1000.0, event.set)
        return event, timer

    def observed(self, entry, out, t0):
        for key in entry.recorded:
            out[key] = list(entry.rec.lists.get(key, []))
        out["elapsedMs"] = int(round((time.monotonic() - t0) * 1000))
        return out

    async def loop_command(self, cmd, req):
        entry = self.client_entry(req)
        client = entry.client
        method = client_method(client, cmd)
        prompt = loop_prompt(req)
        toolkit = await self.loop_toolkit(req, method)
        allowed = {"run": [("history", "history")],
                   "stream": [("history", "history"), ("id", "id")],
                   "ask": [("id", "id")]}[cmd]
        kwargs = self.loop_options(req, method, allowed)
        deltas = None
        if cmd == "ask" and req.get("onText") is not None:
            if not isinstance(req["onText"], bool):
                raise bad('"onText" must be a boolean')
            if req["onText"]:
                if not takes(method, "on_text"):
                    raise lacks("Client.ask(on_text=…)")
                deltas = []

                def on_text(delta):
                    if len(deltas) < kit.MAX_RECORDED:
                        deltas.append(delta)
                kwargs["on_text"] = on_text
        cancel, timer = self.arm_cancel(req, method)
        if cancel is not None:
            kwargs["cancel"] = cancel
        entry.rec.reset()
        out = {}
        t0 = time.monotonic()
        try:
            if cmd == "stream":
                events = []
                out["events"] = events
                try:
                    async for ev in client.stream(prompt, toolkit, **kwargs):
                        if len(events) < kit.MAX_RECORDED:
                            events.append(stream_event(ev))
                except Exception as e:  # noqa: BLE001 — the port's own failure, answered as data
                    out["raised"] = str(e) or type(e).__name__
            else:
                try:
                    result = await method(prompt, toolkit, **kwargs)
                    out["result"] = run_result(result)
                except Exception as e:  # noqa: BLE001
                    out["raised"] = str(e) or type(e).__name__
        finally:
            if timer is not None:
                timer.cancel()
        if deltas is not None:
            out["textDeltas"] = deltas
        return self.observed(entry, out, t0)

    async def evaluate_command(self, req):
        """PROTOCOL.md §5.30: `classifier.evaluate(state, questions)`."""
        if not HAS_CLASSIFIER:
            raise lacks("toolnexus.classifier (SPEC §8B)")
        entry = self.classifiers.of(req, "classifier")
        questions = questions_of(field(req, "questions", dict, "an object"), "questions")
        entry.rec.reset()
        out = {}
        t0 = time.monotonic()
        try:
            out["decision"] = decision_json(await entry.classifier.evaluate(req.get("state"), questions))
        except Exception as e:  # noqa: BLE001 — the port's own failure, answered as data
            out["raised"] = str(e) or type(e).__name__
        return self.observed(entry, out, t0)

    async def translate_command(self, req):
        """PROTOCOL.md §5.21: SPEC §11 `client.translate(messages, tools=, toolkit=, …)`."""
        entry = self.client_entry(req)
        method = client_method(entry.client, "translate")
        request = field(req, "request", dict, "an object")
        messages = field(request, "messages", list, "an array")
        kwargs = {}
        for key, kw, types, what in TRANSLATE_KEYS:
            if request.get(key) is None:
                continue
            if types is not None and (not isinstance(request[key], types) or isinstance(request[key], bool)):
                raise bad(f'"request.{key}" must be {what}')
            if not takes(method, kw):
                raise lacks(f"Client.translate({kw}=…)")
            kwargs[kw] = request[key]
        if req.get("toolkit") is not None:
            kwargs["toolkit"] = self.kit(req)
        entry.rec.reset()
        out = {}
        t0 = time.monotonic()
        try:
            out["result"] = translate_result(await method(messages, **kwargs))
        except Exception as e:  # noqa: BLE001 — the port's own failure, answered as data
            out["raised"] = str(e) or type(e).__name__
        return self.observed(entry, out, t0)

    async def conversation_command(self, req):
        entry = self.client_entry(req)
        client = entry.client
        toolkit = await self.loop_toolkit(req, client_method(client, "conversation"))
        steps = kit.client.conversation_steps(field(req, "steps", list, "an array"))
        entry.rec.reset()
        t0 = time.monotonic()
        convo = client.conversation(toolkit)
        answers = []
        for step in steps:
            if "reset" in step:
                convo.reset()
                answers.append({})
                continue
            try:
                answers.append({"result": run_result(await convo.send(step["send"]))})
            except Exception as e:  # noqa: BLE001
                answers.append({"raised": str(e) or type(e).__name__})
        return self.observed(entry, {"steps": answers, "messages": plain(convo.messages)}, t0)

    def store_of(self, req):
        client = self.client_entry(req).client
        store = getattr(client, "conversation_store", None)
        if callable(store):  # a method in a port that spells the accessor that way
            store = store()
        if store is None:
            store = getattr(client, "store", None)
        if store is None:
            raise lacks("Client.conversation_store (the store accessor)")
        return store

    async def store_command(self, cmd, req):
        store = self.store_of(req)
        sid = field(req, "id", str, "a string")
        if cmd == "store_get":
            got = store.get(sid)
            if inspect.isawaitable(got):
                got = await got
            return {"messages": None if got is None else plain(got)}
        messages = field(req, "messages", list, "an array")
        done = store.save(sid, messages)
        if inspect.isawaitable(done):
            await done
        return {}

    async def serve_command(self, req):
        """PROTOCOL.md §5.23: `toolkit.serve("127.0.0.1:0", client=, a2a=, on_task=, mcp=, on_call=)`."""
        sid = field(req, "id", str, "a string")
        tid = field(req, "toolkit", str, "a string")
        tk = self.kit(req)
        method = getattr(tk, "serve", None)
        if not callable(method):
            raise lacks("Toolkit.serve (SPEC §7B/§7C)")
        entry = Served(tid)
        kwargs = {}
        if req.get("client") is not None:
            kwargs["client"] = self.client_entry(req).client
        for key, kw in (("a2a", "a2a"), ("mcp", "mcp")):
            value = req.get(key)
            if value is None:
                continue
            if not isinstance(value, dict):
                raise bad(f'"{key}" must be an object')
            if not takes(method, kw):
                raise lacks(f"Toolkit.serve({kw}=…)")
            kwargs[kw] = dict(value)
        store = kwargs.get("a2a", {}).get("store")
        if isinstance(store, dict):
            if store != {"recording": True}:
                raise bad(f'a2a.store object must be {{"recording": true}}, got {compact(store)}')
            kwargs["a2a"]["store"] = kit.client.RecordingStore(entry.rec)
        for key, kw, record in (("onTask", "on_task", on_task_entry),
                                ("onCall", "on_call", camel_keys)):
            value = req.get(key)
            if value is None or value is False:
                continue
            if value is not True:
                raise bad(f'"{key}" must be a boolean')
            if not takes(method, kw):
                raise lacks(f"Toolkit.serve({kw}=…)")

            def callback(ev, key=key, record=record):
                if not entry.rec.full(key):
                    entry.rec.add(key, record(ev))
            kwargs[kw] = callback
        if sid in self.serves:
            await self.serves.pop(sid).stop()
        try:
            entry.handle = await method("127.0.0.1:0", **kwargs)
        except Failure:
            raise
        except Exception as e:  # noqa: BLE001 — e.g. the port's unknown-store ValueError
            # The port's serve threw: PROTOCOL.md §5.23 `raised`, not a driver error.
            return {"raised": str(e) or type(e).__name__}
        self.serves.put(sid, entry)
        return {"url": entry.handle.url}

    async def close(self, tid):
        for entry in self.serves.values():
            if entry.toolkit == tid:
                await entry.stop()
        tk = self.kits.pop(tid)
        if tk is not None:
            await tk.close()


AGENT_COMMANDS = ("agent_runtime", "agent_close_runtime", "agent_spawn", "agent_post", "agent_wake",
                  "agent_wait", "agent_interrupt", "agent_close", "agent_list", "agent_inspect",
                  "agent_run", "agent_resume", "agent_execute", "agent_clock", "agent_heartbeat",
                  "agent_store_get", "agent_store_save", "agent_trace")


def main():
    # The kit runs every handler in ONE task: the port's MCP transports are anyio task groups
    # and cancel scopes, which must be left in the task that entered them, so `build` and the
    # `close` that tears its servers down have to run in the same task (a host that builds and
    # closes a toolkit in one coroutine does exactly that).
    s = Session()
    driver = kit.Kit(port={"name": "python", "language": "python", "version": VERSION},
                     implements=implemented, spec=SPEC)
    for cmd, fn in (("build", s.build), ("tools", s.tools), ("execute", s.execute),
                    ("adapter", s.adapter), ("skills_prompt", s.skills_prompt),
                    ("list_skills", s.list_skills), ("list_mcp_tools", s.list_mcp_tools),
                    ("select_builtins", s.select_builtins), ("content_part", s.content_part),
                    ("sanitize", s.sanitize), ("close", s.close_command), ("client", s.client),
                    ("classifier", s.classifier), ("evaluate", s.evaluate_command),
                    ("conversation", s.conversation_command), ("metrics", s.metrics),
                    ("translate", s.translate_command), ("compact", compact_command),
                    ("serve", s.serve_command), ("serve_stop", s.serve_stop),
                    ("serve_records", s.serve_records)):
        driver.handle(cmd, fn)
    for cmd in ("run", "stream", "ask"):
        driver.handle(cmd, lambda req, cmd=cmd: s.loop_command(cmd, req))
    for cmd in ("store_get", "store_save"):
        driver.handle(cmd, lambda req, cmd=cmd: s.store_command(cmd, req))
    for cmd in AGENT_COMMANDS:
        driver.handle(cmd, lambda req, cmd=cmd: s.agents.handle(cmd, req))
    driver.on_close(s.shutdown)
    driver.main()


if __name__ == "__main__":
    main()
