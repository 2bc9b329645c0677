"""PROTOCOL.md §5.26 `compact` options (also a `compactor` hook's, §7): checked, with the
`summarize` and `countTokens` callbacks as plain functions."""
import json

from .failure import bad, field, one_key
from .jsonvalue import compact

KEYS = {"maxTokens", "keepTail", "summarize", "countTokens", "flushToMemory"}
"""The option keys of §5.26; any other is `bad_request`."""


class CompactOptions:
    """`max_tokens`, `keep_tail` (None: the port's default), `flush_to_memory`, `summarize(older)`
    (answers the text; each `older` copied into `summarize_calls`) and `count_tokens(messages)`
    (None: the port's default estimator)."""

    def __init__(self, opts):
        unknown = sorted(set(opts) - KEYS)
        if unknown:
            raise bad(f'unknown compact option "{unknown[0]}"')
        kind, text = one_key(field(opts, "summarize", dict, "an object"), "summarize")
        if kind not in ("text", "template") or not isinstance(text, str):
            raise bad(f"summarize must be {{\"text\": string}} or {{\"template\": string}}, got {compact(opts['summarize'])}")
        self.summarize_calls = []

        def summarize(older):
            self.summarize_calls.append(json.loads(json.dumps(list(older))))
            return text if kind == "text" else text.replace("<N>", str(len(older)))

        self.summarize = summarize
        self.max_tokens = field(opts, "maxTokens", int, "an integer")
        self.keep_tail = field(opts, "keepTail", int, "an integer") if opts.get("keepTail") is not None else None
        self.count_tokens = None
        if opts.get("countTokens") is not None:
            ckind, per = one_key(opts["countTokens"], "countTokens")
            if ckind != "perMessage" or not isinstance(per, int):
                raise bad(f"countTokens must be {{\"perMessage\": integer}}, got {compact(opts['countTokens'])}")
            self.count_tokens = lambda ms: per * len(ms)
        self.flush_to_memory = bool(opts.get("flushToMemory"))


def compact_options(opts):
    """The `options` of a `compact` request (or of a `compactor` hook), checked."""
    if not isinstance(opts, dict):
        raise bad('"options" must be an object')
    return CompactOptions(opts)
