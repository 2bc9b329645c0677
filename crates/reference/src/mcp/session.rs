//! One server's connection: launch, `initialize` and `tools/list`, each phase bounded by the
//! server's timeout (a fresh budget per phase, §2 "Per-server load bound").

use std::collections::HashSet;
use std::time::Duration;

use rmcp::model::PaginatedRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

use super::config::{Launch, ServerConfig};
use super::elicitation::Bridge;
use super::stdio::{self, ChildTree, SharedDiagnostics};
use crate::env_expand::{expand, Redactor};
use crate::suspension::WaitFor;

/// The most `tools/list` pages read before the listing counts as runaway.
const MAX_LIST_PAGES: usize = 1000;
/// How long a failed local server's stderr is awaited for the error message.
const STDERR_GRACE: Duration = Duration::from_millis(300);

/// A live MCP session and, for a local server, its process tree.
pub struct Connection {
    service: RunningService<RoleClient, Bridge>,
    tree: Option<ChildTree>,
}

impl Connection {
    /// The session's peer, for calls.
    pub fn peer(&self) -> rmcp::Peer<RoleClient> {
        self.service.peer().clone()
    }

    /// Ends the session and kills a local server's whole process tree, both at once: the
    /// session's task ends on its cancel or on the end of output the kill causes, so
    /// neither waits for the other.
    pub async fn close(mut self) {
        let tree = self.tree.as_mut();
        let kill = async move {
            if let Some(tree) = tree {
                tree.kill().await;
            }
        };
        let _ = futures::future::join(
            self.service.close_with_timeout(Duration::from_millis(500)),
            kill,
        )
        .await;
    }
}

/// Why a server failed, and in which phase.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// `config`, `connect`, `initialize` or `tools/list`.
    pub phase: &'static str,
    /// What went wrong (secrets already redacted).
    pub detail: String,
}

impl Failure {
    fn new(phase: &'static str, detail: impl Into<String>) -> Self {
        Failure {
            phase,
            detail: detail.into(),
        }
    }
}

/// Connects, initializes and lists one server's tools (wire definitions, unfiltered).
pub async fn open(
    config: &ServerConfig,
    wait_for: Option<WaitFor>,
    redactor: &mut Redactor,
) -> Result<(Connection, Vec<Value>), Failure> {
    let timeout = Duration::from_millis(config.timeout_ms);
    let launch = config
        .launch()
        .map_err(|d| Failure::new("config", d.to_string()))?;
    let bridge = Bridge { wait_for };
    let mut connection = match launch {
        Launch::Local { argv, env, cwd } => {
            let spawned = stdio::spawn(&argv, &env, cwd.as_ref())
                .map_err(|d| Failure::new("connect", d.to_string()))?;
            let mut tree = spawned.tree;
            let transport = AsyncRwTransport::new(spawned.reader, spawned.writer)
                .with_max_line_length(stdio::MAX_LINE_BYTES);
            let init = tokio::time::timeout(timeout, bridge.serve(transport)).await;
            match init {
                Ok(Ok(service)) => Connection {
                    service,
                    tree: Some(tree),
                },
                failed => {
                    let detail = match failed {
                        Err(_) => timed_out(timeout),
                        Ok(Err(e)) => e.to_string(),
                        Ok(Ok(_)) => String::new(),
                    };
                    tree.kill().await;
                    let detail = explain(detail, &spawned.diagnostics, spawned.stderr_done).await;
                    return Err(Failure::new("initialize", redactor.redact(&detail)));
                }
            }
        }
        Launch::Remote { url, headers } => {
            let mut custom = std::collections::HashMap::new();
            for (name, value) in headers {
                let (value, secrets) = expand(&value);
                redactor.add_header(&name, secrets);
                let name = http::HeaderName::try_from(name.as_str()).map_err(|_| {
                    Failure::new("connect", format!("invalid header name {name:?}"))
                })?;
                // Never echo the value: it may hold an expanded secret.
                let value = http::HeaderValue::try_from(value.as_str()).map_err(|_| {
                    Failure::new("connect", format!("header \"{name}\" has an invalid value"))
                })?;
                custom.insert(name, value);
            }
            let transport = StreamableHttpClientTransport::with_client(
                crate::http_client::client(),
                StreamableHttpClientTransportConfig::with_uri(url)
                    .custom_headers(custom)
                    .max_sse_event_size(stdio::MAX_LINE_BYTES)
                    .max_json_response_size(stdio::MAX_LINE_BYTES),
            );
            let service = match tokio::time::timeout(timeout, bridge.serve(transport)).await {
                Ok(Ok(service)) => service,
                Ok(Err(e)) => {
                    return Err(Failure::new("initialize", redactor.redact(&e.to_string())))
                }
                Err(_) => return Err(Failure::new("initialize", timed_out(timeout))),
            };
            Connection {
                service,
                tree: None,
            }
        }
    };
    match list_all(&connection, timeout).await {
        Ok(defs) => Ok((connection, defs)),
        Err(detail) => {
            let detail = redactor.redact(&detail);
            if let Some(tree) = connection.tree.as_mut() {
                tree.kill().await;
            }
            connection.close().await;
            Err(Failure::new("tools/list", detail))
        }
    }
}

/// Every page of `tools/list`, following `nextCursor`; each page bounded by `timeout`.
async fn list_all(connection: &Connection, timeout: Duration) -> Result<Vec<Value>, String> {
    let peer = connection.service.peer();
    let mut defs = Vec::new();
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_LIST_PAGES {
        let params = cursor
            .clone()
            .map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = match tokio::time::timeout(timeout, peer.list_tools(params)).await {
            Err(_) => return Err(timed_out(timeout)),
            Ok(Err(e)) => return Err(e.to_string()),
            Ok(Ok(page)) => page,
        };
        for tool in &page.tools {
            defs.push(serde_json::to_value(tool).map_err(|e| e.to_string())?);
        }
        match page.next_cursor {
            None => return Ok(defs),
            Some(next) if !seen.insert(next.clone()) => {
                return Err(format!("the server repeated the cursor {next:?}"))
            }
            Some(next) => cursor = Some(next),
        }
    }
    Err(format!("more than {MAX_LIST_PAGES} pages of tools"))
}

fn timed_out(timeout: Duration) -> String {
    format!("timed out after {} ms", timeout.as_millis())
}

/// Prefers what the stdout guard saw (garbage) over rmcp's generic error, and adds the tail
/// of the server's stderr so a crash explains itself.
async fn explain(
    detail: String,
    diagnostics: &SharedDiagnostics,
    stderr_done: tokio::task::JoinHandle<()>,
) -> String {
    let _ = tokio::time::timeout(STDERR_GRACE, stderr_done).await;
    let Ok(d) = diagnostics.lock() else {
        return detail;
    };
    let mut out = d.protocol_error.clone().unwrap_or(detail);
    let tail = d.stderr_tail.trim();
    if !tail.is_empty() {
        let last: Vec<&str> = tail.lines().rev().take(3).collect();
        let last: Vec<&str> = last.into_iter().rev().collect();
        out.push_str(&format!(" (server stderr: {})", last.join(" / ")));
    }
    out
}
