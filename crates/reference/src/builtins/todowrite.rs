//! §4A `todowrite`: validates and echoes the session todo list (stateless in v1).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::write::{args_object, type_name, Step};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub(super) const NAME: &str = "todowrite";

/// Checks every todo is `{id:string, text:string, completed:boolean}` and renders the list
/// as Python does: `[x] text` / `[ ] text` per line, `(no todos)` when empty.
fn render(todos: &Value) -> Step<String> {
    let Value::Array(items) = todos else {
        return Err(ToolResult::error(format!(
            "todowrite: todos must be an array, got {}",
            type_name(todos)
        )));
    };
    let mut lines = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let bad = |what: &str| ToolResult::error(format!("todowrite: todos[{i}]{what}"));
        let Value::Object(t) = item else {
            return Err(bad(" must be an object"));
        };
        if !matches!(t.get("id"), Some(Value::String(_))) {
            return Err(bad(".id must be a string"));
        }
        let Some(Value::String(text)) = t.get("text") else {
            return Err(bad(".text must be a string"));
        };
        let Some(Value::Bool(done)) = t.get("completed") else {
            return Err(bad(".completed must be a boolean"));
        };
        lines.push(format!("[{}] {text}", if *done { 'x' } else { ' ' }));
    }
    if lines.is_empty() {
        return Ok("(no todos)".to_string());
    }
    Ok(lines.join("\n"))
}

struct TodoWrite;

#[async_trait]
impl ToolExec for TodoWrite {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let mut args = match args_object("todowrite", args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let Some(todos) = args.remove("todos").filter(|t| !t.is_null()) else {
            return ToolResult::error("todowrite: todos is required");
        };
        match render(&todos) {
            Ok(text) => ToolResult::ok(text).with_meta("todos", todos),
            Err(e) => e,
        }
    }
}

/// The §4A `todowrite` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "Replace the session todo list. Returns the rendered list.",
        json!({
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "description": "The full todo list to store",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "text": {"type": "string"},
                            "completed": {"type": "boolean"}
                        },
                        "required": ["id", "text", "completed"]
                    }
                }
            },
            "required": ["todos"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(TodoWrite),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(args: Value) -> ToolResult {
        tool().execute(args, &Context::default()).await
    }

    #[tokio::test]
    async fn renders_and_echoes() {
        let todos = json!([
            {"id": "1", "text": "First task", "completed": false},
            {"id": "2", "text": "Second task", "completed": true}
        ]);
        let r = run(json!({"todos": todos})).await;
        assert!(!r.is_error);
        assert_eq!(r.output, "[ ] First task\n[x] Second task");
        assert_eq!(r.metadata.unwrap()["todos"], todos);
        let r = run(json!({"todos": []})).await;
        assert_eq!((r.output.as_str(), r.is_error), ("(no todos)", false));
    }

    #[tokio::test]
    async fn rejects_bad_todos() {
        let cases = [
            (json!({}), "todowrite: todos is required"),
            (
                json!({"todos": "x"}),
                "todowrite: todos must be an array, got string",
            ),
            (
                json!({"todos": [1]}),
                "todowrite: todos[0] must be an object",
            ),
            (
                json!({"todos": [{"text": "a", "completed": true}]}),
                "todowrite: todos[0].id must be a string",
            ),
            (
                json!({"todos": [{"id": "1", "completed": true}]}),
                "todowrite: todos[0].text must be a string",
            ),
            (
                json!({"todos": [{"id": "1", "text": "a", "completed": "no"}]}),
                "todowrite: todos[0].completed must be a boolean",
            ),
            (
                json!("nope"),
                "todowrite: arguments must be a JSON object, got string",
            ),
        ];
        for (args, want) in cases {
            let r = run(args).await;
            assert!(r.is_error);
            assert_eq!(r.output, want);
        }
    }
}
