"""PROTOCOL.md §7 skill provider, waitFor, client and classifier behaviours, §5.26's options and
§5.27's onBudget, against the protocol's examples."""
import pytest

import toolnexus_kit as kit
from toolnexus_kit import client, compaction, sources


def test_skill_provider():
    defs = sources.skill_provider({"skills": [{"name": "notes", "description": "Take notes", "content": "Write it down."}]})()
    assert defs == [{"name": "notes", "content": "Write it down.", "description": "Take notes", "resources": None, "base": None}]
    with pytest.raises(Exception, match="^provider down$"):  # §5.2's tk2
        sources.skill_provider({"fail": "provider down"})()


def test_wait_for_answer_and_echo_request():
    records = kit.Records()
    request = {"id": "req-1", "kind": "input", "prompt": "Name?", "url": None, "data": {"schema": {"b": 1, "a": "é"}}, "expiresAt": None}
    answer = sources.wait_for({"answer": {"data": {"x": 1}}}, records)
    assert answer(request) == {"id": "req-1", "ok": True, "data": {"x": 1}, "reason": None}
    assert records.get("waitForCalls") == [request]
    echo = sources.wait_for({"echoRequest": True})(request)
    assert echo == {"id": "req-1", "ok": True, "data": {"id": "req-1", "kind": "input", "prompt": "Name?",
                                                          "data": '{"schema":{"b":1,"a":"é"}}'}}
    assert sources.wait_for({"answer": {"ok": False, "reason": "no"}})(request)["ok"] is False


class Results(client.ToolResults):
    """A port whose ToolResult is a tuple (output, isError, metadata)."""

    def from_json(self, value):
        return (value["output"], value.get("isError", False), value.get("metadata"))

    def to_json(self, r):
        return {"output": r[0], "isError": r[1]}

    def prefixed(self, r, p):
        return (p + r[0], r[1], r[2])


def test_hook_calls_are_recorded_before_the_behaviour_acts():
    records = kit.Records()
    fn = client.hook("beforeTool", {"observe": True}, records)
    # §5.15's hookCalls entry.
    assert fn({"name": "get_weather", "args": {"city": "Paris"}, "id": "call_w1", "turn": 1}) is None
    assert records.get("hookCalls") == [{"hook": "beforeTool", "name": "get_weather", "args": {"city": "Paris"}, "id": "call_w1", "turn": 1}]
    abort = client.hook("beforeLLM", {"abort": "route closed"}, records)
    with pytest.raises(Exception, match="^route closed$"):
        abort({"turn": 2, "model": "m", "messages": [], "tools": []})
    assert records.get("hookCalls")[-1] == {"hook": "beforeLLM", "turn": 2, "model": "m", "messages": [], "tools": []}


def test_before_llm_behaviours():
    r = kit.Records()
    ev = {"turn": 1, "model": "m", "messages": [{"role": "user", "content": "q"}],
          "tools": [{"type": "function", "function": {"name": "a"}}, {"name": "b"}, {"name": "c"}]}
    replace = client.hook("beforeLLM", {"replaceMessages": [{"role": "user", "content": "new"}]}, r)
    assert replace(ev) == {"messages": [{"role": "user", "content": "new"}]} and replace(ev) is None  # first call only
    assert client.hook("beforeLLM", {"keepTools": ["c", "a"]}, r)(ev) == {"tools": [ev["tools"][0], ev["tools"][2]]}
    assert client.hook("beforeLLM", {"keepTools": []}, r)(ev) == {"tools": []}
    added = client.hook("beforeLLM", {"appendMessage": {"role": "system", "content": "X"}}, r)
    assert added(ev) == {"messages": [{"role": "user", "content": "q"}, {"role": "system", "content": "X"}]}
    assert ev["messages"] == [{"role": "user", "content": "q"}]
    seen = []
    compacting = client.hook("beforeLLM", {"compactor": {"maxTokens": 5}}, r,
                             compactor=lambda opts: (seen.append(opts), lambda e: {"messages": []})[1])
    assert seen == [{"maxTokens": 5}] and compacting(ev) == {"messages": []}
    assert len(r.get("hookCalls")) == 6


def test_tool_hook_behaviours():
    r = kit.Records()
    res = Results()
    ev = {"name": "t", "args": {"a": 1}, "id": "c1", "turn": 1, "result": ("out", False, None)}
    assert client.hook("beforeTool", {"result": {"output": "fixed", "isError": True}}, r, res)(ev) == {"result": ("fixed", True, None)}
    assert client.hook("beforeTool", {"args": {"a": 2}}, r, res)(ev) == {"args": {"a": 2}}
    assert client.hook("afterTool", {"prefix": "P:"}, r, res)(ev) == {"result": ("P:out", False, None)}
    assert r.get("hookCalls")[-1] == {"hook": "afterTool", "name": "t", "args": {"a": 1},
                                      "result": {"output": "out", "isError": False}, "id": "c1", "turn": 1}


def test_hook_refusals():
    r = kit.Records()
    for hook, behaviour, kind in (("afterTool", {"args": {}}, "unsupported"), ("beforeLLM", {"compactor": {}}, "unsupported"),
                                  ("beforeLLM", {"observe": False}, "bad_request"),
                                  ("beforeTool", {"result": {"isError": True}}, "bad_request")):
        with pytest.raises(kit.Failure) as e:
            client.hook(hook, behaviour, r, Results())
        assert e.value.kind == kind, (hook, behaviour)
    with pytest.raises(kit.Failure) as e:
        client.hook("beforeLLM", {"appendMessage": {}}, r, refuse=("appendMessage",))
    assert str(e.value) == 'unknown beforeLLM hook behaviour {"appendMessage":{}}'
    with pytest.raises(kit.Failure) as e:
        client.hooks({"beforeEverything": {"observe": True}}, r)
    assert e.value.kind == "bad_request"


def test_on_error_on_metric_and_on_budget():
    r = kit.Records()
    assert client.on_error({"answer": "retry"}, r)({"status": 503, "attempt": 1, "retryable": True}) == "retry"
    assert client.on_error({"answer": "fail"}, r)({"error": OSError("refused"), "attempt": 2, "retryable": True}) == "fail"
    assert r.get("onErrorCalls") == [{"status": 503, "attempt": 1, "retryable": True},
                                     {"error": "refused", "attempt": 2, "retryable": True}]
    client.on_metric({"collect": True}, r)({"event": "llm", "prompt_tokens": 10, "ms": 3})
    assert r.get("metricEvents") == [{"event": "llm", "promptTokens": 10, "ms": 3}]
    assert kit.agents.on_budget({"answer": "extend"}, r)({"handle": "root/a.1"}) == "extend"
    assert r.get("onBudgetCalls") == [{"handle": "root/a.1"}]
    with pytest.raises(kit.Failure):
        client.on_metric({"collect": False}, r)


def test_generate_script():
    r = kit.Records()
    gen = client.generate({"script": [
        {"toolCalls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
        {"content": "It is sunny.", "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}]}, r)
    assert gen({"messages": [1]}) == {"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}]}
    second = {"content": "It is sunny.", "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}
    assert gen({"messages": [2]}) == second and gen({"messages": [3]}) == second  # the last step again
    assert r.get("generateCalls") == [{"messages": [1]}, {"messages": [2]}, {"messages": [3]}]
    with pytest.raises(Exception, match="^model down$"):
        client.generate({"script": [{"fail": "model down"}]}, r)({})


def test_body_transform_store_and_statuses():
    assert client.body_transform({"set": {"temperature": 0, "model": "x"}})({"model": "m", "n": 1}) == {"model": "x", "n": 1, "temperature": 0}
    assert client.body_transform({"copy": {"model": "seen", "gone": "g"}})({"model": "m"}) == {"model": "m", "seen": "m", "g": None}
    store = client.store({"seeded": {"t1": [{"role": "user", "content": "q"}]}})
    import asyncio
    assert asyncio.run(store.get("t1")) == [{"role": "user", "content": "q"}] and asyncio.run(store.get("t2")) is None
    assert client.retryable_statuses([429, 503]) == [429, 503]
    with pytest.raises(kit.Failure):
        client.retryable_statuses([True])


def test_evaluate():
    r = kit.Records()
    d = {"model": "jev-test", "answers": {"move": {"type": "choice", "choice": "left"}}}
    fn = client.evaluate({"decision": d}, r, decision=lambda x: ("decision", x["model"]), questions_json=lambda q: {"wire": q})
    assert fn({"hp": 3}, "Q") == ("decision", "jev-test")
    failing = client.evaluate({"fail": "no model"}, r, decision=lambda x: x, questions_json=lambda q: q)
    with pytest.raises(Exception, match="^no model$"):
        failing({"hp": 1}, "Q2")
    assert r.get("evaluateCalls") == [{"state": {"hp": 3}, "questions": {"wire": "Q"}}, {"state": {"hp": 1}, "questions": "Q2"}]


def test_compact_options():
    # §5.26's example: template "summarized <N> messages", countTokens perMessage 1.
    o = compaction.compact_options({"maxTokens": 3, "keepTail": 2, "countTokens": {"perMessage": 1},
                                    "summarize": {"template": "summarized <N> messages"}})
    older = [{"role": "user", "content": "q0"}, {"role": "assistant", "content": "a0"}]
    assert o.summarize(older) == "summarized 2 messages"
    assert o.summarize_calls == [older] and o.summarize_calls[0] is not older
    assert (o.max_tokens, o.keep_tail, o.count_tokens([1, 2, 3, 4, 5]), o.flush_to_memory) == (3, 2, 5, False)
    plain = compaction.compact_options({"maxTokens": 9, "summarize": {"text": "S"}})
    assert plain.summarize([1]) == "S" and plain.keep_tail is None and plain.count_tokens is None
    for bad in ({"maxTokens": 1, "summarize": {"text": "S"}, "keepTali": 1}, {"maxTokens": 1},
                {"maxTokens": 1, "summarize": {"llm": True}}):
        with pytest.raises(kit.Failure) as e:
            compaction.compact_options(bad)
        assert e.value.kind == "bad_request"


def test_budget():
    assert kit.agents.budget({"maxTurns": 3, "maxTokens": None}, "spawn") == {"maxTurns": 3}
    with pytest.raises(kit.Failure, match="unknown budget field"):
        kit.agents.budget({"maxTurn": 3}, "spawn")


def test_compact_json_and_plain():
    import dataclasses

    @dataclasses.dataclass
    class Req:
        id: str
        data: tuple
    assert kit.compact({"b": [1, None], "a": "é<>&"}) == '{"b":[1,null],"a":"é<>&"}'
    assert kit.plain({"r": Req("x", (1, 2))}) == {"r": {"id": "x", "data": [1, 2]}}
    assert kit.camel("prompt_tokens") == "promptTokens"


def test_agent_registry_and_runtime_options():
    # §5.27's example registry.
    reg = {"approverParent": {"does": "delegates, no interpreter", "model": "m-approver-parent", "team": ["asker"]},
           "asker": {"does": "needs approvals", "model": "m-asker", "tools": ["check_secret"]}}
    out = kit.agents.registry(reg, {"check_secret"})
    assert out["approverParent"]["team"] == ["asker"] and out["approverParent"]["tools"] == []
    assert out["asker"]["tools"] == ["check_secret"] and out["asker"]["team"] == []
    for broken, words in ((dict(reg, asker={"model": "m", "tools": ["nope"]}), 'uses tool "nope"'),
                          (dict(reg, asker={"model": "m", "team": ["ghost"]}), 'has "ghost" on its team'),
                          (dict(reg, asker={"does": "x"}), 'needs a "model"'),
                          (dict(reg, asker={"model": "m", "colour": 1}), 'unknown key "colour"')):
        with pytest.raises(kit.Failure, match=words):
            kit.agents.registry(broken, {"check_secret"})
    assert kit.agents.runtime_options({"inboxCap": 2, "onBudget": {"answer": "stop"}}) == {"inboxCap": 2, "onBudget": {"answer": "stop"}}
    for opts in ({"inboxCap": -1}, {"shutdownMs": True}, {"inboxCapacity": 1}):
        with pytest.raises(kit.Failure):
            kit.agents.runtime_options(opts)


def test_option_types_and_conversation_steps():
    assert client.check_option("maxTurns", 4) == 4 and client.check_option("hooks", "anything") == "anything"
    for key, value, words in (("maxTurns", True, "maxTurns must be an integer"), ("headers", [], "headers must be an object"),
                              ("apiKeyEnv", 1, "apiKeyEnv must be a string")):
        with pytest.raises(kit.Failure, match=words):
            client.check_option(key, value)
    steps = [{"send": "one"}, {"reset": True}, {"send": "two"}]  # §5.18's example
    assert client.conversation_steps(steps) is steps
    with pytest.raises(kit.Failure):
        client.conversation_steps([{"send": "one", "reset": True}])


def test_recording_store():
    import asyncio
    r = kit.Records()
    store = client.RecordingStore(r)

    async def main():
        assert await store.get("t1") is None
        await store.save({"id": "t1", "status": {"state": "completed"}})
        return await store.get("t1")
    assert asyncio.run(main())["id"] == "t1"
    assert r.get("storeCalls") == [{"op": "get", "id": "t1"}, {"op": "save", "id": "t1", "state": "completed"},
                                   {"op": "get", "id": "t1"}]
