//! SPEC §10 addendum (a preview): relay (declaration-only) tools and their build-time
//! collision guard. A relay tool has a schema but no host behaviour: calling it suspends
//! with a `kind:"tool_call"` Request, and the host feeds back the output.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::builtins::BUILTIN_NAMES;
use super::suspension::{new_request_id, Answer, Request};
use super::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The Request kind a relayed call suspends with.
pub const RELAY_KIND: &str = "tool_call";

/// `relayTool(name, description, schema)`: a normal `Tool` with `source:"relay"`, declared
/// by the §5 adapters like any other; executing it yields the `tool_call` suspension.
pub fn relay_tool(
    name: impl Into<String>,
    description: impl Into<String>,
    input_schema: Value,
) -> Tool {
    let name = name.into();
    let exec = Arc::new(RelayExec { name: name.clone() });
    Tool::new(name, description, input_schema, Source::Relay, exec)
}

/// One entry of `data.calls`: `{id, name, input, arguments}` (`arguments` the raw JSON text).
pub fn relay_call(id: &str, name: &str, input: &Value, arguments: &str) -> Value {
    json!({"id": id, "name": name, "input": input, "arguments": arguments})
}

/// The suspension for one assistant turn's relay calls (`calls` in tool-call order).
pub fn relay_request(calls: Vec<Value>) -> Request {
    let names: Vec<&str> = calls
        .iter()
        .filter_map(|c| c.get("name").and_then(Value::as_str))
        .collect();
    Request {
        id: new_request_id("relay"),
        kind: RELAY_KIND.to_string(),
        prompt: format!("relay: the host executes {}", names.join(", ")),
        url: None,
        data: Some(json!({ "calls": calls })),
        expires_at: None,
    }
}

/// A relayed call's suspension as a tool result: `metadata.pending` the turn's request.
pub fn suspension_result(request: &Request) -> ToolResult {
    let pending = serde_json::to_value(request).unwrap_or(Value::Null);
    ToolResult::error(request.prompt.clone()).with_meta("pending", pending)
}

/// The provider call ids a relay Request carries (`data.calls[].id`); none for another kind.
pub fn call_ids(request: &Request) -> Vec<String> {
    if request.kind != RELAY_KIND {
        return Vec::new();
    }
    request
        .data
        .as_ref()
        .and_then(|d| d.get("calls"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("id").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// The result an Answer gives the relayed call `id`: its `data.results` entry, else the
/// single-call shorthand `data.output`/`data.isError`; `ok:false` or no result for the call
/// is an error result (an unanswered call must still fill its slot, never abort the run).
pub fn relay_result(answer: &Answer, id: &str) -> ToolResult {
    if !answer.ok {
        let reason = answer
            .reason
            .as_deref()
            .unwrap_or("the host declined the call");
        return ToolResult::error(format!("relay declined: {reason}"));
    }
    let data = answer.data.as_ref();
    let entry = data
        .and_then(|d| d.get("results"))
        .and_then(Value::as_array)
        .and_then(|rs| {
            rs.iter()
                .find(|r| r.get("id").and_then(Value::as_str) == Some(id))
                // A direct call has no provider id (only the loop stamps one): its single
                // result is its own. A loop call never takes another call's result.
                .or(if id.is_empty() && rs.len() == 1 {
                    rs.first()
                } else {
                    None
                })
        })
        .or(data.filter(|d| d.get("output").is_some()));
    match entry {
        Some(e) => {
            let output = match e.get("output") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            let is_error = e.get("isError").and_then(Value::as_bool).unwrap_or(false);
            ToolResult {
                output,
                is_error,
                parts: None,
                metadata: None,
            }
        }
        None => ToolResult::error(format!(
            "relay: the host supplied no result for call {id:?}"
        )),
    }
}

/// A relay tool named like a builtin: the one toolkit build failure (SPEC §10 addendum).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayCollision {
    /// The relay tool's (and the builtin's) name.
    pub name: String,
}

impl std::fmt::Display for RelayCollision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "relay tool \"{}\" collides with the built-in tool of that name",
            self.name
        )
    }
}

impl std::error::Error for RelayCollision {}

/// The relay guard: the first relay tool named like a builtin, as a build error naming it.
/// It holds whether builtins are on or off, so a future builtin cannot capture the call.
pub fn check_collisions(tools: &[Tool]) -> Result<(), RelayCollision> {
    match tools
        .iter()
        .find(|t| t.source == Source::Relay && BUILTIN_NAMES.contains(&t.name.as_str()))
    {
        Some(t) => Err(RelayCollision {
            name: t.name.clone(),
        }),
        None => Ok(()),
    }
}

/// No host behaviour: without an answer the call suspends; the retry carries the host's output.
struct RelayExec {
    name: String,
}

#[async_trait]
impl ToolExec for RelayExec {
    async fn execute(&self, args: Value, ctx: &Context) -> ToolResult {
        if let Some(answer) = &ctx.answer {
            // A direct call has no provider call id: the single result is its own.
            return relay_result(answer, "");
        }
        direct_suspension(&self.name, &args)
    }
}

/// The tool-level suspension of one direct relay call: `metadata.pending` a `tool_call`
/// Request whose `data.calls` holds the call with an empty id (only the loop knows it).
pub fn direct_suspension(name: &str, args: &Value) -> ToolResult {
    let raw = args.to_string();
    suspension_result(&relay_request(vec![relay_call("", name, args, &raw)]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolkit::{Toolkit, ToolkitOptions};

    fn options(builtins: Value, extra: Vec<Tool>) -> ToolkitOptions {
        ToolkitOptions {
            builtins: Some(builtins),
            extra_tools: extra,
            ..ToolkitOptions::default()
        }
    }

    #[tokio::test]
    async fn a_relay_tool_named_like_a_builtin_fails_the_build_even_with_builtins_off() {
        for builtins in [json!(false), json!(true)] {
            let relay = relay_tool("read", "host reads", json!({"type": "object"}));
            let err = Toolkit::try_build(options(builtins, vec![relay]))
                .await
                .err()
                .unwrap();
            assert_eq!(err.name, "read");
            assert!(err.to_string().contains("\"read\""), "{err}");
        }
        let ok = relay_tool("lookup", "host looks up", json!({"type": "object"}));
        let tk = Toolkit::try_build(options(json!(false), vec![ok]))
            .await
            .unwrap();
        assert_eq!(tk.get("lookup").unwrap().source, Source::Relay);
        assert_eq!(tk.get("lookup").unwrap().describe().source, Source::Relay);
    }

    #[tokio::test]
    async fn a_relay_call_executed_directly_suspends_and_the_answer_resolves_it() {
        let tool = relay_tool("lookup", "", json!({"type": "object"}));
        let r = tool.execute(json!({"q": 1}), &Context::default()).await;
        let pending = &r.metadata.unwrap()["pending"];
        assert_eq!(pending["kind"], "tool_call");
        assert_eq!(
            pending["data"]["calls"],
            json!([{"id": "", "name": "lookup", "input": {"q": 1}, "arguments": "{\"q\":1}"}])
        );
        let answer = |data: Value, ok: bool| Answer {
            id: "x".into(),
            ok,
            data: Some(data),
            reason: None,
        };
        let ctx = |a| Context {
            answer: Some(a),
            ..Context::default()
        };
        let short = tool
            .execute(json!({}), &ctx(answer(json!({"output": "42"}), true)))
            .await;
        assert_eq!((short.output.as_str(), short.is_error), ("42", false));
        let listed = relay_result(
            &answer(
                json!({"results": [{"id": "a", "output": "A"}, {"id": "b", "output": "B", "isError": true}]}),
                true,
            ),
            "b",
        );
        assert_eq!((listed.output.as_str(), listed.is_error), ("B", true));
        assert!(relay_result(&answer(json!({"results": []}), true), "c").is_error);
        assert!(relay_result(&answer(json!({"output": "x"}), false), "c").is_error);
    }
}
