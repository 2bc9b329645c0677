//! Streamable HTTP at `/mcp` on an ephemeral loopback port, announced as the first stdout
//! line, optionally behind a required-header check.

use std::io::Write;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, Response, StatusCode};
use axum::middleware::{self, Next};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use super::handler::MockHandler;
use super::raw;
use super::scenario::{FailMode, Scenario, Secret};

/// Headers with their resolved expected values.
pub type Guard = Vec<(HeaderName, Secret)>;

/// Serves until the process is killed; stdin is ignored, so a closed pipe does not stop it.
pub async fn serve(scenario: Arc<Scenario>, guard: Guard) -> Result<(), String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot bind 127.0.0.1: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("no local address: {e}"))?;
    let router = match scenario.fail {
        Some(FailMode::Garbage) => raw::http_garbage(),
        Some(FailMode::Hang) => raw::http_hang(),
        _ => mcp_router(scenario),
    };
    let router = if guard.is_empty() {
        router
    } else {
        router.layer(middleware::from_fn_with_state(Arc::new(guard), check))
    };
    announce(&format!("http://{addr}/mcp"))?;
    axum::serve(listener, router)
        .await
        .map_err(|e| format!("http server stopped: {e}"))
}

/// Sessions stay on (rmcp's default): a session keeps the client's initialize capabilities
/// on its peer and gives the server a stream to send `elicitation/create` down.
fn mcp_router(scenario: Arc<Scenario>) -> Router {
    let handler = MockHandler::new(scenario);
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    Router::new().route_service("/mcp", service)
}

/// The URL must be the first stdout line and visible at once: the caller blocks on it.
fn announce(url: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{url}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot print the URL: {e}"))
}

async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response<Body> {
    for (name, expected) in guard.iter() {
        let present = request
            .headers()
            .get_all(name)
            .iter()
            .any(|v| v.as_bytes() == expected.expose().as_bytes());
        if !present {
            // The header's name only: neither the expected nor the received value is logged.
            eprintln!("mock-mcp: 401: request lacks the required {name} header value");
            let mut denied = Response::new(Body::from("unauthorized"));
            *denied.status_mut() = StatusCode::UNAUTHORIZED;
            return denied;
        }
    }
    next.run(request).await
}
