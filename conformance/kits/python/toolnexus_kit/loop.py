"""The protocol loop of PROTOCOL.md §2–§4: a driver registers one handler per command it serves;
the kit reads the lines, answers `hello` and `shutdown`, copies `seq`, and writes the envelopes."""
import asyncio
import inspect
import json
import os
import signal
import sys
import threading

from .protocol_gen import REQUEST_TYPES, REQUIRED
from .failure import BAD_REQUEST, INTERNAL, UNSUPPORTED, Failure, bad
from .jsonvalue import compact
from .sections import implemented

PROTOCOL = 1
"""The protocol this kit speaks (PROTOCOL.md §1)."""

_answers = None


def guard_stdout():
    """Keep a private binary handle on the real stdout for answers, then point fd 1 (inherited by
    child processes) and `sys.stdout` (print) at stderr, so nothing else reaches the wire (§2).
    Idempotent: later calls answer the same handle. Call it before importing the port, so even
    its import-time output is diverted."""
    global _answers
    if _answers is None:
        sys.stdout.flush()
        _answers = os.fdopen(os.dup(1), "wb")
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    return _answers


def encode(response):
    """One answer line: compact JSON, non-ASCII as itself (a string the port made with a lone
    surrogate, which UTF-8 cannot carry, falls back to `\\u` escapes), a value that is not JSON
    as its repr, ended by a newline."""
    try:
        text = json.dumps(response, ensure_ascii=False, separators=(",", ":"), default=repr)
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(response, separators=(",", ":"), default=repr).encode("ascii") + b"\n"


def envelope(kind, message):
    """The failure answer `{"ok": false, "error": {"kind", "message"}}` (§4)."""
    return {"ok": False, "error": {"kind": kind, "message": message}}


class LineSplitter:
    """Bytes in whatever chunks the pipe gives, out as whole lines (each with its `\n`); a
    line may be split anywhere, a character included, and be of any length."""

    def __init__(self):
        self.buf = bytearray()
        self.searched = 0  # bytes of buf known to hold no newline: a huge line is scanned once

    def feed(self, chunk):
        """The lines `chunk` completes."""
        self.buf += chunk
        out = []
        while True:
            i = self.buf.find(b"\n", self.searched)
            if i < 0:
                self.searched = len(self.buf)
                return out
            out.append(bytes(self.buf[:i + 1]))
            del self.buf[:i + 1]
            self.searched = 0

    def end(self):
        """At EOF: the last line when it had no newline."""
        rest, self.buf, self.searched = bytes(self.buf), bytearray(), 0
        return [rest] if rest else []


class Kit:
    """One driver: its handlers, its `hello`, its close hooks, and the loop that feeds them.

    `port` is hello's `{name, language, version}`; `implements` the sections the driver declares
    (a list, or a function answering one at `hello` time), of which `hello` lists those whose
    core commands (sections.py) all have handlers; `spec` the SPEC version, when the port says.
    """

    def __init__(self, port, implements, spec=None):
        self.port, self.declared, self.spec = port, implements, spec
        self.handlers = {}
        self.closers = []
        self.closed = False
        self.refusal = None
        self._signalled = False

    def handle(self, cmd, fn):
        """Serve `cmd` with `fn(req)` (sync or async), whose dict (or None) becomes the fields of
        `{"ok": true, …}`; a Failure it raises becomes that error envelope, anything else
        `internal`. Every command without a handler answers `unsupported` `unknown command "X"`."""
        if cmd in ("hello", "shutdown"):
            raise ValueError(f"the kit answers {cmd} itself; use on_close for cleanup")
        self.handlers[cmd] = fn
        return fn

    def command(self, *cmds):
        """Decorator form of `handle`, for one function serving one or more commands."""
        def register(fn):
            for cmd in cmds:
                self.handle(cmd, fn)
            return fn
        return register

    def on_close(self, fn):
        """Run `fn()` (sync or async) once when the session ends: shutdown, EOF, SIGTERM, SIGINT."""
        self.closers.append(fn)
        return fn

    def refuse_all(self, message):
        """Answer every request, `hello` included, `internal` with `message`, and exit 1 at the
        end: for a driver whose port cannot even be loaded (a clear handshake error, not a
        traceback)."""
        self.refusal = message

    def hello(self):
        """The `hello` answer fields (§5.1)."""
        declared = self.declared() if callable(self.declared) else self.declared
        out = {"protocol": PROTOCOL}
        if self.spec is not None:
            out["spec"] = self.spec
        out["implements"] = implemented(declared, self.handlers)
        out["port"] = dict(self.port)
        return out

    async def close(self):
        """Run the close hooks once, in registration order; one that raises is logged to stderr
        and does not stop the rest."""
        if self.closed:
            return
        self.closed = True
        for fn in self.closers:
            try:
                done = fn()
                if inspect.isawaitable(done):
                    await done
            except BaseException as e:  # noqa: BLE001 — closing never fails the session
                if isinstance(e, KeyboardInterrupt):
                    raise
                print(f"driver: a close hook raised {type(e).__name__}: {e}", file=sys.stderr)

    async def answer(self, raw):
        """The answer to one request line (bytes), and whether the loop stops after it; None
        for a blank line (§2: ignored). Never raises but for KeyboardInterrupt and a signal."""
        if not raw.strip():
            return None, False
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return envelope(BAD_REQUEST, f"request is not UTF-8: {e}"), False
        try:
            req = json.loads(text)
        except ValueError as e:
            return envelope(BAD_REQUEST, f"request is not JSON: {e}"), False
        if not isinstance(req, dict):
            return envelope(BAD_REQUEST, "a request is a JSON object"), False
        cmd = req.get("cmd")
        stop = cmd == "shutdown"
        try:
            resp = {"ok": True, **(await self._dispatch(cmd, req))}
        except Failure as e:
            resp = envelope(e.kind, str(e))
        except BaseException as e:  # noqa: BLE001 — never crash, never a traceback on stdout
            if isinstance(e, KeyboardInterrupt) or (self._signalled and isinstance(e, asyncio.CancelledError)):
                raise
            print(f"driver: {cmd} raised {type(e).__name__}: {e}", file=sys.stderr)
            resp = envelope(INTERNAL, f"{type(e).__name__}: {e}")
        if req.get("seq") is not None:
            resp["seq"] = req["seq"]  # §2: a MUST, error envelopes included
        return resp, stop

    async def _dispatch(self, cmd, req):
        if self.refusal is not None:
            raise Failure(INTERNAL, self.refusal)
        if not isinstance(cmd, str):
            raise bad('missing field "cmd"' if cmd is None else '"cmd" must be a string')
        if cmd == "hello":
            return self.hello()
        if cmd == "shutdown":  # §5.11: close everything, answer, then read no further
            await self.close()
            return {}
        fn = self.handlers.get(cmd)
        if fn is None:
            raise Failure(UNSUPPORTED, f"unknown command {compact(cmd)}")
        # The keys the schema requires of this command (the generated REQUIRED): absent or null
        # is a malformed request, answered before the handler sees it.
        for key in REQUIRED.get(REQUEST_TYPES.get(cmd, ""), ()):
            if req.get(key) is None:
                raise bad(f"missing field {compact(key)}")
        fields = fn(req)
        if inspect.isawaitable(fields):
            fields = await fields
        if fields is None:
            return {}
        if not isinstance(fields, dict):
            raise TypeError(f"the {cmd} handler answered {type(fields).__name__}, not a dict")
        return fields

    async def serve(self, read, writer):
        """Answer every line `read(n)` yields (bytes, b"" at EOF) on `writer` (a binary stream),
        one at a time and flushed, until `shutdown` or EOF; then run the close hooks. The
        handlers all run in this one task (a port's cancel scopes must be left in the task that
        entered them), while a thread reads ahead so the event loop keeps running between
        requests, as it would in a host. The thread reads raw chunks, never a buffered stream,
        so a read it is blocked in cannot hold a lock the interpreter's exit needs."""
        loop = asyncio.get_running_loop()
        lines = asyncio.Queue()

        def put(line):
            try:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            except RuntimeError:  # the loop has closed: the session is over
                pass

        def pump():
            splitter = LineSplitter()
            try:
                while True:
                    chunk = read(1 << 16)
                    if not chunk:
                        break
                    for line in splitter.feed(chunk):
                        put(line)
            except (OSError, ValueError):  # stdin closed under us: as EOF
                pass
            for line in splitter.end():
                put(line)
            put(b"")

        threading.Thread(target=pump, name="kit-stdin", daemon=True).start()
        try:
            while True:
                line = await lines.get()
                if not line:
                    break  # EOF (§3: exit cleanly)
                resp, stop = await self.answer(line)
                if resp is None:
                    continue
                writer.write(encode(resp))
                writer.flush()
                if stop:
                    break
        except asyncio.CancelledError:
            if not self._signalled:
                raise
        finally:
            await self.close()

    def main(self):
        """Serve stdin/stdout until shutdown, EOF, SIGTERM or SIGINT, then exit 0 (1 after
        `refuse_all`)."""
        out = guard_stdout()

        async def run():
            task = asyncio.current_task()
            loop = asyncio.get_running_loop()

            def stop():
                self._signalled = True
                task.cancel()
            for sig in (signal.SIGTERM, signal.SIGINT):
                try:
                    loop.add_signal_handler(sig, stop)
                except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
                    pass
            fd = sys.stdin.fileno()
            await self.serve(lambda n: os.read(fd, n), out)

        asyncio.run(run())
        sys.exit(1 if self.refusal is not None else 0)
