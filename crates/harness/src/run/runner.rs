//! The executor: runs the selected scenarios over a pool of ports (one worker each), retries
//! a scenario that only a harness time bound broke, and fills in the outcome model
//! (`outcome`), which it does not define.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;

use futures::future::{join_all, FutureExt, LocalBoxFuture};
use toolnexus_spec::version::SpecVersion;

use crate::outcome::failure::Failure;
use crate::outcome::model::{Counts, Flaky, HarnessInfo, RunReport, ScenarioResult, Status};
use crate::outcome::needs::Blocker;
use crate::run::refusals::Watched;
use crate::scenario::features::{pinned_version, ScenarioSpec};
use crate::scenario::state::{Env, ScenarioState, StepFailure};
use crate::steps::{finish, run_step};
use toolnexus_ports::port::{hello, Port, PortInfo};

/// Which scenarios to run.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Keep scenarios carrying any of these tags (with or without `@`); empty ⇒ all.
    pub tags: Vec<String>,
    /// Keep scenarios of these sections; empty ⇒ all.
    pub sections: Vec<String>,
    /// Keep scenarios that hold for this SPEC version (`X.Y.Z`, within their since/until
    /// bounds, the pin being the lower bound without `since-`); `None` ⇒ all.
    pub spec: Option<String>,
    /// Keep `@preview` scenarios too (`--include-preview`); without it they are left out
    /// unless `tags` names `preview` itself: the SPEC marks the preview "not … a porting
    /// obligation until they are promoted into §0".
    pub include_preview: bool,
    /// Keep scenarios whose id contains any of these texts (case-sensitive, like
    /// `cargo test NAME`); empty ⇒ all.
    pub names: Vec<String>,
}

impl Selection {
    /// Spells each requested section as one of `known` does, ignoring ASCII case (`4a` is
    /// `4A`); a section no scenario has is an error naming the known ones, not a silent
    /// empty part of the selection.
    pub fn resolve_sections(&mut self, known: &[String]) -> Result<(), String> {
        for wanted in &mut self.sections {
            let trimmed = wanted.trim();
            match known.iter().find(|k| k.eq_ignore_ascii_case(trimmed)) {
                Some(k) => *wanted = k.clone(),
                None => {
                    return Err(format!(
                        "--section {trimmed}: no such section (known: {})",
                        known.join(", ")
                    ))
                }
            }
        }
        Ok(())
    }

    /// Refuses a selection that cannot mean anything (a `spec` that is not `X.Y.Z`).
    pub fn check(&self) -> Result<(), String> {
        match &self.spec {
            Some(v) if SpecVersion::parse_text(v).is_none() => Err(format!(
                "--spec {v}: not a SPEC version (expected X.Y.Z or {})",
                toolnexus_spec::version::NEWEST_TEXT
            )),
            _ => Ok(()),
        }
    }

    /// Whether `s` is selected.
    pub fn keeps(&self, s: &ScenarioSpec) -> bool {
        let tag_ok = self.tags.is_empty()
            || self
                .tags
                .iter()
                .any(|t| s.tags.iter().any(|st| st == t.trim_start_matches('@')));
        let section_ok = self.sections.is_empty() || self.sections.contains(&s.section);
        let spec_ok = self
            .spec
            .as_ref()
            .is_none_or(|v| SpecVersion::parse_text(v).is_some_and(|v| s.bounds.holds_for(v)));
        let preview_ok = !s.is_preview()
            || self.include_preview
            || self
                .tags
                .iter()
                .any(|t| t.trim_start_matches('@') == crate::scenario::features::PREVIEW_TAG);
        let name_ok = self.names.is_empty() || self.names.iter().any(|n| s.id.contains(n.as_str()));
        tag_ok && section_ok && spec_ok && preview_ok && name_ok
    }
}

/// The SPEC version a port's `hello` declares (the pinned one when it declares none).
pub fn port_spec(declared: Option<&str>) -> Result<SpecVersion, String> {
    match declared {
        None => Ok(pinned_version()),
        Some(text) => SpecVersion::parse_declared(text)
            .ok_or_else(|| format!("hello: spec \"{text}\" is not a SPEC version")),
    }
}

/// Why `spec` is not run against a port implementing SPEC `version`; `None` when it holds.
pub fn version_skip(spec: &ScenarioSpec, version: SpecVersion) -> Option<String> {
    (!spec.bounds.holds_for(version)).then(|| {
        format!(
            "holds for {}; the port implements {version}",
            spec.bounds.describe()
        )
    })
}

/// What a port's `hello` established, or why it failed.
struct Greeting {
    info: PortInfo,
    declared_spec: Option<String>,
    implements: Option<Vec<String>>,
    version: SpecVersion,
    error: Option<String>,
}

/// Starts `port` and reads its `hello`.
async fn greet(port: &mut dyn Port, fallback_name: &str) -> Greeting {
    let greeting = match port.ensure_ready().await {
        Ok(()) => hello(port).await,
        Err(e) => Err(e),
    };
    let (info, declared_spec, implements, version, error) = match greeting {
        Ok(h) => match port_spec(h.spec.as_deref()) {
            Ok(v) => (h.port, h.spec, Some(h.implements), v, None),
            Err(e) => (h.port, h.spec, None, pinned_version(), Some(e)),
        },
        Err(e) => (
            PortInfo {
                name: fallback_name.to_string(),
                language: "unknown".into(),
                version: "unknown".into(),
            },
            None,
            None,
            pinned_version(),
            Some(e.to_string()),
        ),
    };
    // The port's self-description is driver output too: a leaked canary stops here.
    let redact = toolnexus_ports::secret::redact;
    Greeting {
        info: PortInfo {
            name: redact(&info.name),
            language: redact(&info.language),
            version: redact(&info.version),
        },
        declared_spec: declared_spec.map(|s| redact(&s)),
        implements,
        version,
        error: error.map(|e| redact(&e)),
    }
}

/// Runs `scenarios` against `port`, calling `progress` after each one. A port whose `hello`
/// fails gets every scenario failed with the reason (what a release column of `history`
/// shows); `run` itself uses [`run_or_refuse`].
pub fn run<'a>(
    port: &'a mut dyn Port,
    env: &'a Env,
    scenarios: &'a [ScenarioSpec],
    fallback_name: &'a str,
    progress: &'a mut dyn FnMut(&ScenarioResult),
) -> LocalBoxFuture<'a, RunReport> {
    async move {
        let greeting = greet(port, fallback_name).await;
        execute(vec![port], env, scenarios, greeting, |r| {
            progress(r);
            true
        })
        .await
    }
    .boxed_local()
}

/// Runs `scenarios` against `port` like [`run`], but a failed `hello` ends it before any
/// scenario: `Err` carries the reason (with the driver's stderr tail when it has one), since
/// one identical failure per scenario says nothing more. `progress` is called after each
/// scenario and returns whether to go on (`--fail-fast` stops at a failure).
pub fn run_or_refuse<'a>(
    port: &'a mut dyn Port,
    env: &'a Env,
    scenarios: &'a [ScenarioSpec],
    fallback_name: &'a str,
    progress: &'a mut dyn FnMut(&ScenarioResult) -> bool,
) -> LocalBoxFuture<'a, Result<RunReport, String>> {
    async move { run_pool_or_refuse(vec![port], env, scenarios, fallback_name, progress).await }
        .boxed_local()
}

/// Runs `scenarios` over `ports`, one worker per port taking the next scenario as it gets
/// free (`run --jobs N`), like [`run_or_refuse`]: every port must pass its `hello` first.
/// `progress` sees the results in scenario order and the report lists them in that order,
/// so the output is the one a single port gives. The `@serial` scenarios run first, each
/// while no other runs. With `--fail-fast` the scenarios already started finish, and only
/// the results up to the first failure (in scenario order) are reported.
pub fn run_pool_or_refuse<'a>(
    ports: Vec<&'a mut dyn Port>,
    env: &'a Env,
    scenarios: &'a [ScenarioSpec],
    fallback_name: &'a str,
    progress: &'a mut dyn FnMut(&ScenarioResult) -> bool,
) -> LocalBoxFuture<'a, Result<RunReport, String>> {
    run_pool_rechecking(ports, env, scenarios, fallback_name, 0, &|_| true, progress)
}

/// [`run_pool_or_refuse`], then each failed scenario, up to `recheck` of them (first those
/// `counts` says fail the run, i.e. not known failures; then the rest, each in scenario
/// order), run once more alone against a fresh port (the first port, shut down and started
/// again): one that passes then is marked flaky with both outcomes (`run --recheck N`). Not
/// after a `--fail-fast` stop, and not for a scenario already run twice for a harness time
/// bound (NOTES #309).
pub fn run_pool_rechecking<'a>(
    mut ports: Vec<&'a mut dyn Port>,
    env: &'a Env,
    scenarios: &'a [ScenarioSpec],
    fallback_name: &'a str,
    recheck: usize,
    counts: &'a dyn Fn(&ScenarioResult) -> bool,
    progress: &'a mut dyn FnMut(&ScenarioResult) -> bool,
) -> LocalBoxFuture<'a, Result<RunReport, String>> {
    async move {
        let greetings = join_all(ports.iter_mut().map(|p| greet(&mut **p, fallback_name))).await;
        if let Some(e) = greetings.iter().find_map(|g| g.error.clone()) {
            join_all(ports.iter_mut().map(|p| p.shutdown())).await;
            return Err(e);
        }
        let Some(greeting) = greetings.into_iter().next() else {
            return Err("no port to run the scenarios on".to_string());
        };
        let implements = greeting.implements.clone();
        let (mut report, stopped) =
            execute_all(&mut ports, env, scenarios, greeting, progress).await;
        if let (false, Some(port)) = (stopped, ports.into_iter().next()) {
            recheck_failures(
                port,
                env,
                scenarios,
                implements.as_deref(),
                recheck,
                counts,
                &mut report,
            )
            .await;
        }
        Ok(report)
    }
    .boxed_local()
}

/// Runs up to `budget` of the report's failed scenarios once more, each alone against a fresh
/// start of `port`, and marks those that pass then as flaky. Those `counts` says fail the run
/// go first, so a budget is not spent on known failures. The result stays the failure: it
/// still counts.
async fn recheck_failures(
    port: &mut dyn Port,
    env: &Env,
    scenarios: &[ScenarioSpec],
    implements: Option<&[String]>,
    budget: usize,
    counts: &dyn Fn(&ScenarioResult) -> bool,
    report: &mut RunReport,
) {
    let mut failed: Vec<(bool, usize)> = report
        .scenarios
        .iter()
        .enumerate()
        .filter(|(_, r)| r.status == Status::Failed && r.meta.retried.is_none())
        .map(|(i, r)| (!counts(r), i))
        .collect();
    failed.sort_unstable();
    let failed: Vec<usize> = failed.into_iter().map(|(_, i)| i).take(budget).collect();
    for i in failed {
        let Some(result) = report.scenarios.get_mut(i) else {
            continue;
        };
        let Some(spec) = scenarios.iter().find(|s| s.id == result.name) else {
            continue;
        };
        // Fresh: the driver (or the in-process handler's state) of the run is closed first,
        // so the rerun meets no state the run left behind.
        port.shutdown().await;
        let again = run_one(port, env, spec, implements).await;
        if again.status == Status::Passed {
            result.meta.flaky = Some(Flaky {
                first: Status::Failed,
                again: Status::Passed,
            });
        }
    }
    port.shutdown().await;
}

/// The guard a worker holds while its scenario runs: shared, or alone for `@serial` ones.
enum Turn<'a> {
    Shared {
        _held: tokio::sync::RwLockReadGuard<'a, ()>,
    },
    Alone {
        _held: tokio::sync::RwLockWriteGuard<'a, ()>,
    },
}

/// What the workers of one run share. They are futures of one task (a scenario's steps are
/// not `Send`) that wait on ports and servers running elsewhere, so they still overlap.
struct Pool<'a> {
    env: &'a Env,
    scenarios: &'a [ScenarioSpec],
    hello_error: Option<String>,
    implements: Option<Vec<String>>,
    version: SpecVersion,
    /// The order the workers take the scenarios in (indices into `scenarios`): the `@serial`
    /// ones first, while nothing else is running, then the rest as listed.
    order: Vec<usize>,
    /// The next entry of `order` no worker has taken.
    next: Cell<usize>,
    /// Set when `progress` asks to stop (`--fail-fast`).
    stopped: Cell<bool>,
    /// How many results, in scenario order, `progress` has seen.
    reported: Cell<usize>,
    slots: RefCell<Vec<Option<ScenarioResult>>>,
    progress: RefCell<&'a mut dyn FnMut(&ScenarioResult) -> bool>,
    /// Held shared by each running scenario, and exclusively by a `@serial` one.
    gate: tokio::sync::RwLock<()>,
}

impl Pool<'_> {
    /// One worker: takes the next scenario until none is left, then closes its port.
    async fn work(&self, port: &mut dyn Port) {
        while !self.stopped.get() {
            let taken = self.next.get();
            let Some(&i) = self.order.get(taken) else {
                break;
            };
            let Some(spec) = self.scenarios.get(i) else {
                break;
            };
            self.next.set(taken + 1);
            let turn = if spec.is_serial() {
                Turn::Alone {
                    _held: self.gate.write().await,
                }
            } else {
                Turn::Shared {
                    _held: self.gate.read().await,
                }
            };
            let clock = std::time::Instant::now();
            let mut result = match &self.hello_error {
                // A port that cannot complete the handshake is not run at all: every scenario
                // fails with the reason, so the report says why in each row.
                Some(e) => failed(spec, Failure::other(format!("hello failed: {e}"))),
                _ => match version_skip(spec, self.version) {
                    Some(why) => ScenarioResult {
                        status: Status::Skipped,
                        message: why,
                        ..ScenarioResult::blank(spec)
                    },
                    None => run_one(port, self.env, spec, self.implements.as_deref()).await,
                },
            };
            drop(turn);
            if broke_only_a_time_bound(&result) {
                // The machine's load, not the port, may have broken the harness's own bound:
                // once more, alone (no scenario of this run beside it), on the same worker.
                let first = result.message.clone();
                let _alone = self.gate.write().await;
                result = run_one(port, self.env, spec, self.implements.as_deref()).await;
                result.meta.retried = Some(first);
            }
            result.meta.duration_ms =
                u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX);
            if let Some(slot) = self.slots.borrow_mut().get_mut(i) {
                *slot = Some(result);
            }
            self.report_in_order();
        }
        port.shutdown().await;
    }

    /// Hands the finished results to `progress` in scenario order, as far as they reach.
    fn report_in_order(&self) {
        while !self.stopped.get() {
            let k = self.reported.get();
            let slots = self.slots.borrow();
            let Some(Some(r)) = slots.get(k) else {
                break;
            };
            let go_on = (self.progress.borrow_mut())(r);
            self.reported.set(k + 1);
            self.stopped.set(!go_on);
        }
    }
}

async fn execute(
    mut ports: Vec<&mut dyn Port>,
    env: &Env,
    scenarios: &[ScenarioSpec],
    greeting: Greeting,
    progress: impl FnMut(&ScenarioResult) -> bool,
) -> RunReport {
    execute_all(&mut ports, env, scenarios, greeting, progress)
        .await
        .0
}

/// [`execute`], also saying whether `progress` stopped the run (`--fail-fast`).
async fn execute_all(
    ports: &mut [&mut dyn Port],
    env: &Env,
    scenarios: &[ScenarioSpec],
    greeting: Greeting,
    mut progress: impl FnMut(&ScenarioResult) -> bool,
) -> (RunReport, bool) {
    let Greeting {
        info,
        declared_spec,
        implements,
        version,
        error: hello_error,
    } = greeting;
    let started = iso8601_utc(std::time::SystemTime::now());
    let (serial, shared): (Vec<usize>, Vec<usize>) =
        (0..scenarios.len()).partition(|&i| scenarios[i].is_serial());
    let pool = Pool {
        env,
        scenarios,
        order: serial.into_iter().chain(shared).collect(),
        hello_error,
        implements,
        version,
        next: Cell::new(0),
        stopped: Cell::new(false),
        reported: Cell::new(0),
        slots: RefCell::new((0..scenarios.len()).map(|_| None).collect()),
        progress: RefCell::new(&mut progress),
        gate: tokio::sync::RwLock::new(()),
    };
    join_all(ports.iter_mut().map(|port| pool.work(&mut **port))).await;
    let reported = pool.reported.get();
    let stopped = pool.stopped.get();
    let results: Vec<ScenarioResult> = pool
        .slots
        .into_inner()
        .into_iter()
        .take(reported)
        .flatten()
        .collect();
    let mut report = RunReport {
        harness: Some(HarnessInfo::this()),
        started: Some(started),
        port: info,
        port_spec: declared_spec,
        spec: pinned_versions(scenarios),
        judged_by: None,
        summary: Counts::default(),
        sections: BTreeMap::new(),
        scenarios: results,
        baseline: None,
        strict: false,
    };
    report.recount();
    (report, stopped)
}

/// `t` as ISO 8601 UTC to the second (`2026-11-30T16:58:11Z`), without a date crate.
pub fn iso8601_utc(t: std::time::SystemTime) -> String {
    let secs = t
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil-from-days, for days since 1970-01-01.
    let z = i64::try_from(days).unwrap_or(0) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

/// Whether `result` failed only because a harness time bound broke (a late driver answer,
/// a step's upper bound), which the machine's load alone can do.
fn broke_only_a_time_bound(result: &ScenarioResult) -> bool {
    result.status == Status::Failed
        && result
            .failure
            .as_ref()
            .is_some_and(Failure::broke_a_time_bound)
}

/// The SPEC version(s) the run checks against: those its scenarios pin.
fn pinned_versions(scenarios: &[ScenarioSpec]) -> String {
    let versions: std::collections::BTreeSet<&str> =
        scenarios.iter().filter_map(|s| s.pin.as_deref()).collect();
    if versions.is_empty() {
        toolnexus_protocol::SPEC_VERSION.to_string()
    } else {
        versions.into_iter().collect::<Vec<_>>().join(", ")
    }
}

/// Why a scenario that reads the SPEC's shared examples (`{{EXAMPLES}}`) cannot run: they are
/// not where the suite expects them (a binary built without `../shared/spec/examples` beside
/// its checkout, e.g. installed from a git URL). Not the port's failure, so a skip that says
/// where to get them. It names no path: an embedded suite's lies in a fresh temp folder, and
/// two runs' reports must not differ for it.
fn examples_missing(env: &Env, spec: &ScenarioSpec) -> Option<String> {
    const PLACEHOLDER: &str = "{{EXAMPLES}}";
    let uses = spec.steps.iter().any(|step| {
        step.text.contains(PLACEHOLDER)
            || step
                .docstring
                .as_deref()
                .is_some_and(|d| d.contains(PLACEHOLDER))
    });
    (uses && !env.examples.is_dir()).then(|| {
        format!(
            "the SPEC's shared examples ({PLACEHOLDER}) are missing (no folder at the \
             --examples given, or the binary was built without ../shared/spec/examples beside \
             its checkout): give --examples DIR (the SPEC's spec/examples), or --root a \
             checkout with ../shared beside it"
        )
    })
}

/// A failed scenario; a port that leaks the canary must not make the report leak it too, nor
/// copy a content part's base64 into it (its head and length are shown instead).
fn failed(spec: &ScenarioSpec, failure: Failure) -> ScenarioResult {
    let failure = failure.redacted(&|text| {
        let text = toolnexus_ports::secret::redact(text);
        toolnexus_ports::payload::shorten_text(&text).into_owned()
    });
    ScenarioResult {
        status: Status::Failed,
        message: failure.report_text(),
        failure: Some(failure),
        ..ScenarioResult::blank(spec)
    }
}

async fn run_one(
    port: &mut dyn Port,
    env: &Env,
    spec: &ScenarioSpec,
    implements: Option<&[String]>,
) -> ScenarioResult {
    let mut result = ScenarioResult::blank(spec);
    if let Some(list) = implements {
        if !list.contains(&spec.section) {
            result.status = Status::Skipped;
            result.message = format!("port does not implement SPEC section {}", spec.section);
            result.meta.blocked_by = Some(Blocker::Section(spec.section.clone()));
            return result;
        }
    }
    if let Some(why) = examples_missing(env, spec) {
        result.status = Status::Skipped;
        result.message = why;
        return result;
    }
    port.begin_scenario(&spec.id);
    if let Err(e) = port.ensure_ready().await {
        // A violation seen while restarting is this scenario's, and is in `e` already.
        let _ = port.end_scenario().await;
        return failed(spec, Failure::other(e.to_string()));
    }
    let mut state = ScenarioState::new(env).with_tags(&spec.tags);
    let mut watched = Watched::new(port);
    for step in &spec.steps {
        match run_step(&mut watched, env, &mut state, step).await {
            Ok(()) => {}
            Err(StepFailure::Failed(f)) => {
                result = failed(spec, f.in_step(format!("{} {}", step.keyword, step.text)));
                break;
            }
            Err(StepFailure::Skipped(m)) => {
                result.status = Status::Skipped;
                result.message = format!("step `{} {}`: {m}", step.keyword, step.text);
                // Every skip is an `unsupported` answer (scenario.rs), the last one seen.
                result.meta.blocked_by = watched.blocker();
                break;
            }
        }
    }
    port.steps_done();
    finish(port, &mut state).await;
    if let Some(violation) = port.end_scenario().await {
        if result.status != Status::Failed {
            result = failed(spec, Failure::other(violation));
        }
    }
    result.expectations = state.expectations();
    // A port that leaks the canary must not make the report leak it too.
    result.message = toolnexus_ports::secret::redact(&result.message);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::features::{StepSpec, VersionBounds};
    use async_trait::async_trait;
    use serde_json::{json, Value};

    fn spec(name: &str, tags: &[&str]) -> ScenarioSpec {
        let tags: Vec<String> = tags.iter().map(|t| t.to_string()).collect();
        let beyond = tags.iter().any(|t| t == "beyond-spec");
        ScenarioSpec {
            id: name.into(),
            file: "f.feature".into(),
            line: 1,
            section: "0".into(),
            pin: Some("0.16.0".into()),
            bounds: VersionBounds::from_tags(&tags).unwrap(),
            beyond_spec: beyond.then(|| "Beyond the SPEC: order.".to_string()),
            description: String::new(),
            tags,
            steps: Vec::<StepSpec>::new(),
        }
    }

    #[test]
    fn a_scenario_reading_absent_examples_is_skipped_naming_why() {
        let dir = tempfile::tempdir().unwrap();
        let mut env = Env::from_root(dir.path());
        env.examples = dir.path().join("no-examples");
        let step = |text: &str, doc: Option<&str>| StepSpec {
            keyword: "Given".into(),
            text: text.into(),
            docstring: doc.map(str::to_string),
        };
        let mut reads = spec("reads", &["pin-0.16.0"]);
        reads.steps = vec![step(
            "a toolkit",
            Some("{\"home\": \"{{EXAMPLES}}/skills\"}"),
        )];
        let mut plain = spec("plain", &["pin-0.16.0"]);
        plain.steps = vec![step("a toolkit with {{FIXTURES}}/x", None)];
        let why = examples_missing(&env, &reads).unwrap_or_default();
        assert!(
            why.contains("are missing") && why.contains("--examples DIR"),
            "{why}"
        );
        assert_eq!(examples_missing(&env, &plain), None);
        // Where they are, the scenario runs.
        std::fs::create_dir(&env.examples).unwrap();
        assert_eq!(examples_missing(&env, &reads), None);
        // In the step text too.
        let mut in_text = spec("in text", &["pin-0.16.0"]);
        in_text.steps = vec![step("the home {{EXAMPLES}}/persona-agent", None)];
        std::fs::remove_dir(&env.examples).unwrap();
        assert!(examples_missing(&env, &in_text).is_some());
    }

    #[test]
    fn iso8601_utc_formats_known_instants() {
        let at = |s| std::time::UNIX_EPOCH + std::time::Duration::from_secs(s);
        assert_eq!(iso8601_utc(at(0)), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601_utc(at(951_782_400)), "2000-02-29T00:00:00Z");
        assert_eq!(iso8601_utc(at(1_796_057_891)), "2026-11-30T16:58:11Z");
    }

    #[test]
    fn spec_selection_keeps_scenarios_that_hold_for_the_version() {
        let sel = |v: &str| Selection {
            spec: Some(v.into()),
            ..Selection::default()
        };
        let pinned = spec("pinned", &["pin-0.16.0"]);
        let later = spec("later", &["pin-0.16.0", "since-0.17.0"]);
        let earlier = spec("earlier", &["pin-0.16.0", "until-0.16.0"]);
        let keeps = |v: &str| -> Vec<&str> {
            [&pinned, &later, &earlier]
                .into_iter()
                .filter(|s| sel(v).keeps(s))
                .map(|s| s.id.as_str())
                .collect()
        };
        assert_eq!(keeps("0.16.0"), vec!["pinned", "earlier"]);
        assert_eq!(keeps("0.21.0"), vec!["pinned", "later"]);
        assert!(keeps("0.15.0").is_empty());
        assert!(sel("0.16").check().is_err());
        assert!(sel("0.16.0").check().is_ok());
        assert!(Selection::default().keeps(&later));
    }

    #[test]
    fn preview_scenarios_are_left_out_unless_asked() {
        let plain = spec("plain", &["pin-0.16.0", "spec-10"]);
        let preview = spec("relay", &["pin-0.16.0", "preview", "spec-10"]);
        let kept = |sel: &Selection| -> Vec<&str> {
            [&plain, &preview]
                .into_iter()
                .filter(|s| sel.keeps(s))
                .map(|s| s.id.as_str())
                .collect()
        };
        assert_eq!(kept(&Selection::default()), vec!["plain"]);
        let asked = Selection {
            include_preview: true,
            ..Selection::default()
        };
        assert_eq!(kept(&asked), vec!["plain", "relay"]);
        // Naming the tag is asking for it.
        let by_tag = Selection {
            tags: vec!["@preview".into()],
            ..Selection::default()
        };
        assert_eq!(kept(&by_tag), vec!["relay"]);
        // Other filters still apply to an included preview scenario.
        let other_section = Selection {
            include_preview: true,
            sections: vec!["8".into()],
            ..Selection::default()
        };
        assert!(kept(&other_section).is_empty());
    }

    #[test]
    fn a_port_without_spec_is_taken_as_the_pinned_version() {
        assert_eq!(port_spec(None), Ok(pinned_version()));
        assert_eq!(port_spec(Some("0.21.0")), Ok(SpecVersion([0, 21, 0])));
        assert!(port_spec(Some("latest")).is_err());
        let later = spec("later", &["since-0.17.0"]);
        assert_eq!(
            version_skip(&later, pinned_version()).as_deref(),
            Some("holds for SPEC ≥ 0.17.0; the port implements 0.16.0")
        );
        assert_eq!(version_skip(&later, SpecVersion([0, 17, 0])), None);
    }

    /// A port that only greets, declaring `spec`; scenarios without steps pass on it.
    struct Greeter(Option<&'static str>);

    #[async_trait]
    impl Port for Greeter {
        async fn call(
            &mut self,
            _request: Value,
        ) -> Result<Value, toolnexus_ports::port::PortError> {
            let mut hello = json!({"ok": true, "seq": 0, "protocol": toolnexus_protocol::PROTOCOL_VERSION,
                "port": {"name": "greeter", "language": "rust", "version": "1"},
                "implements": ["0"]});
            if let Some(v) = self.0 {
                hello["spec"] = json!(v);
            }
            Ok(hello)
        }
    }

    fn run_on(declared: Option<&'static str>) -> RunReport {
        let scenarios = vec![
            spec("always", &["pin-0.16.0"]),
            spec("later", &["pin-0.16.0", "since-0.17.0"]),
            spec("earlier", &["pin-0.16.0", "until-0.16.0"]),
            spec("beyond", &["pin-0.16.0", "beyond-spec"]),
        ];
        let env = Env::from_root(std::path::Path::new("."));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(run(
            &mut Greeter(declared),
            &env,
            &scenarios,
            "g",
            &mut |_| {},
        ))
    }

    #[test]
    fn a_port_runs_only_the_scenarios_valid_for_its_declared_spec() {
        let status = |r: &RunReport, name: &str| {
            let s = r.scenarios.iter().find(|s| s.name == name).unwrap();
            (s.status, s.message.clone())
        };
        for declared in [None, Some("0.16.0")] {
            let r = run_on(declared);
            assert_eq!(status(&r, "always").0, Status::Passed);
            assert_eq!(status(&r, "earlier").0, Status::Passed);
            assert_eq!(
                status(&r, "later"),
                (
                    Status::Skipped,
                    "holds for SPEC ≥ 0.17.0; the port implements 0.16.0".into()
                )
            );
            assert_eq!(r.summary.beyond_spec.passed, 1);
            assert_eq!(r.summary.passed, 2);
        }
        let r = run_on(Some("0.21.0"));
        assert_eq!(status(&r, "later").0, Status::Passed);
        assert_eq!(
            status(&r, "earlier"),
            (
                Status::Skipped,
                "holds for SPEC 0.16.0 only; the port implements 0.21.0".into()
            )
        );
        let r = run_on(Some("latest"));
        assert_eq!(r.summary.failed, 3, "{:?}", r.scenarios);
        assert!(status(&r, "always")
            .1
            .contains("\"latest\" is not a SPEC version"));
    }

    #[test]
    fn sections_are_matched_ignoring_case_and_an_unknown_one_is_refused() {
        let known: Vec<String> = ["0", "4", "4A", "6"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut sel = Selection {
            sections: vec!["4a".into(), "6".into()],
            ..Selection::default()
        };
        sel.resolve_sections(&known).unwrap();
        assert_eq!(sel.sections, vec!["4A", "6"]);
        let mut bad = Selection {
            sections: vec!["4A".into(), "99".into()],
            ..Selection::default()
        };
        let e = bad.resolve_sections(&known).unwrap_err();
        assert!(e.contains("99") && e.contains("known: 0, 4, 4A, 6"), "{e}");
    }

    #[test]
    fn names_select_by_substring_of_the_id() {
        let a = spec("core: a native tool", &[]);
        let b = spec("builtins: grep finds", &[]);
        let sel = Selection {
            names: vec!["native".into(), "grep".into()],
            ..Selection::default()
        };
        assert!(sel.keeps(&a) && sel.keeps(&b));
        let one = Selection {
            names: vec!["native".into()],
            ..Selection::default()
        };
        assert!(one.keeps(&a) && !one.keeps(&b));
    }

    #[test]
    fn a_failed_hello_refuses_the_run_and_progress_can_stop_it() {
        let scenarios = vec![spec("one", &["pin-0.16.0"]), spec("two", &["pin-0.16.0"])];
        let env = Env::from_root(std::path::Path::new("."));
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut calls = 0;
        let refused = rt.block_on(run_or_refuse(
            &mut Greeter(Some("latest")),
            &env,
            &scenarios,
            "g",
            &mut |_| {
                calls += 1;
                true
            },
        ));
        assert!(refused.unwrap_err().contains("not a SPEC version"));
        assert_eq!(calls, 0);
        let stopped = rt
            .block_on(run_or_refuse(
                &mut Greeter(None),
                &env,
                &scenarios,
                "g",
                &mut |_| false,
            ))
            .unwrap();
        assert_eq!(stopped.scenarios.len(), 1);
        assert_eq!(stopped.summary.passed, 1);
    }

    /// Runs `scenarios` on a pool of `ports` in this directory, one current-thread runtime.
    fn on_pool<P: Port>(
        ports: &mut [P],
        scenarios: &[ScenarioSpec],
        mut progress: impl FnMut(&ScenarioResult) -> bool,
    ) -> RunReport {
        let env = Env::from_root(std::path::Path::new("."));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(run_pool_or_refuse(
            ports.iter_mut().map(|p| p as &mut dyn Port).collect(),
            &env,
            scenarios,
            "g",
            &mut progress,
        ))
        .unwrap()
    }

    /// Records which scenarios run at once: its scenario lasts from `begin_scenario` to the
    /// end of `end_scenario`, which waits a little so that scenarios overlap.
    struct Overlap {
        running: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
        seen: std::sync::Arc<std::sync::Mutex<Vec<Vec<String>>>>,
        current: String,
    }

    #[async_trait]
    impl Port for Overlap {
        async fn call(
            &mut self,
            request: Value,
        ) -> Result<Value, toolnexus_ports::port::PortError> {
            Greeter(None).call(request).await
        }

        fn begin_scenario(&mut self, name: &str) {
            self.current = name.to_string();
            let mut running = self.running.lock().unwrap();
            running.push(name.to_string());
            self.seen.lock().unwrap().push(running.clone());
        }

        async fn end_scenario(&mut self) -> Option<String> {
            tokio::time::sleep(std::time::Duration::from_millis(15)).await;
            self.running.lock().unwrap().retain(|n| *n != self.current);
            None
        }
    }

    #[test]
    fn workers_overlap_report_in_order_and_leave_serial_scenarios_alone() {
        let scenarios: Vec<ScenarioSpec> = (0..24)
            .map(|i| match i % 6 {
                3 => spec(&format!("alone-{i:02}"), &["pin-0.16.0", "serial"]),
                _ => spec(&format!("shared-{i:02}"), &["pin-0.16.0"]),
            })
            .collect();
        let running = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut ports: Vec<Overlap> = (0..4)
            .map(|_| Overlap {
                running: running.clone(),
                seen: seen.clone(),
                current: String::new(),
            })
            .collect();
        let mut progressed = Vec::new();
        let report = on_pool(&mut ports, &scenarios, |r| {
            progressed.push(r.name.clone());
            true
        });
        let order: Vec<String> = scenarios.iter().map(|s| s.id.clone()).collect();
        assert_eq!(progressed, order);
        let reported: Vec<String> = report.scenarios.iter().map(|r| r.name.clone()).collect();
        assert_eq!(reported, order);
        let seen = seen.lock().unwrap();
        assert!(
            seen.iter().any(|r| r.len() > 1),
            "no two scenarios overlapped"
        );
        for at_once in seen.iter() {
            if at_once.iter().any(|n| n.starts_with("alone")) {
                assert_eq!(
                    at_once.len(),
                    1,
                    "a @serial scenario shared the machine: {at_once:?}"
                );
            }
        }
    }

    /// Breaks a harness time bound the first time `late-*` scenarios run, and a port's own
    /// rule every time `wrong` runs; records who ran beside a retry.
    struct Flaky {
        tries: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
        running: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
        retries_beside: std::sync::Arc<std::sync::Mutex<Vec<Vec<String>>>>,
        current: String,
    }

    #[async_trait]
    impl Port for Flaky {
        async fn call(
            &mut self,
            request: Value,
        ) -> Result<Value, toolnexus_ports::port::PortError> {
            Greeter(None).call(request).await
        }

        fn begin_scenario(&mut self, name: &str) {
            self.current = name.to_string();
            let mut tries = self.tries.lock().unwrap();
            let mut running = self.running.lock().unwrap();
            if tries.iter().any(|t| t == name) {
                self.retries_beside.lock().unwrap().push(running.clone());
            }
            tries.push(name.to_string());
            running.push(name.to_string());
        }

        async fn end_scenario(&mut self) -> Option<String> {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            self.running.lock().unwrap().retain(|n| *n != self.current);
            let tries = self.tries.lock().unwrap();
            let first = tries.iter().filter(|t| **t == self.current).count() == 1;
            if self.current.starts_with("late") && first {
                Some(format!(
                    "driver failure: {}; killed it",
                    toolnexus_ports::late::no_answer(
                        "driver",
                        "answer",
                        "run",
                        std::time::Duration::from_millis(5)
                    )
                ))
            } else if self.current == "wrong" {
                Some("protocol violation: the answer broke a rule".to_string())
            } else {
                None
            }
        }
    }

    #[test]
    fn a_scenario_broken_only_by_a_time_bound_runs_once_more_alone() {
        let names = ["late-1", "fine-1", "wrong", "late-2", "fine-2", "fine-3"];
        let scenarios: Vec<ScenarioSpec> = names.iter().map(|n| spec(n, &["pin-0.16.0"])).collect();
        let tries = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let running = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let beside = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut ports: Vec<Flaky> = (0..3)
            .map(|_| Flaky {
                tries: tries.clone(),
                running: running.clone(),
                retries_beside: beside.clone(),
                current: String::new(),
            })
            .collect();
        let report = on_pool(&mut ports, &scenarios, |_| true);
        let by_name = |n: &str| report.scenarios.iter().find(|r| r.name == n).unwrap();
        for late in ["late-1", "late-2"] {
            let r = by_name(late);
            assert_eq!(r.status, Status::Passed, "{r:?}");
            assert!(
                r.meta
                    .retried
                    .as_deref()
                    .is_some_and(|m| m.contains("did not answer `run`")),
                "{r:?}"
            );
        }
        // A port's own failure is final: run once, reported as it is.
        let wrong = by_name("wrong");
        assert_eq!(wrong.status, Status::Failed);
        assert_eq!(wrong.meta.retried, None);
        assert_eq!(
            tries
                .lock()
                .unwrap()
                .iter()
                .filter(|t| *t == "wrong")
                .count(),
            1
        );
        assert_eq!(by_name("fine-1").meta.retried, None);
        // Each retry had the machine to itself.
        let beside = beside.lock().unwrap();
        assert_eq!(beside.len(), 2, "{beside:?}");
        assert!(
            beside.iter().all(|b| b.is_empty()),
            "a retry shared the machine: {beside:?}"
        );
        let json = crate::reporting::report::json(&report);
        assert!(json.contains("\"retried\""), "{json}");
    }

    /// A port whose verdict on `coin-*` scenarios alternates (a failure, then a pass, ...),
    /// that always fails `broken`, and counts its shutdowns (a fresh start before a rerun).
    struct Coin {
        tries: std::collections::HashMap<String, usize>,
        current: String,
        shutdowns: usize,
        shutdowns_at_try: Vec<(String, usize)>,
    }

    #[async_trait]
    impl Port for Coin {
        async fn call(
            &mut self,
            request: Value,
        ) -> Result<Value, toolnexus_ports::port::PortError> {
            Greeter(None).call(request).await
        }

        fn begin_scenario(&mut self, name: &str) {
            self.current = name.to_string();
            *self.tries.entry(name.to_string()).or_default() += 1;
            self.shutdowns_at_try
                .push((name.to_string(), self.shutdowns));
        }

        async fn end_scenario(&mut self) -> Option<String> {
            let n = self.tries.get(&self.current).copied().unwrap_or(0);
            let coin_fails = self.current.starts_with("coin") && n % 2 == 1;
            (coin_fails || self.current == "broken")
                .then(|| format!("the answer of try {n} broke a rule"))
        }

        async fn shutdown(&mut self) {
            self.shutdowns += 1;
        }
    }

    fn coin() -> Coin {
        Coin {
            tries: std::collections::HashMap::new(),
            current: String::new(),
            shutdowns: 0,
            shutdowns_at_try: Vec::new(),
        }
    }

    fn rechecked(port: &mut Coin, scenarios: &[ScenarioSpec], recheck: usize) -> RunReport {
        rechecked_counting(port, scenarios, recheck, &|_| true)
    }

    fn rechecked_counting(
        port: &mut Coin,
        scenarios: &[ScenarioSpec],
        recheck: usize,
        counts: &dyn Fn(&ScenarioResult) -> bool,
    ) -> RunReport {
        let env = Env::from_root(std::path::Path::new("."));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        rt.block_on(run_pool_rechecking(
            vec![port as &mut dyn Port],
            &env,
            scenarios,
            "g",
            recheck,
            counts,
            &mut |_| true,
        ))
        .unwrap()
    }

    #[test]
    fn a_failure_that_passes_when_run_again_alone_is_flaky_and_still_counts() {
        let names = ["coin-1", "fine", "broken", "coin-2"];
        let scenarios: Vec<ScenarioSpec> = names.iter().map(|n| spec(n, &["pin-0.16.0"])).collect();
        let mut port = coin();
        let report = rechecked(&mut port, &scenarios, 20);
        let by_name = |n: &str| report.scenarios.iter().find(|r| r.name == n).unwrap();
        let both = Some(crate::outcome::model::Flaky {
            first: Status::Failed,
            again: Status::Passed,
        });
        for name in ["coin-1", "coin-2"] {
            let r = by_name(name);
            assert_eq!(r.status, Status::Failed, "{r:?}");
            assert_eq!(r.meta.flaky, both, "{r:?}");
            // The first outcome is the result's: its failure message stays.
            assert!(
                r.message.contains("the answer of try 1 broke a rule"),
                "{r:?}"
            );
        }
        // Failed again: not flaky; passed: never rerun.
        assert_eq!(by_name("broken").meta.flaky, None);
        assert_eq!(port.tries["broken"], 2);
        assert_eq!(port.tries["fine"], 1);
        // Each rerun met a fresh port: shut down after the run and before each rerun.
        let reruns: Vec<&(String, usize)> = port
            .shutdowns_at_try
            .iter()
            .filter(|(n, _)| n != "fine")
            .skip(3)
            .collect();
        assert_eq!(
            reruns,
            [
                &("coin-1".to_string(), 2),
                &("broken".to_string(), 3),
                &("coin-2".to_string(), 4)
            ]
        );
        // Flaky counts as a failure, and the JSON says so with both outcomes.
        assert_eq!(report.summary.failed, 3);
        assert!(report.has_failures());
        let v: Value = serde_json::from_str(&crate::reporting::report::json(&report)).unwrap();
        assert_eq!(
            v["scenarios"][0]["flaky"],
            json!({"first": "failed", "again": "passed"})
        );
        assert!(v["scenarios"][1].get("flaky").is_none());
        let text = crate::reporting::report::text(&report);
        assert!(
            text.contains("flaky: failed, then passed when run again alone against a fresh port (still counted as failed):\n  coin-1\n    first run: "),
            "{text}"
        );
    }

    #[test]
    fn rechecks_stop_at_their_budget_and_are_off_by_default() {
        let names = ["coin-1", "coin-2"];
        let scenarios: Vec<ScenarioSpec> = names.iter().map(|n| spec(n, &["pin-0.16.0"])).collect();
        let mut port = coin();
        let report = rechecked(&mut port, &scenarios, 1);
        assert!(report.scenarios[0].meta.flaky.is_some());
        assert_eq!(report.scenarios[1].meta.flaky, None);
        assert_eq!(port.tries["coin-2"], 1);
        let mut port = coin();
        let report = rechecked(&mut port, &scenarios, 0);
        assert!(report.scenarios.iter().all(|r| r.meta.flaky.is_none()));
        assert_eq!(port.tries["coin-1"], 1);
    }

    #[test]
    fn a_budget_goes_first_to_the_failures_that_fail_the_run() {
        let names = ["coin-1", "coin-2"];
        let scenarios: Vec<ScenarioSpec> = names.iter().map(|n| spec(n, &["pin-0.16.0"])).collect();
        let mut port = coin();
        // `coin-1` is a known failure: the one rerun goes to `coin-2`, though it comes later.
        let report = rechecked_counting(&mut port, &scenarios, 1, &|r| r.name != "coin-1");
        assert_eq!(report.scenarios[0].meta.flaky, None);
        assert!(report.scenarios[1].meta.flaky.is_some());
        assert_eq!(port.tries["coin-1"], 1);
    }
}
