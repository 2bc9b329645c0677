//! MCP over stdin/stdout: stdout carries only protocol bytes, so every diagnostic goes to
//! stderr.

use std::sync::Arc;

use rmcp::service::{serve_server, ServerInitializeError};

use super::handler::MockHandler;
use super::raw;
use super::scenario::{FailMode, Scenario};

/// Serves until stdin closes.
pub async fn serve(scenario: Arc<Scenario>) -> Result<(), String> {
    match scenario.fail {
        Some(FailMode::Garbage) => return raw::stdio_garbage().await,
        Some(FailMode::Hang) => return raw::stdio_hang().await,
        _ => {}
    }
    let running = match serve_server(
        MockHandler::new(scenario),
        (toolnexus_stdio::stdin(), toolnexus_stdio::stdout()),
    )
    .await
    {
        Ok(running) => running,
        // A client that leaves before initializing is an ordinary end, not a failure.
        Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(format!("initialize failed: {e}")),
    };
    running
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| format!("server task failed: {e}"))
}
