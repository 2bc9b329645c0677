//! Streamed answers: SSE events (decoded by `sse-stream`) reassembled into the answer the
//! non-streaming call would have returned, with text deltas reported as they arrive.

use std::collections::BTreeMap;

use futures::StreamExt;
use serde_json::{json, Map, Value};
use sse_stream::SseStream;

use super::body::{capped_stream, ANSWER_CAP};
use super::options::Style;

/// Reads the whole stream; `on_text` sees every non-empty text delta in order.
pub async fn read_stream(
    style: Style,
    response: reqwest::Response,
    on_text: &mut (dyn FnMut(&str) + Send),
) -> Result<Value, String> {
    // Bounded: more than `ANSWER_CAP` bytes in all (an endless stream, one giant event)
    // ends the stream with an error naming the cap.
    let bytes = capped_stream(response.bytes_stream(), ANSWER_CAP);
    let mut events = std::pin::pin!(SseStream::from_bytes_stream(bytes));
    let mut acc = match style {
        Style::OpenAi => Acc::OpenAi(OpenAiAcc::default()),
        Style::Anthropic => Acc::Anthropic(AnthropicAcc::default()),
    };
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| format!("LLM stream failed: {e}"))?;
        let Some(data) = event.data else { continue };
        if data.trim() == "[DONE]" {
            break;
        }
        let chunk: Value = serde_json::from_str(&data)
            .map_err(|e| format!("LLM stream: an event is not JSON: {e}"))?;
        let done = match &mut acc {
            Acc::OpenAi(a) => {
                a.feed(&chunk, on_text);
                false
            }
            Acc::Anthropic(a) => a.feed(&chunk, on_text)?,
        };
        if done {
            break;
        }
    }
    Ok(match acc {
        Acc::OpenAi(a) => a.finish(),
        Acc::Anthropic(a) => a.finish(),
    })
}

enum Acc {
    OpenAi(OpenAiAcc),
    Anthropic(AnthropicAcc),
}

#[derive(Default)]
struct OpenAiAcc {
    id: Option<Value>,
    model: Option<Value>,
    text: String,
    saw_text: bool,
    /// Tool calls by their `index`.
    calls: BTreeMap<u64, (String, String, String)>,
    finish_reason: Option<Value>,
    usage: Option<Value>,
}

impl OpenAiAcc {
    fn feed(&mut self, chunk: &Value, on_text: &mut (dyn FnMut(&str) + Send)) {
        self.id = self.id.take().or_else(|| chunk.get("id").cloned());
        self.model = self.model.take().or_else(|| chunk.get("model").cloned());
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(u.clone());
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return;
        };
        if let Some(fr) = choice.get("finish_reason").filter(|f| !f.is_null()) {
            self.finish_reason = Some(fr.clone());
        }
        let Some(delta) = choice.get("delta") else {
            return;
        };
        if let Some(t) = delta.get("content").and_then(Value::as_str) {
            self.saw_text = true;
            if !t.is_empty() {
                self.text.push_str(t);
                on_text(t);
            }
        }
        for (pos, tc) in delta
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let index = tc
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(pos as u64);
            let entry = self.calls.entry(index).or_default();
            if let Some(id) = tc.get("id").and_then(Value::as_str) {
                entry.0 = id.to_string();
            }
            if let Some(n) = tc.pointer("/function/name").and_then(Value::as_str) {
                entry.1.push_str(n);
            }
            if let Some(a) = tc.pointer("/function/arguments").and_then(Value::as_str) {
                entry.2.push_str(a);
            }
        }
    }

    fn finish(self) -> Value {
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        let content = if self.saw_text || self.calls.is_empty() {
            json!(self.text)
        } else {
            Value::Null
        };
        message.insert("content".into(), content);
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .into_values()
                .map(|(id, name, args)| {
                    json!({"id": id, "type": "function",
                           "function": {"name": name, "arguments": args}})
                })
                .collect();
            message.insert("tool_calls".into(), json!(calls));
        }
        let mut out = json!({
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}],
        });
        if let Some(id) = self.id {
            out["id"] = id;
        }
        if let Some(m) = self.model {
            out["model"] = m;
        }
        if let Some(u) = self.usage {
            out["usage"] = u;
        }
        out
    }
}

#[derive(Default)]
struct AnthropicAcc {
    message: Map<String, Value>,
    /// Content blocks by index; tool inputs accumulate as JSON text.
    blocks: BTreeMap<u64, (Value, String)>,
    usage: Map<String, Value>,
    stop_reason: Option<Value>,
}

impl AnthropicAcc {
    /// Folds one event in; `Ok(true)` at `message_stop`.
    fn feed(&mut self, ev: &Value, on_text: &mut (dyn FnMut(&str) + Send)) -> Result<bool, String> {
        match ev.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                if let Some(Value::Object(m)) = ev.get("message") {
                    self.message = m.clone();
                    if let Some(Value::Object(u)) = m.get("usage") {
                        self.usage.extend(u.clone());
                    }
                }
            }
            Some("content_block_start") => {
                let index = ev.get("index").and_then(Value::as_u64).unwrap_or(0);
                let block = ev.get("content_block").cloned().unwrap_or(json!({}));
                self.blocks.insert(index, (block, String::new()));
            }
            Some("content_block_delta") => {
                let index = ev.get("index").and_then(Value::as_u64).unwrap_or(0);
                let delta = ev.get("delta").cloned().unwrap_or(json!({}));
                let entry = self
                    .blocks
                    .entry(index)
                    .or_insert_with(|| (json!({"type": "text", "text": ""}), String::new()));
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => {
                        let t = delta.get("text").and_then(Value::as_str).unwrap_or("");
                        // A block the server sent as a non-object becomes a text block
                        // (indexing a non-object would panic).
                        if !entry.0.is_object() {
                            entry.0 = json!({"type": "text", "text": ""});
                        }
                        let old = entry.0.get("text").and_then(Value::as_str).unwrap_or("");
                        entry.0["text"] = json!(format!("{old}{t}"));
                        if !t.is_empty() {
                            on_text(t);
                        }
                    }
                    Some("input_json_delta") => {
                        let p = delta
                            .get("partial_json")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        entry.1.push_str(p);
                    }
                    _ => {}
                }
            }
            Some("message_delta") => {
                if let Some(sr) = ev.pointer("/delta/stop_reason") {
                    self.stop_reason = Some(sr.clone());
                }
                if let Some(Value::Object(u)) = ev.get("usage") {
                    self.usage.extend(u.clone());
                }
            }
            Some("message_stop") => return Ok(true),
            Some("error") => {
                let msg = ev
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown error");
                return Err(format!("LLM stream failed: {msg}"));
            }
            _ => {}
        }
        Ok(false)
    }

    fn finish(self) -> Value {
        let content: Vec<Value> = self
            .blocks
            .into_values()
            .map(|(mut block, json_text)| {
                if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                    block["input"] = super::wire::parse_args(&json_text);
                }
                block
            })
            .collect();
        let mut out = Value::Object(self.message);
        out["type"] = json!("message");
        out["role"] = json!("assistant");
        out["content"] = json!(content);
        out["stop_reason"] = self.stop_reason.unwrap_or(Value::Null);
        out["usage"] = Value::Object(self.usage);
        out
    }
}
