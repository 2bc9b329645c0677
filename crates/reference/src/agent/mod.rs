//! SPEC §7D: sub-agents and the agent runtime. An agent is a tool (a system prompt × a
//! filtered toolkit × the §8 loop); the runtime keeps a table of handles with
//! deterministic, parent-scoped ids, a state machine whose transitions are traced per
//! handle, the six host verbs, the two delivery rails, the three gates, hierarchical
//! budgets, the `task` tool, suspension escalation with durable resume, and a virtual
//! clock so every trace is reproducible.

pub mod budget;
pub mod clock;
mod error;
pub mod home;
pub mod inbox;
pub mod memory;
mod runtime;
mod task;
mod trace;
mod turn;

use std::sync::Arc;

use serde::ser::{Serialize, Serializer};

use crate::client::{ConversationStore, Hooks, OnMetric, Style, Usage};
use crate::suspension::{Request, WaitFor};

pub use budget::{Budget, Ledger};
pub use error::{AgentError, ClosedVerb};
pub use runtime::{
    BudgetReport, HandleInfo, HandleSummary, Remaining, Runtime, Spawned, WakeOutcome,
    DEFAULT_MAX_DEPTH,
};
pub use trace::{Beat, BudgetInfo, CloseCall, Observations, WaitForCall};

/// One registry entry: `agent(name, {does, soul?, team?, budget?, model?, waitFor?,
/// onSpawn?, onClose?, hooks?, onMetric?})`.
#[derive(Clone, Default)]
pub struct AgentDef {
    /// The registry name (and the id segment of its handles).
    pub name: String,
    /// What it does: the tool description and the team line.
    pub does: String,
    /// The model its turns are sent with.
    pub model: String,
    /// The composed system prompt.
    pub soul: Option<String>,
    /// The agents its `task` tool may target; empty ⇒ no `task` tool (recursion opt-in).
    pub team: Vec<String>,
    /// The runtime tools it may use, by name.
    pub tools: Vec<String>,
    /// Its own budget (a spawn's budget overrides it field by field).
    pub budget: Budget,
    /// Its §10 interpreter: answers suspensions rising from it and its subtree.
    pub wait_for: Option<WaitFor>,
    /// §8 hooks for its turns (replaces the runtime's, never merged).
    pub hooks: Option<Arc<dyn Hooks>>,
    /// §8 metric sink for its turns (replaces the runtime's, never merged).
    pub on_metric: Option<OnMetric>,
    /// §7E: its home directory; the bootstrap files compose its soul at session start.
    pub home: Option<std::path::PathBuf>,
    /// §7E: the opt-in `memory` tool over its home (needs `home`).
    pub memory: bool,
}

/// `onBudget(info)`'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetDecision {
    /// Stop: the run ends `incomplete`.
    Stop,
    /// Raise the limit by its original amount and go on.
    Extend,
}

/// `onBudget(info)`: consulted when a limit would stop a run.
pub type OnBudget = Arc<dyn Fn(&BudgetInfo) -> BudgetDecision + Send + Sync>;

/// `AgentRuntime(options)`.
#[derive(Clone)]
pub struct RuntimeOptions {
    /// The LLM endpoint every handle's client uses.
    pub base_url: String,
    /// Its wire.
    pub style: Style,
    /// Its key (absent ⇒ the §8 environment variables).
    pub api_key: Option<String>,
    /// Items an inbox holds before a post is refused.
    pub inbox_cap: usize,
    /// The global turn gate; `None` ⇒ unbounded.
    pub max_concurrent_turns: Option<usize>,
    /// How long (virtual ms) a graceful close lets a running turn finish.
    pub shutdown_ms: u64,
    /// Runtime-wide §8 hooks.
    pub hooks: Option<Arc<dyn Hooks>>,
    /// Runtime-wide §8 metric sink.
    pub on_metric: Option<OnMetric>,
    /// The one store of every handle (conversation id = handle id); absent ⇒ in memory.
    pub store: Option<Arc<dyn ConversationStore>>,
    /// Consulted when a budget limit would stop a run.
    pub on_budget: Option<OnBudget>,
}

impl Default for RuntimeOptions {
    fn default() -> Self {
        Self {
            base_url: String::new(),
            style: Style::OpenAi,
            api_key: None,
            inbox_cap: 64,
            max_concurrent_turns: None,
            shutdown_ms: 5_000,
            hooks: None,
            on_metric: None,
            store: None,
            on_budget: None,
        }
    }
}

/// A handle's state (§7D state machine); serialises as its SPEC spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// Waiting for a wake.
    Idle,
    /// A run is in flight.
    Running,
    /// Parked on a §10 Request.
    Suspended,
    /// Closed; still queryable.
    Closed,
}

impl State {
    /// The SPEC spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Running => "running",
            State::Suspended => "suspended",
            State::Closed => "closed",
        }
    }
}

/// The closed result vocabulary (§7D pin 3); serialises as its SPEC spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The model answered.
    Done,
    /// Parked on a Request nobody in the chain could answer.
    Pending,
    /// A budget limit stopped it.
    Incomplete,
    /// An interrupt aborted it.
    Interrupted,
    /// The handle was closed.
    Closed,
    /// A wait timed out (the child keeps running).
    Timeout,
    /// The run failed.
    Error,
}

impl Status {
    /// The SPEC spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Pending => "pending",
            Status::Incomplete => "incomplete",
            Status::Interrupted => "interrupted",
            Status::Closed => "closed",
            Status::Timeout => "timeout",
            Status::Error => "error",
        }
    }
}

/// What a run of a handle settled to (what `wait` answers).
#[derive(Debug, Clone, PartialEq)]
pub struct AgentResult {
    /// The handle it belongs to.
    pub handle: String,
    /// How it ended.
    pub status: Status,
    /// The final text (the partial text on a limit stop).
    pub text: String,
    /// The limit that stopped it (`incomplete` only).
    pub limit: Option<String>,
    /// The Request it is parked on (`pending` only), `data.path` stamped.
    pub pending: Option<Request>,
    /// LLM round trips of this run (own).
    pub turns: u32,
    /// Tokens of this run, children's rolled-up usage included.
    pub usage: Usage,
    /// What went wrong, for every status but `done`.
    pub error: Option<String>,
}

impl AgentResult {
    /// A result with no run behind it (a refused verb, a timeout).
    pub fn bare(handle: &str, status: Status, error: impl Into<String>) -> Self {
        Self {
            handle: handle.to_string(),
            status,
            text: String::new(),
            limit: None,
            pending: None,
            turns: 0,
            usage: Usage::default(),
            error: Some(error.into()),
        }
    }

    /// Whether a parent's model sees it as a failure (everything but `done`).
    pub fn is_error(&self) -> bool {
        self.status != Status::Done
    }
}

/// Serialises as `{handle, status, text, isError, turns, usage, limit?, pending?, error?}`.
impl Serialize for AgentResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire<'a> {
            handle: &'a str,
            status: Status,
            text: &'a str,
            is_error: bool,
            turns: u32,
            usage: Usage,
            #[serde(skip_serializing_if = "Option::is_none")]
            limit: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pending: Option<&'a Request>,
            #[serde(skip_serializing_if = "Option::is_none")]
            error: Option<&'a str>,
        }
        Wire {
            handle: &self.handle,
            status: self.status,
            text: &self.text,
            is_error: self.is_error(),
            turns: self.turns,
            usage: self.usage,
            limit: self.limit.as_deref(),
            pending: self.pending.as_ref(),
            error: self.error.as_deref(),
        }
        .serialize(serializer)
    }
}
