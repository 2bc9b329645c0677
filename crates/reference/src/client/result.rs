//! `RunResult` and the stream events.

use serde_json::{Map, Value};

use super::wire::Usage;

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
