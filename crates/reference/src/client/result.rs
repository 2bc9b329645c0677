//! `RunResult` and the stream events.

use serde_json::{Map, Value};

use super::wire::Usage;
use crate::suspension::Request;

/// §10 `RunResult.status`: how the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunStatus {
    /// The model answered.
    #[default]
    Done,
    /// A tool suspended and no `waitFor` was set.
    Pending,
    /// A limit (`limit`) stopped the run.
    Incomplete,
}

impl RunStatus {
    /// The SPEC spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Done => "done",
            RunStatus::Pending => "pending",
            RunStatus::Incomplete => "incomplete",
        }
    }
}

/// One tool call of a run and its result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRecord {
    /// Tool name.
    pub name: String,
    /// The arguments it ran with (after a `beforeTool` rewrite).
    pub args: Value,
    /// The result text (after `afterTool`).
    pub output: String,
    /// Whether it failed.
    pub is_error: bool,
    /// The tool result's metadata.
    pub metadata: Option<Map<String, Value>>,
}

/// The full outcome of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    /// The final assistant text.
    pub text: String,
    /// The full transcript, in the provider's shape.
    pub messages: Vec<Value>,
    /// Every call and its result.
    pub tool_calls: Vec<ToolCallRecord>,
    /// `tool_calls.len()`.
    pub tool_call_count: usize,
    /// LLM round trips.
    pub turns: u32,
    /// Summed across turns.
    pub usage: Usage,
    /// The configured model.
    pub model: String,
    /// §10: `done`, `pending` or `incomplete`.
    pub status: RunStatus,
    /// Which limit stopped the run; set only when `status` is `Incomplete`.
    pub limit: Option<String>,
    /// The unresolved suspension; present iff `status` is `Pending`.
    pub pending: Option<Request>,
}

/// One event of `stream()`.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// An assistant text delta.
    Text {
        /// The new text.
        delta: String,
    },
    /// A tool about to run.
    ToolCall {
        /// Provider call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments as the model sent them.
        args: Value,
    },
    /// A tool that ran.
    ToolResult {
        /// Provider call id.
        id: String,
        /// Tool name.
        name: String,
        /// Result text.
        output: String,
        /// Whether it failed.
        is_error: bool,
    },
    /// §10: a tool suspended; sent before `waitFor` runs.
    Pending {
        /// The suspension's request.
        request: Request,
    },
    /// One LLM call's token usage.
    Usage {
        /// That call's tokens.
        usage: Usage,
    },
    /// The final result.
    Done {
        /// What `run` would have returned.
        result: RunResult,
    },
}
