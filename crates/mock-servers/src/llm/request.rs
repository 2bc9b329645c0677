//! What a reply is chosen by, read from a chat request's body (either provider's) or a
//! systemone request's.
//!
//! Only the fields matching needs are read, borrowed from the body: the rest of the
//! transcript is skipped without building a `serde_json::Value` tree for it.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

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
    /// The system text: OpenAI `role: "system"` messages, Anthropic's top-level `system`
    /// (a string or text blocks); several are joined by a newline.
    pub system: String,
    /// `stream: true`.
    pub stream: bool,
    /// OpenAI `stream_options.include_usage: true`.
    pub include_usage: bool,
    /// A systemone request's `questions` keys, sorted (none on a chat request).
    pub question_keys: Vec<String>,
}

impl Facts {
    /// Reads the facts from a request body; `None` when it is not a JSON object.
    pub fn read(style: Style, body: &[u8]) -> Option<Self> {
        // Checked up front: skipped strings are not otherwise validated as UTF-8.
        let body = std::str::from_utf8(body).ok()?;
        if style == Style::Systemone {
            return Self::read_systemone(body);
        }
        let [model, stream, stream_options, messages, system_field] = pick(
            body,
            ["model", "stream", "stream_options", "messages", "system"],
        )?;
        let mut tool_results = Vec::new();
        let mut last_user_text = String::new();
        let mut systems: Vec<String> = Vec::new();
        if style == Style::Anthropic {
            if let Some(field) = system_field {
                match string(field) {
                    Some(s) => systems.push(s.into_owned()),
                    // Each text block on its own line, so a heading opening a block stays one.
                    None => systems.extend(
                        array(field)
                            .unwrap_or_default()
                            .into_iter()
                            .filter_map(text_block),
                    ),
                }
            }
        }
        for m in messages.and_then(array).unwrap_or_default() {
            let Some([role, content]) = pick(m.get(), ["role", "content"]) else {
                continue;
            };
            let role = role.and_then(string);
            match (style, role.as_deref()) {
                (Style::Openai, Some("tool")) => tool_results.push(text_of(content)),
                (Style::Openai, Some("system")) => systems.push(text_of(content)),
                (Style::Openai, Some("user")) => {
                    let t = text_of(content);
                    if !t.is_empty() {
                        last_user_text = t;
                    }
                }
                (Style::Anthropic, Some("user")) => {
                    let blocks = content.and_then(array).unwrap_or_default();
                    let mut text = String::new();
                    for b in blocks {
                        let Some([kind, block_text, block_content]) =
                            pick(b.get(), ["type", "text", "content"])
                        else {
                            continue;
                        };
                        match kind.and_then(string).as_deref() {
                            Some("tool_result") => tool_results.push(text_of(block_content)),
                            Some("text") => {
                                if let Some(t) = block_text.and_then(string) {
                                    text.push_str(&t);
                                }
                            }
                            _ => {}
                        }
                    }
                    let t = match content.and_then(string) {
                        Some(s) => s.into_owned(),
                        None => text,
                    };
                    if !t.is_empty() {
                        last_user_text = t;
                    }
                }
                _ => {}
            }
        }
        let include_usage = stream_options
            .and_then(|o| pick(o.get(), ["include_usage"]))
            .is_some_and(|[u]| u.is_some_and(is_true));
        Some(Self {
            style,
            model: model
                .and_then(string)
                .map(Cow::into_owned)
                .unwrap_or_default(),
            tool_results,
            last_user_text,
            system: systems.join("\n"),
            stream: stream.is_some_and(is_true),
            include_usage,
            question_keys: Vec::new(),
        })
    }

    /// A systemone body's `model` and `questions` keys; it has no transcript, so every
    /// chat fact is empty.
    fn read_systemone(body: &str) -> Option<Self> {
        let [model, questions] = pick(body, ["model", "questions"])?;
        Some(Self {
            style: Style::Systemone,
            model: model
                .and_then(string)
                .map(Cow::into_owned)
                .unwrap_or_default(),
            tool_results: Vec::new(),
            last_user_text: String::new(),
            system: String::new(),
            stream: false,
            include_usage: false,
            question_keys: questions.map(keys).unwrap_or_default(),
        })
    }

    /// Whether a reply's `match` accepts this request. A chat filter never holds on a
    /// systemone request and `questionKey` never on a chat request (it has no questions).
    pub fn matches(&self, when: &Match) -> bool {
        if self.style == Style::Systemone && when.chat_filter().is_some() {
            return false;
        }
        when.model.as_ref().is_none_or(|m| *m == self.model)
            && when
                .question_key
                .as_ref()
                .is_none_or(|k| self.question_keys.binary_search(k).is_ok())
            && when.style.is_none_or(|s| s == self.style)
            && when
                .tool_msgs
                .is_none_or(|c| c.holds(self.tool_results.len() as u64))
            && when
                .last_user_text
                .as_ref()
                .is_none_or(|r| r.is_match(&self.last_user_text))
            && when
                .tool_result_contains
                .as_ref()
                .is_none_or(|s| self.tool_results.iter().any(|r| r.contains(s.as_str())))
            && when
                .no_tool_result_contains
                .as_ref()
                .is_none_or(|s| !self.tool_results.iter().any(|r| r.contains(s.as_str())))
            && when
                .system_text
                .as_ref()
                .is_none_or(|r| r.is_match(&self.system))
    }

    /// The template with this request's facts filled in; `body` is the request's own, read
    /// again only for `{{media}}` (so no other scenario pays for walking its media).
    pub fn render(&self, template: &Template, body: &[u8]) -> String {
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
                Piece::LastToolResult => {
                    out.push_str(self.tool_results.last().map_or("", String::as_str))
                }
                Piece::LastUserCount(p) => {
                    out.push_str(&p.0.find_iter(&self.last_user_text).count().to_string())
                }
                Piece::SystemHeadings => out.push_str(&headings(&self.system).join(",")),
                Piece::Media(sep) => out.push_str(&media(body).join(sep)),
            }
        }
        out
    }
}

/// Every media block of a request's messages, in order, each as `<path> <role> <type> <mime>
/// <n> <tail>`: its place, the message counted from the end (`messages[-1].content[1]`, or
/// inside an Anthropic `tool_result` `messages[-1].content[0].content[1]`), that message's
/// role, its block type, and for inline data the mime type,
/// the base64 text's length and its last 8 characters; for a link, `<path> <type> url`.
/// A media block is any content block but `text`, `tool_use` and `tool_result` (whose own
/// content is walked). Both wires' shapes are read: OpenAI `image_url.url` and
/// `file.file_data` (`data:` URLs), `input_audio.data` (its `format` as the mime), Anthropic
/// `source` (`base64` or `url`). What a bench reads back to check where a port put a part.
pub fn media(body: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(body) = std::str::from_utf8(body).ok() else {
        return out;
    };
    let Some([Some(messages)]) = pick(body, ["messages"]) else {
        return out;
    };
    let messages = array(messages).unwrap_or_default();
    let count = messages.len();
    for (i, m) in messages.into_iter().enumerate() {
        let Some([role, Some(content)]) = pick(m.get(), ["role", "content"]) else {
            continue;
        };
        let role = role.and_then(string).unwrap_or_default();
        // Counted from the end: where a part sits relative to the turn that brought it does
        // not move with a port's system message or history.
        let from_end = count - i;
        let at = format!("messages[-{from_end}].content");
        media_blocks(&at, &role, content, &mut out);
    }
    out
}

/// The media blocks of one `content` array (see [`media`]).
fn media_blocks(path: &str, role: &str, content: &RawValue, out: &mut Vec<String>) {
    for (j, block) in array(content).unwrap_or_default().into_iter().enumerate() {
        let Some([kind, nested, image_url, file, audio, source]) = pick(
            block.get(),
            [
                "type",
                "content",
                "image_url",
                "file",
                "input_audio",
                "source",
            ],
        ) else {
            continue;
        };
        let kind = kind.and_then(string).unwrap_or_default();
        let here = format!("{path}[{j}]");
        let carried = match kind.as_ref() {
            "text" | "tool_use" => continue,
            "tool_result" => {
                if let Some(nested) = nested {
                    media_blocks(&format!("{here}.content"), role, nested, out);
                }
                continue;
            }
            "image_url" => field(image_url, "url").map(|u| carried_url(&u)),
            "file" => field(file, "file_data").map(|u| carried_url(&u)),
            "input_audio" => field(audio, "data").map(|d| {
                let format = field(audio, "format").unwrap_or_default();
                data_of(&format, &d)
            }),
            _ => source.and_then(|s| {
                let [ty, media_type, data, url] =
                    pick(s.get(), ["type", "media_type", "data", "url"])?;
                match (ty.and_then(string).as_deref(), data, url) {
                    (Some("base64"), Some(d), _) => Some(data_of(
                        &media_type.and_then(string).unwrap_or_default(),
                        &string(d)?,
                    )),
                    (Some("url"), _, Some(_)) => Some("url".to_string()),
                    _ => None,
                }
            }),
        };
        let carried = carried.unwrap_or_else(|| "?".to_string());
        out.push(format!("{here} {role} {kind} {carried}"));
    }
}

/// The string member `name` of an object value, when both are there.
fn field<'a>(raw: Option<&'a RawValue>, name: &str) -> Option<Cow<'a, str>> {
    raw.and_then(|r| pick(r.get(), [name]))
        .and_then(|[v]| v)
        .and_then(string)
}

/// A `data:<mime>;base64,<b64>` URL as `<mime> <n> <tail>`; any other URL as `url`.
fn carried_url(url: &str) -> String {
    match url
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(";base64,"))
    {
        Some((mime, b64)) => data_of(mime, b64),
        None => "url".to_string(),
    }
}

/// `<mime> <n> <tail>`: the base64 text's length and its last 8 characters.
fn data_of(mime: &str, b64: &str) -> String {
    let tail = b64
        .char_indices()
        .rev()
        .nth(7)
        .map_or(b64, |(at, _)| &b64[at..]);
    format!("{mime} {} {tail}", b64.len())
}

/// The `## X` markdown headings (exactly two hashes and a space), in order, trimmed.
fn headings(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| line.strip_prefix("## "))
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .collect()
}

/// A content value's text: a string, or the `text` of its text parts/blocks joined
/// (tool_result blocks and images contribute nothing).
fn text_of(content: Option<&RawValue>) -> String {
    let Some(content) = content else {
        return String::new();
    };
    if let Some(s) = string(content) {
        return s.into_owned();
    }
    let mut out = String::new();
    for part in array(content).unwrap_or_default() {
        if let Some([Some(kind), Some(text)]) = pick(part.get(), ["type", "text"]) {
            if string(kind).as_deref() == Some("text") {
                if let Some(t) = string(text) {
                    out.push_str(&t);
                }
            }
        }
    }
    out
}

/// A `{"type": "text", "text": …}` block's text; `None` for any other value.
fn text_block(raw: &RawValue) -> Option<String> {
    let [kind, text] = pick(raw.get(), ["type", "text"])?;
    if kind.and_then(string).as_deref() != Some("text") {
        return None;
    }
    text.and_then(string).map(Cow::into_owned)
}

/// A JSON string's text (borrowed unless it has escapes); `None` for any other value.
fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    match serde_json::from_str::<&str>(raw.get()) {
        Ok(s) => Some(Cow::Borrowed(s)),
        Err(_) => serde_json::from_str::<String>(raw.get())
            .ok()
            .map(Cow::Owned),
    }
}

/// A JSON object's member names, sorted and deduplicated; none for any other value. The
/// members' values are skipped unparsed.
fn keys(raw: &RawValue) -> Vec<String> {
    serde_json::from_str::<BTreeMap<String, IgnoredAny>>(raw.get())
        .map(|m| m.into_keys().collect())
        .unwrap_or_default()
}

/// A JSON array's elements, kept raw; `None` for any other value.
fn array(raw: &RawValue) -> Option<Vec<&RawValue>> {
    serde_json::from_str(raw.get()).ok()
}

/// Whether the value is the literal `true`.
fn is_true(raw: &RawValue) -> bool {
    raw.get() == "true"
}

/// The named members of a JSON object, kept raw (the last of duplicate keys wins, as in
/// a `Value`); every other member is skipped unparsed. `None` when `json` is not one
/// JSON object.
fn pick<'a, const N: usize>(json: &'a str, names: [&str; N]) -> Option<[Option<&'a RawValue>; N]> {
    let mut de = serde_json::Deserializer::from_str(json);
    let found = Pick { names: &names }.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(found)
}

struct Pick<'n, const N: usize> {
    names: &'n [&'n str; N],
}

impl<'de, const N: usize> DeserializeSeed<'de> for Pick<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for Pick<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = [None; N];
        while let Some(index) = map.next_key_seed(Key { names: self.names })? {
            match index.and_then(|i| found.get_mut(i)) {
                Some(slot) => *slot = Some(map.next_value::<&'de RawValue>()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// A member name as its index in the wanted names, without allocating.
struct Key<'n, const N: usize> {
    names: &'n [&'n str; N],
}

impl<'de, const N: usize> DeserializeSeed<'de> for Key<'_, N> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for Key<'_, N> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(self.names.iter().position(|n| *n == v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn read(style: Style, body: Value) -> Facts {
        Facts::read(style, body.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn only_a_json_object_is_read() {
        let bodies: [&[u8]; 6] = [
            b"[1]",
            b"\"x\"",
            b"nope",
            b"{\"m\": 1} x",
            b"",
            b"{\"a\": \"\xff\"}",
        ];
        for body in bodies {
            assert_eq!(Facts::read(Style::Openai, body), None, "{body:?}");
        }
        assert!(Facts::read(Style::Openai, b" {} ").is_some());
    }

    #[test]
    fn odd_fields_read_as_absent_and_the_last_duplicate_wins() {
        let body = r#"{"model": 7, "stream": "true", "stream_options": [],
            "messages": [3, {"role": 1}, {"role": "user", "content": {"text": "x"}},
                         {"role": "us\u0065r", "content": "first", "role": "user"},
                         {"role": "tool", "content": [{"type": "text", "text": "a\nb"}, {"text": "no"}]}],
            "model": "m2", "extra": {"deep": [1, 2, {"x": null}]}}"#;
        let f = Facts::read(Style::Openai, body.as_bytes()).unwrap();
        assert_eq!(f.model, "m2");
        assert!(!f.stream && !f.include_usage);
        assert_eq!(f.last_user_text, "first");
        assert_eq!(f.tool_results, vec!["a\nb"]);
        let f = Facts::read(Style::Openai, br#"{"model": 7}"#).unwrap();
        assert_eq!(f.model, "");
    }

    #[test]
    fn openai_tool_messages_and_last_user_text() {
        let f = read(
            Style::Openai,
            json!({"model": "m", "stream": true, "stream_options": {"include_usage": true},
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
    fn the_system_text_from_either_wire() {
        let f = read(
            Style::Openai,
            json!({"messages": [{"role": "system", "content": "## A\nx"},
                                {"role": "user", "content": "u"},
                                {"role": "system", "content": [{"type": "text", "text": "## B"}]}]}),
        );
        assert_eq!(f.system, "## A\nx\n## B");
        assert_eq!(headings(&f.system), vec!["A", "B"]);
        let f = read(
            Style::Anthropic,
            json!({"system": [{"type": "text", "text": "## A"}, {"type": "image"},
                              {"type": "text", "text": "## B "}],
                   "messages": [{"role": "system", "content": "ignored"}]}),
        );
        assert_eq!(f.system, "## A\n## B ");
        assert_eq!(headings(&f.system), vec!["A", "B"]);
        let f = read(Style::Anthropic, json!({"system": "## S", "messages": []}));
        assert_eq!(f.system, "## S");
        // OpenAI has no top-level system.
        let f = read(Style::Openai, json!({"system": "## S", "messages": []}));
        assert_eq!(f.system, "");
        assert_eq!(headings("### no\n##no\n## \n## yes\r\n"), vec!["yes"]);
    }

    /// Each wire's media blocks (SPEC §8A's shapes) are found where they sit, with their
    /// mime type, base64 length and tail; text, tool_use and a string content are not media.
    #[test]
    fn media_blocks_of_both_wires() {
        let body = |v: Value| v.to_string().into_bytes();
        let openai = body(json!({"messages": [
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.test/p.png"}}]},
            {"role": "assistant", "content": null, "tool_calls": []},
            {"role": "tool", "tool_call_id": "c1", "content": "snapped"},
            {"role": "user", "content": [
                {"type": "text", "text": "Output of tool snap (c1):"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgoAAAA="}},
                {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
                {"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,JVBE"}},
                {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}}]}]}));
        assert_eq!(
            media(&openai),
            [
                "messages[-4].content[0] user image_url url",
                "messages[-1].content[1] user image_url image/png 16 GgoAAAA=",
                "messages[-1].content[2] user image_url url",
                "messages[-1].content[3] user file application/pdf 4 JVBE",
                "messages[-1].content[4] user input_audio wav 4 UklG",
            ]
        );
        let anthropic = body(json!({"messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "snap", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t", "content": [
                    {"type": "text", "text": "snapped"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]},
                {"type": "document", "source": {"type": "url", "url": "https://x.test/a.pdf"}},
                {"type": "image", "source": {"type": "other"}}]}]}));
        assert_eq!(
            media(&anthropic),
            [
                "messages[-1].content[0].content[1] user image image/png 12 Rw0KGgo=",
                "messages[-1].content[1] user document url",
                "messages[-1].content[2] user image ?",
            ]
        );
        assert!(media(b"not json").is_empty());
        assert!(media(br#"{"messages": [{"role": "user", "content": "hi"}]}"#).is_empty());
    }

    #[test]
    fn anthropic_tool_result_blocks() {
        let f = read(
            Style::Anthropic,
            json!({"model": "c", "messages": [
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

    #[test]
    fn systemone_model_and_question_keys() {
        let body = r#"{"questions": {"zeta": {"type": "noul"}, "caf\u00e9": 1, "alpha": {}},
                       "model": "jev-1", "messages": [{"role": "user", "content": "no"}]}"#;
        let f = Facts::read(Style::Systemone, body.as_bytes()).unwrap();
        assert_eq!(f.model, "jev-1");
        assert_eq!(f.question_keys, ["alpha", "café", "zeta"]);
        // A systemone body has no transcript: messages are not read.
        assert_eq!((f.last_user_text.as_str(), f.tool_results.len()), ("", 0));
        let f = Facts::read(Style::Systemone, br#"{"questions": [1], "model": 2}"#).unwrap();
        assert!(f.question_keys.is_empty() && f.model.is_empty());
        assert_eq!(Facts::read(Style::Systemone, b"[]"), None);
        // And a chat body has no questions.
        let f = read(Style::Openai, json!({"model": "m", "questions": {"k": 1}}));
        assert!(f.question_keys.is_empty());
    }

    #[test]
    fn question_key_and_chat_filters_pick_their_wire() {
        let s1 = Facts::read(
            Style::Systemone,
            br#"{"model": "m", "questions": {"k": 1}}"#,
        )
        .unwrap();
        let chat = read(Style::Openai, json!({"model": "m", "messages": []}));
        let when = |text: &str| {
            crate::llm::parse_scenario(&format!(
                r#"{{"replies": [{{"match": {text}, "status": 500}}]}}"#
            ))
            .unwrap()
            .replies[0]
                .when
                .clone()
        };
        let key = when(r#"{"questionKey": "k"}"#);
        assert!(s1.matches(&key) && !chat.matches(&key));
        assert!(!s1.matches(&when(r#"{"questionKey": "K"}"#)));
        // toolMsgs 0 holds on an empty chat, never on a systemone request.
        let none = when(r#"{"toolMsgs": 0}"#);
        assert!(chat.matches(&none) && !s1.matches(&none));
        let model = when(r#"{"model": "m"}"#);
        assert!(chat.matches(&model) && s1.matches(&model));
        let style = when(r#"{"style": "systemone"}"#);
        assert!(s1.matches(&style) && !chat.matches(&style));
    }
}
