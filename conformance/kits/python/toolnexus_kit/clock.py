"""The virtual clock of PROTOCOL.md §5.27: it starts at 0 and moves only when told to."""
import asyncio


class _Timer:
    """A registered timer; `cancel()` keeps it from firing."""

    def __init__(self, entry):
        self._entry = entry

    def cancel(self):
        """Never fire (idempotent)."""
        self._entry[3] = True


class VirtualClock:
    """A clock a port's injectable clock can be backed by. Its unit is asyncio's (seconds,
    float) for `now`, `sleep` and `call_later`, and milliseconds for `advance` and `now_ms`, as
    the protocol counts. Timers fire synchronously inside `advance`, in due order (ties in the
    order registered), each seeing `now()` at its own due time."""

    def __init__(self):
        self.t = 0.0
        self.timers = []  # [due, n, callback, cancelled]
        self.n = 0

    def now(self):
        """The clock's time in seconds (0 at start)."""
        return self.t

    def now_ms(self):
        """The clock's time in whole milliseconds."""
        return int(round(self.t * 1000))

    def call_later(self, seconds, callback):
        """Run `callback()` once the clock has passed now + `seconds`; answers a timer to cancel."""
        self.n += 1
        entry = [self.t + max(0.0, seconds), self.n, callback, False]
        self.timers.append(entry)
        return _Timer(entry)

    async def sleep(self, seconds):
        """Wait until the clock has moved `seconds` on (only `advance` moves it)."""
        fut = asyncio.get_running_loop().create_future()
        self.call_later(seconds, lambda: fut.done() or fut.set_result(None))
        await fut

    def live(self):
        """Whether a timer is still waiting to fire."""
        return any(not e[3] for e in self.timers)

    def advance(self, ms):
        """Move the clock `ms` milliseconds on, firing every timer due by then; answers now_ms()."""
        end = self.t + ms / 1000.0
        while True:
            due = sorted((e for e in self.timers if not e[3] and e[0] <= end), key=lambda e: (e[0], e[1]))
            if not due:
                break
            e = due[0]
            self.timers.remove(e)
            self.t = max(self.t, e[0])
            e[2]()
        self.timers = [e for e in self.timers if not e[3]]
        self.t = end
        return self.now_ms()
