//! The `task` tool (spawn→wake→wait→close fused, with reattachment by task key) and the
//! agent-as-tool bridge.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use super::runtime::{stamp, Runtime};
use super::{AgentDef, AgentResult, State, Status};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// A parent's `task` tool.
pub(super) struct TaskTool {
    rt: Runtime,
    parent: String,
    team: Vec<String>,
}

impl TaskTool {
    /// The tool for `parent`: its description lists only the team, sorted, from each `does`.
    pub(super) fn tool(rt: Runtime, parent: &str, def: &AgentDef) -> Tool {
        let mut team = def.team.clone();
        team.sort();
        team.dedup();
        let lines: Vec<String> = team
            .iter()
            .map(|m| {
                let does = rt.def(m).map(|d| d.does.clone()).unwrap_or_default();
                format!("- {m}: {does}")
            })
            .collect();
        let description = format!(
            "Delegate a task to a member of your team. It runs on a fresh transcript and answers with its final text.\n\nTeam:\n{}",
            lines.join("\n")
        );
        let schema = json!({
            "type": "object",
            "properties": {
                "agent": {"type": "string", "enum": team, "description": "The team member to run."},
                "prompt": {"type": "string", "description": "What it should do."},
            },
            "required": ["agent", "prompt"],
        });
        let exec = Arc::new(TaskTool {
            rt,
            parent: parent.to_string(),
            team,
        });
        Tool::new("task", description, schema, Source::Agent, exec)
    }
}

#[async_trait]
impl ToolExec for TaskTool {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let agent = args
            .get("agent")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let prompt = args
            .get("prompt")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if !self.team.iter().any(|m| m == agent) {
            return ToolResult::error(format!(
                "unknown agent {agent:?} for task; the team is: {}",
                self.team.join(", ")
            ));
        }
        let key = (agent.to_string(), prompt.to_string());
        let existing = {
            let t = self.rt.lock();
            t.handles
                .get(&self.parent)
                .and_then(|p| p.task_keys.get(&key).cloned())
                .and_then(|c| t.handles.get(&c).map(|h| (c, h.state)))
        };
        let child = match existing {
            Some((child, state)) if state != State::Closed => {
                // Reattachment by task key: settled ⇒ its recorded result, suspended ⇒ its
                // pending, running ⇒ await. Never a duplicate child.
                self.rt.lock().obs.event(
                    &self.parent,
                    format!("task replay → REATTACH {child} ({})", state.as_str()),
                );
                child
            }
            _ => {
                let spawned = match self.rt.spawn(&self.parent, agent, None) {
                    Ok(s) => s,
                    Err(e) => return ToolResult::error(format!("task {agent:?} refused: {e}")),
                };
                if let Some(p) = self.rt.lock().handles.get_mut(&self.parent) {
                    p.task_keys.insert(key.clone(), spawned.id.clone());
                }
                if let Err(e) = self.rt.wake(&spawned.id, Some(prompt)) {
                    return ToolResult::error(format!("task {agent:?} could not start: {e}"));
                }
                spawned.id
            }
        };
        let result = self.rt.wait(&child, None, None).await;
        if result.status == Status::Pending {
            if let Some(request) = result.pending.clone() {
                // The child presents exactly as a suspending tool (§10), its path stamped.
                let request = stamp(request, &child);
                let pending = serde_json::to_value(&request).unwrap_or(Value::Null);
                return ToolResult::error(request.prompt.clone()).with_meta("pending", pending);
            }
        }
        let _ = self.rt.close(&child, false, None).await;
        outcome(&result, agent)
    }
}

/// A settled child as its parent's tool result: the final text (or the loud reason) plus
/// `{agent, turns, totalTokens, status}`.
fn outcome(r: &AgentResult, agent: &str) -> ToolResult {
    let mut meta = Map::new();
    meta.insert("agent".into(), json!(agent));
    meta.insert("turns".into(), json!(r.turns));
    meta.insert("totalTokens".into(), json!(r.usage.total_tokens));
    meta.insert("status".into(), json!(r.status.as_str()));
    if let Some(l) = &r.limit {
        meta.insert("limit".into(), json!(l));
    }
    let output = match (r.status, &r.error) {
        (Status::Done, _) => r.text.clone(),
        (_, Some(e)) if r.text.is_empty() => format!("{}: {e}", r.status.as_str()),
        (_, Some(e)) => format!("{}: {e}\n{}", r.status.as_str(), r.text),
        (_, None) => r.text.clone(),
    };
    ToolResult {
        output,
        is_error: r.is_error(),
        parts: None,
        metadata: Some(meta),
    }
}

/// `agent(name).asTool()`'s execute.
pub(super) struct AgentTool {
    pub(super) rt: Runtime,
    pub(super) name: String,
}

#[async_trait]
impl ToolExec for AgentTool {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let Some(prompt) = args.get("prompt").and_then(Value::as_str) else {
            return ToolResult::error("missing required argument \"prompt\" (a string)");
        };
        let spawned = match self.rt.spawn("root", &self.name, None) {
            Ok(s) => s,
            Err(e) => return ToolResult::error(e.to_string()),
        };
        if let Err(e) = self.rt.wake(&spawned.id, Some(prompt)) {
            return ToolResult::error(e.to_string());
        }
        let r = self.rt.wait(&spawned.id, None, None).await;
        if r.status != Status::Pending {
            let _ = self.rt.close(&spawned.id, false, None).await;
        }
        outcome(&r, &self.name)
    }
}
