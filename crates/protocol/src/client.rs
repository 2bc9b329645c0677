//! The §8 client commands' typed parts (PROTOCOL.md §5.13–§5.20, §6A, §7 "Client
//! behaviours", §8 client data types): options, behaviours, and the answers' bodies.
//!
//! Unlike the pinned SPEC types of §8, the client data types are open (a port may add keys,
//! e.g. `status` on a §10 run), so they keep unknown keys in `extra`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::messages::ToolResult;

/// Every client option key (§6A), the fields of [`ClientOptions`]; an unknown key is a
/// `bad_request`. For drivers that read the options as JSON (the rust-crate port's).
pub const CLIENT_OPTION_KEYS: [&str; 21] = [
    "baseUrl",
    "style",
    "model",
    "apiKey",
    "headers",
    "systemPrompt",
    "maxTurns",
    "retries",
    "retryBaseMs",
    "retryableStatuses",
    "timeoutMs",
    "requestParams",
    "bodyTransform",
    "hooks",
    "onError",
    "onMetric",
    "store",
    "generate",
    "waitFor",
    "onUnsupportedPart",
    "maxPartBytes",
];

/// `createClient` options, the SPEC's JS spelling (§6A).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientOptions {
    /// The endpoint; absent with `generate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// `openai` | `anthropic`, kept as text so an unknown one is the driver's own words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    /// The model id, sent verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Absent ⇒ the port reads its key from the environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Extra request headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// Prepended to the toolkit's skills prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Default 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u64>,
    /// Default 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
    /// Default 500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_base_ms: Option<u64>,
    /// Statuses added to the default retryable set (never removing one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable_statuses: Option<Vec<u16>>,
    /// Whole-run deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Gap 1: merged into every body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_params: Option<Map<String, Value>>,
    /// Gap 1: the last rewrite before marshal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_transform: Option<BodyTransformBehaviour>,
    /// The four lifecycle hooks; only those given are installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks: Option<HookBehaviours>,
    /// The retry-vs-fail classifier.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<OnErrorBehaviour>,
    /// Collect the `onMetric` records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_metric: Option<OnMetricBehaviour>,
    /// A host `ConversationStore`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<StoreBehaviour>,
    /// The in-process model (no wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate: Option<GenerateBehaviour>,
    /// §10 `waitFor`: the toolkit's catalogue behaviours; each call lands in `waitForCalls`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for: Option<crate::options::WaitForBehaviour>,
    /// SPEC §8A `onUnsupportedPart` (0.17.0): `"error"` | `"text"`, kept as text so an
    /// unknown one is the driver's own words; absent ⇒ by provenance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_unsupported_part: Option<String>,
    /// SPEC §1B `maxPartBytes` (0.17.0): decoded bytes, enforced at request assembly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_part_bytes: Option<u64>,
}

/// A loop command's `prompt` (§5.15): a string, or (SPEC 0.17.0) a list of SPEC §1B
/// ContentParts in the caller's order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Prompt {
    /// A plain prompt.
    Text(String),
    /// Content parts, in order.
    Parts(Vec<crate::messages::ContentPart>),
}

impl From<&str> for Prompt {
    fn from(s: &str) -> Self {
        Prompt::Text(s.to_string())
    }
}

impl From<String> for Prompt {
    fn from(s: String) -> Self {
        Prompt::Text(s)
    }
}

/// `hooks`: one behaviour per installed hook.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookBehaviours {
    /// Before each LLM call.
    #[serde(default, rename = "beforeLLM", skip_serializing_if = "Option::is_none")]
    pub before_llm: Option<HookBehaviour>,
    /// After each LLM call.
    #[serde(default, rename = "afterLLM", skip_serializing_if = "Option::is_none")]
    pub after_llm: Option<HookBehaviour>,
    /// Before each tool call.
    #[serde(
        default,
        rename = "beforeTool",
        skip_serializing_if = "Option::is_none"
    )]
    pub before_tool: Option<HookBehaviour>,
    /// After each tool call.
    #[serde(default, rename = "afterTool", skip_serializing_if = "Option::is_none")]
    pub after_tool: Option<HookBehaviour>,
}

/// What a hook does (§7 "Client hooks"); which hook may carry which is the driver's check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum HookBehaviour {
    /// Record only.
    Observe(bool),
    /// `beforeLLM`: replace the transcript on the first call.
    ReplaceMessages(Vec<Value>),
    /// `beforeLLM`: keep only these tools.
    KeepTools(Vec<String>),
    /// `beforeLLM`: raise this message.
    Abort(String),
    /// `beforeLLM`: return the transcript it received plus this message at the end.
    AppendMessage(Value),
    /// `beforeLLM`: the port's SPEC §7F `compactor(opts)` hook (options as §5.26).
    Compactor(Box<crate::compact::CompactOptions>),
    /// `beforeTool` (short-circuit) / `afterTool` (transform): this result.
    Result(ToolResult),
    /// `beforeTool`: rewrite the arguments.
    Args(Value),
    /// `afterTool`: prefix the output.
    Prefix(String),
}

/// `onError`'s fixed answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum OnErrorBehaviour {
    /// Answer this for every failed attempt.
    Answer(ErrorDecision),
}

/// `"retry"` | `"fail"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ErrorDecision {
    /// Retry (bounded by `retries`).
    Retry,
    /// Surface the error now.
    Fail,
}

/// `onMetric`: `{"collect": true}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum OnMetricBehaviour {
    /// Collect every record into `metricEvents`.
    Collect(bool),
}

/// `store`: a host `ConversationStore`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum StoreBehaviour {
    /// An in-memory map of the host's own, holding these transcripts at start.
    Seeded(BTreeMap<String, Vec<Value>>),
}

/// `bodyTransform`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum BodyTransformBehaviour {
    /// Set these top-level keys.
    Set(Map<String, Value>),
    /// `body[to] = body[from]` for each `from → to`.
    Copy(Map<String, Value>),
}

/// `generate`: a scripted in-process model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum GenerateBehaviour {
    /// The n-th call answers step n (the last one again once used up).
    Script(Vec<GenerateStep>),
}

/// One scripted `generate` answer: `content`, `toolCalls`, or `fail`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GenerateStep {
    /// The assistant text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Flat tool calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<GenerateToolCall>>,
    /// The usage `generate` returns beside its message, OpenAI-spelled (PROTOCOL.md §7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<GenerateUsage>,
    /// `generate` raises this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail: Option<String>,
}

/// The optional `usage` of a `generate` answer (SPEC §8 "In-process models": `generate`
/// returns one assistant message "+ optional `usage`" and the library "builds the `choices`
/// envelope"): the OpenAI envelope's usage, so its snake_case keys are payload the driver
/// passes on as it is, not protocol names it maps (PROTOCOL.md §5.13, §7 "`generate`").
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct GenerateUsage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Their sum (as the script says; not checked).
    pub total_tokens: u64,
}

/// A flat tool call `{id?, name, arguments}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateToolCall {
    /// Optional id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool name.
    pub name: String,
    /// An object, or a string passed as it is.
    #[serde(default)]
    pub arguments: Value,
}

/// One step of a `conversation` request: `{"send": prompt}` or `{"reset": true}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConversationStep {
    /// `convo.send(prompt)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send: Option<String>,
    /// `convo.reset()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<bool>,
}

/// SPEC §8 usage, summed across turns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Prompt (input) tokens.
    pub prompt_tokens: u64,
    /// Completion (output) tokens.
    pub completion_tokens: u64,
    /// Total tokens.
    pub total_tokens: u64,
}

/// One entry of `RunResult.toolCalls`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunToolCall {
    /// The tool name.
    pub name: String,
    /// The arguments it ran with.
    pub args: Value,
    /// The result text.
    pub output: String,
    /// Whether the call failed.
    pub is_error: bool,
    /// The tool result's metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Whatever else the port sends.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// SPEC §8 `RunResult` (open).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    /// The final assistant answer.
    pub text: String,
    /// The full transcript (provider-shaped).
    pub messages: Vec<Value>,
    /// Every call and its result.
    pub tool_calls: Vec<RunToolCall>,
    /// `toolCalls.length`.
    pub tool_call_count: u64,
    /// LLM round trips.
    pub turns: u64,
    /// Summed usage.
    pub usage: Usage,
    /// The model.
    pub model: String,
    /// §10: `done` | `pending` | `incomplete` (absent from a port without §10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// §10: which limit stopped the run (`status` `incomplete` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// §10: the unresolved `Request` (`status` `pending` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<crate::messages::SuspensionRequest>")]
    pub pending: Option<Value>,
    /// Whatever else the port sends.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// SPEC §8 stream event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// An assistant text delta.
    Text {
        /// The delta.
        delta: String,
    },
    /// A tool about to run.
    ToolCall {
        /// The call id.
        #[serde(default)]
        id: Value,
        /// The tool name.
        name: String,
        /// Its arguments.
        #[serde(default)]
        args: Value,
    },
    /// A tool that ran.
    ToolResult {
        /// The call id.
        #[serde(default)]
        id: Value,
        /// The tool name.
        name: String,
        /// The result text.
        output: String,
        /// Whether it failed.
        #[serde(rename = "isError")]
        is_error: bool,
    },
    /// §10: a tool suspended (sent before `waitFor` runs).
    Pending {
        /// The suspension's `Request`.
        #[schemars(with = "crate::messages::SuspensionRequest")]
        request: Value,
    },
    /// Token usage.
    Usage {
        /// The usage.
        usage: Usage,
    },
    /// The final result.
    Done {
        /// The run's result.
        result: Box<RunResult>,
    },
}

/// What the host-supplied code observed during one loop command (§5.13).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Observed {
    /// Every hook invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_calls: Option<Vec<Value>>,
    /// Every `onMetric` record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_events: Option<Vec<Value>>,
    /// Every `onError` info.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error_calls: Option<Vec<Value>>,
    /// Every `generate` request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate_calls: Option<Vec<Value>>,
    /// §10: every `Request` the client's `waitFor` received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<crate::messages::SuspensionRequest>>")]
    pub wait_for_calls: Option<Vec<Value>>,
    /// Wall-clock milliseconds around the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<f64>,
}

/// A run's outcome: a result, or the message it raised.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    /// The run returned.
    Result(Box<RunResult>),
    /// The run raised this message.
    Raised(String),
}

/// §5.15 `run` / §5.17 `ask` success body.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResponse {
    /// The outcome.
    pub outcome: RunOutcome,
    /// `ask` with `onText`: the deltas received.
    pub text_deltas: Option<Vec<String>>,
    /// The seams' records.
    pub observed: Observed,
    /// The whole answer, for JSON-path checks.
    pub raw: Value,
}

/// §5.16 `stream` success body.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamResponse {
    /// Every event, in order.
    pub events: Vec<StreamEvent>,
    /// The iterator raised this.
    pub raised: Option<String>,
    /// The seams' records.
    pub observed: Observed,
    /// The whole answer, for JSON-path checks.
    pub raw: Value,
}

/// §5.18 `conversation` success body.
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationResponse {
    /// One outcome per send, `None` per reset.
    pub steps: Vec<Option<RunOutcome>>,
    /// `convo.messages` after the last step.
    pub messages: Vec<Value>,
    /// The whole answer, for JSON-path checks.
    pub raw: Value,
}

/// SPEC §11 `translate`'s request, as the `translate` command carries it (§5.21); the
/// toolkit travels as the command's `toolkit` id.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TranslateRequest {
    /// OpenAI `messages`, verbatim.
    pub messages: Vec<Value>,
    /// OpenAI `tools`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Value>>,
    /// OpenAI `tool_choice`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    /// Overrides the system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// 0/absent ⇒ the provider's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
}

/// One entry of SPEC §11 `result.toolCalls`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TranslatedToolCall {
    /// The provider's call id.
    pub id: String,
    /// The function name.
    pub name: String,
    /// A JSON string (the OpenAI wire form); any other JSON type is the port's divergence,
    /// kept so a scenario can show it.
    pub arguments: Value,
}

/// SPEC §11 `result` (open).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TranslateResult {
    /// The assistant text.
    pub text: String,
    /// Every tool call, in provider order.
    pub tool_calls: Vec<TranslatedToolCall>,
    /// `stop` | `tool_calls` | `length` | `content_filter`.
    pub finish_reason: String,
    /// This call's usage.
    pub usage: Usage,
    /// The model.
    pub model: String,
    /// The provider's decoded response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<Value>,
    /// Whatever else the port sends.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// §5.21 `translate`'s outcome: a result, or the message it raised.
#[derive(Debug, Clone, PartialEq)]
pub enum TranslateOutcome {
    /// `translate` returned.
    Result(Box<TranslateResult>),
    /// `translate` raised this message.
    Raised(String),
}

/// §5.21 `translate` success body.
#[derive(Debug, Clone, PartialEq)]
pub struct TranslateResponse {
    /// The outcome.
    pub outcome: TranslateOutcome,
    /// The seams' records (§5.13).
    pub observed: Observed,
    /// The whole answer, for JSON-path checks.
    pub raw: Value,
}

/// The records every loop answer may carry beside its outcome (§5.13), as schema properties.
fn observed_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    g.subschema_for::<Observed>()
}

/// `result` xor `raised` (a run's, a conversation step's or a translate's outcome).
fn one_outcome() -> Value {
    serde_json::json!([
        {"required": ["result"], "not": {"required": ["raised"]}},
        {"required": ["raised"], "not": {"required": ["result"]}},
    ])
}

impl schemars::JsonSchema for RunResponse {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RunResponse".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A loop command's answer (run, ask, run_with_answer, ask_with_answer): exactly one of `result` and `raised`, plus what the host-supplied code observed (PROTOCOL.md §5.13).",
            "type": "object",
            "allOf": [observed_schema(g)],
            "properties": {
                "result": g.subschema_for::<RunResult>(),
                "raised": {"type": "string", "description": "The message of the exception the run raised."},
                "textDeltas": g.subschema_for::<Vec<String>>(),
            },
            "oneOf": one_outcome(),
        })
    }
}

impl schemars::JsonSchema for StreamResponse {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StreamResponse".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`stream`'s answer: every event in order, and what the iterator raised (§5.16).",
            "type": "object",
            "allOf": [observed_schema(g)],
            "required": ["events"],
            "properties": {
                "events": g.subschema_for::<Vec<StreamEvent>>(),
                "raised": {"type": "string", "description": "The iterator raised this."},
            },
        })
    }
}

impl schemars::JsonSchema for ConversationResponse {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ConversationResponse".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`conversation`'s answer (§5.18): one step per request step, `{}` for a reset.",
            "type": "object",
            "required": ["steps", "messages"],
            "properties": {
                "steps": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "result": g.subschema_for::<RunResult>(),
                            "raised": {"type": "string"},
                        },
                        "not": {"required": ["result", "raised"]},
                    },
                },
                "messages": g.subschema_for::<Vec<Value>>(),
            },
        })
    }
}

impl schemars::JsonSchema for TranslateResponse {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TranslateResponse".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`translate`'s answer (§5.21): exactly one of `result` and `raised`, plus the observed lists.",
            "type": "object",
            "allOf": [observed_schema(g)],
            "properties": {
                "result": g.subschema_for::<TranslateResult>(),
                "raised": {"type": "string", "description": "The message `translate` raised."},
            },
            "oneOf": one_outcome(),
        })
    }
}
