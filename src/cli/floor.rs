//! `floor` (hidden): the bench's floor processes, started by `bench` itself (see
//! the `toolnexus-floor` crate).

use std::process::ExitCode;

use toolnexus_floor::{canned_http, mcp_driver, rmcp_http};

use super::fail;

/// The arguments of `floor`.
#[derive(clap::Args)]
pub struct FloorArgs {
    #[command(subcommand)]
    kind: FloorKind,
}

/// Which floor to run.
#[derive(clap::Subcommand)]
enum FloorKind {
    /// The canned `tools/call` answer over loopback HTTP (first line: the base URL); ends
    /// when stdin closes.
    CannedHttp,
    /// A bare rmcp server over stateless streamable HTTP, one `noop` tool answering `ok`
    /// (first line: the base URL); ends when stdin closes.
    RmcpHttp,
    /// A minimal driver: each request line on stdin becomes one `tools/call` of `--tool` on
    /// the MCP server started with the command after `--` (first line: `ready`).
    McpDriver {
        /// The MCP server's tool to call.
        #[arg(long)]
        tool: String,
        /// The MCP server's command and arguments.
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
}

/// Runs the floor until it ends.
pub async fn run(args: FloorArgs) -> ExitCode {
    let outcome = match args.kind {
        FloorKind::CannedHttp => canned_http::serve_until_stdin_closes().await,
        FloorKind::RmcpHttp => rmcp_http::serve_until_stdin_closes().await,
        FloorKind::McpDriver { tool, command } => mcp_driver::serve(command, tool).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&format!("floor: {e}")),
    }
}
