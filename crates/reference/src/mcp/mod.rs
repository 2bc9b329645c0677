//! §2 the MCP source over rmcp: connect every enabled server (concurrently), list and convert
//! its tools, isolate every failure, and close whole process trees.

pub mod config;
mod config_error;
pub mod convert;
pub mod elicitation;
pub mod session;
pub mod stdio;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::env_expand::Redactor;
use super::filter::NameFilter;
use super::suspension::WaitFor;
use super::tool::Tool;
use config::{McpConfig, ServerConfig};
use convert::{McpCall, ToolInfo};
use session::{Connection, Failure};

/// One server's outcome.
pub enum Outcome {
    /// `disabled:true` / `enabled:false`.
    Disabled,
    /// Connected: its listed definitions (unfiltered) and the live session.
    Connected(Box<Connection>, Vec<ToolInfo>),
    /// Failed in some phase.
    Failed(Failure),
}

/// The loaded MCP source: tools in config order, statuses, errors and open sessions.
#[derive(Default)]
pub struct McpSource {
    /// Exposed tools: servers in config order, each server's tools in listing order.
    pub tools: Vec<Tool>,
    /// `connected | disabled | failed` per server.
    pub statuses: BTreeMap<String, String>,
    /// Why each failed server failed: `mcp server "NAME" failed at PHASE: DETAIL`.
    pub errors: BTreeMap<String, String>,
    /// Warnings (unknown names in a per-server `tools` map).
    pub warnings: Vec<String>,
    connections: Vec<Connection>,
}

impl McpSource {
    /// Ends every session and kills every local server's process tree.
    pub async fn close(&mut self) {
        let closing: Vec<_> = self.connections.drain(..).map(Connection::close).collect();
        futures::future::join_all(closing).await;
    }
}

/// The §2 Gap 6 list-only inventory: every enabled server's unfiltered definitions under
/// their original names, with statuses; nothing is left running.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Inventory {
    /// Tool definitions per connected server.
    pub tools: BTreeMap<String, Vec<ToolInfo>>,
    /// `connected | disabled | failed` per server.
    pub statuses: BTreeMap<String, String>,
    /// Why each failed server failed.
    pub errors: BTreeMap<String, String>,
}

/// Connects every server concurrently (a slow or dead server then costs its own timeout, not
/// the sum of everyone's) and reports outcomes in config order, so nothing depends on which
/// server answered first.
async fn open_all(
    config: &McpConfig,
    wait_for: Option<WaitFor>,
) -> Vec<(String, ServerConfig, Outcome, Arc<Redactor>)> {
    let opening = config.servers.iter().map(|(name, server)| {
        let wait_for = wait_for.clone();
        async move {
            let mut redactor = Redactor::default();
            let outcome = if server.disabled {
                Outcome::Disabled
            } else if let Err(detail) = server.tools_filter() {
                // A broken `tools` map is a config error: found before anything is spawned.
                Outcome::Failed(Failure {
                    phase: "config",
                    detail: detail.to_string(),
                })
            } else {
                match session::open(server, wait_for, &mut redactor).await {
                    Ok((connection, defs)) => Outcome::Connected(
                        Box::new(connection),
                        defs.iter().map(ToolInfo::from_wire).collect(),
                    ),
                    Err(failure) => Outcome::Failed(failure),
                }
            };
            (name.clone(), server.clone(), outcome, Arc::new(redactor))
        }
    });
    futures::future::join_all(opening).await
}

fn error_message(name: &str, failure: &Failure) -> String {
    format!(
        "mcp server \"{name}\" failed at {}: {}",
        failure.phase, failure.detail
    )
}

/// Loads the source: connects, filters each server's tools by its `tools` map (original
/// names, before prefixing), and converts them.
pub async fn load(config: &McpConfig, wait_for: Option<WaitFor>) -> McpSource {
    let mut source = McpSource::default();
    for (name, server, outcome, redactor) in open_all(config, wait_for).await {
        match outcome {
            Outcome::Disabled => {
                source.statuses.insert(name, "disabled".to_string());
            }
            Outcome::Failed(failure) => {
                source
                    .errors
                    .insert(name.clone(), error_message(&name, &failure));
                source.statuses.insert(name, "failed".to_string());
            }
            Outcome::Connected(connection, infos) => {
                let filter = match server.tools_filter() {
                    Ok(filter) => filter,
                    Err(detail) => {
                        connection.close().await;
                        let failure = Failure {
                            phase: "config",
                            detail: detail.to_string(),
                        };
                        source
                            .errors
                            .insert(name.clone(), error_message(&name, &failure));
                        source.statuses.insert(name, "failed".to_string());
                        continue;
                    }
                };
                let (kept, warning) =
                    NameFilter::apply(&filter, infos, |i| i.name.as_str(), "tool");
                source
                    .warnings
                    .extend(warning.map(|w| format!("mcp server \"{name}\": {w}")));
                let peer = connection.peer();
                let timeout = Duration::from_millis(server.timeout_ms);
                source.tools.extend(kept.iter().map(|info| {
                    convert::to_tool(
                        info,
                        McpCall {
                            server: name.clone(),
                            tool: info.name.clone(),
                            peer: peer.clone(),
                            timeout,
                            redactor: redactor.clone(),
                        },
                    )
                }));
                source.connections.push(*connection);
                source.statuses.insert(name, "connected".to_string());
            }
        }
    }
    source
}

/// [`load`] for an optional config (none ⇒ an empty source).
pub async fn load_opt(config: Option<&McpConfig>, wait_for: Option<WaitFor>) -> McpSource {
    match config {
        Some(config) => load(config, wait_for).await,
        None => McpSource::default(),
    }
}

/// Lists every enabled server's tools without building anything, then disconnects.
pub async fn inventory(config: &McpConfig) -> Inventory {
    let mut inventory = Inventory::default();
    let mut closing = Vec::new();
    for (name, _, outcome, _) in open_all(config, None).await {
        let status = match outcome {
            Outcome::Disabled => "disabled",
            Outcome::Failed(failure) => {
                inventory
                    .errors
                    .insert(name.clone(), error_message(&name, &failure));
                "failed"
            }
            Outcome::Connected(connection, infos) => {
                closing.push(connection.close());
                inventory.tools.insert(name.clone(), infos);
                "connected"
            }
        };
        inventory.statuses.insert(name, status.to_string());
    }
    futures::future::join_all(closing).await;
    inventory
}

/// Parses a config given as an object, JSON text or a path (re-exported for callers).
pub fn parse_config(input: &Value) -> Result<McpConfig, config::ConfigError> {
    config::parse(input)
}
