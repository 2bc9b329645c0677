//! What a reply is chosen by, read from either provider's request body.

use serde_json::Value;

use super::scenario::{Match, Piece, Style, Template};

/// The facts of one request the scenario can match on and quote.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    /// The wire it came on.
    pub style: Style,
    /// `model`, empty when absent.
    pub model: String,
    /// The tool results' text, in order.
    pub tool_results: Vec<String>,
    /// The text of the last user message that has text.
    pub last_user_text: String,
    /// `stream: true`.
    pub stream: bool,
    /// OpenAI `stream_options.include_usage: true`.
    pub include_usage: bool,
}

impl Facts {
    /// Reads the facts from a parsed request body.
    pub fn read(style: Style, body: &Value) -> Self {
        let messages = body
            .get("messages")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut tool_results = Vec::new();
        let mut last_user_text = String::new();
        for m in messages {
            let role = m.get("role").and_then(Value::as_str).unwrap_or_default();
            let content = m.get("content").unwrap_or(&Value::Null);
            match (style, role) {
                (Style::Openai, "tool") => tool_results.push(text_of(content)),
                (Style::Openai, "user") => {
                    let t = text_of(content);
                    if !t.is_empty() {
                        last_user_text = t;
                    }
                }
                (Style::Anthropic, "user") => {
                    if let Some(blocks) = content.as_array() {
                        for b in blocks {
                            if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                                tool_results
                                    .push(text_of(b.get("content").unwrap_or(&Value::Null)));
                            }
                        }
                    }
                    let t = text_of(content);
                    if !t.is_empty() {
                        last_user_text = t;
                    }
                }
                _ => {}
            }
        }
        Self {
            style,
            model: body
                .get("model")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            tool_results,
            last_user_text,
            stream: body.get("stream").and_then(Value::as_bool) == Some(true),
            include_usage: body
                .pointer("/stream_options/include_usage")
                .and_then(Value::as_bool)
                == Some(true),
        }
    }

    /// Whether a reply's `match` accepts this request.
    pub fn matches(&self, when: &Match) -> bool {
        when.model.as_ref().is_none_or(|m| *m == self.model)
            && when.style.is_none_or(|s| s == self.style)
            && when
                .tool_msgs
                .is_none_or(|c| c.holds(self.tool_results.len() as u64))
            && when
                .last_user_text
                .as_ref()
                .is_none_or(|r| r.is_match(&self.last_user_text))
    }

    /// The template with this request's facts filled in.
    pub fn render(&self, template: &Template) -> String {
        let mut out = String::new();
        for piece in &template.0 {
            match piece {
                Piece::Lit(s) => out.push_str(s),
                Piece::ToolResults(sep) => out.push_str(&self.tool_results.join(sep)),
                Piece::ToolResult(n) => {
                    out.push_str(self.tool_results.get(*n).map_or("", String::as_str))
                }
                Piece::LastUserText => out.push_str(&self.last_user_text),
                Piece::Model => out.push_str(&self.model),
                Piece::ToolMsgs => out.push_str(&self.tool_results.len().to_string()),
            }
        }
        out
    }
}

/// A content value's text: a string, or the `text` of its text parts/blocks joined
/// (tool_result blocks and images contribute nothing).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_tool_messages_and_last_user_text() {
        let f = Facts::read(
            Style::Openai,
            &json!({"model": "m", "stream": true, "stream_options": {"include_usage": true},
                    "messages": [{"role": "user", "content": "first"},
                                 {"role": "assistant", "content": null, "tool_calls": []},
                                 {"role": "tool", "tool_call_id": "a", "content": "r1"},
                                 {"role": "tool", "tool_call_id": "b",
                                  "content": [{"type": "text", "text": "r2"}]},
                                 {"role": "user", "content": [{"type": "text", "text": "again"}]}]}),
        );
        assert_eq!(f.tool_results, vec!["r1", "r2"]);
        assert_eq!(f.last_user_text, "again");
        assert!(f.stream && f.include_usage);
    }

    #[test]
    fn anthropic_tool_result_blocks() {
        let f = Facts::read(
            Style::Anthropic,
            &json!({"model": "c", "messages": [
                {"role": "user", "content": "question"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": "r1"},
                    {"type": "tool_result", "tool_use_id": "u",
                     "content": [{"type": "text", "text": "r2"}]}]}]}),
        );
        assert_eq!(f.tool_results, vec!["r1", "r2"]);
        assert_eq!(f.last_user_text, "question");
        assert!(!f.stream);
    }
}
