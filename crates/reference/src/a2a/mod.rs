//! §7A A2A agents, outbound: resolve each agent's card into one tool per skill.

pub mod card;
mod error;
pub mod task;

pub use error::{CardError, SpecError};

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::sanitize::sanitize;
use super::tool::{Source, Tool};
use card::AgentSpec;
use task::AgentCall;

/// The error key of a failing agent.
pub fn error_key(card: &str) -> String {
    format!("agent:{card}")
}

/// Resolves one agent: its tools, or why it contributes none.
pub async fn load_agent(spec: &AgentSpec) -> Result<Vec<Tool>, CardError> {
    let card = card::resolve(spec).await?;
    let (headers, redactor) = spec.expanded_headers();
    let client = crate::http_client::client();
    Ok(card
        .skills
        .iter()
        .map(|skill| {
            Tool::new(
                format!("{}_{}", sanitize(&card.name), sanitize(&skill.key)),
                skill.description.clone(),
                task::task_schema(),
                Source::A2a,
                Arc::new(AgentCall {
                    agent: card.name.clone(),
                    endpoint: card.endpoint.clone(),
                    headers: headers.clone(),
                    redactor: redactor.clone(),
                    timeout: Duration::from_millis(spec.timeout_ms),
                    poll_every: Duration::from_millis(spec.poll_every_ms),
                    client: client.clone(),
                }),
            )
        })
        .collect())
}

/// The agents of an option list and a config file's `agents` block, in that order.
pub fn specs(
    option: &[Value],
    config_block: Option<&Value>,
) -> Vec<(String, Result<AgentSpec, SpecError>)> {
    let from_option = option
        .iter()
        .enumerate()
        .map(|(index, v)| (label(v, || format!("#{index}")), AgentSpec::from_json(v)));
    let from_block = match config_block {
        Some(Value::Object(block)) => block
            .iter()
            .map(|(id, v)| (label(v, || id.clone()), AgentSpec::from_json(v)))
            .collect(),
        _ => Vec::new(),
    };
    from_option.chain(from_block).collect()
}

/// An agent is named by its card URL; without one, by `fallback` (its index or config key).
fn label(v: &Value, fallback: impl FnOnce() -> String) -> String {
    v.get("card")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(fallback)
}
