//! The fail modes that must not speak MCP at all (`garbage`, `hang`), served without rmcp
//! so nothing in the SDK can answer on their behalf.

use axum::body::Body;
use axum::http::{header, HeaderValue, Method, Request, Response, StatusCode};
use axum::routing::any;
use axum::Router;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// What a `garbage` server says instead of JSON-RPC.
pub const GARBAGE: &str = "this is not JSON-RPC";

/// stdio `garbage`: one line of non-JSON-RPC per line read, until stdin closes.
pub async fn stdio_garbage() -> Result<(), String> {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    while let Some(_line) = lines.next_line().await.map_err(|e| e.to_string())? {
        let reply = format!("{GARBAGE}\n");
        stdout
            .write_all(reply.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        stdout.flush().await.map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// stdio `hang`: read and ignore everything. It ends when stdin closes, because with the
/// pipe gone nobody can observe the hang any more and an orphan would only leak.
pub async fn stdio_hang() -> Result<(), String> {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while lines
        .next_line()
        .await
        .map_err(|e| e.to_string())?
        .is_some()
    {}
    Ok(())
}

/// HTTP `garbage`: every POST is a 200 `application/json` whose body is not JSON-RPC.
pub fn http_garbage() -> Router {
    Router::new().route("/mcp", any(garbage_reply))
}

async fn garbage_reply(request: Request<Body>) -> Response<Body> {
    if request.method() != Method::POST {
        let mut refused = Response::new(Body::empty());
        *refused.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
        return refused;
    }
    let mut response = Response::new(Body::from(GARBAGE));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// HTTP `hang`: accept every request and never answer it (a parked future, not a spin).
pub fn http_hang() -> Router {
    Router::new().route("/mcp", any(never))
}

async fn never() -> Response<Body> {
    std::future::pending().await
}
