"""JSON values as the protocol writes them: compact text (PROTOCOL.md §7), plain data, camelCase."""
import dataclasses
import json


def compact(value):
    """Compact JSON as §7 asks for `echo`, `suspend` and `echoRequest`: no whitespace, keys in the
    order received (a dict keeps json.loads' order), non-ASCII as itself, no HTML escaping."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def plain(value):
    """A port value as JSON data, copied (§5.13: recorded when it happens): dataclasses become
    objects of every field, tuples arrays, dict keys strings; anything else not JSON its repr."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def camel(name):
    """`prompt_tokens` as the protocol spells it: `promptTokens`."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def camel_keys(event):
    """A port's event dict with its keys camelCased and its values plain (metric events, onCall)."""
    return {camel(k): plain(v) for k, v in event.items()}
