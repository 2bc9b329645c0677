"""Handle tables (PROTOCOL.md §3, §5): toolkits, clients, servers, runtimes by their ids."""
import inspect

from .failure import UNKNOWN_TOOLKIT, Failure, field


class HandleTable:
    """`id -> handle` for one session. A missing id fails with the table's kind and the message
    `no <noun> "<id>"` (toolkits: `unknown_toolkit`, `no toolkit "tk9"`, PROTOCOL.md §4)."""

    def __init__(self, noun="toolkit", kind=UNKNOWN_TOOLKIT, close=None):
        self.noun, self.kind, self._close = noun, kind, close
        self._items = {}

    def __contains__(self, hid):
        return hid in self._items

    def __len__(self):
        return len(self._items)

    def ids(self):
        """The ids held, in the order they were put."""
        return list(self._items)

    def values(self):
        """The handles held, in the order they were put."""
        return list(self._items.values())

    def put(self, hid, handle):
        """Hold `handle` under `hid`; answers the handle it replaced (None when new), which the
        caller closes when building over an id means closing the old one (§5.2)."""
        old = self._items.pop(hid, None)
        self._items[hid] = handle
        return old

    def get(self, hid):
        """The handle under `hid`, or the table's Failure naming it."""
        if hid not in self._items:
            raise Failure(self.kind, f'no {self.noun} "{hid}"')
        return self._items[hid]

    def of(self, req, key):
        """The handle named by the string field `req[key]` (absent or not a string: bad_request)."""
        return self.get(field(req, key, str, "a string"))

    def pop(self, hid):
        """Forget `hid`; answers its handle, or None when there was none (closing is idempotent)."""
        return self._items.pop(hid, None)

    async def clear(self):
        """Forget every handle, closing each with the table's `close` (sync or async) first."""
        while self._items:
            hid = next(iter(self._items))
            handle = self._items.pop(hid)
            if self._close is not None:
                done = self._close(handle)
                if inspect.isawaitable(done):
                    await done
