"""The pinned `mcp` and `a2a-sdk` clients against a served toolkit (SPEC §7C / §7B), for
tests/serve_peers.rs. Prints one JSON object of what each SDK did or saw; the Rust test
asserts on it. Every step is caught separately so one failure does not hide the others.

Usage: serve_clients.py mcp BASE_URL | serve_clients.py a2a BASE_URL
"""
import asyncio
import json
import sys
import uuid
from importlib.metadata import version


def err(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


async def mcp_case(base: str) -> dict:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamablehttp_client

    out: dict = {"sdk": {"mcp": version("mcp")}}
    async with streamablehttp_client(f"{base}/mcp", timeout=10) as (read, write, _):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = {"name": init.serverInfo.name, "version": init.serverInfo.version}
            out["tools_capability"] = init.capabilities.tools is not None
            listed = await session.list_tools()
            out["tools"] = sorted(t.name for t in listed.tools)
            out["echo_schema"] = next(
                (t.inputSchema for t in listed.tools if t.name == "mock_echo"), None)
            ok = await session.call_tool("mock_echo", {"text": "hello from the mcp sdk"})
            out["echo"] = {"isError": ok.isError,
                           "content": [c.model_dump(exclude_none=True) for c in ok.content]}
            bad = await session.call_tool("mock_divide", {"a": 1, "b": 0})
            out["divide"] = {"isError": bad.isError,
                             "content": [c.model_dump(exclude_none=True) for c in bad.content]}
            try:
                unknown = await session.call_tool("no_such_tool", {})
                out["unknown"] = {"result": {"isError": unknown.isError}}
            except Exception as e:  # noqa: BLE001 — the SDK raises McpError on a JSON-RPC error
                data = getattr(e, "error", None)
                out["unknown"] = {"error_code": getattr(data, "code", None), "error": err(e)}
    return out


async def a2a_case(base: str) -> dict:
    import httpx
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from a2a.client.transports.jsonrpc import JsonRpcTransport
    from a2a.types import GetTaskRequest, Message, Part, Role, SendMessageRequest
    from google.protobuf.json_format import MessageToDict

    out: dict = {"sdk": {"a2a-sdk": version("a2a-sdk")}}
    last_answer: dict = {}

    async def remember(response: httpx.Response) -> None:
        # The raw JSON-RPC answer behind the SDK's parsed one.
        if response.request.method == "POST":
            await response.aread()
            try:
                last_answer.clear()
                last_answer.update(response.json())
            except ValueError:
                pass

    async with httpx.AsyncClient(timeout=10, event_hooks={"response": [remember]}) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        out["card"] = {
            "name": card.name,
            "version": card.version,
            "skills": [s.id for s in card.skills],
            "interfaces": [{"url": i.url, "binding": i.protocol_binding,
                            "version": i.protocol_version} for i in card.supported_interfaces],
        }

        def message(text: str) -> Message:
            return Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()),
                           parts=[Part(text=text)])

        # The SDK's own client, negotiated from the card (0.3.0 => its compat transport).
        try:
            client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
            events = []
            async for ev in client.send_message(SendMessageRequest(message=message("via factory"))):
                events.append(str(ev)[:200])
            out["factory_send"] = {"ok": events}
        except Exception as e:  # noqa: BLE001
            out["factory_send"] = {"error": err(e)}

        # The SDK's A2A 1.0 JSON-RPC transport, whose method names are §7B's.
        transport = JsonRpcTransport(http, card, f"{base}/")
        try:
            sent = await transport.send_message(SendMessageRequest(message=message("via 1.0")))
            out["send"] = {"ok": MessageToDict(sent)}
        except Exception as e:  # noqa: BLE001
            out["send"] = {"error": err(e)}
        # What the server made of the SDK's 1.0 message (its parts carry no `kind`): the
        # task it answered, read back raw once terminal.
        sent_id = (last_answer.get("result") or {}).get("id")
        out["send_task"] = await raw_terminal(http, base, sent_id) if sent_id else None

        # Find the task id the way a 1.0 client cannot: from the raw 0.3 answer.
        raw = (await http.post(f"{base}/", json={
            "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"role": "user", "messageId": str(uuid.uuid4()),
                                   "parts": [{"kind": "text", "text": "hello from the a2a sdk"}]}},
        })).json()
        task_id = raw.get("result", {}).get("id")
        out["raw_send"] = raw.get("result")
        polls = []
        for _ in range(200):
            try:
                task = await transport.get_task(GetTaskRequest(id=task_id))
                polls.append(MessageToDict(task))
                if task.artifacts:
                    break
            except Exception as e:  # noqa: BLE001
                polls.append({"error": err(e)})
                break
            await asyncio.sleep(0.05)
        out["get_task"] = polls[-1] if polls else None
        raw_task = (await http.post(f"{base}/", json={
            "jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": task_id}})).json()
        out["raw_task"] = raw_task.get("result")
    return out


async def raw_terminal(http, base: str, task_id: str) -> dict:
    """GetTask by hand (the 0.3 wire) until the task leaves submitted/working."""
    task: dict = {}
    for _ in range(200):
        task = (await http.post(f"{base}/", json={
            "jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": task_id}})).json()
        if task.get("result", {}).get("status", {}).get("state") not in ("submitted", "working"):
            break
        await asyncio.sleep(0.05)
    return task.get("result") or task


async def main() -> None:
    case, base = sys.argv[1], sys.argv[2].rstrip("/")
    result = await (mcp_case(base) if case == "mcp" else a2a_case(base))
    print(json.dumps(result, default=str))


asyncio.run(main())
