//! §1 core types: `Tool`, `ToolResult`, `Context`.

use std::fmt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use async_trait::async_trait;
use futures::FutureExt;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::content::ContentPart;
use super::suspension::Answer;

/// Where a tool came from (§1 `source`, extended by §4A, §7, §7A).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// §2 MCP servers.
    Mcp,
    /// §3 the `skill` tool.
    Skill,
    /// §4A the ten built-in tools.
    Builtin,
    /// §6 native functions.
    Native,
    /// §7 HTTP tools.
    Http,
    /// §7A remote A2A agents.
    A2a,
    /// Anything else a host registers.
    Custom,
    /// §10 addendum (preview): a declaration-only tool the host executes.
    Relay,
    /// §7D: an agent invoked as a tool (`asTool()`).
    Agent,
}

impl Source {
    /// The wire spelling of the source.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Mcp => "mcp",
            Source::Skill => "skill",
            Source::Builtin => "builtin",
            Source::Native => "native",
            Source::Http => "http",
            Source::A2a => "a2a",
            Source::Custom => "custom",
            Source::Relay => "relay",
            Source::Agent => "agent",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// §1 ToolResult; serialises with exactly `output`, `isError` and (when present) `parts` and
/// `metadata`: without parts it is byte-identical to a result before §1B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// Text handed back to the model.
    pub output: String,
    /// Whether the call failed (or suspended, §10).
    #[serde(rename = "isError")]
    pub is_error: bool,
    /// Non-text output (§1B); absent when there is none. `output` stays required beside it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub parts: Option<Vec<ContentPart>>,
    /// Free-form metadata; absent when there is none.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub metadata: Option<Map<String, Value>>,
}

impl ToolResult {
    /// A successful result.
    pub fn ok(output: impl Into<String>) -> Self {
        Self {
            output: output.into(),
            is_error: false,
            parts: None,
            metadata: None,
        }
    }

    /// A failed result.
    pub fn error(output: impl Into<String>) -> Self {
        Self {
            output: output.into(),
            is_error: true,
            parts: None,
            metadata: None,
        }
    }

    /// The same result carrying `parts` (none when the list is empty: a text-only result has
    /// no `parts` key).
    pub fn with_parts(mut self, parts: Vec<ContentPart>) -> Self {
        self.parts = (!parts.is_empty()).then_some(parts);
        self
    }

    /// Adds one metadata entry.
    pub fn with_meta(mut self, key: &str, value: Value) -> Self {
        self.metadata
            .get_or_insert_with(Map::new)
            .insert(key.to_string(), value);
        self
    }
}

/// §1 Context passed to `execute`.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// Cancellation of the call.
    pub cancel: Option<CancellationToken>,
    /// A caller-imposed bound in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Present only on the post-`waitFor` retry (§10).
    pub answer: Option<Answer>,
}

impl Context {
    /// Resolves when the call is cancelled; never, when it carries no token.
    pub async fn cancelled(&self) {
        match &self.cancel {
            Some(token) => token.cancelled().await,
            None => std::future::pending().await,
        }
    }
}

/// The behaviour behind a tool.
#[async_trait]
pub trait ToolExec: Send + Sync {
    /// Runs the tool; failures are `isError` results, never panics or errors.
    async fn execute(&self, args: Value, ctx: &Context) -> ToolResult;
}

/// §1 Tool: a named, described, schema'd, executable capability.
#[derive(Clone)]
pub struct Tool {
    /// Unique name, `[a-zA-Z0-9_-]`.
    pub name: String,
    /// What the model is told about the tool.
    pub description: String,
    /// A JSON-Schema object.
    pub input_schema: Value,
    /// Where the tool came from.
    pub source: Source,
    exec: Arc<dyn ToolExec>,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// Builds a tool from its parts.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        source: Source,
        exec: Arc<dyn ToolExec>,
    ) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            input_schema,
            source,
            exec,
        }
    }

    /// Executes the tool; a panic inside the tool becomes an `isError` result, so nothing
    /// but a `ToolResult` ever crosses this boundary.
    pub async fn execute(&self, args: Value, ctx: &Context) -> ToolResult {
        let mut fut = self.exec.execute(args, ctx);
        // Each poll of the tool runs marked, so a panic hook can tell a panic this catch
        // turns into data from a crash (`inside_tool_boundary`).
        let marked = futures::future::poll_fn(move |cx| {
            let _inside = BoundaryMark::enter();
            fut.as_mut().poll(cx)
        });
        match AssertUnwindSafe(marked).catch_unwind().await {
            Ok(result) => result,
            Err(panic) => {
                let msg = panic_message(panic.as_ref());
                ToolResult::error(format!("tool \"{}\" failed: {msg}", self.name))
            }
        }
    }

    /// The tool's public description (`name`, `description`, `inputSchema`, `source`).
    pub fn describe(&self) -> ToolDescription {
        ToolDescription {
            name: self.name.clone(),
            description: self.description.clone(),
            input_schema: self.input_schema.clone(),
            source: self.source,
        }
    }
}

/// A tool as hosts list it; serialises as `{name, description, inputSchema, source}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescription {
    /// The exposed name.
    pub name: String,
    /// What the model is told.
    pub description: String,
    /// Its JSON-Schema (SPEC data: arbitrary JSON).
    pub input_schema: Value,
    /// Where it came from.
    pub source: Source,
}

thread_local! {
    /// How many tool polls under `execute`'s panic catch this thread is inside.
    static BOUNDARY_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether this thread is running a tool's code under `Tool::execute`'s panic catch: a
/// panic hook uses it to report a panic that becomes an `isError` result in one line, not
/// as a crash with a backtrace note.
pub fn inside_tool_boundary() -> bool {
    BOUNDARY_DEPTH.with(|d| d.get() > 0)
}

/// Marks this thread as inside the tool boundary until dropped (an unwind drops it too,
/// after the panic hook has run).
struct BoundaryMark;

impl BoundaryMark {
    fn enter() -> Self {
        BOUNDARY_DEPTH.with(|d| d.set(d.get() + 1));
        BoundaryMark
    }
}

impl Drop for BoundaryMark {
    fn drop(&mut self) {
        BOUNDARY_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// The text of a caught panic payload, for turning a panic into data.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}
