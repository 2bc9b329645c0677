//! Scenario files for the mock LLM: an ordered list of replies, each picked by what the
//! request says (model, tool-result count, last user text, question keys, wire style),
//! parsed and validated up front so a bad file fails at start, never mid-test.

use std::path::Path;

use axum::body::Bytes;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use regex::Regex;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::loopback;

/// Which provider's wire a request or reply uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// `POST /chat/completions`.
    Openai,
    /// `POST /v1/messages` (or `/messages`).
    Anthropic,
    /// `POST /systemone` (or `/v1/systemone`): the SPEC §8B classifier wire.
    Systemone,
}

impl Style {
    /// The name used in scenarios and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Anthropic => "anthropic",
            Self::Systemone => "systemone",
        }
    }
}

/// Token counts of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Prompt (OpenAI) / input (Anthropic) tokens.
    pub input: u64,
    /// Completion (OpenAI) / output (Anthropic) tokens.
    pub output: u64,
    /// OpenAI's `total_tokens`; the sum when the scenario gives none.
    pub total: u64,
}

/// A comparison on the number of tool-result messages a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// Exactly.
    Eq(u64),
    /// At least.
    Ge(u64),
    /// More than.
    Gt(u64),
    /// At most.
    Le(u64),
    /// Fewer than.
    Lt(u64),
}

impl Count {
    /// Whether `n` satisfies the comparison.
    pub fn holds(self, n: u64) -> bool {
        match self {
            Self::Eq(k) => n == k,
            Self::Ge(k) => n >= k,
            Self::Gt(k) => n > k,
            Self::Le(k) => n <= k,
            Self::Lt(k) => n < k,
        }
    }
}

/// What a request must look like for a reply to be used; an absent field matches anything.
#[derive(Debug, Clone, Default)]
pub struct Match {
    /// The request's `model`, exactly.
    pub model: Option<String>,
    /// The tool-result count.
    pub tool_msgs: Option<Count>,
    /// A regex searched in the last user text.
    pub last_user_text: Option<Regex>,
    /// The wire the request came on.
    pub style: Option<Style>,
    /// A substring some tool result must contain.
    pub tool_result_contains: Option<String>,
    /// A substring no tool result may contain.
    pub no_tool_result_contains: Option<String>,
    /// A regex searched in the system text.
    pub system_text: Option<Regex>,
    /// A key the systemone request's `questions` object must have.
    pub question_key: Option<String>,
}

impl Match {
    /// The first filter set that reads a chat transcript (none of them holds on a
    /// systemone request), by its scenario name.
    pub fn chat_filter(&self) -> Option<&'static str> {
        [
            (self.tool_msgs.is_some(), "toolMsgs"),
            (self.last_user_text.is_some(), "lastUserText"),
            (self.tool_result_contains.is_some(), "toolResultContains"),
            (
                self.no_tool_result_contains.is_some(),
                "noToolResultContains",
            ),
            (self.system_text.is_some(), "systemText"),
        ]
        .into_iter()
        .find_map(|(set, name)| set.then_some(name))
    }

    /// Whether a chat request (OpenAI or Anthropic) can satisfy it at all.
    fn reaches_chat(&self) -> bool {
        self.style != Some(Style::Systemone) && self.question_key.is_none()
    }

    /// Whether a systemone request can satisfy it at all.
    fn reaches_systemone(&self) -> bool {
        self.style.is_none_or(|s| s == Style::Systemone) && self.chat_filter().is_none()
    }
}

/// One tool call a reply makes.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments (a JSON object).
    pub args: Value,
    /// The arguments text sent verbatim (`argumentsRaw`); `None` ⇒ the compact `args`.
    pub raw: Option<String>,
    /// The call id; generated (`call_mock_N` / `toolu_mock_N`) when absent.
    pub id: Option<String>,
}

/// How a reply fails instead of answering.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// This status, an optional raw `Retry-After` value and an optional raw body.
    Status {
        /// The HTTP status.
        status: StatusCode,
        /// The `Retry-After` header, verbatim.
        retry_after: Option<HeaderValue>,
        /// The body, verbatim; a provider-shaped error JSON when absent.
        body: Option<String>,
    },
    /// Close the connection without a complete answer.
    Drop,
    /// 200 with a body that is not JSON (or not SSE JSON when streaming).
    Malformed,
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Reply {
    /// When it applies.
    pub when: Match,
    /// How many times it may be used; unlimited when absent.
    pub times: Option<u64>,
    /// Wait this long before answering (any reply, failures included).
    pub delay_ms: u64,
    /// What it answers.
    pub answer: Answer,
}

/// A reply's content.
#[derive(Debug, Clone)]
pub enum Answer {
    /// A model turn (chat requests only).
    Turn(Turn),
    /// A systemone response body, sent verbatim with 200 (systemone requests only): a
    /// `decision` exactly as the scenario file writes it, or a `decisionRaw` string's text.
    Decision(Bytes),
    /// A failure (either kind of request).
    Fail(Failure),
}

impl Answer {
    /// Whether this kind of answer may answer a request on `style`'s wire: a turn only a
    /// chat request, a decision only a systemone request, a failure either.
    pub fn serves(&self, style: Style) -> bool {
        match self {
            Self::Turn(_) => style != Style::Systemone,
            Self::Decision(_) => style == Style::Systemone,
            Self::Fail(_) => true,
        }
    }
}

/// A successful model turn.
#[derive(Debug, Clone)]
pub struct Turn {
    /// The text template (see [`Template`]); no text block when absent.
    pub text: Option<Template>,
    /// Tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// `finish_reason` / `stop_reason` verbatim, instead of the derived one.
    pub finish_reason: Option<String>,
    /// Instead of the scenario's `usagePerCall`.
    pub usage: Option<Usage>,
}

/// A piece of a text template.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    /// Literal text.
    Lit(String),
    /// Every tool result, joined with the separator.
    ToolResults(String),
    /// The N-th tool result (0-based), empty when there is none.
    ToolResult(usize),
    /// The last user text.
    LastUserText,
    /// The request's model.
    Model,
    /// The tool-result count.
    ToolMsgs,
    /// The last tool result, empty when there is none.
    LastToolResult,
    /// How many times the regex matches in the last user text.
    LastUserCount(Pattern),
    /// The system text's `## X` headings, in order, joined by `,`.
    SystemHeadings,
    /// Every media block of the request's messages, where it sits and what it carries,
    /// joined with the separator (`request::media`).
    Media(String),
}

/// A template's regex, compared by its source so templates stay comparable.
#[derive(Debug, Clone)]
pub struct Pattern(pub Regex);

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

/// A parsed `text` template.
#[derive(Debug, Clone, PartialEq)]
pub struct Template(pub Vec<Piece>);

/// A validated scenario.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The replies, first match wins.
    pub replies: Vec<Reply>,
    /// Usage of a turn that gives none.
    pub usage_per_call: Usage,
    /// When set, the other style's routes answer 404.
    pub style: Option<Style>,
    /// Headers every request must carry: header → environment variable with the value.
    pub require_headers_from_env: Vec<(HeaderName, String)>,
}

/// Usage when neither the reply nor the scenario gives one.
pub const DEFAULT_USAGE: Usage = Usage {
    input: 10,
    output: 5,
    total: 15,
};

/// Reads and validates a scenario file; the error names the file and what is wrong.
pub fn load_scenario(path: impl AsRef<Path>) -> Result<Scenario, String> {
    loopback::load_json(path.as_ref(), parse_scenario)
}

/// Parses and validates scenario JSON.
pub fn parse_scenario(text: &str) -> Result<Scenario, String> {
    loopback::parse_object::<ScenarioFile>(text)?.validate()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ScenarioFile {
    replies: Vec<ReplyFile>,
    #[serde(default)]
    usage_per_call: Option<UsageFile>,
    #[serde(default)]
    style: Option<Style>,
    #[serde(default)]
    require_headers_from_env: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MatchFile {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    tool_msgs: Option<Value>,
    #[serde(default)]
    last_user_text: Option<String>,
    #[serde(default)]
    style: Option<Style>,
    #[serde(default)]
    tool_result_contains: Option<String>,
    #[serde(default)]
    no_tool_result_contains: Option<String>,
    #[serde(default)]
    system_text: Option<String>,
    #[serde(default)]
    question_key: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ReplyFile {
    #[serde(default, rename = "match")]
    when: Option<MatchFile>,
    #[serde(default)]
    times: Option<u64>,
    #[serde(default)]
    delay_ms: Option<u64>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    separator: Option<String>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallFile>>,
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    usage: Option<UsageFile>,
    #[serde(default)]
    status: Option<u16>,
    #[serde(default)]
    retry_after: Option<String>,
    #[serde(default)]
    body: Option<String>,
    #[serde(default)]
    drop: bool,
    #[serde(default)]
    malformed: bool,
    /// Kept as the file's own bytes: `0`, `1.21`, key order and spacing reach the client
    /// exactly as written (a `Value` would re-render them).
    #[serde(default, deserialize_with = "present_raw")]
    decision: Option<Box<RawValue>>,
    #[serde(default)]
    decision_raw: Option<String>,
}

/// A present member as `Some`, `null` included: `"decision": null` is a decision of `null`,
/// not an absent one.
fn present_raw<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    Box::<RawValue>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolCallFile {
    name: String,
    #[serde(default)]
    args: Option<Value>,
    #[serde(default, rename = "argumentsRaw")]
    arguments_raw: Option<String>,
    #[serde(default)]
    id: Option<String>,
}

/// Both providers' spellings, so a fixture's `usagePerCall` is copied as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UsageFile {
    #[serde(default, alias = "input_tokens")]
    prompt_tokens: Option<u64>,
    #[serde(default, alias = "output_tokens")]
    completion_tokens: Option<u64>,
    #[serde(default)]
    total_tokens: Option<u64>,
}

impl UsageFile {
    fn validate(self) -> Usage {
        let input = self.prompt_tokens.unwrap_or(0);
        let output = self.completion_tokens.unwrap_or(0);
        Usage {
            input,
            output,
            total: self.total_tokens.unwrap_or(input + output),
        }
    }
}

impl ScenarioFile {
    fn validate(self) -> Result<Scenario, String> {
        if self.replies.is_empty() {
            return Err("replies: must hold at least one reply".into());
        }
        let replies = self
            .replies
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.validate().map_err(|e| format!("replies[{i}].{e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let mut require_headers_from_env: Vec<(HeaderName, String)> = Vec::new();
        for (key, value) in self.require_headers_from_env {
            let field = "requireHeadersFromEnv";
            let name = HeaderName::from_bytes(key.as_bytes())
                .map_err(|_| format!("{field}: {key:?} is not a valid HTTP header name"))?;
            if require_headers_from_env.iter().any(|(n, _)| *n == name) {
                return Err(format!("{field}: header {name} is required twice"));
            }
            match value {
                Value::String(var) if !var.is_empty() => require_headers_from_env.push((name, var)),
                _ => return Err(format!("{field}.{key}: must name an environment variable")),
            }
        }
        Ok(Scenario {
            replies,
            usage_per_call: self
                .usage_per_call
                .map(UsageFile::validate)
                .unwrap_or(DEFAULT_USAGE),
            style: self.style,
            require_headers_from_env,
        })
    }
}

impl MatchFile {
    fn validate(self) -> Result<Match, String> {
        let tool_msgs = self
            .tool_msgs
            .map(|v| parse_count(&v).map_err(|e| format!("toolMsgs: {e}")))
            .transpose()?;
        let last_user_text = self
            .last_user_text
            .map(|r| Regex::new(&r).map_err(|e| format!("lastUserText: bad regex: {e}")))
            .transpose()?;
        let system_text = self
            .system_text
            .map(|r| Regex::new(&r).map_err(|e| format!("systemText: bad regex: {e}")))
            .transpose()?;
        Ok(Match {
            model: self.model,
            tool_msgs,
            last_user_text,
            style: self.style,
            tool_result_contains: self.tool_result_contains,
            no_tool_result_contains: self.no_tool_result_contains,
            system_text,
            question_key: self.question_key,
        })
    }
}

/// `0`, `"2"`, `">=1"`, `">0"`, `"<=3"`, `"<2"`, `"==1"`: the shared fixtures' `whenToolMsgs`.
pub fn parse_count(value: &Value) -> Result<Count, String> {
    if let Some(n) = value.as_u64() {
        return Ok(Count::Eq(n));
    }
    let Some(text) = value.as_str() else {
        return Err(format!(
            "{value} is neither a count nor a comparison string"
        ));
    };
    let t = text.trim();
    let (make, rest): (fn(u64) -> Count, &str) = if let Some(r) = t.strip_prefix(">=") {
        (Count::Ge, r)
    } else if let Some(r) = t.strip_prefix("<=") {
        (Count::Le, r)
    } else if let Some(r) = t.strip_prefix("==") {
        (Count::Eq, r)
    } else if let Some(r) = t.strip_prefix('>') {
        (Count::Gt, r)
    } else if let Some(r) = t.strip_prefix('<') {
        (Count::Lt, r)
    } else {
        (Count::Eq, t)
    };
    rest.trim()
        .parse::<u64>()
        .map(make)
        .map_err(|_| format!("{text:?} is not N, >=N, >N, <=N, <N or ==N"))
}

/// Parses `{{toolResults}}`, `{{toolResult.N}}`, `{{toolResult.last}}`, `{{lastUserText}}`,
/// `{{lastUserText.count:REGEX}}`, `{{systemHeadings}}`, `{{model}}`, `{{toolMsgs}}`, `{{media}}`;
/// anything else between braces is an error.
pub fn parse_template(text: &str, separator: &str) -> Result<Template, String> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        if start > 0 {
            pieces.push(Piece::Lit(rest[..start].to_string()));
        }
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err(format!("unclosed {{{{ in {text:?}"));
        };
        let inner = &after[..end];
        let name = inner.trim();
        let piece = match name {
            "toolResults" => Piece::ToolResults(separator.to_string()),
            "toolResult.last" => Piece::LastToolResult,
            "lastUserText" => Piece::LastUserText,
            "systemHeadings" => Piece::SystemHeadings,
            "model" => Piece::Model,
            "toolMsgs" => Piece::ToolMsgs,
            "media" => Piece::Media(separator.to_string()),
            other => {
                // The regex is taken untrimmed: a trailing space may be part of it.
                if let Some(re) = inner.trim_start().strip_prefix("lastUserText.count:") {
                    let regex = Regex::new(re)
                        .map_err(|e| format!("{{{{lastUserText.count:{re}}}}}: bad regex: {e}"))?;
                    Piece::LastUserCount(Pattern(regex))
                } else {
                    match other
                        .strip_prefix("toolResult.")
                        .and_then(|n| n.parse::<usize>().ok())
                    {
                        Some(n) => Piece::ToolResult(n),
                        None => return Err(format!("unknown placeholder {{{{{other}}}}}")),
                    }
                }
            }
        };
        pieces.push(piece);
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Lit(rest.to_string()));
    }
    Ok(Template(pieces))
}

impl ReplyFile {
    fn validate(self) -> Result<Reply, String> {
        let when = match self.when {
            Some(m) => m.validate().map_err(|e| format!("match.{e}"))?,
            None => Match::default(),
        };
        if self.times == Some(0) {
            return Err("times: 0 would never be used".into());
        }
        let turn_given = self.text.is_some()
            || self.tool_calls.is_some()
            || self.finish_reason.is_some()
            || self.usage.is_some();
        let failures = [self.status.is_some(), self.drop, self.malformed];
        let failing = failures.iter().filter(|f| **f).count();
        if failing > 1 {
            return Err("status, drop and malformed are exclusive".into());
        }
        if failing == 1 && turn_given {
            return Err("a failing reply (status, drop, malformed) has no text, toolCalls, finishReason or usage".into());
        }
        let deciding = self.decision.is_some() || self.decision_raw.is_some();
        if self.decision.is_some() && self.decision_raw.is_some() {
            return Err("decision and decisionRaw are exclusive".into());
        }
        if deciding && (turn_given || self.separator.is_some() || failing > 0) {
            return Err("a decision reply (decision, decisionRaw) has no text, toolCalls, finishReason, usage, separator, status, drop or malformed".into());
        }
        if self.status.is_none() && (self.retry_after.is_some() || self.body.is_some()) {
            return Err(format!(
                "{}: only with status",
                if self.retry_after.is_some() {
                    "retryAfter"
                } else {
                    "body"
                }
            ));
        }
        if self.separator.is_some() && self.text.is_none() {
            return Err("separator: only with text".into());
        }
        let answer = if let Some(s) = self.status {
            let status = StatusCode::from_u16(s)
                .ok()
                .filter(|c| c.as_u16() >= 200)
                .ok_or_else(|| format!("status: {s} is not an HTTP status of 200..=999"))?;
            let retry_after = self
                .retry_after
                .map(|v| {
                    HeaderValue::from_str(&v)
                        .map_err(|_| format!("retryAfter: {v:?} cannot be an HTTP header value"))
                })
                .transpose()?;
            Answer::Fail(Failure::Status {
                status,
                retry_after,
                body: self.body,
            })
        } else if self.drop {
            Answer::Fail(Failure::Drop)
        } else if self.malformed {
            Answer::Fail(Failure::Malformed)
        } else if let Some(raw) = self.decision {
            Answer::Decision(Bytes::copy_from_slice(raw.get().as_bytes()))
        } else if let Some(raw) = self.decision_raw {
            Answer::Decision(Bytes::from(raw))
        } else {
            if self.text.is_none() && self.tool_calls.as_ref().is_none_or(Vec::is_empty) {
                return Err(
                    "needs text, toolCalls, decision, decisionRaw, status, drop or malformed"
                        .into(),
                );
            }
            let separator = self.separator.unwrap_or_else(|| "\n".into());
            let text = self
                .text
                .map(|t| parse_template(&t, &separator).map_err(|e| format!("text: {e}")))
                .transpose()?;
            let tool_calls = self
                .tool_calls
                .unwrap_or_default()
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    let args = match (&c.arguments_raw, c.args) {
                        (Some(_), Some(_)) => {
                            return Err(format!(
                                "toolCalls[{i}]: args and argumentsRaw are exclusive"
                            ))
                        }
                        (Some(raw), None) => serde_json::from_str(raw)
                            .map_err(|e| format!("toolCalls[{i}].argumentsRaw: not JSON: {e}"))?,
                        (None, args) => args.unwrap_or_else(|| Value::Object(Map::new())),
                    };
                    if !args.is_object() {
                        return Err(format!("toolCalls[{i}].args: must be a JSON object"));
                    }
                    if c.name.is_empty() {
                        return Err(format!("toolCalls[{i}].name: must not be empty"));
                    }
                    Ok(ToolCall {
                        name: c.name,
                        args,
                        raw: c.arguments_raw,
                        id: c.id,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Answer::Turn(Turn {
                text,
                tool_calls,
                finish_reason: self.finish_reason,
                usage: self.usage.map(UsageFile::validate),
            })
        };
        reachable(&when, &answer)?;
        Ok(Reply {
            when,
            times: self.times,
            delay_ms: self.delay_ms.unwrap_or(0),
            answer,
        })
    }
}

/// Refuses a reply no request could ever be answered with, naming the filter at fault: a
/// turn filtered to systemone requests, a decision filtered to chat requests, a failure
/// filtered to both at once.
fn reachable(when: &Match, answer: &Answer) -> Result<(), String> {
    let chat = when.reaches_chat();
    let systemone = when.reaches_systemone();
    // What keeps a chat request out, and what keeps a systemone request out.
    let not_chat = if when.style == Some(Style::Systemone) {
        "match.style \"systemone\""
    } else {
        "match.questionKey (only a systemone request has questions)"
    };
    let not_systemone = match (when.style, when.chat_filter()) {
        (Some(s), _) if s != Style::Systemone => format!("match.style {:?}", s.as_str()),
        (_, Some(filter)) => format!("match.{filter} (it never holds on a systemone request)"),
        _ => String::new(),
    };
    match answer {
        Answer::Turn(_) if !chat => Err(format!(
            "{not_chat}: a text/toolCalls reply answers chat requests only"
        )),
        Answer::Decision(_) if !systemone => Err(format!(
            "{not_systemone}: a decision reply answers systemone requests only"
        )),
        Answer::Fail(_) if !chat && !systemone => Err(format!(
            "{not_chat} and {not_systemone}: no request can match both"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        match parse_scenario(text) {
            Ok(_) => panic!("accepted {text}"),
            Err(e) => e,
        }
    }

    #[test]
    fn a_full_reply_parses() {
        let s = parse_scenario(
            r#"{"style": "openai",
                "usagePerCall": {"prompt_tokens": 30, "completion_tokens": 10, "total_tokens": 40},
                "replies": [
                  {"match": {"model": "m", "toolMsgs": ">=1", "lastUserText": "^hi", "style": "openai"},
                   "text": "got {{toolResults}} / {{toolResult.0}}", "separator": " + "},
                  {"toolCalls": [{"name": "lookup", "args": {"q": "x"}, "id": "c1"}], "times": 2},
                  {"status": 429, "retryAfter": "", "body": "slow down"}
                ]}"#,
        )
        .unwrap();
        assert_eq!(s.replies.len(), 3);
        assert_eq!(s.usage_per_call.total, 40);
        assert_eq!(s.replies[0].when.tool_msgs, Some(Count::Ge(1)));
        assert_eq!(s.replies[1].times, Some(2));
        let Answer::Turn(t) = &s.replies[0].answer else {
            panic!("not a turn")
        };
        assert_eq!(
            t.text,
            Some(Template(vec![
                Piece::Lit("got ".into()),
                Piece::ToolResults(" + ".into()),
                Piece::Lit(" / ".into()),
                Piece::ToolResult(0),
            ]))
        );
    }

    #[test]
    fn bad_fields_are_named() {
        assert!(err(r#"{"replies": [{"text": "a", "bogus": 1}]}"#).contains("bogus"));
        assert!(
            err(r#"{"replies": [{"match": {"toolMsgs": "~1"}, "text": "a"}]}"#)
                .contains("replies[0].match.toolMsgs")
        );
        assert!(
            err(r#"{"replies": [{"match": {"lastUserText": "("}, "text": "a"}]}"#)
                .contains("replies[0].match.lastUserText")
        );
        assert!(err(r#"{"replies": [{"text": "a"}, {"text": "{{nope}}"}]}"#)
            .contains("replies[1].text: unknown placeholder {{nope}}"));
        assert!(err(r#"{"replies": [{"status": 42}]}"#).contains("replies[0].status"));
        assert!(
            err(r#"{"replies": [{"retryAfter": "1"}]}"#).contains("retryAfter: only with status")
        );
        assert!(err(r#"{"replies": [{"drop": true, "text": "x"}]}"#).contains("failing reply"));
        assert!(err(r#"{"replies": [{"times": 0, "text": "x"}]}"#).contains("times"));
        assert!(err(r#"{"replies": [{}]}"#).contains("needs text"));
        assert!(err(r#"{"replies": []}"#).contains("replies"));
        assert!(err(r#"{"replies": [{"text": "x"}], "style": "gemini"}"#).contains("gemini"));
        assert!(
            err(r#"{"replies": [{"toolCalls": [{"name": "t", "args": 1}]}]}"#)
                .contains("replies[0].toolCalls[0].args")
        );
        assert!(err(
            r#"{"replies": [{"toolCalls": [{"name": "t", "args": {}, "argumentsRaw": "{}"}]}]}"#
        )
        .contains("exclusive"));
        assert!(
            err(r#"{"replies": [{"toolCalls": [{"name": "t", "argumentsRaw": "{x"}]}]}"#)
                .contains("argumentsRaw")
        );
    }

    #[test]
    fn agent_fixture_keys_parse() {
        let s = parse_scenario(
            r#"{"replies": [
                  {"match": {"toolResultContains": "tok", "noToolResultContains": "no",
                             "systemText": "(?m)^## A$"},
                   "text": "{{toolResult.last}}:{{ lastUserText.count:^[0-9]+\\. }}:{{systemHeadings}}"}
                ]}"#,
        )
        .unwrap();
        let when = &s.replies[0].when;
        assert_eq!(when.tool_result_contains.as_deref(), Some("tok"));
        assert_eq!(when.no_tool_result_contains.as_deref(), Some("no"));
        assert_eq!(
            when.system_text.as_ref().map(Regex::as_str),
            Some("(?m)^## A$")
        );
        let Answer::Turn(t) = &s.replies[0].answer else {
            panic!("not a turn")
        };
        let pieces = &t.text.as_ref().unwrap().0;
        assert_eq!(pieces[0], Piece::LastToolResult);
        // The count's regex keeps its trailing space.
        let Piece::LastUserCount(p) = &pieces[2] else {
            panic!("{pieces:?}")
        };
        assert_eq!(p.0.as_str(), "^[0-9]+\\. ");
        assert_eq!(pieces[4], Piece::SystemHeadings);
        let media = parse_template("m: {{media}}", " | ").unwrap();
        assert_eq!(media.0[1], Piece::Media(" | ".into()));
        assert!(
            err(r#"{"replies": [{"match": {"systemText": "("}, "text": "a"}]}"#)
                .contains("replies[0].match.systemText")
        );
        assert!(
            err(r#"{"replies": [{"text": "{{lastUserText.count:(}}"}]}"#)
                .contains("replies[0].text: {{lastUserText.count:(}}: bad regex")
        );
        assert!(err(r#"{"replies": [{"text": "{{toolResult.first}}"}]}"#)
            .contains("unknown placeholder {{toolResult.first}}"));
    }

    #[test]
    fn counts_read_like_the_fixtures() {
        assert_eq!(parse_count(&serde_json::json!(0)), Ok(Count::Eq(0)));
        assert_eq!(parse_count(&serde_json::json!(">=1")), Ok(Count::Ge(1)));
        assert_eq!(parse_count(&serde_json::json!("<2")), Ok(Count::Lt(2)));
        assert_eq!(parse_count(&serde_json::json!("3")), Ok(Count::Eq(3)));
        assert!(parse_count(&serde_json::json!(">=x")).is_err());
        assert!(Count::Ge(1).holds(2) && !Count::Ge(1).holds(0));
    }

    /// A decision is kept as the file's bytes, whatever JSON it is; the systemone filters
    /// parse.
    #[test]
    fn decisions_keep_the_file_bytes() {
        let decision = r#"{"model": "jev-1.13.0", "answers": {"b": {"noul": 0}, "a": {"score": 1.21}},
             "usage": {"cost": 0.000016716}}"#;
        let s = parse_scenario(&format!(
            r#"{{"style": "systemone", "replies": [
                 {{"match": {{"questionKey": "route", "style": "systemone", "model": "m"}},
                  "decision": {decision}, "times": 1, "delayMs": 5}},
                 {{"decision": null}},
                 {{"decisionRaw": "{{ cut"}},
                 {{"match": {{"questionKey": "k"}}, "status": 529, "retryAfter": "0"}}
               ]}}"#
        ))
        .unwrap();
        assert_eq!(s.style, Some(Style::Systemone));
        let bodies: Vec<&[u8]> = s
            .replies
            .iter()
            .filter_map(|r| match &r.answer {
                Answer::Decision(b) => Some(&b[..]),
                _ => None,
            })
            .collect();
        assert_eq!(bodies, [decision.as_bytes(), b"null", b"{ cut"]);
        let when = &s.replies[0].when;
        assert_eq!(when.question_key.as_deref(), Some("route"));
        assert_eq!(when.style, Some(Style::Systemone));
        assert_eq!((s.replies[0].times, s.replies[0].delay_ms), (Some(1), 5));
        assert!(s.replies[3].answer.serves(Style::Systemone));
        assert!(s.replies[3].answer.serves(Style::Openai));
        assert!(!s.replies[0].answer.serves(Style::Anthropic));
    }

    /// A reply no request could select is refused at load, naming the filter at fault.
    #[test]
    fn unreachable_systemone_replies_are_refused() {
        for (reply, expected) in [
            (
                r#"{"decision": {}, "decisionRaw": "x"}"#,
                "decision and decisionRaw are exclusive",
            ),
            (r#"{"decision": {}, "text": "x"}"#, "a decision reply"),
            (r#"{"decisionRaw": "x", "status": 500}"#, "a decision reply"),
            (r#"{"decision": {}, "usage": {}}"#, "a decision reply"),
            (
                r#"{"match": {"style": "openai"}, "decision": {}}"#,
                r#"match.style "openai": a decision reply answers systemone requests only"#,
            ),
            (
                r#"{"match": {"toolMsgs": 0}, "decision": {}}"#,
                "match.toolMsgs (it never holds on a systemone request): a decision reply",
            ),
            (
                r#"{"match": {"style": "systemone"}, "text": "x"}"#,
                r#"match.style "systemone": a text/toolCalls reply answers chat requests only"#,
            ),
            (
                r#"{"match": {"questionKey": "k"}, "toolCalls": [{"name": "t"}]}"#,
                "match.questionKey (only a systemone request has questions): a text/toolCalls",
            ),
            (
                r#"{"match": {"questionKey": "k", "lastUserText": "x"}, "status": 500}"#,
                "match.questionKey (only a systemone request has questions) and match.lastUserText",
            ),
            (
                r#"{"match": {"style": "systemone", "systemText": "x"}, "drop": true}"#,
                r#"match.style "systemone" and match.systemText"#,
            ),
        ] {
            let e = err(&format!(r#"{{"replies": [{{"text": "ok"}}, {reply}]}}"#));
            assert!(e.starts_with("replies[1]."), "{reply}: {e}");
            assert!(e.contains(expected), "{reply}: {e}");
        }
        assert!(
            err(r#"{"replies": [{"match": {"questionKey": 1}, "decision": {}}]}"#)
                .contains("invalid type")
        );
    }
}
