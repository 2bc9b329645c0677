"""toolnexus_kit: the port-neutral part of a conformance driver (conformance/PROTOCOL.md), so a
driver is one thin handler per command: the loop, envelopes, handle tables, the §7 behaviour
interpreters, recorded lists and the §5.27 virtual clock. Standard library only, Python 3.9+."""
from . import agents, client, compaction, sources, tools
from .clock import VirtualClock
from .failure import (BAD_REQUEST, INTERNAL, UNKNOWN_TOOLKIT, UNSUPPORTED, Failure, bad, field,
                      nonneg_int, one_key, unsupported)
from .handles import HandleTable
from .jsonvalue import camel, camel_keys, compact, plain
from .loop import PROTOCOL, Kit, LineSplitter, encode, guard_stdout
from .records import MAX_RECORDED, Records
from .sections import CORE, implemented

__all__ = ["BAD_REQUEST", "CORE", "INTERNAL", "MAX_RECORDED", "PROTOCOL", "UNKNOWN_TOOLKIT",
           "UNSUPPORTED", "Failure", "HandleTable", "Kit", "LineSplitter", "Records", "VirtualClock", "agents",
           "bad", "camel", "camel_keys", "client", "compact", "compaction", "encode", "field",
           "guard_stdout", "implemented", "nonneg_int", "one_key", "plain", "sources", "tools",
           "unsupported"]
__version__ = "0.1.0"
