//! Runs scenarios against one port and collects per-scenario results.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::failure::Failure;
use super::features::ScenarioSpec;
use super::port::{hello, Port, PortInfo};
use super::scenario::{Env, ScenarioState, StepFailure};
use super::steps::{finish, run_step};

/// A scenario's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every step held.
    Passed,
    /// A step failed, or the port failed.
    Failed,
    /// The port does not implement what the scenario needs.
    Skipped,
}

/// One scenario's result, as reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    /// Scenario id (`feature: name [params]`).
    pub name: String,
    /// SPEC section.
    pub section: String,
    /// Outcome.
    pub status: Status,
    /// Why it failed or was skipped; empty when it passed.
    pub message: String,
    /// Why it failed, as data (kind, paths, expected, actual, diff); absent unless it failed,
    /// and in reports written before failures were data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The kinds of expectation that held (`pinned`, `lenient (contains)`, ...), sorted.
    #[serde(default)]
    pub expectations: Vec<String>,
}

/// Passed/failed/skipped counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Passed scenarios.
    pub passed: usize,
    /// Failed scenarios.
    pub failed: usize,
    /// Skipped scenarios.
    pub skipped: usize,
}

impl Counts {
    fn add(&mut self, s: Status) {
        match s {
            Status::Passed => self.passed += 1,
            Status::Failed => self.failed += 1,
            Status::Skipped => self.skipped += 1,
        }
    }
}

/// A whole run: the stable `--format json` shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// The port under test.
    pub port: PortInfo,
    /// The SPEC version the port declares in `hello` (absent: it did not say, or the
    /// handshake failed).
    #[serde(rename = "portSpec", default, skip_serializing_if = "Option::is_none")]
    pub port_spec: Option<String>,
    /// The SPEC version the scenarios pin.
    pub spec: String,
    /// Totals.
    pub summary: Counts,
    /// Totals per SPEC section, sorted.
    pub sections: BTreeMap<String, Counts>,
    /// Every scenario, in run order.
    pub scenarios: Vec<ScenarioResult>,
    /// The comparison with the port's expected failures, when one was used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<super::baseline::Baseline>,
}

impl RunReport {
    /// Whether the run is a failure: any failed scenario, or, with an expected-failures
    /// baseline, a new failure or an unexpected pass; and always when nothing passed.
    pub fn has_failures(&self) -> bool {
        // A run in which nothing passed proves nothing, even if nothing failed.
        let nothing_passed = self.summary.passed == 0;
        match &self.baseline {
            Some(b) => !b.holds() || nothing_passed,
            None => self.summary.failed > 0 || nothing_passed,
        }
    }
}

/// Which scenarios to run.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Keep scenarios carrying any of these tags (with or without `@`); empty ⇒ all.
    pub tags: Vec<String>,
    /// Keep scenarios of these sections; empty ⇒ all.
    pub sections: Vec<String>,
    /// Keep scenarios pinning this SPEC version; `None` ⇒ all.
    pub spec: Option<String>,
}

impl Selection {
    /// Whether `s` is selected.
    pub fn keeps(&self, s: &ScenarioSpec) -> bool {
        let tag_ok = self.tags.is_empty()
            || self
                .tags
                .iter()
                .any(|t| s.tags.iter().any(|st| st == t.trim_start_matches('@')));
        let section_ok = self.sections.is_empty() || self.sections.contains(&s.section);
        let spec_ok = self.spec.as_ref().is_none_or(|v| s.pin.as_ref() == Some(v));
        tag_ok && section_ok && spec_ok
    }
}

/// Runs `scenarios` against `port`, calling `progress` after each one.
pub async fn run(
    port: &mut dyn Port,
    env: &Env,
    scenarios: &[ScenarioSpec],
    fallback_name: &str,
    mut progress: impl FnMut(&ScenarioResult),
) -> RunReport {
    let greeting = match port.ensure_ready().await {
        Ok(()) => hello(port).await,
        Err(e) => Err(e),
    };
    let (info, port_spec, implements, hello_error) = match greeting {
        Ok(h) => (h.port, h.spec, Some(h.implements), None),
        Err(e) => (
            PortInfo {
                name: fallback_name.to_string(),
                language: "unknown".into(),
                version: "unknown".into(),
            },
            None,
            None,
            Some(e.to_string()),
        ),
    };
    let mut results = Vec::new();
    for spec in scenarios {
        let result = match &hello_error {
            // A port that cannot complete the handshake is not run at all: every scenario
            // fails with the reason, so the report says why in each row.
            Some(e) => failed(spec, Failure::other(format!("hello failed: {e}"))),
            _ => run_one(port, env, spec, implements.as_deref()).await,
        };
        progress(&result);
        results.push(result);
    }
    port.shutdown().await;
    let mut summary = Counts::default();
    let mut sections: BTreeMap<String, Counts> = BTreeMap::new();
    for r in &results {
        summary.add(r.status);
        sections.entry(r.section.clone()).or_default().add(r.status);
    }
    RunReport {
        port: info,
        port_spec,
        spec: pinned_versions(scenarios),
        summary,
        sections,
        scenarios: results,
        baseline: None,
    }
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

/// A failed scenario; a port that leaks the canary must not make the report leak it too.
fn failed(spec: &ScenarioSpec, failure: Failure) -> ScenarioResult {
    let failure = failure.redacted(&super::secret::redact);
    ScenarioResult {
        name: spec.id.clone(),
        section: spec.section.clone(),
        status: Status::Failed,
        message: failure.report_text(),
        failure: Some(failure),
        expectations: Vec::new(),
    }
}

async fn run_one(
    port: &mut dyn Port,
    env: &Env,
    spec: &ScenarioSpec,
    implements: Option<&[String]>,
) -> ScenarioResult {
    let mut result = ScenarioResult {
        name: spec.id.clone(),
        section: spec.section.clone(),
        status: Status::Passed,
        message: String::new(),
        failure: None,
        expectations: Vec::new(),
    };
    if let Some(list) = implements {
        if !list.contains(&spec.section) {
            result.status = Status::Skipped;
            result.message = format!("port does not implement SPEC section {}", spec.section);
            return result;
        }
    }
    if let Err(e) = port.ensure_ready().await {
        return failed(spec, Failure::other(e.to_string()));
    }
    let mut state = ScenarioState::new(env);
    for step in &spec.steps {
        match run_step(port, env, &mut state, step).await {
            Ok(()) => {}
            Err(StepFailure::Failed(f)) => {
                result = failed(spec, f.in_step(format!("{} {}", step.keyword, step.text)));
                break;
            }
            Err(StepFailure::Skipped(m)) => {
                result.status = Status::Skipped;
                result.message = format!("step `{} {}`: {m}", step.keyword, step.text);
                break;
            }
        }
    }
    finish(port, &mut state).await;
    result.expectations = state.expectations();
    // A port that leaks the canary must not make the report leak it too.
    result.message = super::secret::redact(&result.message);
    result
}
