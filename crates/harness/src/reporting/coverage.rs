//! What ties the SPEC's clauses to the scenarios: the scenarios' `@clause-<id>` /
//! `@partial-clause-<id>` tags, the ties they make to the clause index
//! (`toolnexus_spec::clauses`), and the coverage report built from both (per section, per
//! SPEC release, and with `--port` each clause's verdict on a port).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde::{Deserialize, Serialize};
use toolnexus_spec::arrival;
use toolnexus_spec::clauses::{ClauseIndex, Kind};
use toolnexus_spec::sections::cmp_sections;
use toolnexus_spec::text::{collapse_ws, shorten};

use crate::outcome::model::{RunReport, Status};
use crate::scenario::features::ScenarioSpec;

/// Tag prefix (without `@`) of a scenario that checks a whole clause.
pub const CLAUSE_TAG: &str = "clause-";
/// Tag prefix (without `@`) of a scenario that checks part of a clause.
pub const PARTIAL_CLAUSE_TAG: &str = "partial-clause-";
/// The longest quote shown in a text or HTML list, in characters.
const QUOTE_SHOWN: usize = 90;

/// A scenario that tags a clause, as the reports show it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ScenarioRef {
    /// Scenario id (`feature: name [params]`).
    pub name: String,
    /// Feature file, relative to `features/`.
    pub file: String,
    /// Line of the `Scenario:` keyword.
    pub line: usize,
    /// Tagged `@partial-clause-`: it checks only part of the clause.
    #[serde(default)]
    pub partial: bool,
}

/// The clause ids a scenario's tags name: `(id, partial)`.
pub fn clause_tags(scenario: &ScenarioSpec) -> Vec<(&str, bool)> {
    scenario
        .tags
        .iter()
        .filter_map(|t| {
            t.strip_prefix(PARTIAL_CLAUSE_TAG)
                .map(|id| (id, true))
                .or_else(|| t.strip_prefix(CLAUSE_TAG).map(|id| (id, false)))
        })
        .collect()
}

/// Which scenarios tag each clause, and the tags that name no clause.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ties {
    /// Clause id ⇒ the scenarios tagging it (never `@beyond-spec` ones), sorted.
    pub by_clause: BTreeMap<String, Vec<ScenarioRef>>,
    /// One message per tag naming an unknown clause: file:line, scenario, tag.
    pub errors: Vec<String>,
}

/// Ties scenarios to clauses through their tags. Every scenario is linted, but a
/// `@beyond-spec` scenario never counts: it documents what the SPEC does not say.
pub fn tie(index: &ClauseIndex, scenarios: &[ScenarioSpec], index_shown: &str) -> Ties {
    let known: BTreeSet<&str> = index.clauses.iter().map(|c| c.id.as_str()).collect();
    let mut ties = Ties::default();
    for s in scenarios {
        for (id, partial) in clause_tags(s) {
            if !known.contains(id) {
                let prefix = if partial {
                    PARTIAL_CLAUSE_TAG
                } else {
                    CLAUSE_TAG
                };
                ties.errors.push(format!(
                    "{}:{}: scenario \"{}\": @{prefix}{id} names no clause of {index_shown}",
                    s.file, s.line, s.id
                ));
                continue;
            }
            if s.beyond_spec.is_some() {
                continue;
            }
            ties.by_clause
                .entry(id.to_string())
                .or_default()
                .push(ScenarioRef {
                    name: s.id.clone(),
                    file: s.file.clone(),
                    line: s.line,
                    partial,
                });
        }
    }
    for list in ties.by_clause.values_mut() {
        list.sort();
        list.dedup();
    }
    ties.errors.sort();
    ties.errors.dedup();
    ties
}

/// The scenarios a `coverage --port` run needs: those tagging a known clause, beyond-SPEC
/// ones excluded, in load order.
pub fn tagged_scenarios(scenarios: &[ScenarioSpec], ties: &Ties) -> Vec<ScenarioSpec> {
    let names: BTreeSet<&str> = ties
        .by_clause
        .values()
        .flatten()
        .map(|r| r.name.as_str())
        .collect();
    scenarios
        .iter()
        .filter(|s| names.contains(s.id.as_str()))
        .cloned()
        .collect()
}

/// How far the scenarios check a clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// An observable clause some scenario tags `@clause-`.
    Covered,
    /// An observable clause only `@partial-clause-` tags name.
    Partial,
    /// An observable clause no scenario tags.
    Uncovered,
    /// A language-specific or unobservable clause: no scenario can hold a port to it.
    NotObservable,
}

/// One clause in the coverage report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClauseCoverage {
    /// Clause id.
    pub id: String,
    /// SPEC section.
    pub section: String,
    /// The clause's kind.
    pub kind: Kind,
    /// How far the scenarios check it.
    pub state: State,
    /// The quote, whitespace collapsed.
    pub quote: String,
    /// Why it is not observable, for such clauses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// The index's reason for leaving an observable clause uncovered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncovered: Option<String>,
    /// The scenarios tagging it.
    pub scenarios: Vec<ScenarioRef>,
    /// With `--port`: passed (all its scenarios passed), failed (any failed), else skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<Status>,
}

/// Counts per section (or in total).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SectionCoverage {
    /// SPEC section (`total` for the totals row).
    pub section: String,
    /// Observable clauses some scenario tags `@clause-`.
    pub covered: usize,
    /// Observable clauses only `@partial-clause-` tags name.
    pub partial: usize,
    /// Observable clauses no scenario tags.
    pub uncovered: usize,
    /// Clauses about a language binding's surface.
    pub language_specific: usize,
    /// Clauses no protocol request can show.
    pub unobservable: usize,
    /// With `--port`: tagged clauses the port passes / fails / skips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<PortCounts>,
}

/// Clause verdicts of one port.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortCounts {
    /// Clauses whose scenarios all passed.
    pub passed: usize,
    /// Clauses with a failed scenario.
    pub failed: usize,
    /// The others (some scenario skipped, none failed).
    pub skipped: usize,
}

/// An observable clause no scenario tags.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UncoveredClause {
    /// Clause id.
    pub id: String,
    /// SPEC section.
    pub section: String,
    /// The quote, shortened.
    pub quote: String,
    /// The index's reason; absent means none was given (a gap to fix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The `coverage --format json` shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageReport {
    /// The SPEC version the index quotes.
    pub spec: String,
    /// The index file, as given.
    pub index: String,
    /// With `--port`: the port's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// All sections together.
    pub total: SectionCoverage,
    /// One row per section, in SPEC order.
    pub sections: Vec<SectionCoverage>,
    /// Uncovered observable clauses, in index order.
    pub uncovered: Vec<UncoveredClause>,
    /// Every clause, in index order.
    pub clauses: Vec<ClauseCoverage>,
}

/// Builds the report from the index and the tags: the clauses of the index's own text (one
/// it keeps `until` an earlier release is that release's, not this text's).
pub fn coverage(index: &ClauseIndex, ties: &Ties, index_shown: &str) -> CoverageReport {
    let clauses: Vec<ClauseCoverage> = index
        .current()
        .map(|c| {
            let scenarios = ties.by_clause.get(&c.id).cloned().unwrap_or_default();
            let state = match c.kind {
                Kind::Observable if scenarios.iter().any(|s| !s.partial) => State::Covered,
                Kind::Observable if !scenarios.is_empty() => State::Partial,
                Kind::Observable => State::Uncovered,
                _ => State::NotObservable,
            };
            ClauseCoverage {
                id: c.id.clone(),
                section: c.section.clone(),
                kind: c.kind,
                state,
                quote: collapse_ws(&c.quote),
                why: c.why.clone(),
                uncovered: c.uncovered.clone(),
                scenarios,
                port: None,
            }
        })
        .collect();
    let uncovered = clauses
        .iter()
        .filter(|c| c.state == State::Uncovered)
        .map(|c| UncoveredClause {
            id: c.id.clone(),
            section: c.section.clone(),
            quote: shorten(&c.quote, QUOTE_SHOWN),
            reason: c.uncovered.clone(),
        })
        .collect();
    let mut report = CoverageReport {
        spec: index.spec.clone(),
        index: index_shown.to_string(),
        port: None,
        total: SectionCoverage::default(),
        sections: Vec::new(),
        uncovered,
        clauses,
    };
    recount(&mut report);
    report
}

/// Sets each clause's verdict from a run of its scenarios, and the port's counts.
pub fn apply_run(report: &mut CoverageReport, run: &RunReport) {
    let status: BTreeMap<&str, Status> = run
        .scenarios
        .iter()
        .map(|r| (r.name.as_str(), r.status))
        .collect();
    for c in &mut report.clauses {
        let results: Vec<Status> = c
            .scenarios
            .iter()
            .filter_map(|s| status.get(s.name.as_str()).copied())
            .collect();
        c.port = if results.is_empty() {
            None
        } else if results.contains(&Status::Failed) {
            Some(Status::Failed)
        } else if results.iter().all(|s| *s == Status::Passed) {
            Some(Status::Passed)
        } else {
            Some(Status::Skipped)
        };
    }
    report.port = Some(run.port.name.clone());
    recount(report);
}

fn recount(report: &mut CoverageReport) {
    let with_port = report.port.is_some();
    let mut rows: BTreeMap<&str, SectionCoverage> = BTreeMap::new();
    let mut total = SectionCoverage {
        section: "total".into(),
        ..SectionCoverage::default()
    };
    for c in &report.clauses {
        let row = rows
            .entry(c.section.as_str())
            .or_insert_with(|| SectionCoverage {
                section: c.section.clone(),
                ..SectionCoverage::default()
            });
        for r in [&mut *row, &mut total] {
            match (c.state, c.kind) {
                (State::Covered, _) => r.covered += 1,
                (State::Partial, _) => r.partial += 1,
                (State::Uncovered, _) => r.uncovered += 1,
                (_, Kind::LanguageSpecific) => r.language_specific += 1,
                _ => r.unobservable += 1,
            }
            if with_port {
                let p = r.port.get_or_insert_with(PortCounts::default);
                match c.port {
                    Some(Status::Passed) => p.passed += 1,
                    Some(Status::Failed) => p.failed += 1,
                    Some(Status::Skipped) => p.skipped += 1,
                    None => {}
                }
            }
        }
    }
    let mut sections: Vec<SectionCoverage> = rows.into_values().collect();
    sections.sort_by(|a, b| cmp_sections(&a.section, &b.section));
    report.sections = sections;
    report.total = total;
}

/// The report as a text table and lists.
pub fn text(report: &CoverageReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "SPEC {} clause coverage ({}: {} clauses){}",
        report.spec,
        report.index,
        report.clauses.len(),
        report
            .port
            .as_ref()
            .map(|p| format!(", port {p}"))
            .unwrap_or_default()
    );
    let port_head = if report.port.is_some() {
        "  port pass/fail/skip"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "{:<8} {:>8} {:>7} {:>10} {:>14} {:>13}{port_head}",
        "section", "covered", "partly", "uncovered", "lang-specific", "unobservable"
    );
    for row in report.sections.iter().chain(std::iter::once(&report.total)) {
        let label = if row.section == "total" {
            "total".to_string()
        } else {
            format!("§{}", row.section)
        };
        let port = row
            .port
            .map(|p| format!("  {}/{}/{}", p.passed, p.failed, p.skipped))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{label:<8} {:>8} {:>7} {:>10} {:>14} {:>13}{port}",
            row.covered, row.partial, row.uncovered, row.language_specific, row.unobservable
        );
    }
    let _ = writeln!(
        out,
        "\nUncovered observable clauses ({}):",
        report.uncovered.len()
    );
    if report.uncovered.is_empty() {
        out.push_str("  none\n");
    }
    for u in &report.uncovered {
        let _ = writeln!(
            out,
            "  {}  \"{}\"\n      {}",
            u.id,
            u.quote,
            u.reason
                .as_deref()
                .map_or("NO REASON GIVEN".to_string(), |r| format!("why: {r}"))
        );
    }
    if report.port.is_some() {
        let failed: Vec<&ClauseCoverage> = report
            .clauses
            .iter()
            .filter(|c| c.port == Some(Status::Failed))
            .collect();
        let _ = writeln!(out, "\nClauses the port fails ({}):", failed.len());
        for c in failed {
            let _ = writeln!(out, "  {}  \"{}\"", c.id, shorten(&c.quote, QUOTE_SHOWN));
        }
    }
    let missing = report
        .uncovered
        .iter()
        .filter(|u| u.reason.is_none())
        .count();
    let _ = writeln!(
        out,
        "\n{} covered, {} partly covered, {} uncovered ({missing} with no reason given), {} not observable",
        report.total.covered,
        report.total.partial,
        report.total.uncovered,
        report.total.language_specific + report.total.unobservable
    );
    out
}

/// One SPEC release's row of `coverage --by-version`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionCoverage {
    /// The release.
    pub version: String,
    /// Clauses of the index its text has (arrived at or before it).
    pub clauses: usize,
    /// Of those: arriving in this very release.
    pub arrived: usize,
    /// Of those: covered, partly covered, uncovered, not observable.
    pub covered: usize,
    /// Partly covered.
    pub partial: usize,
    /// Observable, no scenario.
    pub uncovered: usize,
    /// Language-specific or unobservable.
    pub not_observable: usize,
}

/// Per release of `versions` (oldest first): the index's clauses its text has and how far
/// the scenarios cover them. Clauses the index's SPEC no longer has are not known here.
pub fn by_version(
    index: &ClauseIndex,
    report: &CoverageReport,
    versions: &[String],
) -> Vec<VersionCoverage> {
    let state: BTreeMap<&str, State> = report
        .clauses
        .iter()
        .map(|c| (c.id.as_str(), c.state))
        .collect();
    arrival::per_version(index, versions)
        .into_iter()
        .map(|(version, has)| {
            let mut row = VersionCoverage {
                arrived: has
                    .iter()
                    .filter(|c| c.arrived.as_deref() == Some(version.as_str()))
                    .count(),
                version,
                clauses: has.len(),
                covered: 0,
                partial: 0,
                uncovered: 0,
                not_observable: 0,
            };
            for c in has {
                match state.get(c.id.as_str()) {
                    Some(State::Covered) => row.covered += 1,
                    Some(State::Partial) => row.partial += 1,
                    Some(State::Uncovered) => row.uncovered += 1,
                    _ => row.not_observable += 1,
                }
            }
            row
        })
        .collect()
}

/// The `coverage --by-version` table.
pub fn by_version_text(rows: &[VersionCoverage]) -> String {
    let mut out = String::from(
        "clauses of the index per SPEC release (a release's text has the clauses arrived by it)\n",
    );
    let _ = writeln!(
        out,
        "{:<9} {:>7} {:>7} {:>8} {:>7} {:>10} {:>14}",
        "release", "clauses", "arrived", "covered", "partly", "uncovered", "not-observable"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<9} {:>7} {:>7} {:>8} {:>7} {:>10} {:>14}",
            r.version, r.clauses, r.arrived, r.covered, r.partial, r.uncovered, r.not_observable
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use toolnexus_spec::clauses::index_path;

    use super::*;
    use crate::outcome::model::ScenarioResult;
    use crate::scenario::features;

    const INDEX: &str = r#"{"spec": "0.16.0", "clauses": [
      {"id": "0.a.one", "section": "0", "quote": "Ports MUST do one.", "kind": "observable"},
      {"id": "0.a.two", "section": "0", "quote": "Ports MUST do two.", "kind": "observable"},
      {"id": "4A.b.three", "section": "4A", "quote": "Three  is\n always.", "kind": "observable",
       "uncovered": "needs a clock"},
      {"id": "4A.b.four", "section": "4A", "quote": "Four.", "kind": "observable"},
      {"id": "10.c.five", "section": "10", "quote": "Five.", "kind": "language-specific",
       "why": "a TypeScript signature"},
      {"id": "4.d.six", "section": "4", "quote": "Six.", "kind": "unobservable", "why": "timing"}
    ]}"#;

    const FEATURE: &str = "@pin-0.16.0 @spec-0\nFeature: f\n\n  @clause-0.a.one\n  Scenario: one\n    Given a step\n\n  @partial-clause-0.a.two\n  Scenario: two\n    Given a step\n\n  @clause-4A.b.four @beyond-spec\n  Scenario: beyond\n    Beyond the SPEC: documented only.\n\n    Given a step\n\n  @clause-0.a.nope\n  Scenario: typo\n    Given a step\n";

    fn scenarios(text: &str) -> Vec<ScenarioSpec> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.feature"), text).unwrap();
        let (s, errors) = features::load(dir.path());
        assert!(errors.is_empty(), "{errors:?}");
        s
    }

    #[test]
    fn counts_follow_the_tags_and_unknown_ids_are_errors() {
        let index = ClauseIndex::parse(INDEX, "idx.json").unwrap();
        let ties = tie(&index, &scenarios(FEATURE), "idx.json");
        assert_eq!(
            ties.errors,
            vec![
                "f.feature:19: scenario \"f: typo\": @clause-0.a.nope names no clause of idx.json"
            ]
        );
        let report = coverage(&index, &ties, "idx.json");
        let row = |s: &str| report.sections.iter().find(|r| r.section == s).unwrap();
        let order: Vec<&str> = report.sections.iter().map(|r| r.section.as_str()).collect();
        assert_eq!(order, vec!["0", "4", "4A", "10"]);
        assert_eq!(
            (row("0").covered, row("0").partial, row("0").uncovered),
            (1, 1, 0)
        );
        // The beyond-SPEC scenario's tag does not cover 4A.b.four.
        assert_eq!((row("4A").covered, row("4A").uncovered), (0, 2));
        assert_eq!(row("10").language_specific, 1);
        assert_eq!(row("4").unobservable, 1);
        assert_eq!(
            report.total.covered + report.total.partial + report.total.uncovered,
            4
        );
        let un: Vec<(&str, Option<&str>)> = report
            .uncovered
            .iter()
            .map(|u| (u.id.as_str(), u.reason.as_deref()))
            .collect();
        assert_eq!(
            un,
            vec![("4A.b.three", Some("needs a clock")), ("4A.b.four", None)]
        );
        assert_eq!(report.clauses[2].quote, "Three is always.");
        let shown = text(&report);
        assert!(
            shown.contains("4A.b.four  \"Four.\"\n      NO REASON GIVEN"),
            "{shown}"
        );
        assert!(shown.contains("1 covered, 1 partly covered, 2 uncovered (1 with no reason given), 2 not observable"), "{shown}");

        // Breaking one tag moves the clause from covered to uncovered.
        let broken = FEATURE.replace("@clause-0.a.one", "@spec-0");
        let report = coverage(&index, &tie(&index, &scenarios(&broken), "i"), "i");
        assert_eq!(report.sections[0].covered, 0);
        assert_eq!(report.sections[0].uncovered, 1);
    }

    #[test]
    fn a_port_run_gives_each_tagged_clause_a_verdict() {
        let index = ClauseIndex::parse(INDEX, "i").unwrap();
        let all = scenarios(FEATURE);
        let ties = tie(&index, &all, "i");
        let run_these = tagged_scenarios(&all, &ties);
        let names: Vec<&str> = run_these.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(names, vec!["f: one", "f: two"]);
        let result = |name: &str, status| ScenarioResult {
            meta: Default::default(),
            name: name.into(),
            section: "0".into(),
            status,
            message: String::new(),
            failure: None,
            expectations: vec![],
            beyond_spec: false,
            beyond_spec_reason: None,
            preview: false,
            known: false,
        };
        let run = RunReport {
            harness: None,
            started: None,
            port: toolnexus_ports::port::PortInfo {
                name: "p".into(),
                language: "x".into(),
                version: "1".into(),
            },
            port_spec: None,
            judged_by: None,
            spec: "0.16.0".into(),
            summary: Default::default(),
            sections: Default::default(),
            scenarios: vec![
                result("f: one", Status::Passed),
                result("f: two", Status::Failed),
            ],
            baseline: None,
            strict: false,
        };
        let mut report = coverage(&index, &ties, "i");
        apply_run(&mut report, &run);
        assert_eq!(report.clauses[0].port, Some(Status::Passed));
        assert_eq!(report.clauses[1].port, Some(Status::Failed));
        assert_eq!(report.clauses[2].port, None);
        assert_eq!(
            report.sections[0].port,
            Some(PortCounts {
                passed: 1,
                failed: 1,
                skipped: 0
            })
        );
        assert!(text(&report).contains("Clauses the port fails (1):\n  0.a.two"));
    }

    /// The lint: every `@clause-`/`@partial-clause-` tag in features/ names a clause of the
    /// index that bounds the scenarios (the newest text's, which keeps retired clauses), and
    /// the index itself is well formed.
    #[test]
    fn every_clause_tag_names_a_clause_of_the_index() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let file = index_path(&repo, toolnexus_spec::texts::NEWEST);
        let index = ClauseIndex::load(&file, "conformance/clauses index")
            .unwrap_or_else(|e| panic!("{}", e.join("\n")));
        let (scenarios, errors) = features::load(&repo.join("features"));
        assert!(errors.is_empty(), "{errors:?}");
        let ties = tie(&index, &scenarios, "the clause index");
        assert!(ties.errors.is_empty(), "{}", ties.errors.join("\n"));
    }
}
