"""The loop (PROTOCOL.md §2–§4) in memory: envelopes, seq, hello's sections, registration."""
import json

from conftest import run

import toolnexus_kit as kit


def make():
    k = kit.Kit(port={"name": "t", "language": "python", "version": "0"}, implements=["0", "1", "4", "7F", "X"])
    tables = kit.HandleTable("toolkit")
    k.handle("build", lambda req: {"toolkit": req["id"]})
    k.handle("tools", lambda req: {"tools": tables.of(req, "toolkit")})
    k.handle("execute", lambda req: None)
    return k


def answer(k, line):
    return run(k.answer(line if isinstance(line, bytes) else line.encode("utf-8")))


def test_bad_utf8_is_bad_request_without_seq():
    resp, stop = answer(make(), b'{"cmd":"tools","seq":3,"x":"\xff"}\n')
    assert resp["ok"] is False and resp["error"]["kind"] == "bad_request"
    assert "seq" not in resp and not stop


def test_not_json_and_not_an_object_are_bad_request_without_seq():
    for line in ("nope", "[1,2]"):
        resp, _ = answer(make(), line)
        assert resp["error"]["kind"] == "bad_request" and "seq" not in resp, line


def test_blank_line_is_ignored():
    assert answer(make(), b"  \r\n") == (None, False)


def test_unregistered_command_is_unsupported_with_the_protocol_wording():
    # PROTOCOL.md §4: {"cmd":"transmogrify","toolkit":"tk1"} answers this envelope.
    resp, _ = answer(make(), '{"cmd":"transmogrify","toolkit":"tk1","seq":5}')
    assert kit.encode(resp) == (b'{"ok":false,"error":{"kind":"unsupported","message":'
                                b'"unknown command \\"transmogrify\\""},"seq":5}\n')


def test_unknown_toolkit_answers_the_protocol_example():
    # PROTOCOL.md §4: {"cmd":"tools","toolkit":"tk9"}.
    resp, _ = answer(make(), '{"cmd":"tools","toolkit":"tk9","seq":7}')
    assert kit.encode(resp) == (b'{"ok":false,"error":{"kind":"unknown_toolkit","message":'
                                b'"no toolkit \\"tk9\\""},"seq":7}\n')


def test_seq_is_copied_into_success_and_error_answers():
    k = make()
    assert answer(k, '{"cmd":"build","id":"tk1","seq":12}')[0] == {"ok": True, "toolkit": "tk1", "seq": 12}
    resp, _ = answer(k, '{"cmd":"build","seq":13}')  # a key the schema requires: malformed
    assert resp["error"] == {"kind": "bad_request", "message": 'missing field "id"'} and resp["seq"] == 13
    k.handle("frob", lambda req: req["id"])  # a KeyError in the handler: the driver broke
    resp, _ = answer(k, '{"cmd":"frob","seq":14}')
    assert resp["error"] == {"kind": "internal", "message": "KeyError: 'id'"} and resp["seq"] == 14


def test_a_failure_keeps_its_kind():
    k = make()
    k.handle("adapter", lambda req: (_ for _ in ()).throw(kit.bad('unknown adapter format "x"')))
    resp, _ = answer(k, '{"cmd":"adapter","toolkit":"tk1","format":"x","seq":1}')
    assert resp["error"] == {"kind": "bad_request", "message": 'unknown adapter format "x"'}


def test_hello_lists_a_declared_section_only_when_its_core_commands_are_registered():
    k = make()
    hello, _ = answer(k, '{"cmd":"hello","protocol":1,"seq":0}')
    # 7F needs `compact`, which is not registered; "X" is in no table, so it stays as declared.
    assert hello["implements"] == ["0", "1", "4", "X"] and hello["protocol"] == 1 and hello["seq"] == 0
    k.handle("compact", lambda req: {})
    assert answer(k, '{"cmd":"hello","seq":0}')[0]["implements"] == ["0", "1", "4", "7F", "X"]
    del k.handlers["execute"]  # §0, §1 and §4 all need build, tools and execute
    assert answer(k, '{"cmd":"hello","seq":0}')[0]["implements"] == ["7F", "X"]


def test_shutdown_runs_the_close_hooks_once_and_stops():
    k, closed = make(), []
    k.on_close(lambda: closed.append(1))
    resp, stop = answer(k, '{"cmd":"shutdown","seq":9}')
    assert resp == {"ok": True, "seq": 9} and stop and closed == [1]
    run(k.close())
    assert closed == [1]


def test_async_handlers_are_awaited():
    k = make()

    async def slow(req):
        return {"v": req["v"] + 1}
    k.handle("inc", slow)
    assert answer(k, '{"cmd":"inc","v":1,"seq":2}')[0] == {"ok": True, "v": 2, "seq": 2}


def test_answers_are_compact_utf8_and_survive_a_lone_surrogate():
    assert kit.encode({"ok": True, "s": "é<>&"}) == '{"ok":true,"s":"é<>&"}\n'.encode("utf-8")
    line = kit.encode({"ok": True, "s": "\ud800"})
    assert json.loads(line) == {"ok": True, "s": "\ud800"}


def test_handle_table():
    closed = []
    t = kit.HandleTable("client", kit.BAD_REQUEST, close=closed.append)
    assert t.put("c1", "one") is None and t.put("c1", "two") == "one"
    try:
        t.get("c9")
    except kit.Failure as e:
        assert (e.kind, str(e)) == ("bad_request", 'no client "c9"')
    else:
        raise AssertionError("no failure")
    t.put("c2", "three")
    assert t.pop("nope") is None
    run(t.clear())
    assert closed == ["two", "three"] and len(t) == 0


def test_line_splitter_reassembles_a_line_cut_anywhere():
    data = '{"cmd":"a","t":"é€"}\n\n{"cmd":"b"}\n{"cmd":"c"}'.encode("utf-8")
    for cut in range(len(data) + 1):
        s = kit.LineSplitter()
        got = s.feed(data[:cut]) + s.feed(data[cut:]) + s.end()
        assert got == [b'{"cmd":"a","t":"\xc3\xa9\xe2\x82\xac"}\n', b"\n", b'{"cmd":"b"}\n', b'{"cmd":"c"}'], cut


def test_line_splitter_a_huge_line_in_small_chunks():
    s, line = kit.LineSplitter(), b"x" * (3 * 1024 * 1024) + b"\n"
    got = [piece for i in range(0, len(line), 4096) for piece in s.feed(line[i:i + 4096])]
    assert got == [line] and s.end() == []
