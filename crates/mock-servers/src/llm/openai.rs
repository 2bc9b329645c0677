//! OpenAI chat-completions wire: the JSON answer, the `chat.completion.chunk` stream and
//! the error body.

use serde_json::{json, Map, Value};

use super::sse::{pieces, Rendered};

/// The non-streaming `chat.completion` object.
pub fn completion(r: &Rendered) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert(
        "content".into(),
        r.text.clone().map_or(Value::Null, Value::String),
    );
    if !r.tool_calls.is_empty() {
        let calls = r
            .tool_calls
            .iter()
            .map(|c| {
                json!({"id": c.id, "type": "function",
                       "function": {"name": c.name, "arguments": c.arguments}})
            })
            .collect::<Vec<_>>();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    json!({
        "id": r.id,
        "object": "chat.completion",
        "created": r.created,
        "model": r.model,
        "choices": [{"index": 0, "message": message, "logprobs": null,
                     "finish_reason": finish_reason(r)}],
        "usage": usage(r),
    })
}

fn finish_reason(r: &Rendered) -> String {
    r.finish_reason.clone().unwrap_or_else(|| {
        if r.tool_calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
        .into()
    })
}

fn usage(r: &Rendered) -> Value {
    json!({"prompt_tokens": r.usage.input, "completion_tokens": r.usage.output,
           "total_tokens": r.usage.total})
}

/// The SSE body: `data: {chunk}` events, the usage chunk when asked for, `data: [DONE]`.
pub fn stream(r: &Rendered, include_usage: bool) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        let mut c = json!({
            "id": r.id, "object": "chat.completion.chunk", "created": r.created, "model": r.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if include_usage {
            c["usage"] = Value::Null;
        }
        format!("data: {c}\n\n")
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    if let Some(text) = &r.text {
        for p in pieces(text) {
            events.push(chunk(json!({"content": p}), Value::Null));
        }
    }
    for (index, c) in r.tool_calls.iter().enumerate() {
        events.push(chunk(
            json!({"tool_calls": [{"index": index, "id": c.id, "type": "function",
                                   "function": {"name": c.name, "arguments": ""}}]}),
            Value::Null,
        ));
        for p in pieces(&c.arguments) {
            events.push(chunk(
                json!({"tool_calls": [{"index": index, "function": {"arguments": p}}]}),
                Value::Null,
            ));
        }
    }
    events.push(chunk(json!({}), Value::String(finish_reason(r))));
    if include_usage {
        let last = json!({"id": r.id, "object": "chat.completion.chunk", "created": r.created,
                          "model": r.model, "choices": [], "usage": usage(r)});
        events.push(format!("data: {last}\n\n"));
    }
    events.push("data: [DONE]\n\n".into());
    events
}

/// The error body OpenAI answers with.
pub fn error(status: u16, message: &str) -> Value {
    let kind = match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        429 => "rate_limit_exceeded",
        _ => "server_error",
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
}
