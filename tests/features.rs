//! Runs every `features/*.feature` scenario with the cucumber crate, twice: against the
//! in-process reference port and against the reference's own driver over the subprocess
//! protocol. Each step goes through the same vocabulary the CLI runner uses
//! (`harness::steps::run_step`), so both paths are held to the same expectations.
//! `@beyond-spec` scenarios run too (they document what the reference does), and so do
//! `@preview` ones, which the CLI runs only with `--include-preview` (the reference
//! implements the previews, so they must pass here); scenarios
//! whose version tags exclude the reference's SPEC are left out, as the CLI skips them.

use std::convert::Infallible;
use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use cucumber::{step, Cucumber};
use futures::FutureExt;
use regex::Regex;
use toolnexus_harness::scenario::features::{pinned_version, step_spec, VersionBounds};
use toolnexus_harness::scenario::state::{Env, ScenarioState, StepFailure};
use toolnexus_harness::steps::{finish, run_step, NO_PORT_LOG};
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::Port;
use toolnexus_ports::subprocess::SubprocessPort;
use toolnexus_spec::version::SpecVersion;

/// Which port the current pass drives; set once per pass before cucumber starts.
static DRIVER: OnceLock<Option<String>> = OnceLock::new();

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct FeatureWorld {
    port: Box<dyn Port>,
    env: Env,
    state: ScenarioState,
}

impl fmt::Debug for FeatureWorld {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FeatureWorld")
    }
}

impl cucumber::World for FeatureWorld {
    type Error = Infallible;

    async fn new() -> Result<Self, Infallible> {
        let env =
            Env::from_root(&root()).with_mock_bin(env!("CARGO_BIN_EXE_toolnexus-conformance"));
        let port: Box<dyn Port> = match DRIVER.get().cloned().flatten() {
            Some(cmd) => Box::new(SubprocessPort::new(cmd, Duration::from_secs(20))),
            None => Box::new(InProcessPort::new(toolnexus_driver::ReferenceSession::new())),
        };
        let state = ScenarioState::new(&env);
        Ok(FeatureWorld { port, env, state })
    }
}

fn any_step<'a>(
    world: &'a mut FeatureWorld,
    ctx: step::Context,
) -> futures::future::LocalBoxFuture<'a, ()> {
    async move {
        if let Err(e) = world.port.ensure_ready().await {
            panic!("port not ready: {e}");
        }
        let spec = step_spec(&ctx.step);
        match run_step(world.port.as_mut(), &world.env, &mut world.state, &spec).await {
            Ok(()) => {}
            // The harness reads no log of an in-process port, so the CLI skips a log check
            // there; cucumber has no skip at run time, so it is printed and the scenario goes
            // on. The driver pass runs it for real, and any other skip still fails.
            Err(StepFailure::Skipped(why))
                if why.starts_with(NO_PORT_LOG)
                    && std::env::var("TNX_FEATURES_PASS").as_deref() == Ok("in-process") =>
            {
                println!("skipped (no log in-process): {why}");
            }
            // As the CLI runner does: a port that leaks the canary must not make this leak it.
            Err(e) => panic!("{}", toolnexus_ports::secret::redact(&e.to_string())),
        }
    }
    .boxed_local()
}

/// Whether a scenario's version tags include the SPEC the reference implements. Malformed
/// tags keep the scenario (the loader reports them; here the run would say nothing).
fn holds_for_the_reference(
    feature: &cucumber::gherkin::Feature,
    rule: Option<&cucumber::gherkin::Rule>,
    scenario: &cucumber::gherkin::Scenario,
) -> bool {
    let tags: Vec<String> = feature
        .tags
        .iter()
        .chain(rule.iter().flat_map(|r| r.tags.iter()))
        .chain(scenario.tags.iter())
        .map(|t| t.trim_start_matches('@').to_string())
        .collect();
    VersionBounds::from_tags(&tags).map_or(true, |b| b.holds_for(reference_spec()))
}

/// The SPEC the reference declares (`hello`): the newest text, so a scenario kept
/// `@until-0.16.0` is left out and one of `@pin-0.17.0` runs, as in the CLI.
fn reference_spec() -> SpecVersion {
    SpecVersion::parse_declared(toolnexus_protocol::REFERENCE_SPEC).unwrap_or_else(pinned_version)
}

async fn pass(label: &str) -> bool {
    let all = || Regex::new("^(?s).*$").unwrap_or_else(|e| panic!("{e}"));
    println!("== features via {label}");
    let writer = Cucumber::<FeatureWorld, _, _, _, _, _>::new()
        .given(all(), any_step)
        .when(all(), any_step)
        .then(all(), any_step)
        .max_concurrent_scenarios(4)
        .after(|_, _, _, _, world| {
            async move {
                if let Some(w) = world {
                    finish(w.port.as_mut(), &mut w.state).await;
                    w.port.shutdown().await;
                }
            }
            .boxed_local()
        })
        .filter_run(root().join("features"), holds_for_the_reference)
        .await;
    use cucumber::writer::Stats as _;
    !writer.execution_has_failed() && writer.passed_steps() > 0
}

fn main() {
    // Before the runtime's threads: every pass (and its driver child) shares one secret.
    toolnexus_ports::secret::ensure();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("cannot start tokio: {e}"),
    };
    let mode = std::env::var("TNX_FEATURES_PASS").ok();
    let driver = format!("{} driver", env!("CARGO_BIN_EXE_toolnexus-conformance"));
    // Each pass runs in its own process (the test re-executes itself), because the port
    // choice is process-global for cucumber's `World::new`.
    let ok = match mode.as_deref() {
        Some("in-process") => {
            let _ = DRIVER.set(None);
            runtime.block_on(pass("the in-process reference port"))
        }
        Some("driver") => {
            let _ = DRIVER.set(Some(driver));
            runtime.block_on(pass("the reference driver over the subprocess protocol"))
        }
        _ => {
            let me = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
            ["in-process", "driver"].iter().all(|m| {
                let Ok(mut child) = std::process::Command::new(&me)
                    .env("TNX_FEATURES_PASS", m)
                    .spawn()
                else {
                    return false;
                };
                // A pass that hangs must fail the test, not stall CI.
                let deadline = std::time::Instant::now() + Duration::from_secs(600);
                loop {
                    match child.try_wait() {
                        Ok(Some(status)) => return status.success(),
                        Ok(None) if std::time::Instant::now() < deadline => {
                            std::thread::sleep(Duration::from_millis(200))
                        }
                        _ => {
                            eprintln!("the {m} pass did not finish within 600 s; killed it");
                            let _ = child.kill();
                            return false;
                        }
                    }
                }
            })
        }
    };
    if !ok {
        std::process::exit(1);
    }
}
