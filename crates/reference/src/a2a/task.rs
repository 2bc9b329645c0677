//! §7A execute: one non-blocking `SendMessage`, then `GetTask` polling in the SPEC's order
//! (abort, timeout, sleep, abort, poll) until a terminal state.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use super::card::excerpt;
use crate::env_expand::Redactor;
use crate::http_tool::{send, Prepared};
use crate::suspension::new_request_id;
use crate::tool::{Context, ToolExec, ToolResult};

/// Everything one agent skill's tool needs to run a task.
pub struct AgentCall {
    /// `card.name`, for metadata.
    pub agent: String,
    /// The JSON-RPC endpoint.
    pub endpoint: String,
    /// Expanded headers.
    pub headers: Vec<(String, String)>,
    /// Hides expanded header values.
    pub redactor: Redactor,
    /// Task timeout.
    pub timeout: Duration,
    /// Poll interval.
    pub poll_every: Duration,
    /// One connection pool for every request of this agent's tasks.
    pub client: reqwest::Client,
}

/// Where a task stands while it is polled.
struct Progress {
    started: Instant,
    task_id: String,
    state: String,
    polls: u64,
}

impl Progress {
    fn meta(&self, agent: &str, result: ToolResult) -> ToolResult {
        result
            .with_meta("agent", json!(agent))
            .with_meta("taskId", json!(self.task_id))
            .with_meta("state", json!(self.state))
            .with_meta("polls", json!(self.polls))
            .with_meta("ms", json!(self.started.elapsed().as_millis() as u64))
    }
}

fn cancelled(ctx: &Context) -> bool {
    ctx.cancel.as_ref().is_some_and(|t| t.is_cancelled())
}

#[async_trait]
impl ToolExec for AgentCall {
    async fn execute(&self, args: Value, ctx: &Context) -> ToolResult {
        let mut p = Progress {
            started: Instant::now(),
            task_id: String::new(),
            state: "submitted".to_string(),
            polls: 0,
        };
        let timeout = ctx
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.timeout);
        let text = match args.get("task") {
            Some(Value::String(t)) => t.clone(),
            _ => return p.meta(&self.agent, ToolResult::error("\"task\" must be a string")),
        };
        let message = json!({
            "message": {"role": "user", "messageId": new_request_id("msg"),
                        "parts": [{"kind": "text", "text": text}]},
            "configuration": {"blocking": false},
        });
        // An abort stops the task at once, wherever it lands: mid-`SendMessage`, mid-sleep,
        // mid-`GetTask` (§7A).
        let outcome = {
            let run = self.run(&mut p, message, timeout, ctx);
            tokio::select! {
                biased;
                () = ctx.cancelled() => None,
                r = run => Some(r),
            }
        };
        let mut result = match outcome {
            None => self.canceled(&mut p),
            // Every error and exit path re-checks the abort before it reports: an abort that
            // landed as a request failed or the deadline passed is still a cancel (§7A).
            Some(_) if cancelled(ctx) => self.canceled(&mut p),
            Some(Ok(result)) => result,
            Some(Err(message)) => ToolResult::error(message),
        };
        // An agent may echo a header back; nothing it says may carry an expanded value on.
        result.output = self.redactor.redact(&result.output);
        p.meta(&self.agent, result)
    }
}

impl AgentCall {
    async fn run(
        &self,
        p: &mut Progress,
        message: Value,
        timeout: Duration,
        ctx: &Context,
    ) -> Result<ToolResult, String> {
        let deadline = p.started + timeout;
        let timed_out = |p: &Progress| {
            ToolResult::error(format!(
                "A2A task {} timed out after {}ms (state={})",
                p.task_id,
                timeout.as_millis(),
                p.state
            ))
        };
        let Some(task) = self.rpc("SendMessage", message, deadline).await? else {
            return Ok(timed_out(p));
        };
        self.absorb(p, &task)?;
        let mut task = task;
        while !is_terminal(&p.state) {
            if cancelled(ctx) {
                return Ok(self.canceled(p));
            }
            if Instant::now() >= deadline {
                return Ok(timed_out(p));
            }
            // Never sleep past the deadline: the check after the sleep then times out.
            tokio::time::sleep(
                self.poll_every
                    .min(deadline.saturating_duration_since(Instant::now())),
            )
            .await;
            if cancelled(ctx) {
                return Ok(self.canceled(p));
            }
            let Some(next) = self
                .rpc("GetTask", json!({"id": p.task_id}), deadline)
                .await?
            else {
                return Ok(timed_out(p));
            };
            p.polls += 1;
            self.absorb(p, &next)?;
            task = next;
        }
        Ok(match p.state.as_str() {
            "completed" => ToolResult::ok(output_text(&task)),
            state => {
                let detail = status_text(&task);
                ToolResult::error(if detail.is_empty() {
                    format!("A2A task {} {state}", p.task_id)
                } else {
                    format!("A2A task {} {state}: {detail}", p.task_id)
                })
            }
        })
    }

    fn canceled(&self, p: &mut Progress) -> ToolResult {
        p.state = "canceled".to_string();
        ToolResult::error(format!("A2A task {} canceled", p.task_id))
    }

    /// Reads a Task's id and state into the progress; a result that is not a Task is an error.
    fn absorb(&self, p: &mut Progress, task: &Value) -> Result<(), String> {
        let state = task
            .pointer("/status/state")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                format!(
                    "the agent's answer is not a Task: {}",
                    excerpt(&task.to_string())
                )
            })?;
        if let Some(id) = task.get("id").and_then(Value::as_str) {
            p.task_id = id.to_string();
        }
        if p.task_id.is_empty() {
            return Err("the agent's Task has no id".to_string());
        }
        p.state = normalise_state(state);
        Ok(())
    }

    /// One JSON-RPC call; `Ok(None)` when the deadline passed before it answered.
    async fn rpc(
        &self,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<Option<Value>, String> {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Ok(None);
        }
        let body = json!({"jsonrpc": "2.0", "id": new_request_id("rpc"), "method": method, "params": params});
        let prepared = Prepared {
            url: self.endpoint.clone(),
            headers: self.headers.clone(),
            body: Some((body.to_string().into_bytes(), "application/json")),
            redactor: Redactor::default(),
        };
        let answer =
            tokio::time::timeout(remaining, send(&self.client, "POST", &prepared, remaining)).await;
        let (status, text) = match answer {
            Err(_) => return Ok(None),
            // As before the error was typed: its text is what is read (a transport failure
            // that says "timed out" counts too).
            Ok(Err(e)) if e.to_string().contains("timed out") && Instant::now() >= deadline => {
                return Ok(None)
            }
            Ok(Err(e)) => return Err(format!("{method} failed: {e}")),
            Ok(Ok(pair)) => pair,
        };
        if !(200..300).contains(&status) {
            return Err(format!("HTTP {status}: {text}"));
        }
        let reply: Value = serde_json::from_str(&text).map_err(|_| {
            format!(
                "{method}: the agent answered malformed JSON-RPC: {}",
                excerpt(&text)
            )
        })?;
        if let Some(error) = reply.get("error").filter(|e| !e.is_null()) {
            let message = error.get("message").and_then(Value::as_str).unwrap_or("");
            let code = error.get("code").map(Value::to_string).unwrap_or_default();
            return Err(if message.is_empty() {
                format!("JSON-RPC error {code}")
            } else {
                format!("{method}: JSON-RPC error {code}: {message}")
            });
        }
        match reply.get("result") {
            // A2A 1.0 wraps SendMessage's Task as `result.task`; 0.3 (the SPEC's) answers it bare.
            Some(Value::Object(result)) if !result.contains_key("status") => {
                match result.get("task") {
                    Some(task @ Value::Object(_)) => Ok(Some(task.clone())),
                    _ => Err(format!(
                        "{method}: the agent's answer is not a Task: {}",
                        excerpt(&text)
                    )),
                }
            }
            Some(result @ Value::Object(_)) => Ok(Some(result.clone())),
            _ => Err(format!(
                "{method}: the agent's JSON-RPC answer has no result object: {}",
                excerpt(&text)
            )),
        }
    }
}

fn is_terminal(state: &str) -> bool {
    matches!(state, "completed" | "failed" | "canceled" | "rejected")
}

/// The SPEC's lowercase state names; A2A 1.0 spells them `TASK_STATE_COMPLETED` etc.
fn normalise_state(state: &str) -> String {
    state
        .strip_prefix("TASK_STATE_")
        .map(|s| s.to_ascii_lowercase().replace('_', "-"))
        .unwrap_or_else(|| state.to_string())
}

/// The `kind:"text"` parts of a message-like object, joined by `\n`.
fn texts(parts: Option<&Value>) -> Vec<String> {
    parts
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                // 0.3 parts say `kind:"text"`; 1.0 parts carry no kind, only `text`.
                .filter(|p| matches!(p.get("kind").and_then(Value::as_str), Some("text") | None))
                .filter_map(|p| p.get("text").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Every artifact's text parts joined by `\n`; else the last agent message of the history.
pub fn output_text(task: &Value) -> String {
    let from_artifacts: Vec<String> = task
        .get("artifacts")
        .and_then(Value::as_array)
        .map(|arts| arts.iter().flat_map(|a| texts(a.get("parts"))).collect())
        .unwrap_or_default();
    if !from_artifacts.is_empty() {
        return from_artifacts.join("\n");
    }
    task.get("history")
        .and_then(Value::as_array)
        .and_then(|h| {
            h.iter()
                .rev()
                .filter(|m| m.get("role").and_then(Value::as_str) == Some("agent"))
                .map(|m| texts(m.get("parts")).join("\n"))
                .find(|t| !t.is_empty())
        })
        .unwrap_or_default()
}

/// The text of `status.message`.
fn status_text(task: &Value) -> String {
    texts(task.pointer("/status/message/parts")).join("\n")
}

/// The input schema of every agent tool.
pub fn task_schema() -> Value {
    let mut props = Map::new();
    props.insert(
        "task".to_string(),
        json!({"type": "string", "description": "The task to send to the agent, in natural language."}),
    );
    json!({"type": "object", "properties": props, "required": ["task"], "additionalProperties": false})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_prefers_artifacts_then_the_last_agent_message() {
        let t = json!({"artifacts": [{"parts": [{"kind": "text", "text": "a"}, {"kind": "data", "data": {}}]},
                                     {"parts": [{"kind": "text", "text": "b"}]}],
                       "history": [{"role": "agent", "parts": [{"kind": "text", "text": "h"}]}]});
        assert_eq!(output_text(&t), "a\nb");
        let t = json!({"history": [{"role": "agent", "parts": [{"kind": "text", "text": "first"}]},
                                   {"role": "user", "parts": [{"kind": "text", "text": "u"}]},
                                   {"role": "agent", "parts": [{"kind": "text", "text": "last"}]}]});
        assert_eq!(output_text(&t), "last");
        assert_eq!(output_text(&json!({})), "");
        assert_eq!(
            output_text(&json!({"artifacts": [{"parts": [{"text": "v1 part"}]}]})),
            "v1 part"
        );
        assert_eq!(
            normalise_state("TASK_STATE_INPUT_REQUIRED"),
            "input-required"
        );
        assert_eq!(normalise_state("working"), "working");
        assert_eq!(
            status_text(
                &json!({"status": {"message": {"parts": [{"kind": "text", "text": "why"}]}}})
            ),
            "why"
        );
    }
}
