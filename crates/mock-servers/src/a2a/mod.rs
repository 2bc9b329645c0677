//! A scriptable A2A agent for any port's tests: a JSON scenario (see `mock-servers/README.md`)
//! picks the Agent Card, how each task runs (polls, final state, artifacts, history) and
//! how the agent breaks, served as the SPEC §7A subset: JSON-RPC `SendMessage` + `GetTask`
//! over HTTP POST.

mod rpc;
mod scenario;
mod server;
mod tasks;

pub use rpc::{
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, TASK_NOT_FOUND,
};
pub use scenario::{
    load_scenario, parse_scenario, CardAnswer, CardFailure, FinalState, RpcAnswer, RpcFailure,
    Scenario, TaskScript,
};
pub use server::{CARD_PATH, SELF};

use futures::future::{FutureExt, LocalBoxFuture};

use crate::loopback;

/// Runs the scenario until the process is killed, after printing the base URL
/// `http://127.0.0.1:<port>` as the first stdout line.
pub fn run(scenario: Scenario) -> LocalBoxFuture<'static, Result<(), String>> {
    async move {
        let guard = resolve_headers(&scenario.require_headers_from_env)?;
        server::serve(scenario, guard).await
    }
    .boxed_local()
}

/// Reads `requireHeadersFromEnv` values now, so a missing variable stops the start instead
/// of turning every request into a 401.
fn resolve_headers(required: &[(axum::http::HeaderName, String)]) -> Result<server::Guard, String> {
    required
        .iter()
        .map(|(name, var)| loopback::secret_from_env(name, var).map(|s| (name.clone(), s)))
        .collect()
}
