//! A scriptable MCP server on rmcp's server side, for any port's tests: a JSON scenario
//! (see `mock-servers/README.md`) picks the tools, paging, delays and failures, served over
//! stdio or streamable HTTP.

mod handler;
mod http;
mod raw;
mod reused_ids;
mod scenario;
mod sleeper;
mod stdio;

use crate::loopback;
use futures::future::{FutureExt, LocalBoxFuture};
use std::sync::Arc;

pub use scenario::{
    load_scenario, parse_scenario, Behaviour, Delays, Expected, FailMode, RequiredHeader, Scenario,
    Secret, ServerIdentity, Sleeper, ToolSpec,
};

/// How the mock server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    /// MCP over stdin/stdout.
    Stdio,
    /// Streamable HTTP at `http://127.0.0.1:<port>/mcp`, the URL printed first on stdout.
    Http,
}

/// Runs the scenario until stdin closes (stdio) or the process is killed (http). Crash
/// modes exit the process with code 3, as a crashing server would.
pub fn run(
    transport: Transport,
    scenario: Scenario,
) -> LocalBoxFuture<'static, Result<(), String>> {
    async move {
        if scenario.fail == Some(FailMode::ExitAtStart) {
            std::process::exit(3);
        }
        let guard = match transport {
            Transport::Http => resolve_headers(&scenario.require_headers)?,
            Transport::Stdio => {
                if !scenario.require_headers.is_empty() {
                    eprintln!("mock-mcp: requireHeaders ignored over stdio");
                }
                Vec::new()
            }
        };
        if let Some(s) = &scenario.sleeper {
            sleeper::start(s)?;
        }
        let scenario = Arc::new(scenario);
        match transport {
            Transport::Stdio => stdio::serve(scenario).await,
            Transport::Http => http::serve(scenario, guard).await,
        }
    }
    .boxed_local()
}

/// Reads `requireHeadersFromEnv` values now, so a missing variable stops the start instead
/// of turning every request into a 401.
fn resolve_headers(required: &[RequiredHeader]) -> Result<http::Guard, String> {
    required
        .iter()
        .map(|h| match &h.expected {
            Expected::Literal(v) => Ok((h.name.clone(), v.clone())),
            Expected::FromEnv(var) => {
                loopback::secret_from_env(&h.name, var).map(|s| (h.name.clone(), s))
            }
        })
        .collect()
}

/// Dies the way a crashing server does: a note on stderr, exit code 3, no reply.
fn crash(at: &str) -> ! {
    eprintln!("mock-mcp: crashing at {at}");
    std::process::exit(3)
}
