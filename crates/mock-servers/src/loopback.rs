//! What both HTTP mocks share: a loopback listener, the required-header guard in front of
//! every route, the URL announced on stdout, and the scenario-file reading.

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, Response, StatusCode};
use axum::middleware::{self, Next};
use axum::Router;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::net::TcpListener;

use super::mcp::Secret;

/// Headers with their resolved expected values.
pub type Guard = Vec<(HeaderName, Secret)>;

/// Binds 127.0.0.1 on an ephemeral port.
pub async fn bind() -> Result<(TcpListener, SocketAddr), String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot bind 127.0.0.1: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("no local address: {e}"))?;
    Ok((listener, addr))
}

/// `router` behind the guard (unchanged when nothing is required); `mock` prefixes the log.
pub fn guarded(router: Router, guard: Guard, mock: &'static str) -> Router {
    if guard.is_empty() {
        return router;
    }
    router.layer(middleware::from_fn_with_state(
        Arc::new((mock, guard)),
        check,
    ))
}

/// The URL must be the first stdout line and visible at once: the caller blocks on it.
pub fn announce(url: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{url}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot print the URL: {e}"))
}

/// Reads a `requireHeadersFromEnv` value now, so a missing variable stops the start instead
/// of turning every request into a 401.
pub fn secret_from_env(header: &HeaderName, var: &str) -> Result<Secret, String> {
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => Ok(Secret::new(v)),
        _ => Err(format!(
            "requireHeadersFromEnv.{header}: environment variable {var} is not set"
        )),
    }
}

/// Reads a scenario file; the error names the file and what is wrong.
pub fn load_json<T>(
    path: &Path,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<T, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read scenario {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("scenario {}: {e}", path.display()))
}

/// Parses a scenario document, which must be a JSON object.
pub fn parse_object<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    // serde would also read a struct from a JSON array; a scenario is only ever an object.
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if !value.is_object() {
        return Err("a scenario must be a JSON object".into());
    }
    // Parsed from the text, not the value, so errors keep their line and column.
    serde_json::from_str(text).map_err(|e| e.to_string())
}

async fn check(
    State(state): State<Arc<(&'static str, Guard)>>,
    request: Request,
    next: Next,
) -> Response<Body> {
    let (mock, guard) = &*state;
    for (name, expected) in guard {
        let present = request
            .headers()
            .get_all(name)
            .iter()
            .any(|v| v.as_bytes() == expected.expose().as_bytes());
        if !present {
            // The header's name only: neither the expected nor the received value is logged.
            eprintln!(
                "{mock}: {} {} → 401: request lacks the required {name} header value",
                request.method(),
                request.uri().path()
            );
            let mut denied = Response::new(Body::from("unauthorized"));
            *denied.status_mut() = StatusCode::UNAUTHORIZED;
            return denied;
        }
    }
    next.run(request).await
}
