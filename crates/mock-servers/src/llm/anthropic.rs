//! Anthropic messages wire: the JSON answer, the event stream and the error body.

use serde_json::{json, Value};

use super::sse::{pieces, Rendered};

fn stop_reason(r: &Rendered) -> String {
    r.finish_reason.clone().unwrap_or_else(|| {
        if r.tool_calls.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        }
        .into()
    })
}

fn blocks(r: &Rendered) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(t) = &r.text {
        out.push(json!({"type": "text", "text": t}));
    }
    for c in &r.tool_calls {
        out.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.args}));
    }
    out
}

/// The non-streaming `message` object.
pub fn message(r: &Rendered) -> Value {
    json!({
        "id": r.id, "type": "message", "role": "assistant", "model": r.model,
        "content": blocks(r),
        "stop_reason": stop_reason(r), "stop_sequence": null,
        "usage": {"input_tokens": r.usage.input, "output_tokens": r.usage.output},
    })
}

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// The SSE body, event for event as the Messages API streams it.
pub fn stream(r: &Rendered) -> Vec<String> {
    let start = json!({"type": "message_start", "message": {
        "id": r.id, "type": "message", "role": "assistant", "model": r.model, "content": [],
        "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": r.usage.input, "output_tokens": 1}}});
    let mut events = vec![
        event("message_start", &start),
        event("ping", &json!({"type": "ping"})),
    ];
    let mut index = 0;
    if let Some(t) = &r.text {
        events.push(event(
            "content_block_start",
            &json!({"type": "content_block_start",
            "index": index, "content_block": {"type": "text", "text": ""}}),
        ));
        for p in pieces(t) {
            events.push(event(
                "content_block_delta",
                &json!({"type": "content_block_delta",
                "index": index, "delta": {"type": "text_delta", "text": p}}),
            ));
        }
        events.push(event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    for c in &r.tool_calls {
        events.push(event(
            "content_block_start",
            &json!({"type": "content_block_start",
            "index": index, "content_block": {"type": "tool_use", "id": c.id, "name": c.name,
                                              "input": {}}}),
        ));
        for p in pieces(&c.arguments) {
            events.push(event(
                "content_block_delta",
                &json!({"type": "content_block_delta",
                "index": index, "delta": {"type": "input_json_delta", "partial_json": p}}),
            ));
        }
        events.push(event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    events.push(event(
        "message_delta",
        &json!({"type": "message_delta",
        "delta": {"stop_reason": stop_reason(r), "stop_sequence": null},
        "usage": {"output_tokens": r.usage.output}}),
    ));
    events.push(event("message_stop", &json!({"type": "message_stop"})));
    events
}

/// The error body Anthropic answers with.
pub fn error(status: u16, message: &str) -> Value {
    let kind = match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        404 => "not_found_error",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}
