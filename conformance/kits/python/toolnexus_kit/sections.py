"""The core commands of each SPEC section: `hello` lists a declared section only when every one
of its core commands has a handler. One table, on purpose alone in this file: it is to be
replaced by one generated from conformance/protocol.schema.json."""

_TOOLKIT = ("build", "tools", "execute")
_LOOP = ("client", "run")

CORE = {
    "0": _TOOLKIT, "1": _TOOLKIT, "2": _TOOLKIT, "3": _TOOLKIT, "4": _TOOLKIT, "4A": _TOOLKIT,
    "6": _TOOLKIT, "7": _TOOLKIT, "7A": _TOOLKIT,
    "7B": ("serve", "serve_stop", "client"),
    "7C": ("serve", "serve_stop"),
    "7D": ("agent_runtime", "agent_close_runtime"),
    "7E": ("agent_runtime", "agent_close_runtime"),
    "7F": ("compact",),
    "8": _LOOP, "8A": _LOOP, "10": _LOOP,
    "8B": ("classifier", "evaluate"),
    "11": ("translate",),
}
"""SPEC section -> the commands it cannot go without. A section not listed needs none."""


def implemented(declared, registered):
    """The declared sections (in their order) whose core commands are all in `registered`."""
    return [s for s in declared if all(c in registered for c in CORE.get(s, ()))]
