//! §8 / §8A content parts on the wire: the `prompt` as a string or a list of parts, each
//! part's block per style (the emission table, a positive allowlist asserted before the
//! request is sent), unsupported and oversized parts by provenance (`onUnsupportedPart`,
//! `maxPartBytes`), and the OpenAI relocation of tool-result parts into one synthetic `user`
//! message (an adapter artifact: never in the transcript).
//!
//! A part is rendered anywhere but the request body as its `{type, mimeType, bytes}`
//! descriptor, never its `data` (the error messages and the warning below).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde_json::{json, Value};

use super::options::Style;
use crate::content::{ContentPart, MediaKind, MediaPart, PartBody, Provenance};

/// `run`/`stream`/`ask`'s first argument: a string, or a list of parts kept in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prompt {
    /// A plain prompt: the user message is byte-identical to a pre-0.17 client's.
    Text(String),
    /// Parts, in the caller's order.
    Parts(Vec<ContentPart>),
}

impl From<&str> for Prompt {
    fn from(s: &str) -> Self {
        Prompt::Text(s.to_string())
    }
}

impl From<&String> for Prompt {
    fn from(s: &String) -> Self {
        Prompt::Text(s.clone())
    }
}

impl From<String> for Prompt {
    fn from(s: String) -> Self {
        Prompt::Text(s)
    }
}

impl From<Vec<ContentPart>> for Prompt {
    fn from(parts: Vec<ContentPart>) -> Self {
        Prompt::Parts(parts)
    }
}

impl From<&Prompt> for Prompt {
    fn from(p: &Prompt) -> Self {
        p.clone()
    }
}

/// `onUnsupportedPart`: what an unsupported (or oversized) part becomes, whatever its
/// provenance; absent ⇒ by provenance (attached errors, tool-derived degrades).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnUnsupportedPart {
    /// A typed error at assembly, before any HTTP call.
    Error,
    /// The §1B placeholder text.
    Text,
}

impl OnUnsupportedPart {
    /// `"error"` | `"text"`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "error" => Some(Self::Error),
            "text" => Some(Self::Text),
            _ => None,
        }
    }
}

/// Why a part has no block on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The style defines no block for it (the table's two refusals, or an unknown pair).
    Unsupported {
        /// The style's own reason.
        why: &'static str,
    },
    /// Over `maxPartBytes` (decoded bytes).
    TooLarge {
        /// The limit.
        max: u64,
    },
}

/// The refused part, as its descriptor only (never its data).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartError {
    /// The part's `{type, mimeType, bytes}`, compact JSON.
    pub descriptor: String,
    /// The style.
    pub style: Style,
    /// Attached or tool-derived.
    pub provenance: Provenance,
    /// Why.
    pub refusal: Refusal,
}

impl std::fmt::Display for PartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let from = match self.provenance {
            Provenance::Attached => "attached",
            Provenance::ToolDerived => "tool-derived",
        };
        let style = match self.style {
            Style::OpenAi => "openai",
            Style::Anthropic => "anthropic",
        };
        match &self.refusal {
            Refusal::Unsupported { why } => write!(
                f,
                "unsupported content part: the {from} part {} has no {style} block ({why})",
                self.descriptor
            ),
            Refusal::TooLarge { max } => write!(
                f,
                "content part too large: the {from} part {} is over maxPartBytes {max}",
                self.descriptor
            ),
        }
    }
}

/// What assembly needs of the client: the two options and the warn-once latch.
pub struct Policy<'a> {
    /// The wire.
    pub style: Style,
    /// `onUnsupportedPart`.
    pub on_unsupported: Option<OnUnsupportedPart>,
    /// `maxPartBytes`.
    pub max_part_bytes: Option<u64>,
    /// Set once a tool-derived part degraded (the warning is printed once per client).
    pub warned: &'a AtomicBool,
    /// Where a run keeps the descriptor of each non-text part sent as a block, for its
    /// `llm` events' `parts` (§8, a MAY); `None` where nothing reports them.
    pub sent: Option<&'a Mutex<Vec<Value>>>,
}

impl Policy<'_> {
    /// One part's block: its §8A shape, or the placeholder text block, or the typed error.
    pub fn block(&self, part: &ContentPart, provenance: Provenance) -> Result<Value, PartError> {
        let refusal = match self.max_part_bytes {
            Some(max) if part.decoded_bytes() as u64 > max => Some(Refusal::TooLarge { max }),
            _ => None,
        };
        let emitted = match refusal {
            Some(r) => Err(r),
            None => emit(self.style, part).and_then(|b| allowlisted(self.style, b)),
        };
        let refusal = match emitted {
            Ok(block) => {
                if let (Some(sent), false) = (self.sent, matches!(part, ContentPart::Text(_))) {
                    if let Ok(mut sent) = sent.lock() {
                        sent.push(part.descriptor());
                    }
                }
                return Ok(block);
            }
            Err(r) => r,
        };
        let as_text = match self.on_unsupported {
            Some(OnUnsupportedPart::Error) => false,
            Some(OnUnsupportedPart::Text) => true,
            None => provenance == Provenance::ToolDerived,
        };
        let descriptor = part.descriptor().to_string();
        if !as_text {
            return Err(PartError {
                descriptor,
                style: self.style,
                provenance,
                refusal,
            });
        }
        if !self.warned.swap(true, Ordering::Relaxed) {
            // Warn once per client (NOTES #382): stderr, the descriptor only.
            eprintln!(
                "toolnexus: {}; sent as its placeholder text",
                PartError {
                    descriptor,
                    style: self.style,
                    provenance,
                    refusal,
                }
            );
        }
        Ok(json!({"type": "text", "text": part.placeholder()}))
    }
}

/// §8A's table: the block of a part on a style, or the style's refusal.
pub fn emit(style: Style, part: &ContentPart) -> Result<Value, Refusal> {
    let m = match part {
        ContentPart::Text(t) => return Ok(json!({"type": "text", "text": t})),
        ContentPart::Media(m) => m,
    };
    match style {
        Style::OpenAi => openai_block(m),
        Style::Anthropic => anthropic_block(m),
    }
}

/// A JSON object of these members, in this order, each value moved in: `json!` would
/// serialise a copy of every interpolated value, and a part's base64 may be megabytes.
pub(crate) fn obj<const N: usize>(members: [(&str, Value); N]) -> Value {
    Value::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

fn data_url(m: &MediaPart, data: &str) -> String {
    format!("data:{};base64,{data}", m.mime_type)
}

fn openai_block(m: &MediaPart) -> Result<Value, Refusal> {
    match (m.kind, &m.body) {
        (MediaKind::Image, PartBody::Data(d)) => {
            Ok(json!({"type": "image_url", "image_url": {"url": data_url(m, d)}}))
        }
        (MediaKind::Image, PartBody::Url(u)) => {
            Ok(json!({"type": "image_url", "image_url": {"url": u}}))
        }
        (MediaKind::File, PartBody::Data(d)) => Ok(json!({"type": "file", "file": {
            "filename": file_name(m), "file_data": data_url(m, d)}})),
        (MediaKind::File, PartBody::Url(_)) => Err(Refusal::Unsupported {
            why: "Chat Completions has no URL form for file",
        }),
        (MediaKind::Audio, PartBody::Data(d)) => Ok(json!({"type": "input_audio",
            "input_audio": {"data": d, "format": audio_format(&m.mime_type)}})),
        (MediaKind::Audio, PartBody::Url(_)) => Err(Refusal::Unsupported {
            why: "input_audio carries data only, no URL form",
        }),
    }
}

fn anthropic_block(m: &MediaPart) -> Result<Value, Refusal> {
    let block = match m.kind {
        MediaKind::Image => "image",
        MediaKind::File => "document",
        MediaKind::Audio => {
            return Err(Refusal::Unsupported {
                why: "Anthropic defines no audio block",
            })
        }
    };
    let source = match &m.body {
        PartBody::Data(d) => obj([
            ("type", "base64".into()),
            ("media_type", Value::String(m.mime_type.clone())),
            ("data", Value::String(d.clone())),
        ]),
        PartBody::Url(u) => json!({"type": "url", "url": u}),
    };
    Ok(obj([("type", block.into()), ("source", source)]))
}

/// A file part's `filename`: its name, else `file` with the media table's extension for
/// its mime type, else plain `file` (NOTES #381).
fn file_name(m: &MediaPart) -> String {
    if let Some(n) = m.name.as_deref().filter(|n| !n.is_empty()) {
        return n.to_string();
    }
    crate::content::MEDIA_TABLE
        .iter()
        .find(|(_, mime, _)| mime.eq_ignore_ascii_case(&m.mime_type))
        .map_or_else(|| "file".to_string(), |(ext, _, _)| format!("file.{ext}"))
}

/// `input_audio.format` from the mime type: `audio/mpeg` ⇒ `mp3`, otherwise the subtype
/// without an `x-` prefix (`audio/wav` ⇒ `wav`) (NOTES #380).
pub fn audio_format(mime: &str) -> String {
    let sub = mime.split('/').nth(1).unwrap_or(mime);
    let sub = sub.split(';').next().unwrap_or(sub).trim();
    let sub = sub.strip_prefix("x-").unwrap_or(sub).to_ascii_lowercase();
    match sub.as_str() {
        "mpeg" | "mp3" => "mp3".to_string(),
        "wave" | "vnd.wave" => "wav".to_string(),
        _ => sub,
    }
}

/// The positive allowlist: the block types each style may send; anything else never
/// reaches the wire.
fn allowlisted(style: Style, block: Value) -> Result<Value, Refusal> {
    let allowed: &[&str] = match style {
        Style::OpenAi => &["text", "image_url", "file", "input_audio"],
        Style::Anthropic => &["text", "image", "document"],
    };
    let ty = block.get("type").and_then(Value::as_str).unwrap_or("");
    if allowed.contains(&ty) {
        Ok(block)
    } else {
        Err(Refusal::Unsupported {
            why: "no allowlisted block",
        })
    }
}

/// The user turn's `content`: a string as given, parts as their blocks in order.
pub fn user_content(prompt: &Prompt, policy: &Policy<'_>) -> Result<Value, PartError> {
    match prompt {
        Prompt::Text(s) => Ok(Value::String(s.clone())),
        Prompt::Parts(parts) => parts
            .iter()
            .map(|p| policy.block(p, Provenance::Attached))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
    }
}

/// The wire messages of a turn: the transcript with each synthetic `user` message placed
/// right after the tool message it follows (keyed by that message's `tool_call_id`).
pub fn with_relocated(messages: &[Value], relocated: &[(String, Value)]) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len() + relocated.len());
    for m in messages {
        out.push(m.clone());
        if m.get("role").and_then(Value::as_str) != Some("tool") {
            continue;
        }
        let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or("");
        for (after, synthetic) in relocated {
            if after == id {
                out.push(synthetic.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(v: Value) -> ContentPart {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn the_emission_table() {
        let img = part(json!({"type": "image", "mimeType": "image/png", "data": "AAEC"}));
        assert_eq!(
            emit(Style::OpenAi, &img).unwrap(),
            json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAEC"}})
        );
        assert_eq!(
            emit(Style::Anthropic, &img).unwrap(),
            json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAEC"}})
        );
        let audio = part(json!({"type": "audio", "mimeType": "audio/wav", "data": "AAEC"}));
        assert!(emit(Style::Anthropic, &audio).is_err());
        assert_eq!(
            emit(Style::OpenAi, &audio).unwrap()["input_audio"]["format"],
            "wav"
        );
        let file =
            part(json!({"type": "file", "mimeType": "application/pdf", "url": "https://x/a.pdf"}));
        assert!(emit(Style::OpenAi, &file).is_err());
        assert_eq!(audio_format("audio/mpeg"), "mp3");
        assert_eq!(audio_format("audio/x-wav"), "wav");
    }

    #[test]
    fn relocated_messages_follow_their_tool_message() {
        let msgs = vec![
            json!({"role": "tool", "tool_call_id": "a", "content": "x"}),
            json!({"role": "tool", "tool_call_id": "b", "content": "y"}),
        ];
        let out = with_relocated(&msgs, &[("b".into(), json!({"role": "user"}))]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[2]["role"], "user");
    }
}
