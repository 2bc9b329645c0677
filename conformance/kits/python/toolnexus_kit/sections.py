"""The core commands of each SPEC section: `hello` lists a declared section only when every one
of its core commands has a handler. The table is generated from conformance/protocol.schema.json
into protocol_gen.py (`schema --kit python`)."""

from .protocol_gen import CORE_COMMANDS

CORE = CORE_COMMANDS
"""SPEC section -> the commands it cannot go without. A section not listed needs none."""


def implemented(declared, registered):
    """The declared sections (in their order) whose core commands are all in `registered`."""
    return [s for s in declared if all(c in registered for c in CORE.get(s, ()))]
