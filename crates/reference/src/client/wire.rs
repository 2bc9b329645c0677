//! The two wires: URLs, headers, request bodies, answers and tool-result messages.

use serde_json::{json, Map, Value};

use super::options::Style;
use super::parts::{obj, PartError, Policy};
use crate::content::{ContentPart, Provenance};

/// The provider-neutral reading of one assistant turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    /// The assistant text (concatenated text parts).
    pub text: String,
    /// Tool calls in order.
    pub calls: Vec<Call>,
    /// This turn's tokens.
    pub usage: Usage,
    /// The assistant message to append to the transcript, in the provider's shape.
    pub message: Value,
}

/// One tool call the model asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// Provider call id.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Parsed arguments (an unparseable string stays a string).
    pub args: Value,
    /// The arguments text exactly as the provider sent it (Anthropic: the compact `input`),
    /// which a relay call hands to the host untouched.
    pub arguments: String,
}

/// Token usage, summed across turns; serialises as `{prompt_tokens, completion_tokens,
/// total_tokens}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    /// OpenAI `prompt_tokens` / Anthropic `input_tokens`.
    pub prompt_tokens: u64,
    /// OpenAI `completion_tokens` / Anthropic `output_tokens`.
    pub completion_tokens: u64,
    /// `total_tokens`, else the sum.
    pub total_tokens: u64,
}

impl Usage {
    /// Adds another turn's usage.
    pub fn add(&mut self, other: Usage) {
        // Saturating: the counts come from the server, which may send u64::MAX.
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.total_tokens = self.total_tokens.saturating_add(other.total_tokens);
    }

    /// Reads either wire's `usage` object; missing counts are 0, a missing total the sum.
    pub fn from_json(usage: Option<&Value>) -> Usage {
        let Some(u) = usage else {
            return Usage::default();
        };
        let n = |keys: &[&str]| keys.iter().find_map(|k| u.get(*k).and_then(Value::as_u64));
        let prompt = n(&["prompt_tokens", "input_tokens"]).unwrap_or(0);
        let completion = n(&["completion_tokens", "output_tokens"]).unwrap_or(0);
        Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: n(&["total_tokens"]).unwrap_or(prompt.saturating_add(completion)),
        }
    }
}

/// The endpoint of a style: openai `{base}/chat/completions`; anthropic `{base}/messages`
/// with `/v1` appended unless the base path already ends with `/v1`.
pub fn endpoint(style: Style, base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    match style {
        Style::OpenAi => format!("{base}/chat/completions"),
        Style::Anthropic if base.ends_with("/v1") => format!("{base}/messages"),
        Style::Anthropic => format!("{base}/v1/messages"),
    }
}

/// The style's auth headers (no header at all when there is no key).
pub fn auth_headers(style: Style, key: Option<&str>) -> Vec<(String, String)> {
    let mut h = Vec::new();
    match style {
        Style::OpenAi => {
            if let Some(k) = key {
                h.push(("authorization".into(), format!("Bearer {k}")));
            }
        }
        Style::Anthropic => {
            if let Some(k) = key {
                h.push(("x-api-key".into(), k.to_string()));
            }
            h.push(("anthropic-version".into(), "2023-06-01".into()));
        }
    }
    h
}

/// `systemPrompt + "\n\n" + skillsPrompt()`; an empty part drops the separator, both empty
/// ⇒ no system at all.
pub fn system_text(system_prompt: Option<&str>, skills_prompt: &str) -> Option<String> {
    let sp = system_prompt.unwrap_or("");
    match (sp.is_empty(), skills_prompt.is_empty()) {
        (true, true) => None,
        (false, true) => Some(sp.to_string()),
        (true, false) => Some(skills_prompt.to_string()),
        (false, false) => Some(format!("{sp}\n\n{skills_prompt}")),
    }
}

/// The starting transcript: history (if any), then the user prompt. On openai the system
/// message leads, unless the history already starts with one (a transcript handed back).
pub fn initial_messages(
    style: Style,
    system: Option<&str>,
    history: Vec<Value>,
    prompt: Value,
) -> Vec<Value> {
    let mut messages = Vec::new();
    if style == Style::OpenAi {
        let has_system = history
            .first()
            .is_some_and(|m| m.get("role").and_then(Value::as_str) == Some("system"));
        if let (Some(s), false) = (system, has_system) {
            messages.push(json!({"role": "system", "content": s}));
        }
    }
    messages.extend(history);
    messages.push(json!({"role": "user", "content": prompt}));
    messages
}

/// The transcript a durable resume continues: `initial_messages` without the user turn.
pub fn resumed_messages(style: Style, system: Option<&str>, history: Vec<Value>) -> Vec<Value> {
    let mut messages = initial_messages(style, system, history, Value::Null);
    messages.pop();
    messages
}

/// The client's own body, before hooks and params.
pub fn base_body(
    style: Style,
    model: &str,
    system: Option<&str>,
    messages: &[Value],
    tools: &[Value],
    stream: bool,
) -> Map<String, Value> {
    match serde_json::to_value(body_ref(style, model, system, messages, tools, stream)) {
        Ok(Value::Object(map)) => map,
        // Unreachable: a struct of strings, numbers and JSON values is always an object.
        _ => Map::new(),
    }
}

/// [`base_body`] serialized straight from borrowed parts: the same bytes as
/// `Value::Object(base_body(..)).to_string()`, without deep-cloning the transcript and the
/// tools into a `Value` each turn (used when no `requestParams`/`bodyTransform` needs one).
pub fn base_body_bytes(
    style: Style,
    model: &str,
    system: Option<&str>,
    messages: &[Value],
    tools: &[Value],
    stream: bool,
    capacity: usize,
) -> Result<Vec<u8>, serde_json::Error> {
    let body = body_ref(style, model, system, messages, tools, stream);
    let mut out = Vec::with_capacity(capacity);
    serde_json::to_writer(&mut out, &body)?;
    Ok(out)
}

/// The one statement of which keys a style's body has, in wire order: Anthropic's
/// `max_tokens` 4096 and `system`; `tools` (and openai's `tool_choice`) only for a non-empty
/// tool list (Gap 5); `stream` (and openai's `stream_options`) only when streaming.
fn body_ref<'a>(
    style: Style,
    model: &'a str,
    system: Option<&'a str>,
    messages: &'a [Value],
    tools: &'a [Value],
    stream: bool,
) -> BodyRef<'a> {
    let anthropic = style == Style::Anthropic;
    let openai = style == Style::OpenAi;
    BodyRef {
        model,
        max_tokens: anthropic.then_some(4096),
        system: system.filter(|_| anthropic),
        messages,
        tools: (!tools.is_empty()).then_some(tools),
        tool_choice: (openai && !tools.is_empty()).then_some("auto"),
        stream: stream.then_some(true),
        stream_options: (stream && openai).then_some(StreamOptions {
            include_usage: true,
        }),
    }
}

#[derive(serde::Serialize)]
struct BodyRef<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<&'a str>,
    messages: &'a [Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a [Value]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

#[derive(serde::Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// The keys `requestParams` may not set.
pub const FORBIDDEN_PARAMS: [&str; 3] = ["messages", "tools", "stream"];

/// Gap 1 merge: every allowed param wins over the client's key; returns the stripped keys.
pub fn merge_params(body: &mut Map<String, Value>, params: &Map<String, Value>) -> Vec<String> {
    let mut stripped = Vec::new();
    for (k, v) in params {
        if FORBIDDEN_PARAMS.contains(&k.as_str()) {
            stripped.push(k.clone());
        } else {
            body.insert(k.clone(), v.clone());
        }
    }
    stripped
}

/// An LLM answer the loop cannot read; `Display` is the run's error message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnswerError {
    /// OpenAI: no `choices[0].message` object.
    NoMessage,
    /// OpenAI: a tool call without `function.name`.
    NoFunctionName {
        /// Its place in `tool_calls`.
        index: usize,
    },
    /// Anthropic: no `content` array.
    NoContent,
    /// Anthropic: a `tool_use` block without a `name`.
    NoToolUseName {
        /// Its place in `content`.
        index: usize,
    },
}

impl std::fmt::Display for AnswerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnswerError::NoMessage => f.write_str("LLM answer has no choices[0].message"),
            AnswerError::NoFunctionName { index } => {
                write!(f, "LLM answer: tool_calls[{index}] has no function.name")
            }
            AnswerError::NoContent => f.write_str("LLM answer has no content array"),
            AnswerError::NoToolUseName { index } => {
                write!(f, "LLM answer: content[{index}] tool_use has no name")
            }
        }
    }
}

impl std::error::Error for AnswerError {}

/// Reads a (non-streamed or reassembled) answer of the style.
pub fn parse_answer(style: Style, raw: &Value) -> Result<Turn, AnswerError> {
    match style {
        Style::OpenAi => parse_openai(raw),
        Style::Anthropic => parse_anthropic(raw),
    }
}

/// An OpenAI `content`: a string as it is, an array of parts as their texts joined (an
/// answer's message, and a request's message in §11 translate).
pub(super) fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn parse_openai(raw: &Value) -> Result<Turn, AnswerError> {
    let message = raw
        .pointer("/choices/0/message")
        .filter(|m| m.is_object())
        .ok_or(AnswerError::NoMessage)?;
    let text = content_text(message.get("content"));
    let mut calls = Vec::new();
    for (i, c) in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = c
            .pointer("/function/name")
            .and_then(Value::as_str)
            .ok_or(AnswerError::NoFunctionName { index: i })?;
        let (args, arguments) = match c.pointer("/function/arguments") {
            Some(Value::String(s)) => (parse_args(s), s.clone()),
            Some(v @ Value::Object(_)) => (v.clone(), v.to_string()),
            _ => (json!({}), String::new()),
        };
        let id = c
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("call_{i}"));
        calls.push(Call {
            id,
            name: name.to_string(),
            args,
            arguments,
        });
    }
    // The transcript keeps the assistant message as the provider sent it.
    let mut msg = message.clone();
    if let Some(m) = msg.as_object_mut() {
        m.entry("role").or_insert(json!("assistant"));
    }
    Ok(Turn {
        text,
        calls,
        usage: Usage::from_json(raw.get("usage")),
        message: msg,
    })
}

fn parse_anthropic(raw: &Value) -> Result<Turn, AnswerError> {
    let blocks = raw
        .get("content")
        .and_then(Value::as_array)
        .ok_or(AnswerError::NoContent)?;
    let mut text = String::new();
    let mut calls = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(b.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => {
                let name = b
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or(AnswerError::NoToolUseName { index: i })?;
                calls.push(Call {
                    id: b
                        .get("id")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("toolu_{i}")),
                    name: name.to_string(),
                    args: b.get("input").cloned().unwrap_or_else(|| json!({})),
                    arguments: b
                        .get("input")
                        .map_or_else(|| "{}".to_string(), Value::to_string),
                });
            }
            _ => {}
        }
    }
    Ok(Turn {
        text,
        calls,
        usage: Usage::from_json(raw.get("usage")),
        message: json!({"role": "assistant", "content": blocks}),
    })
}

/// Tool arguments from their JSON text; empty ⇒ `{}`, unparseable ⇒ the string itself.
pub fn parse_args(s: &str) -> Value {
    if s.trim().is_empty() {
        return json!({});
    }
    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.to_string()))
}

/// One executed call, ready to be reported back to the model.
#[derive(Debug, Clone, Default)]
pub struct ToolReply {
    /// Provider call id.
    pub id: String,
    /// The tool's name (the OpenAI relocation's `Output of tool <name> (<id>):`).
    pub name: String,
    /// The result text.
    pub output: String,
    /// Whether it failed.
    pub is_error: bool,
    /// The result's `parts` (§1B), tool-derived.
    pub parts: Vec<ContentPart>,
}

/// Tool results in the style's shape, text only: openai one `tool` message per call;
/// anthropic one `user` message of `tool_result` blocks.
pub fn tool_result_messages(style: Style, replies: &[ToolReply]) -> Vec<Value> {
    let warned = std::sync::atomic::AtomicBool::new(true);
    let policy = Policy {
        style,
        on_unsupported: None,
        max_part_bytes: None,
        warned: &warned,
        sent: None,
    };
    let text_only: Vec<ToolReply> = replies
        .iter()
        .map(|r| ToolReply {
            parts: Vec::new(),
            ..r.clone()
        })
        .collect();
    // Without parts nothing can be refused.
    tool_results_with_parts(&policy, &text_only)
        .map(|(m, _)| m)
        .unwrap_or_default()
}

/// openai's synthetic `user` message of a turn's relocated parts, keyed by the `tool_call_id`
/// of the last tool message it follows.
pub type Relocated = (String, Value);

/// Tool results with their parts (§8A): anthropic keeps each part as a block in its
/// `tool_result.content`, after the output's text block; openai's tool message carries the
/// output plus text parts only, and every non-text part of the turn goes, in call order,
/// into the one synthetic `user` message answered beside the messages, keyed by the last
/// tool message's `tool_call_id` (it never enters the transcript). A result without parts
/// is the pre-0.17 shape, byte for byte.
pub fn tool_results_with_parts(
    policy: &Policy<'_>,
    replies: &[ToolReply],
) -> Result<(Vec<Value>, Option<Relocated>), PartError> {
    match policy.style {
        Style::OpenAi => {
            let mut messages = Vec::new();
            let mut relocated = Vec::new();
            for r in replies {
                let texts: Vec<&ContentPart> = r
                    .parts
                    .iter()
                    .filter(|p| matches!(p, ContentPart::Text(_)))
                    .collect();
                let content = if texts.is_empty() {
                    json!(r.output)
                } else {
                    let mut blocks = vec![json!({"type": "text", "text": r.output})];
                    for t in texts {
                        blocks.push(policy.block(t, Provenance::ToolDerived)?);
                    }
                    Value::Array(blocks)
                };
                messages.push(json!({"role": "tool", "tool_call_id": r.id, "content": content}));
                for p in r
                    .parts
                    .iter()
                    .filter(|p| !matches!(p, ContentPart::Text(_)))
                {
                    relocated.push(json!({"type": "text",
                        "text": format!("Output of tool {} ({}):", r.name, r.id)}));
                    relocated.push(policy.block(p, Provenance::ToolDerived)?);
                }
            }
            let synthetic = match (relocated.is_empty(), replies.last()) {
                (false, Some(last)) => Some((
                    last.id.clone(),
                    json!({"role": "user", "content": relocated}),
                )),
                _ => None,
            };
            Ok((messages, synthetic))
        }
        Style::Anthropic => {
            let mut blocks = Vec::new();
            for r in replies {
                let content = if r.parts.is_empty() {
                    json!(r.output)
                } else {
                    let mut inner = vec![json!({"type": "text", "text": r.output})];
                    for p in &r.parts {
                        inner.push(policy.block(p, Provenance::ToolDerived)?);
                    }
                    Value::Array(inner)
                };
                let mut b = obj([
                    ("type", "tool_result".into()),
                    ("tool_use_id", Value::String(r.id.clone())),
                    ("content", content),
                ]);
                if r.is_error {
                    b["is_error"] = json!(true);
                }
                blocks.push(b);
            }
            Ok((
                vec![obj([
                    ("role", "user".into()),
                    ("content", Value::Array(blocks)),
                ])],
                None,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_appends_v1_only_when_missing() {
        assert_eq!(
            endpoint(Style::Anthropic, "http://h:1"),
            "http://h:1/v1/messages"
        );
        assert_eq!(
            endpoint(Style::Anthropic, "http://h:1/v1/"),
            "http://h:1/v1/messages"
        );
        assert_eq!(
            endpoint(Style::Anthropic, "http://h:1/v1x"),
            "http://h:1/v1x/v1/messages"
        );
        assert_eq!(
            endpoint(Style::OpenAi, "http://h:1/api/v1"),
            "http://h:1/api/v1/chat/completions"
        );
    }

    #[test]
    fn system_text_drops_empty_parts() {
        assert_eq!(system_text(None, ""), None);
        assert_eq!(system_text(Some("S"), ""), Some("S".into()));
        assert_eq!(system_text(None, "K"), Some("K".into()));
        assert_eq!(system_text(Some("S"), "K"), Some("S\n\nK".into()));
    }

    #[test]
    fn body_bytes_equal_the_built_body() {
        let messages = vec![
            json!({"role": "user", "content": "hi \u{e9} \"q\""}),
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "a"}]}),
        ];
        let tools = [json!({"type": "function", "function": {"name": "x"}})];
        for style in [Style::OpenAi, Style::Anthropic] {
            for tools in [&tools[..], &[]] {
                for system in [Some("sys"), None] {
                    for stream in [false, true] {
                        let built =
                            Value::Object(base_body(style, "m", system, &messages, tools, stream))
                                .to_string();
                        let bytes =
                            base_body_bytes(style, "m", system, &messages, tools, stream, 0)
                                .unwrap();
                        assert_eq!(String::from_utf8(bytes).unwrap(), built);
                    }
                }
            }
        }
    }

    #[test]
    fn empty_tools_omit_tool_keys() {
        let b = base_body(Style::OpenAi, "m", None, &[], &[], false);
        assert!(!b.contains_key("tools") && !b.contains_key("tool_choice"));
        let b = base_body(Style::OpenAi, "m", None, &[], &[json!({})], false);
        assert_eq!(b["tool_choice"], "auto");
    }

    #[test]
    fn params_win_but_forbidden_keys_are_stripped() {
        let mut b = base_body(Style::Anthropic, "m", Some("s"), &[], &[], false);
        let params = json!({"max_tokens": 9, "messages": [], "stream": true, "temperature": 0});
        let stripped = merge_params(&mut b, params.as_object().unwrap());
        assert_eq!(stripped, ["messages", "stream"]);
        assert_eq!(b["max_tokens"], 9);
        assert_eq!(b["messages"], json!([]));
        assert!(!b.contains_key("stream"));
    }

    #[test]
    fn usage_total_defaults_to_the_sum() {
        let u = Usage::from_json(Some(&json!({"input_tokens": 4, "output_tokens": 3})));
        assert_eq!(
            (u.prompt_tokens, u.completion_tokens, u.total_tokens),
            (4, 3, 7)
        );
    }
}
