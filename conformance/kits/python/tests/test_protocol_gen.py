"""The generated protocol module: the table hello consults and the TypedDicts."""

from toolnexus_kit import protocol_gen, sections


def test_hello_consults_the_generated_core_table():
    assert sections.CORE is protocol_gen.CORE_COMMANDS
    assert sections.implemented(["0", "4", "8"], {"build", "tools", "execute"}) == ["0", "4"]


def test_the_generated_types_name_every_command_and_its_required_keys():
    assert protocol_gen.PROTOCOL_VERSION == 1
    assert "agent_wait" in protocol_gen.COMMANDS
    assert protocol_gen.REQUEST_TYPES["adapter"] == "AdapterRequest"
    assert protocol_gen.REQUIRED["AdapterRequest"] == ("toolkit", "format")
    # PROTOCOL.md §5.27's agent_post names its sender `from`, a Python keyword: the functional
    # TypedDict form keeps it.
    assert "from" in protocol_gen.AgentPostRequest.__annotations__


def test_a_key_the_schema_requires_is_checked_before_the_handler():
    import asyncio
    from toolnexus_kit.loop import Kit

    kit = Kit({"name": "t", "language": "python", "version": "0"}, ["0"])
    seen = []
    kit.handle("adapter", lambda req: seen.append(req) or {"output": []})
    for line in (b'{"cmd":"adapter","seq":3,"format":"openai"}',
                 b'{"cmd":"adapter","seq":3,"toolkit":null,"format":"openai"}'):
        resp, _ = asyncio.run(kit.answer(line))
        assert resp == {"ok": False, "error": {"kind": "bad_request", "message": 'missing field "toolkit"'}, "seq": 3}
    assert seen == []
    resp, _ = asyncio.run(kit.answer(b'{"cmd":"adapter","seq":4,"toolkit":"tk1","format":"openai"}'))
    assert resp == {"ok": True, "output": [], "seq": 4} and len(seen) == 1
