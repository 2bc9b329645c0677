//! Streamable HTTP at `/mcp` on an ephemeral loopback port, announced as the first stdout
//! line, optionally behind a required-header check.

use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::handler::MockHandler;
use super::raw;
use super::reused_ids;
use super::scenario::{FailMode, Scenario};
use crate::loopback;

/// Headers with their resolved expected values.
pub use crate::loopback::Guard;

/// Serves until the process is killed; stdin is ignored, so a closed pipe does not stop it.
pub async fn serve(scenario: Arc<Scenario>, guard: Guard) -> Result<(), String> {
    let (listener, addr) = loopback::bind().await?;
    let router = match scenario.fail {
        Some(FailMode::Garbage) => raw::http_garbage(),
        Some(FailMode::Hang) => raw::http_hang(),
        _ => mcp_router(scenario),
    };
    let router = loopback::guarded(router, guard, "mock-mcp");
    loopback::announce(&format!("http://{addr}/mcp"))?;
    axum::serve(listener, router)
        .await
        .map_err(|e| format!("http server stopped: {e}"))
}

/// Sessions stay on (rmcp's default): a session keeps the client's initialize capabilities
/// on its peer and gives the server a stream to send `elicitation/create` down. A request
/// reusing a live id is still answered on its own POST's stream (see `reused_ids`).
fn mcp_router(scenario: Arc<Scenario>) -> Router {
    let handler = MockHandler::new(scenario);
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    reused_ids::separate(Router::new().route_service("/mcp", service))
}
