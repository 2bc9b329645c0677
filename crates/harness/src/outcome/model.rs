//! A run's outcome as data: each scenario's result, the counts, the whole report and its
//! comparison with the expected failures. The executor (`runner`) fills it in; every reporter
//! (text, JSON, JUnit, HTML, Prometheus, history, clauses) reads it and nothing else.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::outcome::failure::Failure;
use crate::outcome::needs::Blocker;
use crate::scenario::features::ScenarioSpec;
use toolnexus_ports::port::PortInfo;

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
    /// Tagged `@beyond-spec`: it documents reference behaviour the SPEC does not state, is
    /// counted apart, and fails a run only with `--strict`.
    #[serde(default, rename = "beyondSpec", skip_serializing_if = "is_false")]
    pub beyond_spec: bool,
    /// For a `@beyond-spec` scenario, its `Beyond the SPEC: …` reason.
    #[serde(
        default,
        rename = "beyondSpecReason",
        skip_serializing_if = "Option::is_none"
    )]
    pub beyond_spec_reason: Option<String>,
    /// Tagged `@preview`: it checks a SPEC preview (the §10 relay / durable-resume addenda),
    /// run only when asked and counted apart from the SPEC's own scenarios.
    #[serde(default, skip_serializing_if = "is_false")]
    pub preview: bool,
    /// A failure the expected-failures file lists (`xfail`): its `status` stays `failed`
    /// for readers of older reports, but it counts in `xfail`, not `failed`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub known: bool,
    /// Where the scenario comes from, its tags and how long it ran.
    #[serde(flatten, default)]
    pub meta: ScenarioMeta,
}

/// A scenario's origin, timing and what blocked it, flattened into its JSON result (`file`,
/// `line`, `tags`, `durationMs`, `retried`, `blockedBy`); empty in reports written before they
/// were recorded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScenarioMeta {
    /// The feature file, relative to the features directory.
    #[serde(default)]
    pub file: String,
    /// The scenario's line in that file (1-based; 0 when unknown).
    #[serde(default)]
    pub line: usize,
    /// The scenario's tags (with the feature's), without `@`.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Wall time the scenario took, in milliseconds; varies from run to run, so comparisons of
    /// reports leave it out.
    #[serde(default, rename = "durationMs")]
    pub duration_ms: u64,
    /// The first attempt's failure, when only a harness time bound broke it and the scenario
    /// was run once more, alone (NOTES #309); the result is the second attempt's. Absent
    /// otherwise. Load decides whether it happens, so comparisons of reports leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retried: Option<String>,
    /// For a skipped scenario, what the port did not implement: the SPEC section its `hello`
    /// left out, or the command, option or behaviour it answered `unsupported`. Absent
    /// otherwise (and for a skip for the SPEC version).
    #[serde(default, rename = "blockedBy", skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<Blocker>,
    /// Failed, then passed when run once more alone against a fresh port (`run --recheck N`):
    /// both outcomes. The result stays the first run's failure, which still counts (a verdict
    /// that depends on chance is a finding, NOTES #412). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flaky: Option<Flaky>,
}

/// The two outcomes of a scenario whose verdict changed when it ran again alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Flaky {
    /// The run's outcome (`failed`; its message is the result's).
    pub first: Status,
    /// The outcome of the run alone against a fresh port (`passed`).
    pub again: Status,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Outcomes of a group kept apart from the SPEC's own counts (`@beyond-spec`, `@preview`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeyondCounts {
    /// Passed scenarios of the group.
    pub passed: usize,
    /// Failed scenarios of the group (`@beyond-spec`: a run failure only with `--strict`).
    pub failed: usize,
    /// Skipped scenarios of the group.
    pub skipped: usize,
    /// Known failures of the group (listed in the expected-failures file); absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub xfail: usize,
}

impl BeyondCounts {
    /// Whether the group has no scenario at all (then the JSON report omits it).
    pub fn is_empty(&self) -> bool {
        self.passed + self.failed + self.skipped + self.xfail == 0
    }
}

/// Passed/failed/skipped counts of the scenarios the SPEC backs, and apart from them the
/// `@beyond-spec` ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Passed scenarios (not `@beyond-spec`).
    pub passed: usize,
    /// Failed scenarios (not `@beyond-spec`).
    pub failed: usize,
    /// Skipped scenarios (not `@beyond-spec`).
    pub skipped: usize,
    /// Known failures (not `@beyond-spec`): failed, and listed in the expected-failures
    /// file, so not in `failed`; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub xfail: usize,
    /// The `@beyond-spec` scenarios' outcomes.
    #[serde(default, rename = "beyondSpec")]
    pub beyond_spec: BeyondCounts,
    /// The `@seed-only` scenarios' outcomes (absent when none ran): a seed page's promise the
    /// SPEC does not state, counted apart like `@beyond-spec` and failing a run only with
    /// `--strict`.
    #[serde(
        default,
        rename = "seedOnly",
        skip_serializing_if = "BeyondCounts::is_empty"
    )]
    pub seed_only: BeyondCounts,
    /// The `@preview` scenarios' outcomes (absent when none ran): a port lacking the preview
    /// answers `unsupported`, so they are skipped there, never failed.
    #[serde(default, skip_serializing_if = "BeyondCounts::is_empty")]
    pub preview: BeyondCounts,
}

impl Counts {
    /// Counts one result in its column.
    pub fn add(&mut self, r: &ScenarioResult) {
        let (passed, failed, skipped, xfail) = if r.preview {
            let p = &mut self.preview;
            (&mut p.passed, &mut p.failed, &mut p.skipped, &mut p.xfail)
        } else if r.beyond_spec {
            let b = &mut self.beyond_spec;
            (&mut b.passed, &mut b.failed, &mut b.skipped, &mut b.xfail)
        } else if r.seed_only() {
            let b = &mut self.seed_only;
            (&mut b.passed, &mut b.failed, &mut b.skipped, &mut b.xfail)
        } else {
            (
                &mut self.passed,
                &mut self.failed,
                &mut self.skipped,
                &mut self.xfail,
            )
        };
        match r.status {
            Status::Passed => *passed += 1,
            Status::Failed if r.known => *xfail += 1,
            Status::Failed => *failed += 1,
            Status::Skipped => *skipped += 1,
        }
    }

    /// The counts of `results`.
    pub fn of<'a>(results: impl IntoIterator<Item = &'a ScenarioResult>) -> Counts {
        let mut c = Counts::default();
        for r in results {
            c.add(r);
        }
        c
    }
}

/// What judged a run: the harness's version, the port protocol it speaks and the SPEC texts
/// its scenarios carry (`--version` prints the same), so a port's CI result names its judge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HarnessInfo {
    /// The harness's own version (the workspace's).
    pub version: String,
    /// The port protocol version it speaks (`hello`'s `protocol`).
    pub protocol: u64,
    /// The SPEC texts it carries.
    pub spec: SpecTexts,
}

/// The SPEC texts a harness carries: the version its scenarios pin and the newest text it
/// knows (the one its newest clause index quotes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecTexts {
    /// The SPEC version the scenarios pin.
    pub pinned: String,
    /// The label of the newest SPEC text it knows.
    pub newest: String,
}

impl HarnessInfo {
    /// This build's.
    pub fn this() -> HarnessInfo {
        HarnessInfo {
            version: env!("CARGO_PKG_VERSION").to_string(),
            protocol: toolnexus_protocol::PROTOCOL_VERSION,
            spec: SpecTexts {
                pinned: toolnexus_protocol::SPEC_VERSION.to_string(),
                newest: toolnexus_spec::texts::NEWEST.to_string(),
            },
        }
    }

    /// One line: `VERSION (port protocol P; SPEC PINNED pinned, newest text NEWEST)`.
    pub fn line(&self) -> String {
        format!(
            "{} (port protocol {}; SPEC {} pinned, newest text {})",
            self.version, self.protocol, self.spec.pinned, self.spec.newest
        )
    }
}

/// A whole run: the stable `--format json` shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// What judged the run; absent in reports written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<HarnessInfo>,
    /// The port under test.
    pub port: PortInfo,
    /// The SPEC version the port declares in `hello` (absent: it did not say, or the
    /// handshake failed).
    #[serde(rename = "portSpec", default, skip_serializing_if = "Option::is_none")]
    pub port_spec: Option<String>,
    /// The SPEC version the scenarios pin.
    pub spec: String,
    /// The SPEC text the port was judged by: the one with a clause index that its declared
    /// SPEC selects (`toolnexus_spec::texts::judged_by`); absent when no index was in reach.
    #[serde(rename = "judgedBy", default, skip_serializing_if = "Option::is_none")]
    pub judged_by: Option<String>,
    /// Totals.
    pub summary: Counts,
    /// Totals per SPEC section, sorted.
    pub sections: BTreeMap<String, Counts>,
    /// Every scenario, in run order.
    pub scenarios: Vec<ScenarioResult>,
    /// The comparison with the port's expected failures, when one was used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
    /// Run with `--strict`: a failed `@beyond-spec` scenario counts as a failure.
    #[serde(default)]
    pub strict: bool,
    /// When the run started (ISO 8601 UTC, seconds); absent in reports written before it
    /// was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
}

#[cfg(test)]
impl RunReport {
    /// A report of `scenarios` against SPEC 0.16.0 with everything else empty: the unit
    /// tests' fixture (their counts are the scenarios' own; sections are left to `recount`).
    pub(crate) fn of(scenarios: Vec<ScenarioResult>) -> RunReport {
        RunReport {
            harness: None,
            started: None,
            port: PortInfo::default(),
            port_spec: None,
            spec: "0.16.0".into(),
            judged_by: None,
            summary: Counts::of(&scenarios),
            sections: BTreeMap::new(),
            scenarios,
            baseline: None,
            strict: false,
        }
    }
}

impl RunReport {
    /// Whether the run is a failure: any failed scenario, or, with an expected-failures
    /// baseline, a new failure or an unexpected pass; and always when nothing passed.
    /// A failed `@beyond-spec` scenario counts only with `strict`; a failed `@preview` one
    /// counts (it ran because the run asked for the preview, and the port claimed it).
    pub fn has_failures(&self) -> bool {
        // A run in which nothing passed proves nothing, even if nothing failed.
        let s = &self.summary;
        let nothing_passed =
            s.passed + s.beyond_spec.passed + s.seed_only.passed + s.preview.passed == 0;
        match &self.baseline {
            Some(b) => !b.holds() || nothing_passed,
            None => self.counted_failures() > 0 || nothing_passed,
        }
    }

    /// Failed scenarios that fail the run: the SPEC's, the preview's, and with `strict` the
    /// beyond-SPEC and seed-only ones.
    pub fn counted_failures(&self) -> usize {
        let s = &self.summary;
        s.failed
            + s.preview.failed
            + if self.strict {
                s.beyond_spec.failed + s.seed_only.failed
            } else {
                0
            }
    }

    /// Whether `r`'s failure fails the run (not a `@beyond-spec` or `@seed-only` one, unless
    /// `strict`).
    pub fn counts_as_failure(&self, r: &ScenarioResult) -> bool {
        r.status == Status::Failed && !r.known && r.fails_runs(self.strict)
    }

    /// The share of the selected scenarios that ran to a verdict (passed, failed or known
    /// failure, in every group) rather than being skipped; 1 for an empty run.
    pub fn executed_share(&self) -> f64 {
        let s = &self.summary;
        let groups = [
            (s.passed, s.failed, s.xfail, s.skipped),
            (
                s.beyond_spec.passed,
                s.beyond_spec.failed,
                s.beyond_spec.xfail,
                s.beyond_spec.skipped,
            ),
            (
                s.seed_only.passed,
                s.seed_only.failed,
                s.seed_only.xfail,
                s.seed_only.skipped,
            ),
            (
                s.preview.passed,
                s.preview.failed,
                s.preview.xfail,
                s.preview.skipped,
            ),
        ];
        let executed: usize = groups.iter().map(|g| g.0 + g.1 + g.2).sum();
        let all: usize = executed + groups.iter().map(|g| g.3).sum::<usize>();
        if all == 0 {
            1.0
        } else {
            executed as f64 / all as f64
        }
    }

    /// Recomputes the totals and per-section counts from the scenarios (after their `known`
    /// marks change).
    pub fn recount(&mut self) {
        self.summary = Counts::of(&self.scenarios);
        self.sections = BTreeMap::new();
        for r in &self.scenarios {
            self.sections.entry(r.section.clone()).or_default().add(r);
        }
    }
}

impl ScenarioResult {
    /// Whether the scenario is tagged `@seed-only` (read from its tags, which the JSON report
    /// carries): a seed page's promise the SPEC does not state.
    pub fn seed_only(&self) -> bool {
        crate::scenario::features::is_seed_only(&self.meta.tags)
    }

    /// Whether the scenario is counted apart from the SPEC's own and fails a run only with
    /// `--strict`: `@beyond-spec` or `@seed-only`, and not `@preview` (a preview the run asked
    /// for and the port claimed always counts).
    pub fn soft(&self) -> bool {
        !self.preview && (self.beyond_spec || self.seed_only())
    }

    /// Whether the scenario has a row (HTML) or testsuite (JUnit) of its own: `@beyond-spec`
    /// or `@seed-only`, a `@preview` one included (whose failure still counts: [`Self::soft`]).
    pub fn apart(&self) -> bool {
        self.beyond_spec || self.seed_only()
    }

    /// Whether a failure of this scenario fails a run that is `strict` or not.
    pub fn fails_runs(&self, strict: bool) -> bool {
        !self.soft() || strict
    }

    /// A passed result with nothing to say yet: the scenario's identity and its beyond-SPEC mark.
    pub(crate) fn blank(spec: &ScenarioSpec) -> ScenarioResult {
        ScenarioResult {
            meta: ScenarioMeta {
                file: spec.file.clone(),
                line: spec.line,
                tags: spec.tags.clone(),
                duration_ms: 0,
                retried: None,
                blocked_by: None,
                flaky: None,
            },
            name: spec.id.clone(),
            section: spec.section.clone(),
            status: Status::Passed,
            message: String::new(),
            failure: None,
            expectations: Vec::new(),
            beyond_spec: spec.beyond_spec.is_some(),
            known: false,
            beyond_spec_reason: spec.beyond_spec.clone(),
            preview: spec.is_preview(),
        }
    }
}

/// A run compared with the port's expected failures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    /// The expected-failures file, as given.
    pub file: String,
    /// Failed, and not expected to.
    pub new_failures: Vec<String>,
    /// Expected to fail, but passed: the file needs updating (or the port was fixed).
    pub unexpected_passes: Vec<String>,
    /// Failed as expected.
    pub known_failures: usize,
    /// Listed in the file but naming no scenario of the whole suite (renamed or removed
    /// scenarios); an entry naming a scenario the selection left out is not stale.
    pub stale: Vec<String>,
}

impl Baseline {
    /// Whether the run is acceptable against the file.
    pub fn holds(&self) -> bool {
        self.new_failures.is_empty() && self.unexpected_passes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn result(status: Status, beyond: bool) -> ScenarioResult {
        ScenarioResult {
            name: "s".into(),
            section: "0".into(),
            status,
            message: String::new(),
            failure: None,
            expectations: Vec::new(),
            beyond_spec: beyond,
            beyond_spec_reason: beyond.then(|| "Beyond the SPEC: order.".to_string()),
            preview: false,
            known: false,
            meta: ScenarioMeta::default(),
        }
    }

    /// The `--format json` text of `r` (what `reporting::report::json` writes).
    fn json(r: &RunReport) -> String {
        serde_json::to_string_pretty(r).unwrap()
    }

    fn report(scenarios: Vec<ScenarioResult>, strict: bool) -> RunReport {
        RunReport {
            strict,
            ..RunReport::of(scenarios)
        }
    }

    #[test]
    fn a_failed_beyond_spec_scenario_fails_the_run_only_when_strict() {
        let results = vec![result(Status::Passed, false), result(Status::Failed, true)];
        let loose = report(results.clone(), false);
        assert_eq!(loose.summary.failed, 0);
        assert_eq!(loose.summary.beyond_spec.failed, 1);
        assert!(!loose.has_failures());
        assert!(report(results, true).has_failures());
        // A failure the SPEC backs fails the run either way.
        assert!(report(
            vec![result(Status::Passed, true), result(Status::Failed, false)],
            false
        )
        .has_failures());
        // Passing beyond-SPEC scenarios alone are still something that passed.
        assert!(!report(vec![result(Status::Passed, true)], false).has_failures());
        assert!(report(vec![result(Status::Skipped, false)], false).has_failures());
    }

    #[test]
    fn a_failed_seed_only_scenario_fails_the_run_only_when_strict() {
        let seed = |status| {
            let mut r = result(status, false);
            r.meta.tags = vec!["seed-001".into(), "seed-only".into()];
            r
        };
        let results = vec![result(Status::Passed, false), seed(Status::Failed)];
        let loose = report(results.clone(), false);
        assert_eq!(loose.summary.failed, 0);
        assert_eq!(loose.summary.seed_only.failed, 1);
        assert_eq!(loose.summary.beyond_spec.failed, 0);
        assert!(!loose.has_failures());
        assert!(!loose.counts_as_failure(&loose.scenarios[1]));
        let strict = report(results, true);
        assert!(strict.has_failures());
        assert_eq!(strict.counted_failures(), 1);
        assert!(strict.counts_as_failure(&strict.scenarios[1]));
        // A seed-only pass is something that passed.
        assert!(!report(vec![seed(Status::Passed)], false).has_failures());
    }

    #[test]
    fn beyond_spec_counts_are_in_the_json_report() {
        let r = report(vec![result(Status::Failed, true)], false);
        let v: Value = serde_json::from_str(&json(&r)).unwrap();
        assert_eq!(
            v["summary"]["beyondSpec"],
            json!({"passed": 0, "failed": 1, "skipped": 0})
        );
        assert_eq!(v["scenarios"][0]["beyondSpec"], true);
        assert_eq!(
            v["scenarios"][0]["beyondSpecReason"],
            "Beyond the SPEC: order."
        );
        assert_eq!(v["strict"], false);
        let plain = serde_json::to_value(result(Status::Passed, false)).unwrap();
        assert!(plain.get("beyondSpec").is_none(), "{plain}");
    }

    #[test]
    fn preview_outcomes_are_their_own_group() {
        let preview = |status| ScenarioResult {
            name: "relay".into(),
            preview: true,
            ..result(status, false)
        };
        assert!(preview(Status::Passed).preview);
        // A port lacking the preview skips it: the run has not failed, the group says so.
        let lacking = report(
            vec![result(Status::Passed, false), preview(Status::Skipped)],
            false,
        );
        assert_eq!(
            (lacking.summary.passed, lacking.summary.skipped),
            (1, 0),
            "{:?}",
            lacking.summary
        );
        assert_eq!(lacking.summary.preview.skipped, 1);
        assert!(!lacking.has_failures());
        let v: Value = serde_json::from_str(&json(&lacking)).unwrap();
        assert_eq!(
            v["summary"]["preview"],
            json!({"passed": 0, "failed": 0, "skipped": 1})
        );
        assert_eq!(v["scenarios"][1]["preview"], true);
        assert!(v["scenarios"][0].get("preview").is_none());
        // Without preview scenarios the JSON shape is as before.
        let none: Value =
            serde_json::from_str(&json(&report(vec![result(Status::Passed, false)], false)))
                .unwrap();
        assert!(none["summary"].get("preview").is_none(), "{none}");
        // A port that claims the preview and fails it fails the run (it was asked for).
        let failing = report(
            vec![result(Status::Passed, false), preview(Status::Failed)],
            false,
        );
        assert_eq!(failing.summary.failed, 0);
        assert_eq!(failing.summary.preview.failed, 1);
        assert!(failing.has_failures());
        assert!(failing.counts_as_failure(&failing.scenarios[1]));
        // A preview pass alone is something that passed.
        assert!(!report(vec![preview(Status::Passed)], false).has_failures());
    }
}
