"""What host-supplied code observed (PROTOCOL.md §5.13, §5.25): one object per session or per
client, holding a bounded list per name (`hookCalls`, `metricEvents`, `toolCancels`, …)."""

MAX_RECORDED = 1000
"""§5.13: a driver keeps at most this many entries per list."""


class Records:
    """Named recorded lists. Entries are stored as given: the interpreters pass copies (`plain`),
    taken when the call happens, never a reference to a value the port may change later."""

    def __init__(self):
        self.lists = {}

    def reset(self):
        """Start every list empty (each loop command records afresh, §5.13)."""
        self.lists = {}

    def clear(self, key):
        """Empty the list `key` alone (`toolCancels` at each build, §5.25)."""
        self.lists.pop(key, None)

    def full(self, key):
        """Whether `key` already holds MAX_RECORDED entries (so the next need not be built)."""
        return len(self.lists.get(key, ())) >= MAX_RECORDED

    def add(self, key, entry):
        """Append `entry` to `key`, unless the list is full."""
        entries = self.lists.setdefault(key, [])
        if len(entries) < MAX_RECORDED:
            entries.append(entry)

    def get(self, key):
        """A copy of the list `key` (empty when nothing was recorded)."""
        return list(self.lists.get(key, []))

    def answer(self, keys):
        """`{key: list}` for each key, for a command's answer."""
        return {key: self.get(key) for key in keys}
