//! The typed form of every protocol message (conformance/PROTOCOL.md §4, §5, §8).
//!
//! Free-form JSON (input schemas, arguments, MCP configs, metadata, adapter arrays) stays a
//! `serde_json::Value`, whose key order is preserved.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::{
    ClientOptions, ConversationResponse, ConversationStep, RunResponse, StreamResponse,
};
use crate::client::{TranslateRequest, TranslateResponse};
use crate::compact::{CompactOptions, CompactResponse};
use crate::decode::answer;
use crate::options::{SkillSourceOptions, ToolkitOptions};

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

protocol_commands! {
    /// Every command of protocol 1, by the name it has on the wire.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
    pub enum Command;

    /// Any harness → driver message, discriminated by `cmd` (§5). Unknown request fields are
    /// ignored, so an additive protocol change (§1) never breaks a driver. `seq` (§2) is not a
    /// command's field: [`Framed`] carries it beside the command.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
    #[serde(tag = "cmd")]
    pub enum Request;

    /// A decoded answer: the failure envelope, `raised`, or the success body of the command
    /// asked (its variant named after the command; none for an envelope-only answer).
    #[derive(Debug, Clone, PartialEq)]
    pub enum TypedResponse;

    /// §5.1 the handshake.
    Hello = "hello" => answer::hello as HelloResponse {
        /// The protocol the harness speaks (`1`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol: Option<u64>,
    },
    /// §5.2 createToolkit.
    Build = "build" => answer::build as BuildResponse {
        /// The handle later commands pass as `toolkit`.
        id: String,
        /// Toolkit options (§6); absent means all defaults.
        #[serde(default)]
        options: Box<ToolkitOptions>,
    },
    /// §5.3 tools().
    Tools = "tools" => answer::tools as ToolsResponse {
        /// A toolkit id.
        toolkit: String,
    },
    /// §5.4 execute.
    Execute = "execute" => answer::execute as ExecuteResponse {
        /// A toolkit id.
        toolkit: String,
        /// The tool name.
        name: String,
        /// The arguments, passed through unchanged (absent means `{}`).
        #[serde(default = "empty_object")]
        args: Value,
        /// `{answer?}`: the post-`waitFor` retry's answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<ExecuteContext>,
        /// Fire the call's abort signal (`ctx`) this many ms after the call starts.
        #[serde(
            default,
            rename = "abortAfterMs",
            skip_serializing_if = "Option::is_none"
        )]
        abort_after_ms: Option<u64>,
    },
    /// §5.5 provider adapters.
    Adapter = "adapter" => answer::adapter as AdapterResponse {
        /// A toolkit id.
        toolkit: String,
        /// `openai` | `anthropic` | `gemini`; kept as text so an unknown one is the driver's
        /// `bad_request` with its own words.
        format: String,
    },
    /// §5.6 the system-prompt catalog.
    SkillsPrompt = "skills_prompt" => answer::skills_prompt as SkillsPromptResponse {
        /// A toolkit id.
        toolkit: String,
    },
    /// §5.7 the unfiltered skill inventory.
    ListSkills = "list_skills" => answer::list_skills as ListSkillsResponse {
        /// The skill-source option keys (others are ignored).
        #[serde(default)]
        options: SkillSourceOptions,
    },
    /// §5.8 the builtin selection.
    SelectBuiltins = "select_builtins" => answer::select_builtins as ToolsResponse {
        /// What the `builtins` option would carry; `null` (or absent) means all ten.
        #[serde(default)]
        config: Option<crate::source_options::Builtins>,
    },
    /// §5.9 SPEC §0.2 sanitising.
    Sanitize = "sanitize" => answer::sanitize as SanitizeResponse {
        /// The text to sanitise.
        value: String,
    },
    /// §5.10 close a toolkit.
    Close = "close" => answer::close {
        /// A toolkit id.
        toolkit: String,
    },
    /// §5.11 end the session.
    Shutdown = "shutdown" => answer::shutdown {},
    /// §5.12 list an MCP config's tools.
    ListMcpTools = "list_mcp_tools" => answer::list_mcp_tools as ListMcpToolsResponse {
        /// An MCP config as the `mcpConfig` option would carry it.
        #[serde(default)]
        config: Option<crate::source_options::McpConfig>,
    },
    /// §5.28 one SPEC §1B content part, made by the port's constructors.
    ContentPart = "content_part" => answer::content_part as Box<ContentPartResponse> {
        /// What the part is made from.
        from: ContentPartSource,
    },
    /// §5.14 createClient.
    Client = "client" => answer::client {
        /// The handle later commands pass as `client`.
        id: String,
        /// Client options (§6A).
        #[serde(default)]
        options: Box<ClientOptions>,
    },
    /// §5.15 client.run.
    Run = "run" => answer::run as Box<RunResponse> {
        /// A client id.
        client: String,
        /// A toolkit id; absent ⇒ no toolkit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        toolkit: Option<String>,
        /// The user prompt: a string or (SPEC 0.17.0) a list of ContentParts.
        prompt: crate::client::Prompt,
        /// A prior transcript.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        history: Option<Vec<Value>>,
        /// Fire the external cancel this many ms after the start.
        #[serde(
            default,
            rename = "cancelAfterMs",
            skip_serializing_if = "Option::is_none"
        )]
        cancel_after_ms: Option<u64>,
    },
    /// §5.16 client.stream.
    Stream = "stream" => answer::stream as Box<StreamResponse> {
        /// A client id.
        client: String,
        /// A toolkit id; absent ⇒ no toolkit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        toolkit: Option<String>,
        /// The user prompt: a string or (SPEC 0.17.0) a list of ContentParts.
        prompt: crate::client::Prompt,
        /// The stateful thread id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// A prior transcript.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        history: Option<Vec<Value>>,
        /// Fire the external cancel this many ms after the start.
        #[serde(
            default,
            rename = "cancelAfterMs",
            skip_serializing_if = "Option::is_none"
        )]
        cancel_after_ms: Option<u64>,
    },
    /// §5.17 client.ask.
    Ask = "ask" => answer::ask as Box<RunResponse> {
        /// A client id.
        client: String,
        /// A toolkit id; absent ⇒ no toolkit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        toolkit: Option<String>,
        /// The user prompt: a string or (SPEC 0.17.0) a list of ContentParts.
        prompt: crate::client::Prompt,
        /// The conversation id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Pass an `on_text` callback.
        #[serde(default, rename = "onText", skip_serializing_if = "Option::is_none")]
        on_text: Option<bool>,
    },
    /// §5.18 client.conversation.
    Conversation = "conversation" => answer::conversation as Box<ConversationResponse> {
        /// A client id.
        client: String,
        /// A toolkit id; absent ⇒ no toolkit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        toolkit: Option<String>,
        /// Sends and resets, in order.
        steps: Vec<ConversationStep>,
    },
    /// §5.19 the store accessor's get.
    StoreGet = "store_get" => answer::store_get as Option<Vec<Value>> {
        /// A client id.
        client: String,
        /// The conversation id.
        id: String,
    },
    /// §5.19 the store accessor's save.
    StoreSave = "store_save" => answer::store_save {
        /// A client id.
        client: String,
        /// The conversation id.
        id: String,
        /// The transcript to save.
        messages: Vec<Value>,
    },
    /// §5.20 client.metrics().
    Metrics = "metrics" => answer::metrics as String {
        /// A client id.
        client: String,
    },
    /// §5.21 client.translate (SPEC §11).
    Translate = "translate" => answer::translate as Box<TranslateResponse> {
        /// A client id.
        client: String,
        /// A toolkit id, declared and never executed; absent ⇒ none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        toolkit: Option<String>,
        /// The SPEC §11 request.
        request: Box<TranslateRequest>,
    },
    /// §5.22 client.runWithAnswer (SPEC §10 durable resume, a preview).
    RunWithAnswer = "run_with_answer" => answer::run_with_answer as Box<RunResponse> {
        /// A client id.
        client: String,
        /// A toolkit id; absent ⇒ no toolkit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        toolkit: Option<String>,
        /// The halted run's transcript.
        #[serde(default)]
        history: Vec<Value>,
        /// The halted run's `pending` Request (SPEC §10 keys).
        pending: Value,
        /// The host's Answer (SPEC §10 keys).
        answer: Value,
    },
    /// §5.22 client.askWithAnswer (SPEC §10 durable resume, a preview).
    AskWithAnswer = "ask_with_answer" => answer::ask_with_answer as Box<RunResponse> {
        /// A client id.
        client: String,
        /// A toolkit id; absent ⇒ no toolkit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        toolkit: Option<String>,
        /// The conversation id whose stored transcript is resumed.
        id: String,
        /// The halted run's `pending` Request (SPEC §10 keys).
        pending: Value,
        /// The host's Answer (SPEC §10 keys).
        answer: Value,
    },
    /// §5.23 toolkit.serve (SPEC §7B / §7C).
    Serve = "serve" => answer::serve as String {
        /// The handle id later commands pass as `serve`.
        id: String,
        /// The toolkit id to serve.
        toolkit: String,
        /// The client fulfilling A2A tasks; absent ⇒ none passed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client: Option<String>,
        /// SPEC §7B `A2AConfig`, passed as given; absent ⇒ no inline A2A profile.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        a2a: Option<Value>,
        /// SPEC §7C `MCPServeConfig`, passed as given; absent ⇒ no inline MCP profile.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mcp: Option<Value>,
        /// Pass an `onTask` callback that records every call.
        #[serde(default, rename = "onTask", skip_serializing_if = "std::ops::Not::not")]
        on_task: bool,
        /// Pass an `onCall` callback that records every call.
        #[serde(default, rename = "onCall", skip_serializing_if = "std::ops::Not::not")]
        on_call: bool,
    },
    /// §5.24 a served handle's stop().
    ServeStop = "serve_stop" => answer::serve_stop {
        /// A serve handle id.
        serve: String,
    },
    /// §5.25 what a served toolkit's host callbacks observed.
    ServeRecords = "serve_records" => answer::serve_records as Box<ServeRecordsResponse> {
        /// A serve handle id.
        serve: String,
    },
    /// §5.26 one SPEC §7F compaction.
    Compact = "compact" => answer::compact as Box<CompactResponse> {
        /// The transcript, as given.
        messages: Vec<Value>,
        /// The compactor's options.
        options: Box<CompactOptions>,
    },
    /// §5.27 create an agent runtime (SPEC §7D).
    AgentRuntime = "agent_runtime" => answer::agent_runtime {
        /// The handle later agent commands pass as `runtime`.
        id: String,
        /// The mock LLM's base URL.
        #[serde(rename = "baseUrl")]
        base_url: String,
        /// `openai` | `anthropic`; kept as text so an unknown one is the driver's `bad_request`
        /// with its own words.
        style: String,
        /// The API key; absent ⇒ the port's default.
        #[serde(default, rename = "apiKey", skip_serializing_if = "Option::is_none")]
        api_key: Option<String>,
        /// {name: def}, in request order.
        registry: crate::agent::AgentRegistry,
        /// The runtime's extra tools (§7); absent ⇒ none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tools: Option<Vec<crate::options::ExtraTool>>,
        /// The runtime's options; absent ⇒ all defaults.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        options: Option<Box<crate::agent::AgentRuntimeOptions>>,
    },
    /// §5.27 spawn(parent, def, budget?).
    AgentSpawn = "agent_spawn" => answer::agent_spawn as crate::agent::SpawnResponse {
        /// An agent runtime id.
        runtime: String,
        /// `"root"` or a handle; absent ⇒ root.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent: Option<String>,
        /// The registry entry to spawn.
        def: String,
        /// The handle's budget, carved from its parent's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        budget: Option<crate::agent::AgentBudget>,
    },
    /// §5.27 post(h, item).
    AgentPost = "agent_post" => answer::agent_post as crate::agent::PostResponse {
        /// An agent runtime id.
        runtime: String,
        /// A handle id (`root/<def>.<n>/…`).
        handle: String,
        /// The item's text.
        text: String,
        /// Its sender; absent ⇒ `external`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        /// Its channel; absent ⇒ `external`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        channel: Option<String>,
    },
    /// §5.27 wake(h, prompt?).
    AgentWake = "agent_wake" => answer::agent_wake as crate::agent::Refusable<crate::agent::WakeResponse> {
        /// An agent runtime id.
        runtime: String,
        /// A handle id (`root/<def>.<n>/…`).
        handle: String,
        /// The wake prompt.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
    },
    /// §5.27 wait(h, timeout?).
    AgentWait = "agent_wait" => answer::agent_wait as Box<crate::agent::AgentResult> {
        /// An agent runtime id.
        runtime: String,
        /// A handle id (`root/<def>.<n>/…`).
        handle: String,
        /// The wait's timeout, in virtual ms.
        #[serde(default, rename = "timeoutMs", skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
        /// Advance the clock this much once the wait is registered.
        #[serde(default, rename = "advanceMs", skip_serializing_if = "Option::is_none")]
        advance_ms: Option<u64>,
    },
    /// §5.27 interrupt(h).
    AgentInterrupt = "agent_interrupt" => answer::agent_interrupt as crate::agent::Refusable<String> {
        /// An agent runtime id.
        runtime: String,
        /// A handle id (`root/<def>.<n>/…`).
        handle: String,
    },
    /// §5.27 close(h, {force?}).
    AgentClose = "agent_close" => answer::agent_close as crate::agent::Refusable<String> {
        /// An agent runtime id.
        runtime: String,
        /// A handle id (`root/<def>.<n>/…`).
        handle: String,
        /// Close without waiting for the running turn.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        force: bool,
        /// Advance the clock this much once the shutdown deadline is registered.
        #[serde(default, rename = "advanceMs", skip_serializing_if = "Option::is_none")]
        advance_ms: Option<u64>,
    },
    /// §5.27 list().
    AgentList = "agent_list" => answer::agent_list as Vec<crate::agent::HandleInfo> {
        /// An agent runtime id.
        runtime: String,
    },
    /// §5.27 inspect(h).
    AgentInspect = "agent_inspect" => answer::agent_inspect as Box<crate::agent::InspectResponse> {
        /// An agent runtime id.
        runtime: String,
        /// A handle id (`root/<def>.<n>/…`).
        handle: String,
    },
    /// §5.27 Level-1 agent(name).run(prompt).
    AgentRun = "agent_run" => answer::agent_run as crate::agent::Refusable<(String, Box<crate::agent::AgentResult>)> {
        /// An agent runtime id.
        runtime: String,
        /// The def to run.
        entry: String,
        /// The prompt.
        prompt: String,
    },
    /// §5.27 resume(answer) after a durable pending.
    AgentResume = "agent_resume" => answer::agent_resume as crate::agent::Refusable<Box<crate::agent::AgentResult>> {
        /// An agent runtime id.
        runtime: String,
        /// The host's SPEC §10 Answer.
        answer: Answer,
    },
    /// §5.27 agent(name).asTool() and its execute.
    AgentExecute = "agent_execute" => answer::agent_execute as Box<crate::agent::AgentExecuteResponse> {
        /// An agent runtime id.
        runtime: String,
        /// The def whose tool runs.
        def: String,
        /// The tool's arguments, passed through unchanged (absent means `{}`).
        #[serde(default = "empty_object")]
        args: Value,
    },
    /// §5.27 advance the runtime's virtual clock.
    AgentClock = "agent_clock" => answer::agent_clock as u64 {
        /// An agent runtime id.
        runtime: String,
        /// How far; absent ⇒ 0.
        #[serde(default, rename = "advanceMs", skip_serializing_if = "Option::is_none")]
        advance_ms: Option<u64>,
    },
    /// §5.27 start a handle's heartbeat (SPEC §7E).
    AgentHeartbeat = "agent_heartbeat" => answer::agent_heartbeat {
        /// An agent runtime id.
        runtime: String,
        /// A handle id (`root/<def>.<n>/…`).
        handle: String,
        /// The beat interval, in virtual ms.
        #[serde(rename = "everyMs")]
        every_ms: u64,
    },
    /// §5.27 the runtime store's get.
    AgentStoreGet = "agent_store_get" => answer::agent_store_get as Option<Vec<Value>> {
        /// An agent runtime id.
        runtime: String,
        /// The conversation id (a handle id).
        id: String,
    },
    /// §5.27 the runtime store's save.
    AgentStoreSave = "agent_store_save" => answer::agent_store_save {
        /// An agent runtime id.
        runtime: String,
        /// The conversation id (a handle id).
        id: String,
        /// The transcript to save.
        messages: Vec<Value>,
    },
    /// §5.27 what the runtime let the host observe.
    AgentTrace = "agent_trace" => answer::agent_trace as Box<crate::agent::TraceResponse> {
        /// An agent runtime id.
        runtime: String,
    },
    /// §5.27 stop-all: close(root) and drop the runtime.
    AgentCloseRuntime = "agent_close_runtime" => answer::agent_close_runtime {
        /// An agent runtime id.
        runtime: String,
    },
    /// §5.29 createClassifier (SPEC §8B).
    Classifier = "classifier" => answer::classifier {
        /// The handle `evaluate` passes as `classifier`.
        id: String,
        /// Classifier options (§6B).
        #[serde(default)]
        options: Box<crate::classifier::ClassifierOptions>,
    },
    /// §5.30 classifier.evaluate(state, questions).
    Evaluate = "evaluate" => answer::evaluate as Box<crate::classifier::EvaluateResponse> {
        /// A classifier id.
        classifier: String,
        /// The state, as the host has it (any JSON).
        #[serde(default)]
        state: Value,
        /// Caller-chosen key → question, in the order written.
        questions: indexmap::IndexMap<String, crate::classifier::Question>,
    },
}

/// A message as it crosses the pipe: the command and the sequence number the transport gave it
/// (§2). On the wire `seq` is a top-level key beside `cmd`, after the command's own fields:
/// `{"cmd":"tools","toolkit":"tk1","seq":3}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Framed<T = Request> {
    /// The command with its fields.
    #[serde(flatten)]
    pub request: T,
    /// Sequence number (§2); the in-process port sends none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

impl<T> Framed<T> {
    /// `request` numbered `seq`.
    pub fn new(request: T, seq: Option<u64>) -> Self {
        Self { request, seq }
    }
}

impl Framed<Request> {
    /// The framed message as the JSON object the transport writes.
    pub fn to_value(&self) -> Value {
        // A `Request` serialises to an object with string keys only, so this cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Framed<Value> {
    /// A request given as JSON (a scenario's, kept as written), numbered: `seq` becomes its
    /// last key, replacing one it had in place. Anything but an object has no place for a
    /// `seq` and is returned unchanged, for the driver to refuse.
    pub fn number(request: Value, seq: u64) -> Value {
        match request {
            // What serialising `Framed` writes (a key keeps its place, a new one goes last),
            // without a pass through serde's flatten buffer on every request.
            Value::Object(mut fields) => {
                fields.insert("seq".to_string(), Value::from(seq));
                Value::Object(fields)
            }
            other => other,
        }
    }
}

/// `execute`'s `context`: only the answer crosses the protocol.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecuteContext {
    /// Present only on the retry after a `waitFor` (SPEC §10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
}

/// The fields every response shares (§4). Open: drivers may add fields (§1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Envelope {
    /// Success or a driver failure.
    pub ok: bool,
    /// The request's sequence number, echoed (§2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
    /// Present when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// `error` of a failure envelope (§4).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ErrorBody {
    /// What kind of failure (lenient: any string a driver sends is kept).
    #[serde(default)]
    pub kind: crate::ErrorKind,
    /// Human text.
    #[serde(default)]
    pub message: String,
}

impl ErrorBody {
    /// The `error` of a failure envelope, read leniently: a missing or non-string member is
    /// empty.
    pub fn of_response(response: &Value) -> ErrorBody {
        let error = response.get("error");
        let text = |k: &str| {
            error
                .and_then(|e| e.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        ErrorBody {
            kind: crate::ErrorKind::from(text("kind")),
            message: text("message"),
        }
    }
}

/// Who a port is (§5.1 `port`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PortInfo {
    /// Port name (`reference`, `python`, ...).
    pub name: String,
    /// Implementation language.
    pub language: String,
    /// Implementation version.
    pub version: String,
}

/// §5.1 `hello`'s success body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HelloResponse {
    /// The protocol the driver speaks.
    pub protocol: u64,
    /// Who the port is.
    pub port: PortInfo,
    /// SPEC sections implemented.
    pub implements: Vec<String>,
    /// The SPEC version targeted (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
}

/// §5.2 `build`'s success body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BuildResponse {
    /// Echoes `id` (not read by the harness).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toolkit: Option<String>,
    /// `tools()` in SPEC §4 assembly order.
    pub tools: Vec<ToolDescription>,
    /// The same names sorted by code point.
    pub names: Vec<String>,
    /// One entry per MCP server (SPEC §4 `mcpStatus()`), and `builtin` where the driver can
    /// tell (optional: the SPEC gives a port no status for its builtins, NOTES #422).
    pub statuses: BTreeMap<String, SourceStatus>,
    /// Failures only, by source; absent where the port reports none it can be asked for (the
    /// SPEC only logs them, NOTES #423).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<BTreeMap<String, String>>,
    /// The filtered skill catalog; absent where the port has no accessor for it (SPEC §4's
    /// toolkit renders it only in `skillsPrompt()`, NOTES #424).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<SkillInfo>>,
    /// Duplicate skills, unknown filter names, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
}

/// A source's state in `statuses`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SourceStatus {
    /// Up.
    Connected,
    /// Failed (isolated, SPEC §0.3).
    Failed,
    /// Turned off by config.
    Disabled,
}

/// §5.3 `tools` and §5.8 `select_builtins` success bodies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolsResponse {
    /// Tool descriptions, in order.
    pub tools: Vec<ToolDescription>,
}

/// §5.4 `execute`'s success body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExecuteResponse {
    /// The tool's result.
    pub result: ToolResult,
}

/// §5.5 `adapter`'s success body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AdapterResponse {
    /// The provider array (its element shape depends on the format).
    pub output: Vec<Value>,
}

/// §5.6 `skills_prompt`'s success body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkillsPromptResponse {
    /// The catalog text.
    pub prompt: String,
}

/// §5.7 `list_skills`'s success body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ListSkillsResponse {
    /// Valid skills, in discovery order.
    pub skills: Vec<SkillInfo>,
    /// Skipped candidates.
    pub skipped: Vec<SkippedSkill>,
    /// `{"<skill-provider>": message}` when the provider failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<BTreeMap<String, String>>,
}

/// §5.12 `list_mcp_tools`'s success body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ListMcpToolsResponse {
    /// One entry per server.
    pub statuses: BTreeMap<String, SourceStatus>,
    /// Per connected server, its tool definitions.
    pub tools: BTreeMap<String, Vec<McpToolInfo>>,
    /// Per failed server, why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<BTreeMap<String, String>>,
}

/// §5.9 `sanitize`'s success body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SanitizeResponse {
    /// The sanitised text.
    pub value: String,
}

/// SPEC §1 ToolResult (pinned: no extra keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolResult {
    /// The text.
    pub output: String,
    /// Whether the call failed.
    #[serde(rename = "isError")]
    pub is_error: bool,
    /// SPEC §1B non-text output; omitted when there is none (a text-only result has no
    /// `parts` key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub parts: Option<Vec<ContentPart>>,
    /// Omitted when there is none; a suspension carries `pending`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "metadata_schema")]
    pub metadata: Option<Value>,
}

/// SPEC §1B ContentPart (pinned): `{type:"text", text}`, or `{type: "image"|"file"|"audio",
/// mimeType, data | url, name?}` with exactly one of `data` / `url`. `data` is standard padded
/// base64 without line breaks. (The SPEC gives `name` to a file only; one beside an image is
/// left to the scenario about it, NOTES.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("oneOf" = [
    {"properties": {"type": {"const": "text"}}, "required": ["text"],
     "not": {"anyOf": [{"required": ["mimeType"]}, {"required": ["data"]}, {"required": ["url"]}, {"required": ["name"]}]}},
    {"properties": {"type": {"enum": ["image", "file", "audio"]}}, "required": ["mimeType"],
     "oneOf": [{"required": ["data"]}, {"required": ["url"]}],
     "not": {"required": ["text"]}}
]))]
pub struct ContentPart {
    /// `text` | `image` | `file` | `audio`.
    #[serde(rename = "type")]
    pub kind: ContentPartType,
    /// A text part's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A non-text part's mime type.
    #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Standard padded base64 (RFC 4648 §4), no line breaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z0-9+/]*={0,2}$"))]
    pub data: Option<String>,
    /// A URL instead of `data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A file part's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A ContentPart's `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ContentPartType {
    /// Text.
    Text,
    /// An image.
    Image,
    /// A document or any other file.
    File,
    /// Audio.
    Audio,
}

/// `content_part`'s `from` (PROTOCOL.md §5.28): exactly one of `path`, `bytes`, `url` (an edge
/// constructor) or `part` (the raw type's own construction), with `mimeType` / `type` beside
/// the first three where the port's constructor takes them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("oneOf" = [
    {"required": ["path"]}, {"required": ["bytes"]}, {"required": ["url"]}, {"required": ["part"]}
]))]
pub struct ContentPartSource {
    /// A filesystem path: its bytes read now, the mime type from the media table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Native bytes, carried here as standard base64 (the driver decodes them and hands the
    /// port bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<String>,
    /// A `data:<mime>;base64,<b64>` or `https:` URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The raw type's fields, as given (both or neither of `data`/`url` is the case to check).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<Value>,
    /// An explicit mime type for `path`, `bytes` or `url`.
    #[serde(default, rename = "mimeType", skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The part type for `bytes` or `url`, where the port's constructor is per type.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContentPartType>,
}

/// `content_part`'s success body: the part, and what the port renders of it where it has a
/// public function for it (each optional: a port without one leaves it out, and the scenario
/// reading it is skipped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ContentPartResponse {
    /// The part, in the SPEC's wire form.
    pub part: ContentPart,
    /// Its decoded byte count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// `{type, mimeType, bytes}`: how logs and events render it (open here: the scenario
    /// comparing it whole names a `data` key as the leak it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descriptor: Option<serde_json::Map<String, Value>>,
    /// The part described in text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub described: Option<String>,
    /// The unsupported-part placeholder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// The token estimate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
}

/// `ToolResult.metadata`: an object, omitted rather than empty (PROTOCOL.md §8); a suspension's
/// `pending` is a SPEC §10 Request, the other keys are the tool's own.
fn metadata_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "minProperties": 1,
        "properties": {"pending": g.subschema_for::<SuspensionRequest>()},
    })
}

/// SPEC §10 Request (the suspension request, not a protocol request; pinned).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Request")]
pub struct SuspensionRequest {
    /// A fresh, non-empty id.
    #[schemars(length(min = 1))]
    pub id: String,
    /// `approval`, `input`, ...
    pub kind: String,
    /// What to show.
    pub prompt: String,
    /// Where to act, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Kind-specific payload, when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// RFC3339 deadline, when given.
    #[serde(default, rename = "expiresAt", skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// SPEC §10 Answer (pinned).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    /// Echoes the request's id.
    pub id: String,
    /// Satisfied or not.
    pub ok: bool,
    /// Kind-specific payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Advisory, when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// SPEC §1 Tool without `execute` (pinned).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolDescription {
    /// Matches `[a-zA-Z0-9_-]+`.
    #[schemars(regex(pattern = r"^[a-zA-Z0-9_-]+$"))]
    pub name: String,
    /// The description.
    pub description: String,
    /// A JSON-Schema object.
    #[serde(rename = "inputSchema")]
    #[schemars(extend("type" = "object"))]
    pub input_schema: Value,
    /// Where the tool comes from.
    pub source: ToolSource,
}

/// SPEC §1 `source`, extended by §4A, §7A and §7D.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolSource {
    /// An MCP server's tool.
    Mcp,
    /// The skill tool.
    Skill,
    /// A §4A builtin.
    Builtin,
    /// A host tool.
    Native,
    /// A §7 HTTP tool.
    Http,
    /// A §7A remote agent.
    A2a,
    /// A §7D agent tool.
    Agent,
    /// Anything else a host declares.
    Custom,
    /// SPEC §10 addendum (a preview): a relay (declaration-only) tool.
    Relay,
}

/// SPEC §3 skill info as the protocol shows it (open: a port may add keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkillInfo {
    /// The skill's name.
    pub name: String,
    /// `null` (or absent) when the skill has none.
    #[serde(default)]
    pub description: Option<String>,
    /// The absolute SKILL.md path (directory skills).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The logical base (data and provider skills).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Whatever else the port sends.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// SPEC §3 S3 one skipped candidate (open).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkippedSkill {
    /// The SKILL.md path, or `skill://<name>/`.
    pub location: String,
    /// `missing-name`, `malformed-frontmatter`, `duplicate-name`, `unreadable`.
    pub reason: String,
    /// The name, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Whatever else the port sends.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// SPEC §2 Gap 6 one listed MCP tool definition (open).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct McpToolInfo {
    /// The server's own tool name.
    pub name: String,
    /// Its description.
    #[serde(default)]
    pub description: Option<String>,
    /// Its input schema.
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
    /// Whatever else the port sends.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

impl Command {
    /// The commands whose port call may answer `raised` instead of its body (PROTOCOL.md
    /// §5.2, §5.23), with the body keys a `raised` answer must not carry: what the decoder
    /// checks and the schema states.
    pub fn raises(self) -> Option<&'static [&'static str]> {
        match self {
            Command::Build => Some(&["tools", "names", "statuses"]),
            Command::Serve => Some(&["url"]),
            Command::ContentPart => Some(&["part"]),
            Command::Classifier => Some(&["classifier"]),
            _ => None,
        }
    }
}

/// `serve_records` (§5.25): each host callback's calls in order; entries stay open JSON because
/// the SPEC leaves their inner shapes partly to the port.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ServeRecordsResponse {
    /// Every `onTask` argument.
    #[serde(default, rename = "onTask")]
    pub on_task: Vec<Value>,
    /// Every `onCall` argument.
    #[serde(default, rename = "onCall")]
    pub on_call: Vec<Value>,
    /// Every call the recording TaskStore received.
    #[serde(default, rename = "storeCalls")]
    pub store_calls: Vec<Value>,
    /// Every `awaitCancel` tool's outcome.
    #[serde(default, rename = "toolCancels")]
    pub tool_cancels: Vec<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_table_agrees_with_itself() {
        assert_eq!(Command::ALL.len(), 48);
        for (i, command) in Command::ALL.into_iter().enumerate() {
            let name = command.as_str();
            assert_eq!(Command::parse(name), Some(command), "{name}");
            assert_eq!(serde_json::to_value(command).unwrap(), name);
            assert!(
                Command::ALL[..i].iter().all(|c| c.as_str() != name),
                "{name} twice"
            );
        }
        assert_eq!(Command::parse("Hello"), None);
        let request = Request::SkillsPrompt {
            toolkit: "tk1".into(),
        };
        assert_eq!(request.command(), Command::SkillsPrompt);
        let wire = serde_json::to_string(&request).unwrap();
        assert_eq!(wire, r#"{"cmd":"skills_prompt","toolkit":"tk1"}"#);
        assert_eq!(serde_json::from_str::<Request>(&wire).unwrap(), request);
    }

    #[test]
    fn a_json_request_is_numbered_in_place() {
        let raw = serde_json::json!({"cmd": "tools", "toolkit": "tk1", "extra": null});
        let numbered = Framed::number(raw, 4).to_string();
        assert_eq!(
            numbered,
            r#"{"cmd":"tools","toolkit":"tk1","extra":null,"seq":4}"#
        );
        let renumbered = Framed::number(serde_json::json!({"seq": 1, "cmd": "hello"}), 2);
        assert_eq!(renumbered.to_string(), r#"{"seq":2,"cmd":"hello"}"#);
        assert_eq!(Framed::number(Value::from("x"), 1), Value::from("x"));
    }
}
