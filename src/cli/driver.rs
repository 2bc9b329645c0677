//! `driver`: the reference implementation served over the port protocol on stdin/stdout.

use std::process::ExitCode;

use super::fail;

/// Serves until stdin ends (exit 0) or a signal stops it (exit 128+signal, its MCP servers
/// closed).
pub async fn run() -> ExitCode {
    match toolnexus_driver::driver::serve_stdio().await {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(signal)) => {
            eprintln!("driver: stopped by {signal}; closed its MCP servers");
            ExitCode::from(match signal {
                "SIGINT" => 130,
                "SIGHUP" => 129,
                _ => 143,
            })
        }
        Err(e) => fail(&format!("driver: {e}")),
    }
}
