//! SPEC §11 `translate`: OpenAI shapes in, exactly one provider call through the loop's
//! transport (retries, params, hooks, the `llm` metric), OpenAI shapes out. There is no
//! execution path here: a toolkit is only rendered through the §5 adapters.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::error::ClientError;
use super::hooks::{AfterLlm, BeforeLlm};
use super::options::Style;
use super::parts::{PartError, Policy};
use super::run::{tool_schema, Outgoing, Sinks};
use super::wire::{self, AnswerError, Usage};
use super::Client;
use crate::content::{ContentPart, MediaKind, Provenance};
use crate::toolkit::Toolkit;

/// The Anthropic `max_tokens` when the request gives none (SPEC §8 Gap 1's default).
const ANTHROPIC_DEFAULT_MAX_TOKENS: u64 = 4096;

/// `translate(request)`'s request.
#[derive(Default, Clone)]
pub struct TranslateRequest<'a> {
    /// OpenAI `messages`, verbatim (assistant `tool_calls`, `tool` results included).
    pub messages: Vec<Value>,
    /// OpenAI `tools`, verbatim; sent after the toolkit's declarations.
    pub tools: Vec<Value>,
    /// Declared through the style's adapter, never executed.
    pub toolkit: Option<&'a Toolkit>,
    /// OpenAI `tool_choice`, verbatim.
    pub tool_choice: Option<Value>,
    /// Overrides the system prompt (the client's and the messages' own).
    pub system: Option<String>,
    /// 0 ⇒ the provider's default.
    pub max_tokens: u64,
}

/// One tool call, OpenAI-shaped.
#[derive(Debug, Clone, PartialEq)]
pub struct TranslatedCall {
    /// The provider's call id.
    pub id: String,
    /// The function name.
    pub name: String,
    /// The arguments as a JSON string (the OpenAI wire form).
    pub arguments: String,
}

/// `translate`'s result.
#[derive(Debug, Clone, PartialEq)]
pub struct TranslateResult {
    /// The assistant text ("" when the model only called tools).
    pub text: String,
    /// Every tool call, in provider order.
    pub tool_calls: Vec<TranslatedCall>,
    /// `stop` | `tool_calls` | `length` | `content_filter`.
    pub finish_reason: String,
    /// This one call's tokens.
    pub usage: Usage,
    /// The model that answered (the configured one when the answer names none).
    pub model: String,
    /// The provider's decoded response.
    pub raw: Value,
}

impl Client {
    /// SPEC §11: one provider call, no loop, no tool execution, no conversation state.
    pub async fn translate(
        &self,
        request: TranslateRequest<'_>,
    ) -> Result<TranslateResult, ClientError> {
        let work = self.translate_once(request);
        match self.inner.options.timeout_ms {
            Some(ms) => tokio::time::timeout(Duration::from_millis(ms), work)
                .await
                .unwrap_or_else(|_| Err(ClientError::TranslateTimedOut { ms })),
            None => work.await,
        }
    }

    async fn translate_once(
        &self,
        request: TranslateRequest<'_>,
    ) -> Result<TranslateResult, ClientError> {
        let o = &self.inner.options;
        let style = o.style;
        let policy = self.part_policy();
        let (mut messages, system) = inbound(style, request.messages, request.system, o, &policy)?;
        let mut tools = match request.toolkit {
            Some(tk) => tool_schema(style, tk),
            None => Vec::new(),
        };
        tools.extend(request.tools.into_iter().map(|t| declaration(style, t)));
        if let Some(h) = &o.hooks {
            let ctx = BeforeLlm {
                messages: messages.clone(),
                tools: tools.clone(),
                model: o.model.clone(),
                turn: 1,
            };
            if let Some(over) = h
                .before_llm(ctx)
                .await
                .map_err(|message| ClientError::Hook { message })?
            {
                if let Some(m) = over.messages {
                    messages = m;
                }
                if let Some(t) = over.tools {
                    tools = t;
                }
            }
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(o.model));
        let max_tokens = match (style, request.max_tokens) {
            (Style::Anthropic, 0) => Some(ANTHROPIC_DEFAULT_MAX_TOKENS),
            (_, 0) => None,
            (_, n) => Some(n),
        };
        if let Some(n) = max_tokens {
            body.insert("max_tokens".into(), json!(n));
        }
        if let (Style::Anthropic, Some(s)) = (style, &system) {
            body.insert("system".into(), json!(s));
        }
        body.insert("messages".into(), Value::Array(messages));
        if !tools.is_empty() {
            body.insert("tools".into(), Value::Array(tools));
        }
        if let Some(choice) = request.tool_choice {
            let choice = match style {
                Style::OpenAi => Some(choice),
                Style::Anthropic => anthropic_tool_choice(choice),
            };
            if let Some(c) = choice {
                body.insert("tool_choice".into(), c);
            }
        }
        // `requestParams` then `bodyTransform`, as on every loop body (SPEC §8 Gap 1).
        wire::merge_params(&mut body, &o.request_params);
        let body = Value::Object(body);
        let body = match &o.body_transform {
            Some(f) => f(body),
            None => body,
        };
        let raw = self
            .call_model(Outgoing::Value(body), 1, &[], Sinks::default())
            .await?;
        if let Some(h) = &o.hooks {
            let ctx = AfterLlm {
                response: raw.clone(),
                model: o.model.clone(),
                turn: 1,
            };
            h.after_llm(ctx).await;
        }
        outbound(style, raw, &o.model).map_err(ClientError::Answer)
    }
}

/// The style's messages and (anthropic) system text. OpenAI messages pass verbatim; a
/// system text is prepended only when they carry none, and `request.system` replaces
/// theirs. Anthropic gets native blocks.
fn inbound(
    style: Style,
    messages: Vec<Value>,
    system: Option<String>,
    o: &super::options::ClientOptions,
    policy: &Policy<'_>,
) -> Result<(Vec<Value>, Option<String>), PartError> {
    let is_system = |m: &Value| {
        matches!(
            m.get("role").and_then(Value::as_str),
            Some("system" | "developer")
        )
    };
    match style {
        Style::OpenAi => {
            let mut out: Vec<Value> = match &system {
                Some(_) => messages.into_iter().filter(|m| !is_system(m)).collect(),
                None => messages,
            };
            // OpenAI parts pass verbatim; a §1B-shaped part becomes its §8A block.
            for m in &mut out {
                if let Some(Value::Array(parts)) = m.get_mut("content") {
                    for p in parts.iter_mut() {
                        if let Some(part) = p.get("mimeType").and_then(|_| spec_part(p)) {
                            *p = policy.block(&part, Provenance::Attached)?;
                        }
                    }
                }
            }
            let prompt = system.or_else(|| o.system_prompt.clone());
            if let Some(s) = prompt.filter(|s| !s.is_empty()) {
                if !out.iter().any(is_system) {
                    out.insert(0, json!({"role": "system", "content": s}));
                }
            }
            Ok((out, None))
        }
        Style::Anthropic => {
            let (out, hoisted) = to_anthropic_with(messages, Some(policy))?;
            let system = system
                .or(hoisted)
                .or_else(|| o.system_prompt.clone())
                .filter(|s| !s.is_empty());
            Ok((out, system))
        }
    }
}

/// OpenAI messages → Anthropic messages plus the hoisted system text: `tool_calls` ⇒
/// `tool_use` blocks (arguments as objects), consecutive `tool` results ⇒ one user turn of
/// `tool_result` blocks, `system`/`developer` ⇒ the system field, parts ⇒ text.
pub fn to_anthropic(messages: Vec<Value>) -> (Vec<Value>, Option<String>) {
    to_anthropic_with(messages, None).unwrap_or_default()
}

/// [`to_anthropic`] with §11's array rule: a `content` array's text parts concatenated
/// into one text block, then each non-text part (OpenAI's `image_url`/`file`/`input_audio`
/// or a §1B part) as its §8A Anthropic block, in order, never dropped; an all-text array
/// stays the flattened string. Without a policy, non-text parts are dropped (the text view).
fn to_anthropic_with(
    messages: Vec<Value>,
    policy: Option<&Policy<'_>>,
) -> Result<(Vec<Value>, Option<String>), PartError> {
    let mut out = Vec::new();
    let mut system = Vec::new();
    let mut results: Vec<Value> = Vec::new();
    let flush = |out: &mut Vec<Value>, results: &mut Vec<Value>| {
        if !results.is_empty() {
            out.push(json!({"role": "user", "content": std::mem::take(results)}));
        }
    };
    for m in messages {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
        let text = wire::content_text(m.get("content"));
        match role {
            "system" | "developer" => {
                flush(&mut out, &mut results);
                if !text.is_empty() {
                    system.push(text);
                }
            }
            "tool" | "function" => {
                let id = m
                    .get("tool_call_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let content = blocks_of(m.get("content"), &text, policy)?;
                results.push(json!({"type": "tool_result", "tool_use_id": id, "content": content}));
            }
            "assistant" => {
                flush(&mut out, &mut results);
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for (i, call) in m
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    let id = call
                        .get("id")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("call_{i}"));
                    let name = call
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let input = args_object(call.pointer("/function/arguments"));
                    blocks
                        .push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
                }
                // An empty assistant turn is one the provider would reject.
                if !blocks.is_empty() {
                    out.push(json!({"role": "assistant", "content": blocks}));
                }
            }
            _ => {
                flush(&mut out, &mut results);
                let content = blocks_of(m.get("content"), &text, policy)?;
                out.push(json!({"role": "user", "content": content}));
            }
        }
    }
    flush(&mut out, &mut results);
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    Ok((out, system))
}

/// A message's Anthropic content: the text alone when there is no non-text part, else the
/// concatenated text's block (when not empty) then each non-text part's block (NOTES #386).
fn blocks_of(
    content: Option<&Value>,
    text: &str,
    policy: Option<&Policy<'_>>,
) -> Result<Value, PartError> {
    let (Some(policy), Some(Value::Array(items))) = (policy, content) else {
        return Ok(json!(text));
    };
    let media: Vec<ContentPart> = items.iter().filter_map(spec_part).collect();
    if media.is_empty() {
        return Ok(json!(text));
    }
    let mut blocks = Vec::new();
    if !text.is_empty() {
        blocks.push(json!({"type": "text", "text": text}));
    }
    for part in &media {
        blocks.push(policy.block(part, Provenance::Attached)?);
    }
    Ok(Value::Array(blocks))
}

/// A non-text part of an OpenAI `content` array as a §1B part: OpenAI's own `image_url`
/// (a `data:` URL or an https one), `file` (`file_data` data URL, `filename`) and
/// `input_audio` (`data`, `format`), or a part already in the §1B form; `None` for text
/// and anything unreadable.
fn spec_part(item: &Value) -> Option<ContentPart> {
    let ty = item.get("type").and_then(Value::as_str)?;
    let s = |ptr: &str| {
        item.pointer(ptr)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let from_url = |url: String, kind: MediaKind, name: Option<String>| {
        let part = ContentPart::from_url(&url, None).ok().or_else(|| {
            // An https URL without a known extension: the mime type the kind implies.
            let mime = match kind {
                MediaKind::Image => "image/*",
                _ => "application/octet-stream",
            };
            ContentPart::media(kind, mime, None, Some(url.clone()), None).ok()
        })?;
        match part {
            ContentPart::Media(mut m) => {
                m.kind = kind;
                m.name = name.filter(|_| kind == MediaKind::File);
                Some(ContentPart::Media(m))
            }
            ContentPart::Text(_) => None,
        }
    };
    match ty {
        "image_url" => from_url(s("/image_url/url")?, MediaKind::Image, None),
        "file" if item.get("file").is_some() => {
            from_url(s("/file/file_data")?, MediaKind::File, s("/file/filename"))
        }
        "input_audio" => {
            let format = s("/input_audio/format").unwrap_or_else(|| "wav".into());
            let mime = if format == "mp3" {
                "audio/mpeg".to_string()
            } else {
                format!("audio/{format}")
            };
            ContentPart::media(MediaKind::Audio, mime, s("/input_audio/data"), None, None).ok()
        }
        "image" | "file" | "audio" if item.get("mimeType").is_some() => {
            serde_json::from_value(item.clone()).ok()
        }
        _ => None,
    }
}

/// Tool-call arguments as an object: a JSON string parsed, an object as it is (some clients
/// send one), anything else (or unparseable text) `{}`.
fn args_object(arguments: Option<&Value>) -> Value {
    match arguments {
        Some(v @ Value::Object(_)) => v.clone(),
        Some(Value::String(s)) => match wire::parse_args(s) {
            v @ Value::Object(_) => v,
            _ => json!({}),
        },
        _ => json!({}),
    }
}

/// An OpenAI `tools` entry in the style's declaration shape (an entry already native to
/// Anthropic passes).
fn declaration(style: Style, tool: Value) -> Value {
    let Some(f) = tool.get("function").filter(|_| style == Style::Anthropic) else {
        return tool;
    };
    let mut d = Map::new();
    d.insert(
        "name".into(),
        f.get("name").cloned().unwrap_or_else(|| json!("")),
    );
    if let Some(desc) = f.get("description") {
        d.insert("description".into(), desc.clone());
    }
    d.insert(
        "input_schema".into(),
        f.get("parameters")
            .filter(|p| p.is_object())
            .cloned()
            .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
    );
    Value::Object(d)
}

/// OpenAI `tool_choice` in Anthropic's shape; an unrecognised one is dropped.
fn anthropic_tool_choice(choice: Value) -> Option<Value> {
    match &choice {
        Value::String(s) => match s.as_str() {
            "auto" => Some(json!({"type": "auto"})),
            "required" | "any" => Some(json!({"type": "any"})),
            "none" => Some(json!({"type": "none"})),
            _ => None,
        },
        Value::Object(o) => match o.get("function").and_then(|f| f.get("name")) {
            Some(name) => Some(json!({"type": "tool", "name": name})),
            None if o.contains_key("type") => Some(choice),
            None => None,
        },
        _ => None,
    }
}

/// The provider's answer in OpenAI shape: calls in order with string arguments, the
/// finish reason mapped.
fn outbound(style: Style, raw: Value, model: &str) -> Result<TranslateResult, AnswerError> {
    let turn = wire::parse_answer(style, &raw)?;
    let provider_reason = match style {
        Style::OpenAi => raw.pointer("/choices/0/finish_reason"),
        Style::Anthropic => raw.get("stop_reason"),
    }
    .and_then(Value::as_str);
    let tool_calls: Vec<TranslatedCall> = turn
        .calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            // An OpenAI answer's own argument text passes byte for byte.
            let sent = raw
                .pointer(&format!(
                    "/choices/0/message/tool_calls/{i}/function/arguments"
                ))
                .and_then(Value::as_str)
                .filter(|_| style == Style::OpenAi);
            TranslatedCall {
                id: c.id,
                name: c.name,
                arguments: match (sent, c.args) {
                    (Some(s), _) => s.to_string(),
                    (None, Value::String(s)) => s,
                    (None, other) => other.to_string(),
                },
            }
        })
        .collect();
    let model = raw
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or(model)
        .to_string();
    Ok(TranslateResult {
        text: turn.text,
        finish_reason: finish_reason(!tool_calls.is_empty(), provider_reason).to_string(),
        tool_calls,
        usage: turn.usage,
        model,
        raw,
    })
}

/// SPEC §11: any tool call ⇒ `tool_calls`; `max_tokens`/`length` ⇒ `length`;
/// `refusal`/`content_filter` ⇒ `content_filter`; anything else ⇒ `stop`.
pub fn finish_reason(has_calls: bool, provider: Option<&str>) -> &'static str {
    if has_calls {
        return "tool_calls";
    }
    match provider {
        Some("max_tokens" | "length") => "length",
        Some("refusal" | "content_filter") => "content_filter",
        _ => "stop",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consecutive_tool_results_merge_and_arguments_become_objects() {
        let (out, system) = to_anthropic(vec![
            json!({"role": "system", "content": "S"}),
            json!({"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}},
                {"id": "c2", "type": "function", "function": {"name": "g", "arguments": {"y": 2}}}]}),
            json!({"role": "tool", "tool_call_id": "c1", "content": "r1"}),
            json!({"role": "tool", "tool_call_id": "c2", "content": "r2"}),
        ]);
        assert_eq!(system.as_deref(), Some("S"));
        assert_eq!(out.len(), 3);
        assert_eq!(out[0], json!({"role": "user", "content": "ab"}));
        assert_eq!(out[1]["content"][0]["input"], json!({"x": 1}));
        assert_eq!(out[1]["content"][1]["input"], json!({"y": 2}));
        assert_eq!(out[2]["content"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn finish_reasons_map() {
        assert_eq!(finish_reason(true, Some("stop")), "tool_calls");
        assert_eq!(finish_reason(false, Some("max_tokens")), "length");
        assert_eq!(finish_reason(false, Some("refusal")), "content_filter");
        assert_eq!(finish_reason(false, Some("end_turn")), "stop");
        assert_eq!(finish_reason(false, None), "stop");
    }
}
