//! The bench's floors that run as processes of their own (`toolnexus-conformance floor …`):
//! the least work a server or a driver of each kind does, so `bench` can show how far a
//! port's own work is from what the machine and the protocol require.
//!
//! - [`canned_http`]: a loopback HTTP server answering a canned `tools/call` result (no MCP);
//! - [`rmcp_http`]: a bare rmcp server over stateless streamable HTTP, one `noop` tool;
//! - [`mcp_driver`]: request line in, one bare rmcp `tools/call` over stdio, answer line out.
//!
//! The crate is compiled as the reference is (one codegen unit, the workspace's release
//! optimisation): rmcp's generic code is instantiated here as in the reference, so a
//! comparison with the reference is one of work, not of build settings.

#![warn(missing_docs)]

pub mod canned_http;
pub mod mcp_driver;
pub mod rmcp_http;

use std::future::Future;
use std::pin::Pin;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A floor's entry point: boxed here, so its state machine is compiled in this crate with
/// its settings rather than in the (cheaply optimised) binary that runs it.
pub type Entry = Pin<Box<dyn Future<Output = Result<(), String>>>>;

/// Writes `line` as the first stdout line, for the bench waiting on it.
async fn announce(line: &str) -> Result<(), String> {
    let mut out = toolnexus_stdio::stdout();
    out.write_all(format!("{line}\n").as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    out.flush().await.map_err(|e| e.to_string())
}

/// Completes when stdin reaches its end (or fails): the bench that holds it is gone.
async fn stdin_closed() {
    let mut stdin = toolnexus_stdio::stdin();
    let mut buf = [0u8; 512];
    while matches!(stdin.read(&mut buf).await, Ok(n) if n > 0) {}
}
