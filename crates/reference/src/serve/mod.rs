//! §7B / §7C `toolkit.serve(addr, …)`: one HTTP server exposing a toolkit as an A2A agent
//! (`a2a` profile) and/or an MCP server at `/mcp` (`mcp` profile). No profile ⇒ every path
//! answers 404.

mod card;
mod config;
mod error;
mod fulfil;
mod mcp;
mod rpc;
mod task_store;

use std::net::SocketAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::Router;
use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::client::{Client, RunResult};
use crate::tool::Source;
use crate::toolkit::Toolkit;

pub use card::{agent_card, PROTOCOL_VERSION};
pub use config::{A2AConfig, McpServeConfig};
pub use error::{ProfileError, ServeError, StoreDirError};
pub use task_store::{resolve_store, FileTaskStore, InMemoryTaskStore, StoreSpec, TaskStore};

/// Request bodies above this answer 413: a peer cannot make the server buffer without bound.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// Fulfilments running at once; later tasks wait (still `submitted`) for a slot.
pub const MAX_RUNNING_TASKS: usize = 32;
/// Tasks running or waiting for a slot; beyond it `SendMessage` is refused, so a flood of
/// messages cannot queue without bound.
pub const MAX_OUTSTANDING_TASKS: usize = 1024;

/// `onTask`'s argument, fired once per task on its final state.
#[derive(Debug, Clone)]
pub struct TaskEvent {
    /// The task id.
    pub id: String,
    /// The skill the task was addressed to; the wire carries none today, so always `None`.
    pub skill: Option<String>,
    /// The final Task object, as saved.
    pub task: Value,
    /// The run's result; `None` when the run raised (or never started).
    pub result: Option<RunResult>,
    /// `completed`, `input-required` or `failed`.
    pub state: String,
}

/// `onCall`'s argument, fired once per inbound `tools/call` of a known tool.
#[derive(Debug, Clone, PartialEq)]
pub struct CallEvent {
    /// The tool name.
    pub name: String,
    /// The tool's source.
    pub source: Source,
    /// Wall time of `execute`, in milliseconds.
    pub ms: f64,
    /// Whether the result was an error.
    pub is_error: bool,
}

/// The host's `onTask` callback.
pub type OnTask = Arc<dyn Fn(TaskEvent) + Send + Sync>;
/// The host's `onCall` callback.
pub type OnCall = Arc<dyn Fn(CallEvent) + Send + Sync>;

/// `serve`'s options; an absent profile falls back to the toolkit's config-file block.
#[derive(Clone, Default)]
pub struct ServeOptions {
    /// The §8 client that fulfils A2A tasks.
    pub client: Option<Client>,
    /// The §7B profile (inline wins over the config file's `a2a` block).
    pub a2a: Option<A2AConfig>,
    /// Called on each task's final state.
    pub on_task: Option<OnTask>,
    /// The §7C profile (inline wins over the config file's `mcpServer` block).
    pub mcp: Option<McpServeConfig>,
    /// Called after each inbound tool call.
    pub on_call: Option<OnCall>,
}

/// A running server; `stop` (or dropping the handle) shuts it down.
pub struct ServeHandle {
    url: String,
    shutdown: CancellationToken,
    server: Mutex<Option<JoinHandle<()>>>,
}

impl ServeHandle {
    /// The base URL, e.g. `http://127.0.0.1:40555` (no trailing `/`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Stops listening, cancels running fulfilments and in-flight tool calls; idempotent.
    pub async fn stop(&self) {
        self.shutdown.cancel();
        let server = self.server.lock().ok().and_then(|mut s| s.take());
        if let Some(mut server) = server {
            // Graceful first; a connection that will not finish is cut after a bound.
            if tokio::time::timeout(Duration::from_secs(2), &mut server)
                .await
                .is_err()
            {
                server.abort();
                let _ = server.await;
            }
        }
    }

    /// Alias of `stop`.
    pub async fn close(&self) {
        self.stop().await;
    }
}

impl Drop for ServeHandle {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// What every request handler shares.
pub(crate) struct Shared {
    pub(crate) toolkit: Arc<Toolkit>,
    pub(crate) client: Option<Client>,
    pub(crate) a2a: Option<A2AState>,
    pub(crate) on_task: Option<OnTask>,
    pub(crate) base_url: String,
    pub(crate) shutdown: CancellationToken,
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) outstanding: Arc<AtomicUsize>,
}

/// The A2A profile once resolved.
pub(crate) struct A2AState {
    pub(crate) config: A2AConfig,
    pub(crate) store: Arc<dyn TaskStore>,
}

impl Toolkit {
    /// `toolkit.serve(addr, { client, a2a?, onTask?, mcp?, onCall? })` (SPEC §7B, §7C).
    /// `addr` is `host:port` (`:0` picks a free port; an empty host means 127.0.0.1).
    pub async fn serve(
        &self,
        addr: &str,
        options: ServeOptions,
    ) -> Result<ServeHandle, ServeError> {
        let a2a = match options.a2a {
            Some(cfg) => Some(cfg),
            None => profile(self.serve_blocks().a2a.as_ref(), A2AConfig::from_value)?,
        };
        let mcp_cfg = match options.mcp {
            Some(cfg) => Some(cfg),
            None => profile(
                self.serve_blocks().mcp_server.as_ref(),
                McpServeConfig::from_value,
            )?,
        };
        let a2a = match a2a {
            Some(config) => {
                let store = resolve_store(&config.store).map_err(ServeError::Store)?;
                Some(A2AState { config, store })
            }
            None => None,
        };

        let listener = tokio::net::TcpListener::bind(split_addr(addr))
            .await
            .map_err(|source| ServeError::Listen {
                addr: addr.to_string(),
                source,
            })?;
        let local = listener.local_addr().map_err(ServeError::BoundAddress)?;
        let base_url = base_url(local);
        let shutdown = CancellationToken::new();
        let toolkit = Arc::new(self.shared_view());
        let has_a2a = a2a.is_some();
        let shared = Arc::new(Shared {
            toolkit: Arc::clone(&toolkit),
            client: options.client,
            a2a,
            on_task: options.on_task,
            base_url: base_url.clone(),
            shutdown: shutdown.clone(),
            slots: Arc::new(Semaphore::new(MAX_RUNNING_TASKS)),
            outstanding: Arc::new(AtomicUsize::new(0)),
        });

        let mut router = Router::new();
        if has_a2a {
            let card_state = Arc::clone(&shared);
            let rpc_state = Arc::clone(&shared);
            // Another method on an A2A path is a 404 as well (not 405), as Python answers.
            router = router
                .route(
                    "/.well-known/agent-card.json",
                    get(move || rpc::card(Arc::clone(&card_state))).fallback(not_found),
                )
                .route(
                    "/",
                    post(move |body| rpc::handle(Arc::clone(&rpc_state), body)).fallback(not_found),
                );
        }
        if let Some(cfg) = mcp_cfg {
            let service = mcp::service(&toolkit, cfg, options.on_call, shutdown.child_token());
            router = router.route_service("/mcp", service);
        }
        let router = router
            .fallback(not_found)
            .layer(DefaultBodyLimit::max(MAX_BODY_BYTES));

        // Without TCP_NODELAY, Nagle's algorithm holds each small JSON answer back for the
        // peer's delayed ACK: every tools/call took about 43 ms instead of under 1 ms.
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let stop = shutdown.clone();
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async move { stop.cancelled().await })
                .await;
        });
        Ok(ServeHandle {
            url: base_url,
            shutdown,
            server: Mutex::new(Some(server)),
        })
    }
}

async fn not_found() -> (StatusCode, &'static str) {
    (StatusCode::NOT_FOUND, "not found")
}

fn profile<T>(
    block: Option<&Value>,
    parse: fn(&Value) -> Result<T, ProfileError>,
) -> Result<Option<T>, ServeError> {
    block
        .map(|b| parse(b).map_err(ServeError::ConfigFile))
        .transpose()
}

/// `host:port` split on the last colon; a missing host is loopback (as Python does).
fn split_addr(addr: &str) -> String {
    match addr.rsplit_once(':') {
        Some(("", port)) => format!("127.0.0.1:{port}"),
        Some(_) => addr.to_string(),
        None => format!("127.0.0.1:{addr}"),
    }
}

/// The URL callers use: an unspecified bind address is reported as loopback.
fn base_url(local: SocketAddr) -> String {
    let ip = local.ip();
    match ip {
        std::net::IpAddr::V4(v4) if v4.is_unspecified() => {
            format!("http://127.0.0.1:{}", local.port())
        }
        std::net::IpAddr::V6(v6) if v6.is_unspecified() => format!("http://[::1]:{}", local.port()),
        std::net::IpAddr::V6(v6) => format!("http://[{v6}]:{}", local.port()),
        std::net::IpAddr::V4(v4) => format!("http://{v4}:{}", local.port()),
    }
}

/// A v4-shaped UUID from a fast PRNG: ids need to be unique, not secret.
pub(crate) fn uuid_v4() -> String {
    let mut b = [0u8; 16];
    for byte in &mut b {
        *byte = fastrand::u8(..);
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}
