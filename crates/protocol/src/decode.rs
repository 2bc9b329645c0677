//! Decoding at run time: a driver's answer into its typed form (for the harness), a request
//! into [`Request`] (for drivers). Answers are checked against what PROTOCOL.md states and no
//! more: envelopes, skill infos and other open types keep any extra key a port adds (§1), while
//! the pinned SPEC data types (§8) reject unknown keys.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::agent::{
    check_runtime_keys, AgentExecuteResponse, AgentResult, PostResponse, Refusable, SpawnResponse,
    TraceResponse, WakeResponse,
};
use crate::client::{
    ConversationResponse, Observed, RunOutcome, RunResponse, StreamResponse, CLIENT_OPTION_KEYS,
};
use crate::client::{TranslateOutcome, TranslateResponse};
use crate::compact::CompactResponse;
use crate::messages::*;
use crate::options::OPTION_KEYS;
use crate::ErrorKind;

/// An answer that breaks the protocol, with the JSON path of the field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolViolation {
    /// Where: `result.metadata`, `tools[2].name`, `seq`; empty for the whole answer.
    pub path: String,
    /// What is wrong there.
    pub message: String,
    /// The SPEC rule broken, when the fault is inside a pinned SPEC data type (PROTOCOL.md §8:
    /// a tool description, a ToolResult, a Request, a source status): a value a faithful
    /// driver passes on as the port gave it, so the port's failure. `None` for what only the
    /// protocol asks (envelopes, required fields, `names` order, `metadata` rendering): the
    /// driver's.
    pub spec_rule: Option<&'static str>,
}

impl ProtocolViolation {
    /// A violation at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
            spec_rule: None,
        }
    }

    /// The same violation, as a break of the SPEC rule `rule` (kept if one is named already:
    /// the innermost type names the rule most precisely).
    pub fn breaking(mut self, rule: &'static str) -> Self {
        self.spec_rule.get_or_insert(rule);
        self
    }
}

/// The SPEC rules the typed decode checks (PROTOCOL.md §8, §9 "Typed decoding").
pub mod spec_rule {
    /// A tool description's shape.
    pub const TOOL: &str =
        "SPEC §1 Tool (`{name, description: string, inputSchema: object, source}`)";
    /// A tool name's alphabet.
    pub const TOOL_NAME: &str = "SPEC §1 Tool (`name` sanitized to [a-zA-Z0-9_-], §0.2)";
    /// A tool's source vocabulary.
    pub const TOOL_SOURCE: &str = "SPEC §1 Tool (`source`: one of the SPEC's source names)";
    /// A ToolResult's shape.
    pub const TOOL_RESULT: &str =
        "SPEC §1 ToolResult (`{output: string, isError: boolean, parts?: ContentPart[], metadata?: object}`)";
    /// A content part's shape.
    pub const CONTENT_PART: &str = "SPEC §1B ContentPart (`{type:\"text\", text}` or `{type: image|file|audio, mimeType, data | url, name?}`, exactly one of data/url, data standard padded base64)";
    /// A suspension Request's shape.
    pub const REQUEST: &str =
        "SPEC §10 Request (`{id, kind, prompt, url?, data?, expiresAt?}`, a generated id)";
    /// An Answer's shape.
    pub const ANSWER: &str = "SPEC §10 Answer (`{id, ok, data?, reason?}`)";
    /// A source status's vocabulary.
    pub const STATUS: &str = "SPEC §4 `mcpStatus()` (`\"connected\"|\"failed\"|\"disabled\"`)";
}

impl fmt::Display for ProtocolViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ProtocolViolation {}

type Decoded<T> = Result<T, ProtocolViolation>;

/// A short rendering of a value for messages (answers can be huge).
fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 80 {
        text
    } else {
        format!("{}…", text.chars().take(80).collect::<String>())
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn object<'a>(v: &'a Value, path: &str) -> Decoded<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| ProtocolViolation::new(path, format!("must be an object, got {}", shown(v))))
}

fn array<'a>(v: &'a Value, path: &str) -> Decoded<&'a Vec<Value>> {
    v.as_array()
        .ok_or_else(|| ProtocolViolation::new(path, format!("must be an array, got {}", shown(v))))
}

/// A pinned type: every key must be one the protocol names.
fn closed(map: &Map<String, Value>, path: &str, allowed: &[&str]) -> Decoded<()> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(ProtocolViolation::new(path, format!("unknown key \"{k}\""))),
        None => Ok(()),
    }
}

fn required<'a>(map: &'a Map<String, Value>, path: &str, key: &str) -> Decoded<&'a Value> {
    map.get(key)
        .ok_or_else(|| ProtocolViolation::new(join(path, key), "missing"))
}

/// A leaf decoded by serde; its error is put at `path`.
fn leaf<T: DeserializeOwned>(v: &Value, path: &str) -> Decoded<T> {
    serde_json::from_value(v.clone()).map_err(|e| ProtocolViolation::new(path, e.to_string()))
}

fn field<T: DeserializeOwned>(map: &Map<String, Value>, path: &str, key: &str) -> Decoded<T> {
    leaf(required(map, path, key)?, &join(path, key))
}

/// An optional field: absent and `null` are both "not given".
fn optional<T: DeserializeOwned>(
    map: &Map<String, Value>,
    path: &str,
    key: &str,
) -> Decoded<Option<T>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => leaf(v, &join(path, key)).map(Some),
    }
}

fn list<T>(v: &Value, path: &str, item: impl Fn(&Value, &str) -> Decoded<T>) -> Decoded<Vec<T>> {
    array(v, path)?
        .iter()
        .enumerate()
        .map(|(i, x)| item(x, &format!("{path}[{i}]")))
        .collect()
}

fn is_tool_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A SPEC §1 tool description: exactly its four keys, a sanitised name, a known source. Every
/// fault is the port's (a [`spec_rule`]): the driver passes the description on.
pub fn decode_tool_description(v: &Value, path: &str) -> Decoded<ToolDescription> {
    let map = object(v, path).map_err(|e| e.breaking(spec_rule::TOOL))?;
    closed(map, path, &["name", "description", "inputSchema", "source"])
        .map_err(|e| e.breaking(spec_rule::TOOL))?;
    let name: String = field(map, path, "name").map_err(|e| e.breaking(spec_rule::TOOL))?;
    if !is_tool_name(&name) {
        return Err(ProtocolViolation::new(
            join(path, "name"),
            format!("{name:?} does not match [a-zA-Z0-9_-]+"),
        )
        .breaking(spec_rule::TOOL_NAME));
    }
    let input_schema =
        required(map, path, "inputSchema").map_err(|e| e.breaking(spec_rule::TOOL))?;
    object(input_schema, &join(path, "inputSchema")).map_err(|e| e.breaking(spec_rule::TOOL))?;
    Ok(ToolDescription {
        name,
        description: field(map, path, "description").map_err(|e| e.breaking(spec_rule::TOOL))?,
        input_schema: input_schema.clone(),
        source: field(map, path, "source").map_err(|e| e.breaking(spec_rule::TOOL_SOURCE))?,
    })
}

/// A SPEC §1 ToolResult: exactly `output`, `isError` and, only when there is some, `metadata`.
/// Its keys and their types are the port's (a [`spec_rule`]); an empty or `null` `metadata` is
/// the protocol's rendering rule (PROTOCOL.md §8), so the driver's.
pub fn decode_tool_result(v: &Value, path: &str) -> Decoded<ToolResult> {
    let spec = |e: ProtocolViolation| e.breaking(spec_rule::TOOL_RESULT);
    let map = object(v, path).map_err(spec)?;
    closed(map, path, &["output", "isError", "parts", "metadata"]).map_err(spec)?;
    let parts = match map.get("parts") {
        None => None,
        Some(v) => {
            let at = join(path, "parts");
            let list = v.as_array().ok_or_else(|| {
                spec(ProtocolViolation::new(
                    &at,
                    format!("must be an array, got {}", shown(v)),
                ))
            })?;
            if list.is_empty() {
                return Err(ProtocolViolation::new(
                    at,
                    "must be omitted when there are none, got []",
                ));
            }
            let mut parts = Vec::with_capacity(list.len());
            for (i, p) in list.iter().enumerate() {
                parts.push(decode_content_part(p, &format!("{at}[{i}]"))?);
            }
            Some(parts)
        }
    };
    let at = join(path, "metadata");
    let metadata = match map.get("metadata") {
        None => None,
        Some(Value::Null) => {
            return Err(ProtocolViolation::new(
                at,
                "must be omitted when there is none, got null",
            ))
        }
        Some(m) => {
            let meta = object(m, &at).map_err(spec)?;
            if meta.is_empty() {
                return Err(ProtocolViolation::new(
                    at,
                    "must be omitted when empty, got {}",
                ));
            }
            if let Some(pending) = meta.get("pending") {
                decode_suspension_request(pending, &join(&at, "pending"))?;
            }
            Some(m.clone())
        }
    };
    Ok(ToolResult {
        output: field(map, path, "output").map_err(spec)?,
        is_error: field(map, path, "isError").map_err(spec)?,
        parts,
        metadata,
    })
}

/// A SPEC §1B ContentPart: its keys, its type's required fields, exactly one of `data` /
/// `url` on a non-text part, `data` in the standard padded alphabet.
pub fn decode_content_part(v: &Value, path: &str) -> Decoded<ContentPart> {
    let spec = |e: ProtocolViolation| e.breaking(spec_rule::CONTENT_PART);
    let map = object(v, path).map_err(spec)?;
    closed(
        map,
        path,
        &["type", "text", "mimeType", "data", "url", "name"],
    )
    .map_err(spec)?;
    let part: ContentPart = leaf(v, path).map_err(spec)?;
    let bad = |what: &str| Err(spec(ProtocolViolation::new(path, what.to_string())));
    if part.kind == ContentPartType::Text {
        if part.text.is_none() {
            return bad("a text part needs `text`");
        }
        if part.mime_type.is_some()
            || part.data.is_some()
            || part.url.is_some()
            || part.name.is_some()
        {
            return bad("a text part has only `type` and `text`");
        }
        return Ok(part);
    }
    if part.text.is_some() {
        return bad("only a text part has `text`");
    }
    if part.mime_type.is_none() {
        return bad("a non-text part needs `mimeType`");
    }
    match (&part.data, &part.url) {
        (Some(_), Some(_)) => return bad("has both `data` and `url` (exactly one)"),
        (None, None) => return bad("has neither `data` nor `url` (exactly one)"),
        (Some(d), None) if !standard_base64(d) => {
            return bad("`data` is not standard padded base64 without line breaks")
        }
        _ => {}
    }
    // A `name` beside an image or audio part is outside the SPEC's union but no rule of
    // exactly-one: the scenario about it says so (NOTES), so it does not hide the others.
    Ok(part)
}

/// Standard base64 (RFC 4648 §4): the standard alphabet, padded to a multiple of four, no
/// whitespace.
fn standard_base64(d: &str) -> bool {
    let body = d.trim_end_matches('=');
    d.len() % 4 == 0
        && d.len() - body.len() <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// A SPEC §10 Request: its six keys only and a non-empty id. (`null` optional keys are
/// tolerated here: a scenario comparing the whole result reports them, with a better message.)
pub fn decode_suspension_request(v: &Value, path: &str) -> Decoded<SuspensionRequest> {
    let spec = |e: ProtocolViolation| e.breaking(spec_rule::REQUEST);
    let map = object(v, path).map_err(spec)?;
    closed(
        map,
        path,
        &["id", "kind", "prompt", "url", "data", "expiresAt"],
    )
    .map_err(spec)?;
    let request: SuspensionRequest = leaf(v, path).map_err(spec)?;
    if request.id.is_empty() {
        return Err(spec(ProtocolViolation::new(
            join(path, "id"),
            "must be a non-empty string",
        )));
    }
    Ok(request)
}

/// A SPEC §10 Answer: its four keys only.
pub fn decode_answer(v: &Value, path: &str) -> Decoded<Answer> {
    let spec = |e: ProtocolViolation| e.breaking(spec_rule::ANSWER);
    let map = object(v, path).map_err(spec)?;
    closed(map, path, &["id", "ok", "data", "reason"]).map_err(spec)?;
    leaf(v, path).map_err(spec)
}

/// Checks that an answer echoes the request's sequence number (§2).
pub fn check_seq(response: &Value, expected: u64) -> Decoded<()> {
    match response.get("seq") {
        None => Err(ProtocolViolation::new(
            "seq",
            format!("missing (the request's was {expected})"),
        )),
        Some(s) if s.as_u64() == Some(expected) => Ok(()),
        Some(s) => Err(ProtocolViolation::new(
            "seq",
            format!("expected {expected}, got {}", shown(s)),
        )),
    }
}

fn string_map(v: &Value, path: &str) -> Decoded<BTreeMap<String, String>> {
    let map = object(v, path)?;
    map.iter()
        .map(|(k, x)| Ok((k.clone(), leaf(x, &join(path, k))?)))
        .collect()
}

fn statuses(v: &Value, path: &str) -> Decoded<BTreeMap<String, SourceStatus>> {
    let map = object(v, path)?;
    map.iter()
        .map(|(k, x)| {
            let status = leaf(x, &join(path, k)).map_err(|_| {
                ProtocolViolation::new(
                    join(path, k),
                    format!(
                        "must be \"connected\", \"failed\" or \"disabled\", got {}",
                        shown(x)
                    ),
                )
                .breaking(spec_rule::STATUS)
            })?;
            Ok((k.clone(), status))
        })
        .collect()
}

fn open_item<T: DeserializeOwned>(v: &Value, path: &str, keys: &[&str]) -> Decoded<T> {
    let map = object(v, path)?;
    for key in keys {
        required(map, path, key)?;
    }
    leaf(v, path)
}

/// `names`: the tool names sorted by code point (§5.2).
fn sorted_names(v: &Value, path: &str) -> Decoded<Vec<String>> {
    let names: Vec<String> = list(v, path, leaf)?;
    // Rust compares `str` byte-wise, which for UTF-8 is code point order.
    if let Some(w) = names.windows(2).find(|w| w[0] > w[1]) {
        return Err(ProtocolViolation::new(
            path,
            format!("not sorted by code point ({:?} before {:?})", w[0], w[1]),
        ));
    }
    Ok(names)
}

fn decode_build(map: &Map<String, Value>) -> Decoded<BuildResponse> {
    Ok(BuildResponse {
        toolkit: optional(map, "", "toolkit")?,
        tools: list(
            required(map, "", "tools")?,
            "tools",
            decode_tool_description,
        )?,
        names: sorted_names(required(map, "", "names")?, "names")?,
        statuses: statuses(required(map, "", "statuses")?, "statuses")?,
        errors: match map.get("errors") {
            None | Some(Value::Null) => None,
            Some(v) => Some(string_map(v, "errors")?),
        },
        skills: match map.get("skills") {
            None | Some(Value::Null) => None,
            Some(v) => Some(list(v, "skills", |v, p| open_item(v, p, &["name"]))?),
        },
        warnings: optional(map, "", "warnings")?,
    })
}

fn decode_list_mcp_tools(map: &Map<String, Value>) -> Decoded<ListMcpToolsResponse> {
    let tools = object(required(map, "", "tools")?, "tools")?
        .iter()
        .map(|(server, infos)| {
            let at = join("tools", server);
            let infos = list(infos, &at, |v, p| open_item(v, p, &["name", "inputSchema"]))?;
            Ok((server.clone(), infos))
        })
        .collect::<Decoded<_>>()?;
    Ok(ListMcpToolsResponse {
        statuses: statuses(required(map, "", "statuses")?, "statuses")?,
        tools,
        errors: match map.get("errors") {
            None | Some(Value::Null) => None,
            Some(v) => Some(string_map(v, "errors")?),
        },
    })
}

fn decode_list_skills(map: &Map<String, Value>) -> Decoded<ListSkillsResponse> {
    Ok(ListSkillsResponse {
        skills: list(required(map, "", "skills")?, "skills", |v, p| {
            open_item(v, p, &["name"])
        })?,
        skipped: list(required(map, "", "skipped")?, "skipped", |v, p| {
            open_item(v, p, &["location", "reason"])
        })?,
        errors: match map.get("errors") {
            None | Some(Value::Null) => None,
            Some(v) => Some(string_map(v, "errors")?),
        },
    })
}

fn tools_body(map: &Map<String, Value>) -> Decoded<ToolsResponse> {
    Ok(ToolsResponse {
        tools: list(
            required(map, "", "tools")?,
            "tools",
            decode_tool_description,
        )?,
    })
}

/// Decodes the answer to a `cmd` request into its typed form. `expected_seq` is the request's
/// sequence number when the transport numbered it (§2). An `ok: false` answer is a
/// [`TypedResponse::Failure`] whatever its command, read leniently (a missing kind or message
/// is empty), as the harness always has; a success must have every field PROTOCOL.md §5
/// requires, of the right shape.
pub fn decode_response(
    cmd: &str,
    response: &Value,
    expected_seq: Option<u64>,
) -> Decoded<TypedResponse> {
    let map = object(response, "")?;
    if let Some(seq) = expected_seq {
        check_seq(response, seq)?;
    }
    match map.get("ok") {
        Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => {
            return Ok(TypedResponse::Failure(ErrorBody::of_response(response)));
        }
        Some(other) => {
            return Err(ProtocolViolation::new(
                "ok",
                format!("must be a boolean, got {}", shown(other)),
            ))
        }
        None => return Err(ProtocolViolation::new("ok", "missing")),
    }
    let Some(command) = Command::parse(cmd) else {
        return Err(ProtocolViolation::new(
            "",
            format!("answer to an unknown command \"{cmd}\""),
        ));
    };
    (command.answer_decoder())(response, map)
}

/// Decodes a command's success answer (the whole answer, and it as an object) into its typed
/// form; the command table in [`crate::messages`] names one for each command.
pub(crate) type AnswerDecoder = fn(&Value, &Map<String, Value>) -> Decoded<TypedResponse>;

/// The decoder of each command's success answer, named after the command.
pub(crate) mod answer {
    use super::*;

    pub(crate) fn hello(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Hello(HelloResponse {
            protocol: field(map, "", "protocol")?,
            port: {
                let port = required(map, "", "port")?;
                open_item(port, "port", &["name", "language", "version"])?
            },
            implements: field(map, "", "implements")?,
            spec: optional(map, "", "spec")?,
        }))
    }

    pub(crate) fn build(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(match raised_instead(map, Command::Build)? {
            Some(message) => TypedResponse::Raised(message),
            None => TypedResponse::Build(decode_build(map)?),
        })
    }

    pub(crate) fn tools(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Tools(tools_body(map)?))
    }

    pub(crate) fn execute(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Execute(ExecuteResponse {
            result: decode_tool_result(required(map, "", "result")?, "result")?,
        }))
    }

    pub(crate) fn adapter(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Adapter(AdapterResponse {
            output: field(map, "", "output")?,
        }))
    }

    pub(crate) fn skills_prompt(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::SkillsPrompt(SkillsPromptResponse {
            prompt: field(map, "", "prompt")?,
        }))
    }

    pub(crate) fn list_skills(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::ListSkills(decode_list_skills(map)?))
    }

    pub(crate) fn select_builtins(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::SelectBuiltins(tools_body(map)?))
    }

    pub(crate) fn sanitize(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Sanitize(SanitizeResponse {
            value: field(map, "", "value")?,
        }))
    }

    pub(crate) fn close(_: &Value, _: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Close)
    }

    pub(crate) fn shutdown(_: &Value, _: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Shutdown)
    }

    pub(crate) fn list_mcp_tools(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::ListMcpTools(decode_list_mcp_tools(map)?))
    }

    pub(crate) fn client(_: &Value, _: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Client)
    }

    pub(crate) fn run(response: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Run(Box::new(decode_run(response, map)?)))
    }

    pub(crate) fn ask(response: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Ask(Box::new(decode_run(response, map)?)))
    }

    pub(crate) fn run_with_answer(
        response: &Value,
        map: &Map<String, Value>,
    ) -> Decoded<TypedResponse> {
        Ok(TypedResponse::RunWithAnswer(Box::new(decode_run(
            response, map,
        )?)))
    }

    pub(crate) fn ask_with_answer(
        response: &Value,
        map: &Map<String, Value>,
    ) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AskWithAnswer(Box::new(decode_run(
            response, map,
        )?)))
    }

    pub(crate) fn stream(response: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Stream(Box::new(decode_stream(
            response, map,
        )?)))
    }

    pub(crate) fn conversation(
        response: &Value,
        map: &Map<String, Value>,
    ) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Conversation(Box::new(decode_conversation(
            response, map,
        )?)))
    }

    pub(crate) fn store_get(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::StoreGet(transcript_or_null(map)?))
    }

    pub(crate) fn store_save(_: &Value, _: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::StoreSave)
    }

    pub(crate) fn metrics(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Metrics(field(map, "", "text")?))
    }

    pub(crate) fn translate(response: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Translate(Box::new(decode_translate(
            response, map,
        )?)))
    }

    pub(crate) fn content_part(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        if let Some(message) = raised_instead(map, Command::ContentPart)? {
            return Ok(TypedResponse::Raised(message));
        }
        Ok(TypedResponse::ContentPart(Box::new(ContentPartResponse {
            part: decode_content_part(required(map, "", "part")?, "part")?,
            bytes: optional(map, "", "bytes")?,
            descriptor: optional(map, "", "descriptor")?,
            described: optional(map, "", "described")?,
            placeholder: optional(map, "", "placeholder")?,
            tokens: optional(map, "", "tokens")?,
        })))
    }

    pub(crate) fn classifier(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(match raised_instead(map, Command::Classifier)? {
            Some(message) => TypedResponse::Raised(message),
            None => TypedResponse::Classifier,
        })
    }

    pub(crate) fn evaluate(response: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Evaluate(Box::new(decode_evaluate(
            response, map,
        )?)))
    }

    pub(crate) fn serve(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(match raised_instead(map, Command::Serve)? {
            Some(message) => TypedResponse::Raised(message),
            None => TypedResponse::Serve(field(map, "", "url")?),
        })
    }

    pub(crate) fn serve_stop(_: &Value, _: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::ServeStop)
    }

    pub(crate) fn serve_records(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::ServeRecords(Box::new(
            ServeRecordsResponse {
                on_task: optional(map, "", "onTask")?.unwrap_or_default(),
                on_call: optional(map, "", "onCall")?.unwrap_or_default(),
                store_calls: optional(map, "", "storeCalls")?.unwrap_or_default(),
                tool_cancels: optional(map, "", "toolCancels")?.unwrap_or_default(),
            },
        )))
    }

    pub(crate) fn compact(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::Compact(Box::new(CompactResponse {
            messages: field(map, "", "messages")?,
            summarize_calls: field(map, "", "summarizeCalls")?,
        })))
    }

    fn agent_result(map: &Map<String, Value>) -> Decoded<Box<AgentResult>> {
        field(map, "", "result")
    }

    pub(crate) fn agent_runtime(_: &Value, _: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentRuntime)
    }

    pub(crate) fn agent_spawn(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentSpawn(match map.get("error") {
            Some(error) => SpawnResponse::Refused(decode_tool_result(error, "error")?),
            None => SpawnResponse::Spawned {
                handle: field(map, "", "handle")?,
                budget: map.get("budget").cloned(),
            },
        }))
    }

    pub(crate) fn agent_post(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentPost(PostResponse {
            accepted: field(map, "", "accepted")?,
            error: optional(map, "", "error")?,
        }))
    }

    pub(crate) fn agent_wake(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentWake(refusable(map, || {
            Ok(WakeResponse {
                state: field(map, "", "state")?,
                queued: optional(map, "", "queued")?,
            })
        })?))
    }

    pub(crate) fn agent_wait(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentWait(agent_result(map)?))
    }

    pub(crate) fn agent_interrupt(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentInterrupt(refusable(map, || {
            field(map, "", "state")
        })?))
    }

    pub(crate) fn agent_close(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentClose(refusable(map, || {
            field(map, "", "state")
        })?))
    }

    pub(crate) fn agent_list(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentList(field(map, "", "handles")?))
    }

    pub(crate) fn agent_inspect(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentInspect(open_item(
            &Value::Object(body(map)),
            "",
            &["id", "def", "state", "inboxLen"],
        )?))
    }

    pub(crate) fn agent_run(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentRun(refusable(map, || {
            Ok((field(map, "", "handle")?, agent_result(map)?))
        })?))
    }

    pub(crate) fn agent_resume(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentResume(
            match optional(map, "", "raised")? {
                Some(raised) => Refusable::Refused(raised),
                None => Refusable::Done(agent_result(map)?),
            },
        ))
    }

    pub(crate) fn agent_execute(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentExecute(Box::new(
            AgentExecuteResponse {
                tool: object(required(map, "", "tool")?, "tool")?.clone().into(),
                result: decode_tool_result(required(map, "", "result")?, "result")?,
            },
        )))
    }

    pub(crate) fn agent_clock(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentClock(field(map, "", "now")?))
    }

    pub(crate) fn agent_heartbeat(_: &Value, _: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentHeartbeat)
    }

    pub(crate) fn agent_store_get(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentStoreGet(transcript_or_null(map)?))
    }

    pub(crate) fn agent_store_save(_: &Value, _: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentStoreSave)
    }

    pub(crate) fn agent_trace(_: &Value, map: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentTrace(Box::new(TraceResponse {
            transitions: field(map, "", "transitions")?,
            rest: body(map),
        })))
    }

    pub(crate) fn agent_close_runtime(_: &Value, _: &Map<String, Value>) -> Decoded<TypedResponse> {
        Ok(TypedResponse::AgentCloseRuntime)
    }
}

/// A store's `messages`: a transcript, or `null` for none.
fn transcript_or_null(map: &Map<String, Value>) -> Decoded<Option<Vec<Value>>> {
    Ok(match required(map, "", "messages")? {
        Value::Null => None,
        other => Some(leaf(other, "messages")?),
    })
}

/// An answer's body: everything but the envelope's `ok` and `seq`.
fn body(map: &Map<String, Value>) -> Map<String, Value> {
    let mut body = map.clone();
    body.remove("ok");
    body.remove("seq");
    body
}

/// An answer that is `{error}` when the port refused the verb (PROTOCOL.md §5.27: data, not the
/// error envelope), else what `done` reads.
fn refusable<T>(
    map: &Map<String, Value>,
    done: impl FnOnce() -> Decoded<T>,
) -> Decoded<Refusable<T>> {
    match optional(map, "", "error")? {
        Some(error) => Ok(Refusable::Refused(error)),
        None => done().map(Refusable::Done),
    }
}

/// `raised` in place of a command's success body (`build`, `serve`: PROTOCOL.md §5.2, §5.23):
/// the port's own call threw this message. Answering it beside the body's `keys` is a
/// violation: a call either returned or raised.
fn raised_instead(map: &Map<String, Value>, command: Command) -> Decoded<Option<String>> {
    let Some(raised) = map.get("raised") else {
        return Ok(None);
    };
    let keys = command.raises().unwrap_or_default();
    let message: String = leaf(raised, "raised")?;
    if let Some(k) = keys.iter().find(|k| map.contains_key(**k)) {
        return Err(ProtocolViolation::new(
            "",
            format!("has both `raised` and `{k}`; a call that raised answers `raised` alone"),
        ));
    }
    Ok(Some(message))
}

fn observed(map: &Map<String, Value>) -> Decoded<Observed> {
    Ok(Observed {
        hook_calls: optional(map, "", "hookCalls")?,
        metric_events: optional(map, "", "metricEvents")?,
        on_error_calls: optional(map, "", "onErrorCalls")?,
        generate_calls: optional(map, "", "generateCalls")?,
        wait_for_calls: optional(map, "", "waitForCalls")?,
        elapsed_ms: optional(map, "", "elapsedMs")?,
    })
}

/// `result` xor `raised` at `path` (a run's answer, or one conversation step).
fn outcome(map: &Map<String, Value>, path: &str) -> Decoded<Option<RunOutcome>> {
    match (map.get("result"), map.get("raised")) {
        (Some(result), None) => Ok(Some(RunOutcome::Result(Box::new(leaf(
            result,
            &join(path, "result"),
        )?)))),
        (None, Some(raised)) => Ok(Some(RunOutcome::Raised(leaf(
            raised,
            &join(path, "raised"),
        )?))),
        (Some(_), Some(_)) => Err(ProtocolViolation::new(
            path,
            "has both `result` and `raised`; exactly one is allowed",
        )),
        (None, None) => Ok(None),
    }
}

fn decode_run(response: &Value, map: &Map<String, Value>) -> Decoded<RunResponse> {
    let Some(outcome) = outcome(map, "")? else {
        return Err(ProtocolViolation::new(
            "result",
            "missing (a run answers `result` or `raised`)",
        ));
    };
    Ok(RunResponse {
        outcome,
        text_deltas: optional(map, "", "textDeltas")?,
        observed: observed(map)?,
        raw: response.clone(),
    })
}

fn decode_evaluate(
    response: &Value,
    map: &Map<String, Value>,
) -> Decoded<crate::classifier::EvaluateResponse> {
    use crate::classifier::EvaluateOutcome;
    let outcome = match (map.get("decision"), map.get("raised")) {
        (Some(decision), None) => EvaluateOutcome::Decision(Box::new(leaf(decision, "decision")?)),
        (None, Some(raised)) => EvaluateOutcome::Raised(leaf(raised, "raised")?),
        (Some(_), Some(_)) => {
            return Err(ProtocolViolation::new(
                "",
                "has both `decision` and `raised`; exactly one is allowed",
            ))
        }
        (None, None) => {
            return Err(ProtocolViolation::new(
                "decision",
                "missing (an evaluate answers `decision` or `raised`)",
            ))
        }
    };
    Ok(crate::classifier::EvaluateResponse {
        outcome,
        observed: observed(map)?,
        evaluate_calls: optional(map, "", "evaluateCalls")?,
        raw: response.clone(),
    })
}

fn decode_translate(response: &Value, map: &Map<String, Value>) -> Decoded<TranslateResponse> {
    let outcome = match (map.get("result"), map.get("raised")) {
        (Some(result), None) => TranslateOutcome::Result(Box::new(leaf(result, "result")?)),
        (None, Some(raised)) => TranslateOutcome::Raised(leaf(raised, "raised")?),
        (Some(_), Some(_)) => {
            return Err(ProtocolViolation::new(
                "",
                "has both `result` and `raised`; exactly one is allowed",
            ))
        }
        (None, None) => {
            return Err(ProtocolViolation::new(
                "result",
                "missing (a translate answers `result` or `raised`)",
            ))
        }
    };
    Ok(TranslateResponse {
        outcome,
        observed: observed(map)?,
        raw: response.clone(),
    })
}

fn decode_stream(response: &Value, map: &Map<String, Value>) -> Decoded<StreamResponse> {
    Ok(StreamResponse {
        events: list(required(map, "", "events")?, "events", leaf)?,
        raised: optional(map, "", "raised")?,
        observed: observed(map)?,
        raw: response.clone(),
    })
}

fn decode_conversation(
    response: &Value,
    map: &Map<String, Value>,
) -> Decoded<ConversationResponse> {
    let steps = list(required(map, "", "steps")?, "steps", |v, p| {
        outcome(object(v, p)?, p)
    })?;
    Ok(ConversationResponse {
        steps,
        messages: field(map, "", "messages")?,
        raw: response.clone(),
    })
}

/// Why a request was refused: the error envelope's kind and message (§4).
pub type RequestError = ErrorBody;

fn refused(kind: ErrorKind, message: impl Into<String>) -> RequestError {
    ErrorBody {
        kind,
        message: message.into(),
    }
}

/// Decodes a request for a driver: no string `cmd` or a malformed field is `bad_request`, an
/// unknown command `unsupported` (`unknown command "X"`), an unknown option key `bad_request`
/// (`unknown option "X"`). Unknown request fields are ignored (§1: additive changes). The
/// request's `seq` (§2) comes back beside it, in the [`Framed`] envelope.
pub fn decode_request(request: &Value) -> Result<Framed<Request>, RequestError> {
    let Some(cmd) = request.get("cmd").and_then(Value::as_str) else {
        return Err(refused(
            ErrorKind::BadRequest,
            "request needs a string \"cmd\"",
        ));
    };
    let Some(command) = Command::parse(cmd) else {
        return Err(refused(
            ErrorKind::Unsupported,
            format!("unknown command \"{cmd}\""),
        ));
    };
    if command == Command::Client {
        if let Some(unknown) = request
            .get("options")
            .and_then(Value::as_object)
            .and_then(|m| m.keys().find(|k| !CLIENT_OPTION_KEYS.contains(&k.as_str())))
        {
            return Err(refused(
                ErrorKind::BadRequest,
                format!("unknown client option \"{unknown}\""),
            ));
        }
    }
    if command == Command::Build {
        match request.get("options") {
            None | Some(Value::Null) | Some(Value::Object(_)) => {}
            Some(_) => return Err(refused(ErrorKind::BadRequest, "options must be an object")),
        }
        let keys = request.get("options").and_then(Value::as_object);
        if let Some(unknown) =
            keys.and_then(|m| m.keys().find(|k| !OPTION_KEYS.contains(&k.as_str())))
        {
            return Err(refused(
                ErrorKind::BadRequest,
                format!("unknown option \"{unknown}\""),
            ));
        }
    }
    if command == Command::AgentRuntime {
        check_runtime_keys(request).map_err(|m| refused(ErrorKind::BadRequest, m))?;
    }
    // `null` where a value may be absent is absent (§6), so nulls are dropped before serde
    // sees them: `"options": null` is no options.
    let mut cleaned = request.clone();
    let mut seq = None;
    if let Some(map) = cleaned.as_object_mut() {
        map.retain(|_, v| !v.is_null());
        seq = map.remove("seq");
    }
    let bad =
        |e: serde_json::Error| refused(ErrorKind::BadRequest, format!("bad `{cmd}` request: {e}"));
    let seq = seq.map(serde_json::from_value).transpose().map_err(bad)?;
    let request = serde_json::from_value(cleaned).map_err(bad)?;
    Ok(Framed::new(request, seq))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The request without its envelope.
    fn request(v: &Value) -> Result<Request, RequestError> {
        decode_request(v).map(|f| f.request)
    }

    fn violation(cmd: &str, answer: Value, seq: Option<u64>) -> String {
        match decode_response(cmd, &answer, seq) {
            Ok(t) => panic!("{answer} should be refused, decoded as {t:?}"),
            Err(v) => v.to_string(),
        }
    }

    fn build_answer(names: Value) -> Value {
        json!({"ok": true, "tools": [
            {"name": "a", "description": "", "inputSchema": {}, "source": "native"},
            {"name": "b", "description": "", "inputSchema": {}, "source": "native"}],
            "names": names, "statuses": {"builtin": "disabled"}, "errors": {}, "skills": []})
    }

    #[test]
    fn a_good_build_answer_decodes() {
        let Ok(TypedResponse::Build(b)) =
            decode_response("build", &build_answer(json!(["a", "b"])), None)
        else {
            panic!("should decode");
        };
        assert_eq!(b.names, ["a", "b"]);
        assert_eq!(b.tools[1].source, ToolSource::Native);
        assert_eq!(b.statuses["builtin"], SourceStatus::Disabled);
    }

    #[test]
    fn unsorted_names_are_named() {
        let m = violation("build", build_answer(json!(["b", "a"])), None);
        assert_eq!(m, r#"names: not sorted by code point ("b" before "a")"#);
        // Code point order, not a locale's: "B" (U+0042) sorts before "a" (U+0061).
        assert!(decode_response("build", &build_answer(json!(["B", "a"])), None).is_ok());
        assert!(decode_response("build", &build_answer(json!(["é", "z"])), None).is_err());
    }

    #[test]
    fn empty_or_null_metadata_is_named() {
        let answer = |meta: Value| json!({"ok": true, "result": {"output": "x", "isError": false, "metadata": meta}});
        assert_eq!(
            violation("execute", answer(json!({})), None),
            "result.metadata: must be omitted when empty, got {}"
        );
        assert_eq!(
            violation("execute", answer(Value::Null), None),
            "result.metadata: must be omitted when there is none, got null"
        );
        assert_eq!(
            violation("execute", answer(json!([])), None),
            "result.metadata: must be an object, got []"
        );
        assert!(decode_response("execute", &answer(json!({"k": 1})), None).is_ok());
    }

    #[test]
    fn pinned_types_refuse_unknown_keys_and_open_ones_keep_them() {
        let extra = json!({"ok": true, "result": {"output": "x", "isError": false, "extra": 1}});
        assert_eq!(
            violation("execute", extra, None),
            r#"result: unknown key "extra""#
        );
        let pending = json!({"ok": true, "result": {"output": "p", "isError": true, "metadata":
            {"pending": {"id": "r1", "kind": "approval", "prompt": "p", "expires_at": "x"}}}});
        assert_eq!(
            violation("execute", pending, None),
            r#"result.metadata.pending: unknown key "expires_at""#
        );
        let mut tool = build_answer(json!(["a", "b"]));
        tool["tools"][1]["title"] = json!("B");
        assert_eq!(
            violation("build", tool, None),
            r#"tools[1]: unknown key "title""#
        );
        // Envelopes and skill infos are open.
        let mut open = build_answer(json!(["a", "b"]));
        open["elapsedMs"] = json!(3);
        open["skills"] = json!([{"name": "s", "description": null, "location": null, "x": 1}]);
        assert!(decode_response("build", &open, None).is_ok());
    }

    #[test]
    fn wrong_types_and_missing_fields_are_named() {
        let answer = json!({"ok": true, "result": {"output": 3, "isError": false}});
        assert!(violation("execute", answer, None).starts_with("result.output: invalid type"));
        assert_eq!(
            violation("execute", json!({"ok": true}), None),
            "result: missing"
        );
        let mut bad_name = build_answer(json!(["a", "b"]));
        bad_name["tools"][0]["name"] = json!("a b");
        assert_eq!(
            violation("build", bad_name, None),
            r#"tools[0].name: "a b" does not match [a-zA-Z0-9_-]+"#
        );
        let mut bad_status = build_answer(json!(["a", "b"]));
        bad_status["statuses"]["x"] = json!("up");
        assert!(violation("build", bad_status, None).starts_with("statuses.x: must be"));
        assert_eq!(
            violation("tools", json!({"ok": 1}), None),
            "ok: must be a boolean, got 1"
        );
    }

    #[test]
    fn faults_inside_a_spec_type_name_the_spec_rule_and_protocol_faults_none() {
        let rule = |cmd: &str, answer: Value| match decode_response(cmd, &answer, None) {
            Ok(t) => panic!("{answer} should be refused, decoded as {t:?}"),
            Err(v) => v.spec_rule,
        };
        // The port's values, passed on by the driver: SPEC rules.
        let mut bad_name = build_answer(json!(["a", "b"]));
        bad_name["tools"][0]["name"] = json!("a.b");
        assert_eq!(rule("build", bad_name), Some(spec_rule::TOOL_NAME));
        let mut titled = build_answer(json!(["a", "b"]));
        titled["tools"][1]["title"] = json!("B");
        assert_eq!(rule("build", titled), Some(spec_rule::TOOL));
        let mut sourced = build_answer(json!(["a", "b"]));
        sourced["tools"][1]["source"] = json!("plugin");
        assert_eq!(rule("build", sourced), Some(spec_rule::TOOL_SOURCE));
        let mut status = build_answer(json!(["a", "b"]));
        status["statuses"]["x"] = json!("up");
        assert_eq!(rule("build", status), Some(spec_rule::STATUS));
        let result = |r: Value| json!({"ok": true, "result": r});
        for r in [
            json!({"output": "x", "isError": false, "extra": 1}),
            json!({"output": 3, "isError": false}),
            json!({"isError": false}),
            json!({"output": "x", "isError": false, "metadata": []}),
        ] {
            assert_eq!(rule("execute", result(r)), Some(spec_rule::TOOL_RESULT));
        }
        // SPEC §1B parts: the shape, exactly one of data/url, the standard padded alphabet.
        for part in [
            json!({"type": "image", "mimeType": "image/png", "data": "AA==", "url": "https://x.test/a"}),
            json!({"type": "audio", "mimeType": "audio/wav"}),
            json!({"type": "image", "data": "AA=="}),
            json!({"type": "file", "mimeType": "application/pdf", "data": "AA"}),
            json!({"type": "file", "mimeType": "application/pdf", "data": "-_8="}),
            json!({"type": "video", "mimeType": "video/mp4", "data": "AA=="}),
            json!({"type": "text"}),
            json!({"type": "image", "mimeType": "image/png", "data": "AA==", "path": "/x.png"}),
        ] {
            let r = json!({"output": "x", "isError": false, "parts": [part]});
            assert_eq!(
                rule("execute", result(r)),
                Some(spec_rule::CONTENT_PART),
                "{part}"
            );
        }
        let parts = json!({"output": "x", "isError": false, "parts": [
            {"type": "text", "text": "t"},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
            {"type": "file", "mimeType": "application/pdf", "url": "https://x.test/r.pdf", "name": "r.pdf"}]});
        assert!(decode_response("execute", &result(parts), None).is_ok());
        // `[]` is how no driver writes "no parts": the protocol's rendering rule, the driver's.
        let empty = result(json!({"output": "x", "isError": false, "parts": []}));
        assert_eq!(rule("execute", empty), None);
        let pending = result(json!({"output": "p", "isError": true, "metadata":
            {"pending": {"id": "", "kind": "approval", "prompt": "p"}}}));
        assert_eq!(rule("execute", pending), Some(spec_rule::REQUEST));
        assert_eq!(
            rule(
                "select_builtins",
                json!({"ok": true, "tools": [{"name": "a b",
                "description": "", "inputSchema": {}, "source": "builtin"}]})
            ),
            Some(spec_rule::TOOL_NAME)
        );
        // What only the protocol asks: the driver's.
        assert_eq!(rule("build", build_answer(json!(["b", "a"]))), None);
        assert_eq!(rule("execute", json!({"ok": true})), None);
        for meta in [json!({}), Value::Null] {
            let plain = result(json!({"output": "x", "isError": false, "metadata": meta}));
            assert_eq!(rule("execute", plain), None);
        }
        let mut no_statuses = build_answer(json!(["a", "b"]));
        no_statuses["statuses"] = json!([]);
        assert_eq!(rule("build", no_statuses), None);
        assert_eq!(rule("sanitize", json!({"ok": true, "value": 1})), None);
    }

    #[test]
    fn a_build_or_serve_that_raised_decodes_as_raised() {
        let raised = json!({"ok": true, "raised": "createToolkit: bad config"});
        for cmd in ["build", "serve"] {
            assert_eq!(
                decode_response(cmd, &raised, None),
                Ok(TypedResponse::Raised("createToolkit: bad config".into())),
                "{cmd}"
            );
        }
        let mut both = build_answer(json!(["a", "b"]));
        both["raised"] = json!("x");
        assert!(violation("build", both, None).contains("has both `raised` and `tools`"));
        let serve_both = json!({"ok": true, "url": "http://127.0.0.1:1", "raised": "x"});
        assert!(violation("serve", serve_both, None).contains("`raised` and `url`"));
        assert_eq!(
            violation("build", json!({"ok": true, "raised": 7}), None),
            "raised: invalid type: integer `7`, expected a string"
        );
        // Only build and serve: another command's `raised` is not read as one.
        assert!(matches!(
            decode_response(
                "sanitize",
                &json!({"ok": true, "raised": "x", "value": "v"}),
                None
            ),
            Ok(TypedResponse::Sanitize(_))
        ));
    }

    #[test]
    fn a_generate_usage_is_openai_spelled() {
        let client = |usage: Value| {
            request(
                &json!({"cmd": "client", "id": "c1", "options": {"model": "m",
                "generate": {"script": [{"content": "hi", "usage": usage}]}}}),
            )
        };
        let Ok(Request::Client { options, .. }) =
            client(json!({"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}))
        else {
            panic!("snake_case usage decodes");
        };
        let Some(crate::client::GenerateBehaviour::Script(steps)) = options.generate else {
            panic!("a script");
        };
        assert_eq!(steps[0].usage.map(|u| u.total_tokens), Some(5));
        let camel = client(json!({"promptTokens": 3, "completionTokens": 2, "totalTokens": 5}));
        assert_eq!(camel.unwrap_err().kind, "bad_request");
    }

    #[test]
    fn seq_must_be_echoed() {
        let answer = json!({"ok": true, "prompt": ""});
        assert_eq!(
            violation("skills_prompt", answer.clone(), Some(4)),
            "seq: missing (the request's was 4)"
        );
        let mut wrong = answer.clone();
        wrong["seq"] = json!(3);
        assert_eq!(
            violation("skills_prompt", wrong, Some(4)),
            "seq: expected 4, got 3"
        );
        let mut right = answer;
        right["seq"] = json!(4);
        assert!(decode_response("skills_prompt", &right, Some(4)).is_ok());
    }

    #[test]
    fn failures_stay_lenient() {
        let Ok(TypedResponse::Failure(e)) = decode_response(
            "build",
            &json!({"ok": false, "error": {"kind": "unsupported"}}),
            None,
        ) else {
            panic!("a failure envelope decodes");
        };
        assert_eq!((e.kind.as_str(), e.message.as_str()), ("unsupported", ""));
    }

    #[test]
    fn seq_travels_in_the_envelope_after_the_fields() {
        let wire = r#"{"cmd":"execute","toolkit":"tk1","name":"x","args":{"z":1},"seq":7}"#;
        let Ok(framed) = decode_request(&serde_json::from_str(wire).unwrap()) else {
            panic!("decodes");
        };
        assert_eq!(framed.seq, Some(7));
        assert_eq!(framed.to_value().to_string(), wire);
        let unnumbered = Framed::new(framed.request, None).to_value().to_string();
        assert_eq!(
            unnumbered,
            r#"{"cmd":"execute","toolkit":"tk1","name":"x","args":{"z":1}}"#
        );
        let shutdown = Framed::new(Request::Shutdown {}, Some(3)).to_value();
        assert_eq!(shutdown.to_string(), r#"{"cmd":"shutdown","seq":3}"#);
        assert_eq!(
            request(&json!({"cmd": "hello", "seq": "x"}))
                .unwrap_err()
                .kind,
            "bad_request"
        );
    }

    #[test]
    fn requests_decode_or_are_refused_with_the_kind() {
        let ok = decode_request(&json!({"cmd": "execute", "toolkit": "tk1", "name": "x",
            "args": {"z": 1, "a": 2}, "seq": 7}));
        let Ok(Framed {
            request: Request::Execute { args, .. },
            seq,
        }) = ok
        else {
            panic!("{ok:?}");
        };
        assert_eq!(args.to_string(), r#"{"z":1,"a":2}"#, "key order is kept");
        assert_eq!(seq, Some(7));
        let refused = |v: Value| request(&v).err().map(|e| (e.kind, e.message));
        assert_eq!(
            refused(json!({"cmd": "transmogrify"})),
            Some((
                "unsupported".into(),
                "unknown command \"transmogrify\"".into()
            ))
        );
        assert_eq!(
            refused(json!({"cmd": "build", "id": "t", "options": {"skilsDir": "/"}})),
            Some(("bad_request".into(), "unknown option \"skilsDir\"".into()))
        );
        assert_eq!(
            refused(json!({"toolkit": "t"})).map(|e| e.0),
            Some("bad_request".into())
        );
        let two = json!({"cmd": "build", "id": "t", "options":
            {"extraTools": [{"name": "x", "behaviour": {"text": "a", "fail": "b"}}]}});
        assert_eq!(refused(two).map(|e| e.0), Some("bad_request".into()));
    }

    #[test]
    fn client_answers_decode_and_name_their_faults() {
        let result = json!({"text": "hi", "messages": [], "toolCalls": [{"name": "t",
            "args": {}, "output": "o", "isError": false, "extraKey": 1}], "toolCallCount": 1,
            "turns": 2, "usage": {"promptTokens": 3, "completionTokens": 4, "totalTokens": 7},
            "model": "m", "status": "done", "portExtra": 1});
        let ok = decode_response(
            "run",
            &json!({"ok": true, "result": result, "elapsedMs": 3}),
            None,
        );
        let Ok(TypedResponse::Run(run)) = ok else {
            panic!("{ok:?}")
        };
        let RunOutcome::Result(r) = &run.outcome else {
            panic!("{run:?}")
        };
        assert_eq!((r.turns, r.usage.total_tokens), (2, 7));
        assert_eq!(r.status.as_deref(), Some("done"), "§10 status is typed");
        assert_eq!(
            r.extra.get("portExtra"),
            Some(&json!(1)),
            "RunResult is open"
        );
        let raised = decode_response("ask", &json!({"ok": true, "raised": "HTTP 401"}), None);
        assert!(
            matches!(raised, Ok(TypedResponse::Ask(r)) if r.outcome == RunOutcome::Raised("HTTP 401".into()))
        );
        let both = decode_response(
            "run",
            &json!({"ok": true, "result": result, "raised": "x"}),
            None,
        );
        assert!(both.unwrap_err().message.contains("exactly one"));
        let neither = decode_response("run", &json!({"ok": true}), None).unwrap_err();
        assert_eq!(neither.path, "result");
        let bad_usage = json!({"ok": true, "result": {"text": "", "messages": [], "toolCalls": [],
            "toolCallCount": 0, "turns": 1, "usage": {"prompt_tokens": 1}, "model": "m"}});
        assert_eq!(
            decode_response("run", &bad_usage, None).unwrap_err().path,
            "result"
        );
        let events = json!({"ok": true, "events": [{"type": "text", "delta": "a"},
            {"type": "tool_call", "id": "c1", "name": "t", "args": {}},
            {"type": "usage", "usage": {"promptTokens": 1, "completionTokens": 1, "totalTokens": 2}}]});
        assert!(
            matches!(decode_response("stream", &events, None), Ok(TypedResponse::Stream(s)) if s.events.len() == 3)
        );
        let unknown = json!({"ok": true, "events": [{"type": "thinking"}]});
        assert_eq!(
            decode_response("stream", &unknown, None).unwrap_err().path,
            "events[0]"
        );
        assert_eq!(
            decode_response("store_get", &json!({"ok": true, "messages": null}), None),
            Ok(TypedResponse::StoreGet(None))
        );
        assert_eq!(
            decode_response("store_get", &json!({"ok": true}), None)
                .unwrap_err()
                .path,
            "messages"
        );
        let convo = json!({"ok": true, "steps": [{"raised": "x"}, {}], "messages": []});
        assert!(matches!(decode_response("conversation", &convo, None),
            Ok(TypedResponse::Conversation(c)) if c.steps == vec![Some(RunOutcome::Raised("x".into())), None]));
    }

    #[test]
    fn client_requests_decode_and_unknown_options_are_named() {
        let req = json!({"cmd": "client", "id": "c1", "options": {"baseUrl": "http://x",
            "style": "openai", "model": "m", "hooks": {"beforeTool": {"result":
            {"output": "denied", "isError": true}}}, "generate": {"script": [{"content": "hi"}]}}});
        let Ok(Request::Client { options, .. }) = request(&req) else {
            panic!()
        };
        assert_eq!(options.model.as_deref(), Some("m"));
        assert!(options.hooks.and_then(|h| h.before_tool).is_some());
        let typo = request(&json!({"cmd": "client", "id": "c1", "options": {"maxturns": 2}}));
        assert_eq!(
            typo.unwrap_err().message,
            "unknown client option \"maxturns\""
        );
        let bad = request(&json!({"cmd": "client", "id": "c1",
            "options": {"hooks": {"beforeTool": {"observe": true, "abort": "x"}}}}));
        assert_eq!(bad.unwrap_err().kind, "bad_request");
        let run =
            request(&json!({"cmd": "run", "client": "c1", "prompt": "p", "cancelAfterMs": 5}));
        assert!(matches!(
            run,
            Ok(Request::Run {
                cancel_after_ms: Some(5),
                toolkit: None,
                ..
            })
        ));
    }

    #[test]
    fn agent_requests_decode_typed_and_name_unknown_keys() {
        let runtime = |extra: Value| {
            let mut r = json!({"cmd": "agent_runtime", "id": "rt1", "baseUrl": "http://x",
                "style": "openai", "registry": {"zed": {"model": "m"}, "abe": {"model": "m",
                "budget": {"maxTurns": 3}, "team": ["zed"]}}});
            if let (Some(r), Some(extra)) = (r.as_object_mut(), extra.as_object()) {
                r.extend(extra.clone());
            }
            request(&r)
        };
        let Ok(Request::AgentRuntime { registry, .. }) = runtime(json!({})) else {
            panic!("a runtime decodes");
        };
        let names: Vec<&str> = registry.0.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["zed", "abe"], "the registry keeps request order");
        assert_eq!(registry.0[1].1.budget.and_then(|b| b.max_turns), Some(3));
        let message = |r: Result<Request, RequestError>| r.map(|_| ()).unwrap_err().message;
        assert_eq!(
            message(runtime(json!({"options": {"inboxcap": 1}}))),
            "unknown agent runtime option \"inboxcap\""
        );
        assert_eq!(
            message(runtime(
                json!({"registry": {"a": {"model": "m", "modle": "x"}}})
            )),
            "registry entry \"a\": unknown key \"modle\""
        );
        assert_eq!(
            message(runtime(json!({"registry": {"a": 1}}))),
            "registry entry \"a\" must be an object"
        );
        let wait = request(&json!({"cmd": "agent_wait", "runtime": "rt1",
            "handle": "root/a.1", "timeoutMs": 100, "advanceMs": null}));
        assert!(matches!(
            wait,
            Ok(Request::AgentWait {
                timeout_ms: Some(100),
                advance_ms: None,
                ..
            })
        ));
        let no_handle = request(&json!({"cmd": "agent_wake", "runtime": "rt1"}));
        assert_eq!(no_handle.unwrap_err().kind, "bad_request");
    }

    /// Commands that share an answer shape still decode into their own variant (the command
    /// table gives each its own), so a decoder copied from a sibling cannot answer for it.
    #[test]
    fn each_command_decodes_into_its_own_variant() {
        let raised = json!({"ok": true, "raised": "boom"});
        let tools = json!({"ok": true, "tools": []});
        let transcript = json!({"ok": true, "messages": null});
        let cases = [
            ("run", &raised, "Run("),
            ("ask", &raised, "Ask("),
            ("run_with_answer", &raised, "RunWithAnswer("),
            ("ask_with_answer", &raised, "AskWithAnswer("),
            ("tools", &tools, "Tools("),
            ("select_builtins", &tools, "SelectBuiltins("),
            ("store_get", &transcript, "StoreGet("),
            ("agent_store_get", &transcript, "AgentStoreGet("),
            ("close", &json!({"ok": true}), "Close"),
            ("agent_heartbeat", &json!({"ok": true}), "AgentHeartbeat"),
        ];
        for (cmd, answer, variant) in cases {
            let typed = decode_response(cmd, answer, None);
            let shown = format!("{typed:?}");
            assert!(
                shown.starts_with(&format!("Ok({variant}")),
                "{cmd} decoded as {shown}"
            );
        }
    }

    #[test]
    fn agent_answers_decode_typed_with_refusals_as_data() {
        let agent = |cmd: &str, answer: Value| match decode_response(cmd, &answer, None) {
            Ok(TypedResponse::Failure(e)) => panic!("{cmd}: {e:?}"),
            Ok(typed) => typed,
            Err(violation) => panic!("{cmd}: {violation}"),
        };
        assert_eq!(
            agent("agent_wake", json!({"ok": true, "error": "running"})),
            TypedResponse::AgentWake(Refusable::Refused("running".into()))
        );
        assert!(matches!(
            agent("agent_spawn", json!({"ok": true, "handle": "root/a.1",
                "budget": {"effective": {}}})),
            TypedResponse::AgentSpawn(SpawnResponse::Spawned { handle, .. }) if handle == "root/a.1"
        ));
        assert!(matches!(
            agent("agent_spawn", json!({"ok": true, "error": {"output": "maxChildren",
                "isError": true}})),
            TypedResponse::AgentSpawn(SpawnResponse::Refused(r)) if r.is_error
        ));
        let result = json!({"handle": "root/a.1", "status": "done", "text": "t",
            "isError": false, "turns": 1, "usage": {"total_tokens": 3}, "portExtra": 1});
        let TypedResponse::AgentWait(r) =
            agent("agent_wait", json!({"ok": true, "result": result}))
        else {
            panic!("a wait answer");
        };
        assert_eq!(
            (r.status.as_str(), r.extra.get("portExtra")),
            ("done", Some(&json!(1)))
        );
        assert_eq!(
            violation("agent_clock", json!({"ok": true}), None),
            "now: missing"
        );
        assert_eq!(
            violation(
                "agent_inspect",
                json!({"ok": true, "id": "h", "def": "d",
                "state": "idle"}),
                None
            ),
            "inboxLen: missing"
        );
        assert_eq!(
            agent("agent_store_get", json!({"ok": true, "messages": null})),
            TypedResponse::AgentStoreGet(None)
        );
    }
}
