"""PROTOCOL.md §7 "Client behaviours" (hooks, onError, onMetric, generate, bodyTransform, store)
and "Classifier behaviours" (evaluate): each a plain function recording into a Records object.

Where a behaviour needs the port's own ToolResult, the driver passes a small `results` object
(see `ToolResults`); everything else crosses as plain dicts and lists."""
import json

from .failure import Failure, UNSUPPORTED, bad, one_key
from .jsonvalue import camel_keys, compact, plain

HOOKS = ("beforeLLM", "afterLLM", "beforeTool", "afterTool")
"""The §8 hooks a client (or an agent def) may install."""

_WHERE = {"observe": HOOKS, "replaceMessages": ("beforeLLM",), "keepTools": ("beforeLLM",),
          "abort": ("beforeLLM",), "appendMessage": ("beforeLLM",), "compactor": ("beforeLLM",),
          "result": ("beforeTool", "afterTool"), "args": ("beforeTool",), "prefix": ("afterTool",)}


class ToolResults:
    """What the hook interpreters need of the port's ToolResult; a driver subclasses it.
    `from_json(value)` builds one from a checked protocol ToolResult (a dict with `output`,
    `isError`, `metadata?`, `parts?`; a `metadata.pending` is a Request as JSON, which the port
    must see as its own suspension); `to_json(r)` renders the port's result as the protocol's;
    `prefixed(r, p)` is `r` with `output` = p + output, isError and metadata kept."""

    def from_json(self, value):
        """The port's ToolResult for the protocol ToolResult `value`."""
        raise NotImplementedError

    def to_json(self, result):
        """The protocol ToolResult for the port's `result`."""
        raise NotImplementedError

    def prefixed(self, result, prefix):
        """The port's `result` with `prefix` before its output."""
        raise NotImplementedError


def tool_result_json(value, what):
    """A protocol ToolResult given in a request (a hook's `result`), checked."""
    if not isinstance(value, dict) or not isinstance(value.get("output"), str):
        raise bad(f'{what}: a ToolResult needs a string "output"')
    return value


def hook(name, behaviour, records, results=None, compactor=None, refuse=()):
    """The §7 hook behaviour for the hook `name` as a function of the port's hook event (a dict:
    `turn`, `model`, `messages`, `tools`, `response`, `name`, `args`, `id`, `result`). Each call
    is recorded in `hookCalls` first. It answers None (nothing changed) or a dict `{messages}`,
    `{tools}`, `{args}` or `{result}` (a port ToolResult, made by `results`). `compactor(opts)`
    builds the port's §7F hook for `{"compactor": opts}` (absent: `unsupported`); a behaviour key
    in `refuse` is `unsupported` too, as an unknown one (a port that cannot honour it)."""
    key, arg = one_key(behaviour, f"hooks.{name}")
    if name not in _WHERE.get(key, ()) or key in refuse or (key == "compactor" and compactor is None):
        raise Failure(UNSUPPORTED, f"unknown {name} hook behaviour {compact(behaviour)}")
    if key == "observe" and arg is not True:
        raise bad(f"hooks.{name}.observe must be true")
    if key == "replaceMessages" and not isinstance(arg, list):
        raise bad("hooks.beforeLLM.replaceMessages must be an array")
    if key == "keepTools" and not (isinstance(arg, list) and all(isinstance(n, str) for n in arg)):
        raise bad("hooks.beforeLLM.keepTools must be an array of strings")
    if key in ("abort", "prefix") and not isinstance(arg, str):
        raise bad(f"hooks.{name}.{key} must be a string")
    if key in ("args", "appendMessage") and not isinstance(arg, dict):
        raise bad(f"hooks.{name}.{key} must be an object")
    fixed = tool_result_json(arg, f"hooks.{name}.result") if key == "result" else None
    if fixed is not None:
        results.from_json(fixed)  # what the port cannot take fails now, not at the first call
    inner = compactor(arg) if key == "compactor" else None
    used = []

    def fn(ev):
        if not records.full("hookCalls"):
            records.add("hookCalls", hook_entry(name, ev, results))
        if key == "observe":
            return None
        if key == "replaceMessages":
            if used:
                return None
            used.append(True)
            return {"messages": [dict(m) if isinstance(m, dict) else m for m in arg]}
        if key == "keepTools":
            return {"tools": [t for t in (ev.get("tools") or []) if tool_name(t) in arg]}
        if key == "abort":
            raise Exception(arg)
        if key == "appendMessage":
            return {"messages": list(ev.get("messages") or []) + [json.loads(json.dumps(arg))]}
        if key == "compactor":
            return inner(ev)
        if key == "result":
            return {"result": results.from_json(fixed)}  # a fresh one per call: the port may change it
        if key == "args":
            return {"args": dict(arg)}
        return {"result": results.prefixed(ev.get("result"), arg)}  # prefix
    return fn


def hook_entry(name, ev, results=None):
    """The `hookCalls` entry of one call of the hook `name` (§7: its keys, copied now)."""
    if name == "beforeLLM":
        return {"hook": name, "turn": ev.get("turn"), "model": ev.get("model"),
                "messages": plain(ev.get("messages")), "tools": plain(ev.get("tools"))}
    if name == "afterLLM":
        return {"hook": name, "turn": ev.get("turn"), "model": ev.get("model"),
                "response": plain(ev.get("response"))}
    entry = {"hook": name, "name": ev.get("name"), "args": plain(ev.get("args"))}
    if name == "afterTool":
        r = ev.get("result")
        entry["result"] = results.to_json(r) if results is not None else plain(r)
    entry.update({"id": ev.get("id"), "turn": ev.get("turn")})
    return entry


def tool_name(tool):
    """The name of a tool as a hook receives it: an adapter entry (`function.name`, `name`) or
    an object with a `name`."""
    if isinstance(tool, dict):
        f = tool.get("function")
        return f.get("name") if isinstance(f, dict) else tool.get("name")
    return getattr(tool, "name", None)


def hooks(value, records, results=None, compactor=None, refuse=()):
    """A `hooks` option `{beforeLLM?, …}` as `{hook name: function}` (only the hooks given)."""
    if not isinstance(value, dict):
        raise bad("hooks must be an object")
    out = {}
    for name, behaviour in value.items():
        if name not in HOOKS:
            raise bad(f'unknown hook "{name}"')
        if behaviour is not None:
            out[name] = hook(name, behaviour, records, results, compactor, refuse)
    return out


def on_error(behaviour, records):
    """`onError` `{"answer": "retry" | "fail"}`: a function of the port's info dict (`status?`,
    `error?`, `attempt`, `retryable`) answering that word, each info recorded in `onErrorCalls`."""
    key, arg = one_key(behaviour, "onError")
    if key != "answer" or arg not in ("retry", "fail"):
        raise Failure(UNSUPPORTED, f"unknown onError behaviour {compact(behaviour)}")

    def classify(info):
        entry = {}
        if info.get("status") is not None:
            entry["status"] = info["status"]
        if info.get("error") is not None:
            entry["error"] = str(info["error"])
        entry["attempt"] = info.get("attempt")
        entry["retryable"] = info.get("retryable")
        records.add("onErrorCalls", entry)
        return arg
    return classify


def on_metric(behaviour, records, strict=False):
    """`onMetric` `{"collect": true}`: a function recording each event (keys camelCased) in
    `metricEvents`. Another value is `unsupported` (`strict`: `bad_request`)."""
    if behaviour != {"collect": True}:
        if strict:
            raise bad('onMetric: only {"collect": true} is in the catalogue')
        raise Failure(UNSUPPORTED, f"unknown onMetric behaviour {compact(behaviour)}")
    return lambda ev: records.add("metricEvents", camel_keys(ev))


def retryable_statuses(value):
    """`retryableStatuses`: an array of integers, as a list."""
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise bad("retryableStatuses must be an array of integers")
    return list(value)


def body_transform(behaviour):
    """`bodyTransform`: `{"set": {k: v}}` or `{"copy": {from: to}}` as a function of the body
    (a dict), answering a new body."""
    key, arg = one_key(behaviour, "bodyTransform")
    if not isinstance(arg, dict) or key not in ("set", "copy"):
        raise Failure(UNSUPPORTED, f"unknown bodyTransform behaviour {compact(behaviour)}")
    if key == "set":
        def transform(body):
            out = dict(body)
            out.update(json.loads(json.dumps(arg)))
            return out
        return transform

    def copy(body):
        out = dict(body)
        for src, dst in arg.items():
            out[dst] = body.get(src)
        return out
    return copy


def generate(behaviour, records):
    """`generate` `{"script": [step, …]}`: a function of the port's request answering the
    message of step n on the n-th call (the last step again once used up): `{"content"}` or
    `{"tool_calls"}`, plus `usage` as given; a `fail` step raises Exception(M). Each request is
    recorded in `generateCalls` first."""
    key, script = one_key(behaviour, "generate")
    if key != "script" or not isinstance(script, list) or not script:
        raise Failure(UNSUPPORTED, f"unknown generate behaviour {compact(behaviour)}")
    for step in script:
        if not isinstance(step, dict) or not ({"content", "toolCalls", "fail"} & set(step)):
            raise bad(f"generate step {compact(step)}: needs content, toolCalls or fail")
    calls = [0]

    def answer(request):
        if not records.full("generateCalls"):
            records.add("generateCalls", plain(request))
        step = script[min(calls[0], len(script) - 1)]
        calls[0] += 1
        if "fail" in step:
            raise Exception(step["fail"])
        out = {}
        if "toolCalls" in step:
            out["tool_calls"] = [dict(c) for c in step["toolCalls"]]
        else:
            out["content"] = step["content"]
        if step.get("usage") is not None:
            out["usage"] = dict(step["usage"])
        return out
    return answer


class SeededStore:
    """`store` `{"seeded": {id: [message, …]}}`: a host ConversationStore of the driver's own
    (an in-memory map, not the port's default class), with async `get(id)` / `save(id, messages)`."""

    def __init__(self, seeded):
        self._map = {k: list(v) for k, v in seeded.items()}

    async def get(self, id):  # noqa: A002 — the ConversationStore signature
        """The transcript under `id` (a copy), or None."""
        m = self._map.get(id)
        return list(m) if m is not None else None

    async def save(self, id, messages):  # noqa: A002
        """Keep a copy of `messages` under `id`."""
        self._map[id] = list(messages)


def store(behaviour):
    """The `store` option as a SeededStore; another behaviour is `unsupported`."""
    key, seeded = one_key(behaviour, "store")
    if key != "seeded" or not isinstance(seeded, dict) or not all(isinstance(v, list) for v in seeded.values()):
        raise Failure(UNSUPPORTED, f"unknown store behaviour {compact(behaviour)}")
    return SeededStore(seeded)


def evaluate(behaviour, records, decision, questions_json):
    """§7 "Classifier behaviours" `evaluate` (`style: "custom"`): a function `(state, questions)`
    recording `{state, questions}` in `evaluateCalls` first, then answering `decision(D)` (the
    port's Decision from the wire form D; a fresh one per call) or raising Exception(M).
    `questions_json(questions)` renders the port's questions in the SPEC's wire form. A
    malformed D fails now (`decision` raises bad_request), not at the first call."""
    key, arg = one_key(behaviour, "evaluate")
    if key == "decision":
        decision(arg)
    elif key != "fail" or not isinstance(arg, str):
        raise Failure(UNSUPPORTED, f"unknown evaluate behaviour {compact(behaviour)}")

    def answer(state, questions):
        records.add("evaluateCalls", {"state": plain(state), "questions": questions_json(questions)})
        if key == "fail":
            raise Exception(arg)
        return decision(arg)
    return answer


OPTION_TYPES = {"headers": dict, "requestParams": dict, "maxTurns": int, "retries": int, "retryBaseMs": int,
                "timeoutMs": int, "maxPartBytes": int, "baseUrl": str, "style": str, "model": str,
                "apiKey": str, "apiKeyEnv": str, "systemPrompt": str, "onUnsupportedPart": str}
"""The JSON type of each plain client (§6A) and classifier (§6B) option."""
_TYPE_NAMES = {dict: "an object", int: "an integer", str: "a string"}


def check_option(key, value):
    """`value` when it has the type §6A/§6B give the option `key` (any value for an option not
    in OPTION_TYPES), else `bad_request` `<key> must be <type>` (a bool is no integer)."""
    t = OPTION_TYPES.get(key)
    if t is not None and (not isinstance(value, t) or (t is int and isinstance(value, bool))):
        raise bad(f"{key} must be {_TYPE_NAMES[t]}")
    return value


def conversation_steps(steps):
    """`conversation`'s steps (§5.18), checked: each `{"send": prompt}` or `{"reset": true}`."""
    for step in steps:
        if not (isinstance(step, dict) and len(step) == 1 and (
                isinstance(step.get("send"), str) or step.get("reset") is True)):
            raise bad(f'a conversation step is {{"send": prompt}} or {{"reset": true}}, got {compact(step)}')
    return steps


def task_state(task):
    """An A2A task's `status.state`, whether the task is a dict or an object."""
    status = task.get("status") if isinstance(task, dict) else getattr(task, "status", None)
    if isinstance(status, dict):
        return status.get("state")
    return getattr(status, "state", None)


class RecordingStore:
    """§5.23 `a2a.store: {"recording": true}`: a host TaskStore object (async `get(id)` /
    `save(task)`) keeping tasks in a dict and recording every call in `storeCalls`."""

    def __init__(self, records):
        self.records, self.tasks = records, {}

    async def get(self, id):  # noqa: A002 — the TaskStore signature
        """The task saved under `id`, or None; recorded `{"op": "get", "id"}`."""
        self.records.add("storeCalls", {"op": "get", "id": id})
        return self.tasks.get(id)

    async def save(self, task):
        """Keep `task` under its id; recorded `{"op": "save", "id", "state"}`."""
        tid = task.get("id") if isinstance(task, dict) else getattr(task, "id", None)
        self.records.add("storeCalls", {"op": "save", "id": tid, "state": task_state(task)})
        self.tasks[tid] = task
