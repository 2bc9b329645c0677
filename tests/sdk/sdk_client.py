"""Drives the mock LLM with the real `openai` and `anthropic` Python SDKs.

Usage: sdk_client.py CASE BASE_URL

Prints one JSON object: what the SDK handed back (its own parsed or assembled objects, read
through their attributes), so tests/mock_llm_sdk.rs asserts the values against the scenario.
Any SDK error propagates: a traceback on stderr and a non-zero exit.
"""

import json
import sys

import anthropic
import openai

# The mock answers at once; a hang or a retry loop must fail the test, not stall it.
TIMEOUT = 10.0

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "units": {"type": "string"}},
            "required": ["city"],
        },
    },
}

ANTHROPIC_TOOL = {
    "name": "get_weather",
    "description": "Weather in a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def openai_client(url):
    return openai.OpenAI(base_url=url, api_key="sk-test", max_retries=0, timeout=TIMEOUT)


def anthropic_client(url):
    # auth-anthropic.json requires x-api-key to equal the mock's $MOCK_LLM_API_KEY, but
    # anthropic 2.x sends `api_key` as `Authorization: Bearer ...`, so x-api-key is added.
    key = "test-api-key-1"
    return anthropic.Anthropic(
        base_url=url,
        api_key=key,
        default_headers={"x-api-key": key},
        max_retries=0,
        timeout=TIMEOUT,
    )


def usage_of(usage):
    return None if usage is None else usage.model_dump(exclude_none=True)


def completion(c):
    choice = c.choices[0]
    calls = choice.message.tool_calls or []
    return {
        "id": c.id,
        "model": c.model,
        "object": c.object,
        "finish_reason": choice.finish_reason,
        "content": choice.message.content,
        "tool_calls": [
            {
                "id": t.id,
                "type": t.type,
                "name": t.function.name,
                "args": json.loads(t.function.arguments),
            }
            for t in calls
        ],
        "usage": usage_of(c.usage),
    }


def case_openai(url):
    client = openai_client(url)
    ask = [{"role": "user", "content": "What's the weather in Paris?"}]
    first = client.chat.completions.create(model="gpt-x", messages=ask, tools=[WEATHER_TOOL])
    call = first.choices[0].message.tool_calls[0]
    # The second turn sends the SDK's own assistant message back, as an agent loop would.
    follow = ask + [
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
    ]
    second = client.chat.completions.create(model="gpt-x", messages=follow, tools=[WEATHER_TOOL])
    plain = client.chat.completions.create(
        model="gpt-y", messages=[{"role": "user", "content": "hello"}]
    )
    return {"tool": completion(first), "after": completion(second), "plain": completion(plain)}


def openai_stream_raw(client, messages):
    """The SDK's chunk iterator, assembled by hand the way an agent loop does."""
    content, calls, finish, usage, chunks, usage_chunks = "", {}, None, None, 0, 0
    stream = client.chat.completions.create(
        model="gpt-s",
        messages=messages,
        tools=[WEATHER_TOOL],
        stream=True,
        stream_options={"include_usage": True},
    )
    for chunk in stream:
        chunks += 1
        if chunk.usage is not None:
            usage = usage_of(chunk.usage)
            usage_chunks += 1
        for choice in chunk.choices:
            delta = choice.delta
            if delta.content:
                content += delta.content
            for t in delta.tool_calls or []:
                slot = calls.setdefault(t.index, {"id": None, "name": None, "args": ""})
                if t.id:
                    slot["id"] = t.id
                if t.function and t.function.name:
                    slot["name"] = t.function.name
                if t.function and t.function.arguments:
                    slot["args"] += t.function.arguments
            if choice.finish_reason:
                finish = choice.finish_reason
    return {
        "content": content,
        "tool_calls": [
            {"index": i, "id": c["id"], "name": c["name"], "args": json.loads(c["args"])}
            for i, c in sorted(calls.items())
        ],
        "finish_reason": finish,
        "usage": usage,
        "usage_chunks": usage_chunks,
        "chunks": chunks,
    }


def case_openai_stream(url):
    client = openai_client(url)
    ask = [{"role": "user", "content": "Weather in both cities?"}]
    raw = openai_stream_raw(client, ask)
    # The SDK's own accumulator: chat.completions.stream(...).get_final_completion().
    with client.chat.completions.stream(
        model="gpt-s",
        messages=ask,
        tools=[WEATHER_TOOL],
        stream_options={"include_usage": True},
    ) as s:
        helper = completion(s.get_final_completion())
    follow = ask + [
        {
            "role": "assistant",
            "content": raw["content"],
            "tool_calls": [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": json.dumps(c["args"])},
                }
                for c in raw["tool_calls"]
            ],
        },
        {"role": "tool", "tool_call_id": raw["tool_calls"][0]["id"], "content": "sunny"},
        {"role": "tool", "tool_call_id": raw["tool_calls"][1]["id"], "content": "rainy"},
    ]
    text = openai_stream_raw(client, follow)
    return {"raw": raw, "helper": helper, "text": text}


def message(m):
    blocks = []
    for b in m.content:
        if b.type == "text":
            blocks.append({"type": "text", "text": b.text})
        elif b.type == "tool_use":
            blocks.append({"type": "tool_use", "id": b.id, "name": b.name, "input": b.input})
        else:
            blocks.append({"type": b.type})
    return {
        "id": m.id,
        "model": m.model,
        "role": m.role,
        "stop_reason": m.stop_reason,
        "content": blocks,
        "usage": {"input_tokens": m.usage.input_tokens, "output_tokens": m.usage.output_tokens},
    }


def anthropic_follow(ask, first):
    use = next(b for b in first.content if b.type == "tool_use")
    return ask + [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "rainy"}],
        },
    ]


def case_anthropic(url):
    client = anthropic_client(url)
    ask = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.messages.create(
        model="claude-x", max_tokens=100, messages=ask, tools=[ANTHROPIC_TOOL]
    )
    second = client.messages.create(
        model="claude-x",
        max_tokens=100,
        messages=anthropic_follow(ask, first),
        tools=[ANTHROPIC_TOOL],
    )
    return {"tool": message(first), "after": message(second)}


def case_anthropic_stream(url):
    client = anthropic_client(url)
    ask = [{"role": "user", "content": "Weather in Paris?"}]
    events = []
    with client.messages.stream(
        model="claude-s", max_tokens=100, messages=ask, tools=[ANTHROPIC_TOOL]
    ) as s:
        text = "".join(s.text_stream)
        first = s.get_final_message()
    with client.messages.stream(
        model="claude-s",
        max_tokens=100,
        messages=anthropic_follow(ask, first),
        tools=[ANTHROPIC_TOOL],
    ) as s:
        for event in s:
            events.append(event.type)
        second = s.get_final_message()
    return {
        "text_stream": text,
        "tool": message(first),
        "after": message(second),
        "after_events": events,
    }


CASES = {
    "openai": case_openai,
    "openai-stream": case_openai_stream,
    "anthropic": case_anthropic,
    "anthropic-stream": case_anthropic_stream,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        sys.exit(f"usage: sdk_client.py {{{'|'.join(CASES)}}} BASE_URL")
    out = CASES[sys.argv[1]](sys.argv[2])
    out["sdk"] = {"openai": openai.__version__, "anthropic": anthropic.__version__}
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
