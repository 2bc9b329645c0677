//! §8 lifecycle hooks. Turns are numbered from 1 (the SPEC leaves the base open).

use async_trait::async_trait;
use serde_json::Value;

use crate::tool::ToolResult;

/// What `beforeLLM` sees.
#[derive(Debug, Clone)]
pub struct BeforeLlm {
    /// The working transcript (openai: with the system message; anthropic: without it).
    pub messages: Vec<Value>,
    /// The style's adapter entries about to be sent.
    pub tools: Vec<Value>,
    /// The configured model.
    pub model: String,
    /// 1-based turn.
    pub turn: u32,
}

/// `beforeLLM`'s optional replacement.
#[derive(Debug, Clone, Default)]
pub struct LlmOverride {
    /// Replaces the working transcript for the rest of the run.
    pub messages: Option<Vec<Value>>,
    /// Replaces the tools of this call.
    pub tools: Option<Vec<Value>>,
}

/// What `afterLLM` sees.
#[derive(Debug, Clone)]
pub struct AfterLlm {
    /// The raw provider payload (a streamed turn: the reassembled equivalent).
    pub response: Value,
    /// The configured model.
    pub model: String,
    /// 1-based turn.
    pub turn: u32,
}

/// What `beforeTool` sees.
#[derive(Debug, Clone)]
pub struct BeforeTool {
    /// Tool name.
    pub name: String,
    /// Parsed arguments.
    pub args: Value,
    /// The provider's call id.
    pub id: String,
    /// 1-based turn of the LLM call that asked for it.
    pub turn: u32,
}

/// `beforeTool`'s optional answer.
#[derive(Debug, Clone)]
pub enum ToolOverride {
    /// Short-circuit: the tool never runs.
    Result(ToolResult),
    /// Run the call with these arguments.
    Args(Value),
}

/// What `afterTool` sees.
#[derive(Debug, Clone)]
pub struct AfterTool {
    /// Tool name.
    pub name: String,
    /// The arguments the call ran with.
    pub args: Value,
    /// The tool's result.
    pub result: ToolResult,
    /// The provider's call id.
    pub id: String,
    /// 1-based turn.
    pub turn: u32,
}

/// The four optional, async hooks; every default does nothing.
#[async_trait]
pub trait Hooks: Send + Sync {
    /// Before each LLM call; an `Err` aborts the run with that message (the route gate).
    async fn before_llm(&self, _ctx: BeforeLlm) -> Result<Option<LlmOverride>, String> {
        Ok(None)
    }

    /// After each successful LLM call.
    async fn after_llm(&self, _ctx: AfterLlm) {}

    /// Before each tool call.
    async fn before_tool(&self, _ctx: BeforeTool) -> Option<ToolOverride> {
        None
    }

    /// After each tool call; `Some` replaces the result.
    async fn after_tool(&self, _ctx: AfterTool) -> Option<ToolResult> {
        None
    }
}
