"""PROTOCOL.md §5.27's behaviour-shaped agent runtime values: a §7D Budget and `onBudget`."""
from .failure import Failure, UNSUPPORTED, bad, one_key
from .jsonvalue import compact, plain

BUDGET_KEYS = ("maxTurns", "maxTokens", "maxToolCalls", "maxWallMs", "maxChildren", "maxConcurrent",
               "maxDepth")
"""SPEC §7D Budget's fields, in its order."""


def budget(value, what):
    """A Budget object as `{field: non-negative int}` (null fields left out); `what` names it in
    a `bad_request` message."""
    if not isinstance(value, dict):
        raise bad(f"{what}: a budget must be an object")
    out = {}
    for k, v in value.items():
        if k not in BUDGET_KEYS:
            raise bad(f'{what}: unknown budget field "{k}" (known: {", ".join(BUDGET_KEYS)})')
        if v is None:
            continue
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise bad(f"{what}: budget field {k} must be a non-negative integer")
        out[k] = v
    return out


def on_budget(behaviour, records):
    """`options.onBudget` `{"answer": "stop" | "extend"}`: a function of the port's budget event
    (a dict) answering that word, each event recorded (plain) in `onBudgetCalls` first."""
    key, arg = one_key(behaviour, "onBudget")
    if key != "answer" or arg not in ("stop", "extend"):
        raise Failure(UNSUPPORTED, f"unknown onBudget behaviour {compact(behaviour)}")

    def decide(event):
        records.add("onBudgetCalls", plain(event))
        return arg
    return decide


RUNTIME_OPTION_KEYS = ("inboxCap", "maxConcurrentTurns", "shutdownMs", "hooks", "onMetric", "onBudget")
"""`agent_runtime`'s option keys (§5.27)."""
DEF_KEYS = ("does", "model", "soul", "team", "tools", "budget", "waitFor", "hooks", "onMetric", "home", "memory")
"""A registry def's keys (§5.27)."""


def runtime_options(opts, keys=RUNTIME_OPTION_KEYS):
    """`agent_runtime`'s `options`, checked: a key not in `keys` is `bad_request`, and so is an
    `inboxCap`, `maxConcurrentTurns` or `shutdownMs` that is not a non-negative integer."""
    if not isinstance(opts, dict):
        raise bad('"options" must be an object')
    unknown = sorted(set(opts) - set(keys))
    if unknown:
        raise bad(f'unknown agent runtime option "{unknown[0]}"')
    for key in ("inboxCap", "maxConcurrentTurns", "shutdownMs"):
        v = opts.get(key)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise bad(f'"{key}" must be a non-negative integer')
    return opts


def registry(value, tools, keys=DEF_KEYS):
    """`agent_runtime`'s `registry` {name: def}, checked against the runtime's tool names
    `tools`: each def an object of `keys` with a string `model`, `team` and `tools` arrays of
    strings naming registry entries and runtime tools. Answers {name: def} with `team` and
    `tools` as lists ([] when absent); anything else is `bad_request`."""
    if not isinstance(value, dict):
        raise bad('needs a "registry" object {name: def}')
    out = {}
    for name, d in value.items():
        if not isinstance(d, dict):
            raise bad(f'registry entry "{name}" must be an object')
        unknown = sorted(set(d) - set(keys))
        if unknown:
            raise bad(f'registry entry "{name}": unknown key "{unknown[0]}"')
        if not isinstance(d.get("model"), str):
            raise bad(f'registry entry "{name}" needs a "model"')
        team, names = d.get("team") or [], d.get("tools") or []
        for what, v in (("team", team), ("tools", names)):
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise bad(f'registry entry "{name}": "{what}" must be an array of strings')
        missing = [t for t in names if t not in tools]
        if missing:
            raise bad(f'agent "{name}" uses tool "{missing[0]}", which the runtime does not have')
        strangers = [m for m in team if m not in value]
        if strangers:
            raise bad(f'agent "{name}" has "{strangers[0]}" on its team, which is not in the registry')
        out[name] = dict(d, team=team, tools=names)
    return out
