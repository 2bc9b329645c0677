"""PROTOCOL.md §7 "Extra tools" and "HTTP tools": an extra tool's declaration, and the plain
functions its behaviour names, for the port's own tool helper to wrap."""
import asyncio
import itertools
import re
import uuid

from .failure import Failure, UNSUPPORTED, bad, one_key
from .jsonvalue import compact

DEFAULT_SCHEMA = {"type": "object", "properties": {}}
"""§7: an extra tool's inputSchema when none is given."""

HTTP_KEYS = {"method", "url", "headers", "query", "body", "timeout", "resultMode"}
"""§7 "HTTP tools": the keys an `http` block may carry."""

_seq = itertools.count()


class Pending:
    """A `suspend` body's answer: the tool suspends with `request`, the SPEC §10 Request as a
    dict `{id, kind, prompt, url?, data?, expiresAt?}` (optional keys only when given). The port
    makes it `{"output": prompt, "isError": true, "metadata": {"pending": <its Request>}}`."""

    def __init__(self, request):
        self.request = request

    @property
    def output(self):
        """The ToolResult's output: the request's prompt."""
        return self.request["prompt"]


class Parts:
    """A `parts` body's answer: success with `output` and the SPEC §1B parts as given (dicts in
    the wire form), for the port to build with its own part type."""

    def __init__(self, output, parts):
        self.output, self.parts = output, parts


class HttpTool:
    """A typed view of an `http` block (§7 "HTTP tools"), checked; the port builds the tool.
    `timeout_ms` is in milliseconds as the protocol gives it (None: the port's default)."""

    def __init__(self, name, description, input_schema, block):
        self.name, self.description, self.input_schema = name, description, input_schema
        # The protocol's default method is GET (the harness writes it where a scenario names none).
        self.method = block.get("method") or "GET"
        self.url = block["url"]
        self.headers, self.query = block.get("headers"), block.get("query")
        self.body, self.result_mode = block.get("body"), block.get("resultMode")
        self.timeout_ms = block.get("timeout")


class ExtraTool:
    """One extra tool of `extraTools` (or an agent runtime's `tools`): its declaration and its
    behaviour. `kind` is the behaviour's key (`echo`, `text`, `template`, `fail`, `panic`,
    `parts`, `awaitCancel`, `suspend`) or `http` for an HTTP tool (then `http` is its view)."""

    def __init__(self, name, description, input_schema, source, kind, arg, http=None):
        self.name, self.description, self.input_schema = name, description, input_schema
        self.source, self.kind, self.arg, self.http = source, kind, arg, http

    @property
    def needs_context(self):
        """Whether the body reads the call's context (the answer, the abort signal)."""
        return self.kind in ("suspend", "awaitCancel")

    def run(self, args, answer=None):
        """The body of `echo`, `text`, `template`, `fail`, `panic`, `parts` and `suspend` on
        `execute(args)`: a string (success with that output), a Pending or a Parts, or it
        raises: `fail` an Exception(M) for the port's ordinary error path, `panic` a
        RuntimeError(M) that must reach the port uncaught (wrap it outside the port's helper).
        `answer` is the call's SPEC §10 Answer as a dict (`ok`, `data`), or None."""
        kind, arg = self.kind, self.arg
        if kind == "echo":
            return compact(args)
        if kind == "text":
            return arg
        if kind == "template":
            return fill_template(arg, args)
        if kind == "fail":
            raise Exception(arg)
        if kind == "panic":
            raise RuntimeError(arg)
        if kind == "parts":
            return Parts(arg.get("output", ""), list(arg.get("parts", [])))
        if kind == "suspend":
            return suspend(arg, args, answer)
        raise Failure(UNSUPPORTED, f"the {kind} tool has no synchronous body")

    async def await_cancel(self, fired, records):
        """The `awaitCancel` body: waits until `fired()` is true (polled) or the task is
        cancelled, or `ms` pass; records `{name, cancelled}` in `records`' `toolCancels` (a
        CancelledError is recorded, then re-raised); answers "cancelled" or "not cancelled"."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.arg.get("ms", 10000) / 1000.0
        cancelled = False
        try:
            while True:
                if fired():
                    cancelled = True
                    break
                left = deadline - loop.time()
                if left <= 0:
                    break
                await asyncio.sleep(min(left, 0.01))
        except asyncio.CancelledError:
            records.add("toolCancels", {"name": self.name, "cancelled": True})
            raise
        records.add("toolCancels", {"name": self.name, "cancelled": cancelled})
        return "cancelled" if cancelled else "not cancelled"


def behaviour_key(spec):
    """An extra tool's behaviour key without checking the rest (`http` for an HTTP tool), for a
    driver that refuses kinds before parsing."""
    if isinstance(spec, dict) and "http" in spec and "behaviour" not in spec:
        return "http"
    behaviour = spec.get("behaviour") if isinstance(spec, dict) else None
    return next(iter(behaviour)) if isinstance(behaviour, dict) and len(behaviour) == 1 else None


def extra_tool(spec):
    """An extra tool spec `{name, description?, inputSchema?, source?, behaviour | http}`,
    checked: a malformed one is `bad_request`, an unknown behaviour `unsupported`."""
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        raise bad('an extra tool needs a string "name"')
    name = spec["name"]
    if "http" in spec and "behaviour" not in spec:
        return ExtraTool(name, spec.get("description", ""), spec.get("inputSchema"), "http", "http",
                         None, http=http_tool(name, spec))
    key, arg = one_key(spec.get("behaviour"), "tool")
    ok = {"panic": lambda a: True, "echo": lambda a: a is True, "text": lambda a: isinstance(a, str),
          "template": lambda a: isinstance(a, str), "parts": lambda a: isinstance(a, dict),
          "fail": lambda a: isinstance(a, str), "awaitCancel": lambda a: isinstance(a, dict),
          "suspend": lambda a: isinstance(a, dict)}
    if key not in ok or not ok[key](arg):
        raise Failure(UNSUPPORTED, f"unknown tool behaviour {compact(spec.get('behaviour'))}")
    if key == "awaitCancel":
        ms = arg.get("ms", 10000)
        if not isinstance(ms, int) or isinstance(ms, bool) or ms < 0:
            raise bad(f'extra tool "{name}": awaitCancel.ms must be a non-negative integer')
    return ExtraTool(name, spec.get("description", ""), spec.get("inputSchema", DEFAULT_SCHEMA),
                     spec.get("source", "native"), key, arg)


def http_tool(name, spec):
    """The checked `http` block of the extra tool `name`."""
    h = spec["http"]
    if not isinstance(h, dict):
        raise bad(f'extra tool "{name}": "http" must be an object')
    unknown = sorted(set(h) - HTTP_KEYS)
    if unknown:
        raise bad(f'extra tool "{name}": unknown http key(s) {", ".join(unknown)}')
    if not isinstance(h.get("url"), str):
        raise bad(f'extra tool "{name}": http.url must be a string')
    t = h.get("timeout")
    if t is not None and (not isinstance(t, (int, float)) or isinstance(t, bool)):
        raise bad(f'extra tool "{name}": http.timeout must be a number (ms)')
    return HttpTool(name, spec.get("description", ""), spec.get("inputSchema"), h)


def fill_template(template, args):
    """§7 `{"template": T}`: each `{{name}}` becomes that argument (a string as itself, any
    other value as compact JSON, an absent one as nothing)."""
    def one(m):
        name = m.group(1).strip()
        if name not in args:
            return ""
        v = args[name]
        return v if isinstance(v, str) else compact(v)
    return re.sub(r"\{\{(.*?)\}\}", one, template)


def fresh_request_id():
    """A fresh unique Request id, `req-<16 hex>-<n>` like the reference's."""
    return f"req-{uuid.uuid4().hex[:16]}-{next(_seq)}"


def suspend(arg, args, answer):
    """§7 `suspend` (SPEC §10): without an answer (or with `always`), a Pending with a fresh id;
    with one, `answerText` when the answer is ok, else the compact JSON of `args` (`echoArgs`)
    or of the answer's `data`."""
    if answer is not None and arg.get("always") is not True:
        if isinstance(arg.get("answerText"), str) and answer.get("ok"):
            return arg["answerText"]
        return compact(args) if arg.get("echoArgs") is True else compact(answer.get("data"))
    req = {"id": fresh_request_id(), "kind": arg.get("kind", "approval"), "prompt": arg.get("prompt", "")}
    req.update({k: arg[k] for k in ("url", "data", "expiresAt") if k in arg})
    return Pending(req)


__all__ = ["DEFAULT_SCHEMA", "HTTP_KEYS", "ExtraTool", "HttpTool", "Parts", "Pending",
           "behaviour_key", "extra_tool", "fill_template", "fresh_request_id", "suspend"]
