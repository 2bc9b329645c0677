//! A scriptable LLM for any port's tests: OpenAI chat-completions, Anthropic messages and
//! the SPEC §8B systemone classifier wire on loopback HTTP, replies picked from the request
//! by a JSON scenario (see `mock-servers/README.md`), streamed as SSE when asked, failing on
//! cue, and recording every request at `GET /_mock/requests`.

mod anthropic;
mod fixture;
mod openai;
mod request;
mod scenario;
mod server;
mod sse;
mod systemone;
#[cfg(test)]
mod systemone_tests;

pub use fixture::{from_fixture, BLOCKING_DELAY_MS};
pub use scenario::{
    load_scenario, parse_count, parse_scenario, parse_template, Answer, Count, Failure, Match,
    Pattern, Piece, Reply, Scenario, Style, Template, ToolCall, Turn, Usage, DEFAULT_USAGE,
};
pub use server::{
    MAX_RECORDED, MAX_RECORDED_BODY, MAX_RECORDED_BYTES, REDACTED, REQUESTS_PATH, SECRET_ENV,
    STATS_PATH,
};

use futures::future::{FutureExt, LocalBoxFuture};

use crate::loopback;

/// Runs the scenario until the process is killed, after printing the base URL
/// `http://127.0.0.1:<port>` as the first stdout line.
pub fn run(scenario: Scenario) -> LocalBoxFuture<'static, Result<(), String>> {
    async move {
        let guard = scenario
            .require_headers_from_env
            .iter()
            .map(|(name, var)| loopback::secret_from_env(name, var).map(|s| (name.clone(), s)))
            .collect::<Result<loopback::Guard, String>>()?;
        server::serve(scenario, guard).await
    }
    .boxed_local()
}
