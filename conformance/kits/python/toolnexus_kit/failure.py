"""The error kinds of PROTOCOL.md §4 and the request-field checks that raise them."""
from .jsonvalue import compact

UNSUPPORTED = "unsupported"
"""The port lacks this command, option or behaviour: the scenario is skipped."""
BAD_REQUEST = "bad_request"
"""The request is malformed: the scenario fails."""
UNKNOWN_TOOLKIT = "unknown_toolkit"
"""The request names no toolkit of this session: the scenario fails."""
INTERNAL = "internal"
"""The driver itself broke: the scenario fails."""

KINDS = (UNSUPPORTED, BAD_REQUEST, UNKNOWN_TOOLKIT, INTERNAL)


class Failure(Exception):
    """A driver failure, answered as {"ok": false, "error": {"kind": ..., "message": ...}}."""

    def __init__(self, kind, message):
        if kind not in KINDS:
            raise ValueError(f"not an error kind of PROTOCOL.md §4: {kind!r}")
        super().__init__(message)
        self.kind = kind

    @property
    def message(self):
        """The human text the envelope carries (for `unsupported`, what the skip report quotes)."""
        return str(self)


def bad(message):
    """A `bad_request` Failure, for a handler to raise."""
    return Failure(BAD_REQUEST, message)


def unsupported(message):
    """An `unsupported` Failure, for a handler to raise."""
    return Failure(UNSUPPORTED, message)


def field(req, key, types=None, what=None):
    """`req[key]`, a required field: absent is `bad_request` `missing field "key"`, and a value
    that is not an instance of `types` is `bad_request` `"key" must be <what>`."""
    if key not in req:
        raise bad(f'missing field "{key}"')
    if types is not None and not isinstance(req[key], types):
        raise bad(f'"{key}" must be {what or _name(types)}')
    return req[key]


def nonneg_int(req, key):
    """An optional non-negative integer field: None when absent or null, else the int;
    anything else is `bad_request` `"key" must be a non-negative integer`."""
    v = req.get(key)
    if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
        raise bad(f'"{key}" must be a non-negative integer')
    return v


def one_key(behaviour, what):
    """A §7 behaviour object's one (key, value); anything else is `bad_request`."""
    if not isinstance(behaviour, dict) or len(behaviour) != 1:
        raise bad(f"a {what} behaviour is an object with exactly one key, got {compact(behaviour)}")
    return next(iter(behaviour.items()))


def _name(types):
    wanted = types if isinstance(types, tuple) else (types,)
    names = {str: "a string", int: "an integer", float: "a number", bool: "a boolean",
             list: "an array", dict: "an object"}
    return " or ".join(names.get(t, t.__name__) for t in wanted)
