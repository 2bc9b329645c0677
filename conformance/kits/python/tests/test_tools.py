"""PROTOCOL.md §7 "Extra tools" and "HTTP tools", against the examples of §5.4, §5.27 and §7."""
import asyncio
import json

import pytest
from conftest import run

import toolnexus_kit as kit
from toolnexus_kit.tools import Parts, Pending, extra_tool


def tool(behaviour, **rest):
    return extra_tool({"name": "t", "behaviour": behaviour, **rest})


def test_echo_is_compact_json_in_the_order_received():
    # §5.4: execute echo with {"z":1,"a":"é","n":[true,null]} outputs exactly this text.
    args = json.loads('{"z":1,"a":"é","n":[true,null]}')
    assert tool({"echo": True}).run(args) == '{"z":1,"a":"é","n":[true,null]}'
    assert tool({"echo": True}).run(json.loads('{"b":1,"2":2,"h":"<&>"}')) == '{"b":1,"2":2,"h":"<&>"}'


def test_text_and_template():
    assert tool({"text": "no hits"}).run({"q": "x"}) == "no hits"  # §5.5's search tool
    # §7: {"template": "data({{q}})"} with {"q": "x"} is data(x); absent is empty, others JSON.
    t = tool({"template": "data({{q}})"})
    assert t.run({"q": "x"}) == "data(x)"
    assert tool({"template": "{{ n }}|{{o}}|{{gone}}."}).run({"n": 3, "o": {"a": [1]}}) == '3|{"a":[1]}|.'


def test_fail_raises_the_message_through_the_ordinary_path():
    with pytest.raises(Exception) as e:
        tool({"fail": "it broke"}).run({})
    assert str(e.value) == "it broke"


def test_panic_raises_and_the_kit_does_not_catch_it():
    t = tool({"panic": "kaboom"})
    with pytest.raises(RuntimeError, match="^kaboom$"):
        t.run({})


def test_suspend_without_an_answer_is_a_pending_request_with_a_fresh_id():
    # §5.4's "approve" tool.
    t = tool({"suspend": {"kind": "approval", "prompt": "Approve the trade?", "url": "https://example.test/approve"}})
    one, two = t.run({"trade": 42}), t.run({"trade": 42})
    assert isinstance(one, Pending) and one.output == "Approve the trade?"
    assert set(one.request) == {"id", "kind", "prompt", "url"}
    assert {k: v for k, v in one.request.items() if k != "id"} == {
        "kind": "approval", "prompt": "Approve the trade?", "url": "https://example.test/approve"}
    assert one.request["id"] and one.request["id"] != two.request["id"]
    assert tool({"suspend": {}}).run({}).request.keys() == {"id", "kind", "prompt"}
    assert tool({"suspend": {}}).run({}).request["kind"] == "approval"


def test_suspend_with_an_answer():
    t = tool({"suspend": {"prompt": "Approve the trade?"}})
    # §5.4: the retry with {"ok":true,"data":{"approved":true}} outputs {"approved":true}.
    assert t.run({"trade": 42}, {"ok": True, "data": {"approved": True}}) == '{"approved":true}'
    assert t.run({}, {"ok": True}) == "null"
    assert isinstance(tool({"suspend": {"always": True}}).run({}, {"ok": True}), Pending)
    assert tool({"suspend": {"echoArgs": True}}).run({"b": 1, "a": 2}, {"ok": True, "data": {}}) == '{"b":1,"a":2}'
    # §5.27's check_secret: answerText on an ok answer.
    secret = tool({"suspend": {"kind": "approval", "prompt": "approve secret access?", "answerText": "secret-token"}})
    assert secret.run({}, {"ok": True}) == "secret-token"
    assert secret.run({}, {"ok": False, "data": {"why": "no"}}) == '{"why":"no"}'


def test_parts():
    p = tool({"parts": {"output": "see", "parts": [{"type": "image", "mimeType": "image/png", "data": "AAECAw=="}]}}).run({})
    assert isinstance(p, Parts) and p.output == "see" and p.parts[0]["mimeType"] == "image/png"


def test_await_cancel_records_whether_the_signal_fired():
    records = kit.Records()
    fired = tool({"awaitCancel": {"ms": 10000}}, name="w")
    fired.name = "w"
    assert run(fired.await_cancel(lambda: True, records)) == "cancelled"
    assert run(tool({"awaitCancel": {"ms": 0}}).await_cancel(lambda: False, records)) == "not cancelled"
    assert records.get("toolCancels") == [{"name": "w", "cancelled": True}, {"name": "t", "cancelled": False}]


def test_await_cancel_records_a_task_cancellation_and_reraises():
    records = kit.Records()

    async def main():
        task = asyncio.ensure_future(tool({"awaitCancel": {}}).await_cancel(lambda: False, records))
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    run(main())
    assert records.get("toolCancels") == [{"name": "t", "cancelled": True}]


def test_declaration_defaults_and_refusals():
    t = extra_tool({"name": "x", "behaviour": {"text": "a"}})
    assert (t.description, t.input_schema, t.source) == ("", {"type": "object", "properties": {}}, "native")
    assert extra_tool({"name": "x", "source": "custom", "behaviour": {"echo": True}}).source == "custom"
    with pytest.raises(kit.Failure) as e:
        tool({"dance": True})
    assert e.value.kind == "unsupported" and "dance" in str(e.value)
    with pytest.raises(kit.Failure) as e:
        tool({"text": "a", "echo": True})
    assert e.value.kind == "bad_request"
    with pytest.raises(kit.Failure) as e:
        tool({"awaitCancel": {"ms": -1}})
    assert e.value.kind == "bad_request"


def test_http_tool_view():
    t = extra_tool({"name": "get", "http": {"url": "http://h/{id}", "query": ["q"], "timeout": 250}})
    h = t.http
    assert t.kind == "http" and (h.method, h.url, h.query, h.timeout_ms, h.body) == ("GET", "http://h/{id}", ["q"], 250, None)
    assert extra_tool({"name": "p", "http": {"url": "u", "method": "POST"}}).http.method == "POST"
    for block in ({"url": 1}, {"url": "u", "verb": "x"}, {"url": "u", "timeout": "1s"}, "u"):
        with pytest.raises(kit.Failure) as e:
            extra_tool({"name": "h", "http": block})
        assert e.value.kind == "bad_request", block
