//! SPEC §10 "Durable resume" (a preview): finding the halted assistant turn in a transcript
//! and rebuilding its tool results so every `tool_use` has exactly one `tool_result`.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::error::ClientError;
use super::options::Style;
use super::wire::{self, AnswerError, Call, ToolReply};

/// The halted assistant turn of a transcript and the results it already has.
pub(super) struct Outstanding {
    /// Index of the assistant message whose calls are being answered.
    pub at: usize,
    /// Its tool calls, in order.
    pub calls: Vec<Call>,
    /// The results already in the transcript, by call id, in their wire form (an openai
    /// `tool` message, an anthropic `tool_result` block), kept verbatim.
    pub kept: HashMap<String, Value>,
    /// The id of the last result appended after the turn: the halt's placeholder.
    pub last: Option<String>,
}

/// The last assistant turn with tool calls, or why there is nothing to resume (none, or
/// that turn cannot be read as an answer).
pub(super) fn outstanding(style: Style, messages: &[Value]) -> Result<Outstanding, ClientError> {
    for (at, m) in messages.iter().enumerate().rev() {
        if m.get("role").and_then(Value::as_str) != Some("assistant") {
            continue;
        }
        let calls = calls_of(style, m)?;
        if calls.is_empty() {
            break;
        }
        let mut kept = HashMap::new();
        let mut last = None;
        for (id, result) in messages[at + 1..].iter().flat_map(|m| results_of(style, m)) {
            last = Some(id.clone());
            kept.insert(id, result);
        }
        return Ok(Outstanding {
            at,
            calls,
            kept,
            last,
        });
    }
    Err(ClientError::NothingToResume)
}

/// A transcript assistant message's calls, read as the provider's answer would be.
fn calls_of(style: Style, message: &Value) -> Result<Vec<Call>, AnswerError> {
    let raw = match style {
        Style::OpenAi => json!({"choices": [{"message": message}]}),
        Style::Anthropic => json!({"content": message.get("content").cloned()
            .filter(Value::is_array).unwrap_or_else(|| json!([]))}),
    };
    wire::parse_answer(style, &raw).map(|t| t.calls)
}

/// The `(call id, result)` pairs one message carries.
fn results_of(style: Style, message: &Value) -> Vec<(String, Value)> {
    match style {
        Style::OpenAi => message
            .get("tool_call_id")
            .and_then(Value::as_str)
            .filter(|_| message.get("role").and_then(Value::as_str) == Some("tool"))
            .map(|id| vec![(id.to_string(), message.clone())])
            .unwrap_or_default(),
        Style::Anthropic => message
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .filter_map(|b| {
                let id = b.get("tool_use_id").and_then(Value::as_str)?;
                Some((id.to_string(), b.clone()))
            })
            .collect(),
    }
}

/// One new result in its wire form (the counterpart of `results_of`).
pub(super) fn result_item(style: Style, reply: &ToolReply) -> Value {
    let rendered = wire::tool_result_messages(style, std::slice::from_ref(reply));
    let message = rendered.into_iter().next().unwrap_or(Value::Null);
    match style {
        Style::OpenAi => message,
        Style::Anthropic => message
            .pointer("/content/0")
            .cloned()
            .unwrap_or(Value::Null),
    }
}

/// The transcript's tail after the halted turn: one result per call, in call order.
pub(super) fn tail(style: Style, items: Vec<Value>) -> Vec<Value> {
    match style {
        Style::OpenAi => items,
        Style::Anthropic => vec![json!({"role": "user", "content": items})],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_halted_turn_and_its_placeholder_on_both_wires() {
        let openai = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "x", "arguments": "{ \"q\":1 }"}},
                {"id": "b", "type": "function", "function": {"name": "y", "arguments": "{}"}}]}),
            json!({"role": "tool", "tool_call_id": "a", "content": "placeholder"}),
        ];
        let o = outstanding(Style::OpenAi, &openai).unwrap();
        assert_eq!(o.at, 1);
        assert_eq!(o.calls.len(), 2);
        assert_eq!(o.calls[0].arguments, "{ \"q\":1 }");
        assert_eq!(o.last.as_deref(), Some("a"));
        let anthropic = vec![
            json!({"role": "user", "content": "go"}),
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "p"}]}),
        ];
        let o = outstanding(Style::Anthropic, &anthropic).unwrap();
        assert_eq!((o.at, o.last.as_deref()), (1, Some("t")));
        assert!(outstanding(Style::OpenAi, &openai[..1]).is_err());
    }
}
