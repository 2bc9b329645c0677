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
