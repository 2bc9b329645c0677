//! §4 provider adapters: schema only, one entry per tool, in `tools()` order.

use serde_json::{json, Value};

use super::tool::Tool;

/// The three provider formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `{type:"function",function:{name,description,parameters}}` per tool.
    OpenAi,
    /// `{name,description,input_schema}` per tool.
    Anthropic,
    /// `[{functionDeclarations:[{name,description,parameters}]}]`.
    Gemini,
}

impl Format {
    /// Parses the protocol spelling (`openai`, `anthropic`, `gemini`).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "openai" => Some(Format::OpenAi),
            "anthropic" => Some(Format::Anthropic),
            "gemini" => Some(Format::Gemini),
            _ => None,
        }
    }
}

/// Renders `tools` in the given provider format.
pub fn render(format: Format, tools: &[Tool]) -> Value {
    match format {
        Format::OpenAi => to_openai(tools),
        Format::Anthropic => to_anthropic(tools),
        Format::Gemini => to_gemini(tools),
    }
}

/// OpenAI function-calling tools.
pub fn to_openai(tools: &[Tool]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema,
                }})
            })
            .collect(),
    )
}

/// Anthropic tool definitions.
pub fn to_anthropic(tools: &[Tool]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect(),
    )
}

/// Gemini: one element wrapping every declaration.
pub fn to_gemini(tools: &[Tool]) -> Value {
    let decls: Vec<Value> = tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "parameters": t.input_schema}),
        )
        .collect();
    json!([{ "functionDeclarations": decls }])
}
