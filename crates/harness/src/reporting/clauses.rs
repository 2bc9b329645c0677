//! The clause index of the SPEC (`conformance/clauses/<version>.json`), the scenarios'
//! `@clause-<id>` / `@partial-clause-<id>` tags, and the coverage report built from both.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::features::{ScenarioSpec, SpecVersion};
use crate::outcome::{RunReport, Status};
use crate::sections::cmp_sections;

/// Tag prefix (without `@`) of a scenario that checks a whole clause.
pub const CLAUSE_TAG: &str = "clause-";
/// Tag prefix (without `@`) of a scenario that checks part of a clause.
pub const PARTIAL_CLAUSE_TAG: &str = "partial-clause-";
/// The longest quote shown in a text or HTML list, in characters.
const QUOTE_SHOWN: usize = 90;

/// Whether a port's protocol driver can show a clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A scenario can check it through the protocol.
    Observable,
    /// It constrains a language binding's surface, which the protocol abstracts away.
    LanguageSpecific,
    /// No protocol request can show it (timing, internals, host-side duties).
    Unobservable,
}

/// One normative clause of the SPEC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clause {
    /// Stable id `<section>.<topic>.<slug>`.
    pub id: String,
    /// The SPEC section as the SPEC numbers it (`0`, `4A`, `7D`, ...).
    pub section: String,
    /// Verbatim excerpt of SPEC.md (compared whitespace-collapsed).
    pub quote: String,
    /// Observable, language-specific or unobservable.
    pub kind: Kind,
    /// For a non-observable clause: why a driver cannot show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// For an observable clause no scenario checks yet: the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncovered: Option<String>,
    /// Why the quote leaves out part of the sentence(s) it is cut from, when it does and no
    /// other clause quotes the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// The first SPEC release from which every text holds the quote (computed from the
    /// SPEC history by `clauses arrivals --write`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrived: Option<String>,
    /// Releases before `arrived` where an earlier wording of the clause first appeared or
    /// changed, oldest first (computed likewise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reworded: Vec<String>,
    /// A reviewer's finding that an earlier wording (one of `reworded`) already stated the
    /// same rule, so scenarios checking it hold from there, not from `arrived`.
    #[serde(default, rename = "sameRule", skip_serializing_if = "Option::is_none")]
    pub same_rule: Option<SameRule>,
}

/// An earlier wording that states the same rule as the quote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SameRule {
    /// The release whose wording already states the rule (one of the clause's `reworded`).
    pub since: String,
    /// What changed in the words and why the rule did not.
    pub why: String,
}

impl Clause {
    /// The first release whose SPEC text states this clause's rule: a reviewed earlier
    /// wording's release, else its arrival.
    pub fn rule_since(&self) -> Option<&str> {
        self.same_rule
            .as_ref()
            .map(|r| r.since.as_str())
            .or(self.arrived.as_deref())
    }
}

/// A sentence of the SPEC that reads as normative but states no rule of its own, with the
/// reason; the wholeness lint accepts it without a clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prose {
    /// The SPEC section.
    pub section: String,
    /// Verbatim excerpt (compared whitespace-collapsed).
    pub text: String,
    /// Why it is not a clause (a heading-like lead-in, a rationale, a clause elsewhere).
    pub why: String,
}

/// The whole index file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClauseIndex {
    /// The SPEC version the quotes come from.
    pub spec: String,
    /// Every clause, in SPEC order.
    pub clauses: Vec<Clause>,
    /// Normative-looking sentences that are not clauses, each with its reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prose: Vec<Prose>,
}

/// Where the index for the pinned SPEC lives under a checkout.
pub fn index_path(root: &Path) -> PathBuf {
    root.join("conformance/clauses")
        .join(format!("{}.json", toolnexus_protocol::SPEC_VERSION))
}

impl ClauseIndex {
    /// Reads and checks the index file; every problem is a message naming `file` (and the
    /// clause id), so a malformed index is reported, never a panic.
    pub fn load(file: &Path, shown: &str) -> Result<ClauseIndex, Vec<String>> {
        let text = std::fs::read_to_string(file)
            .map_err(|e| vec![format!("{shown}: cannot read the clause index: {e}")])?;
        ClauseIndex::parse(&text, shown)
    }

    /// Parses and checks index text (see [`ClauseIndex::load`]).
    pub fn parse(text: &str, shown: &str) -> Result<ClauseIndex, Vec<String>> {
        let index: ClauseIndex = serde_json::from_str(text)
            .map_err(|e| vec![format!("{shown}: not a clause index: {e}")])?;
        let mut errors = Vec::new();
        let mut seen = BTreeSet::new();
        for c in &index.clauses {
            let mut bad = |why: String| errors.push(format!("{shown}: clause \"{}\": {why}", c.id));
            if !seen.insert(c.id.as_str()) {
                bad("duplicate id".into());
            }
            if !valid_section(&c.section) {
                bad(format!(
                    "section \"{}\" is not a SPEC section number",
                    c.section
                ));
            }
            match c.id.strip_prefix(&format!("{}.", c.section)) {
                Some(rest)
                    if rest.split('.').count() >= 2
                        && rest.split('.').all(|p| {
                            !p.is_empty()
                                && p.bytes().all(|b| {
                                    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'
                                })
                        }) => {}
                _ => bad(format!(
                    "id must be <section>.<topic>.<slug> with section {} and lowercase [a-z0-9-] parts",
                    c.section
                )),
            }
            if c.quote.trim().is_empty() {
                bad("empty quote".into());
            }
            if c.same_rule.as_ref().is_some_and(|r| {
                r.why.trim().is_empty() || super::history::version_key(&r.since).is_none()
            }) {
                bad("\"sameRule\" needs a release number and a why".into());
            }
            if c.part.as_deref().is_some_and(|p| p.trim().is_empty()) {
                bad("\"part\" needs a reason".into());
            }
            for v in c.arrived.iter().chain(&c.reworded) {
                if super::history::version_key(v).is_none() {
                    bad(format!("\"{v}\" is not a release number"));
                }
            }
            match c.kind {
                Kind::Observable => {}
                _ if c.uncovered.is_some() => {
                    bad("\"uncovered\" is only for observable clauses".into())
                }
                _ if c.why.as_deref().is_none_or(|w| w.trim().is_empty()) => {
                    bad("a non-observable clause needs \"why\"".into())
                }
                _ => {}
            }
        }
        for p in &index.prose {
            if !valid_section(&p.section) || p.text.trim().is_empty() || p.why.trim().is_empty() {
                errors.push(format!(
                    "{shown}: prose entry \"{}\": needs a section number, a text and a why",
                    shorten(&collapse_ws(&p.text), 40)
                ));
            }
        }
        if errors.is_empty() {
            Ok(index)
        } else {
            Err(errors)
        }
    }

    /// The clause with this id.
    pub fn get(&self, id: &str) -> Option<&Clause> {
        self.clauses.iter().find(|c| c.id == id)
    }
}

/// `0`, `4`, `4A`, `10`: digits, then at most one capital letter.
pub(crate) fn valid_section(s: &str) -> bool {
    let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && {
        let rest = &s[digits..];
        rest.is_empty() || (rest.len() == 1 && rest.bytes().all(|b| b.is_ascii_uppercase()))
    }
}

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

/// The latest first release stating a rule among the clauses a scenario tags (whole or
/// partly; [`Clause::rule_since`]), and that clause; `None` when it tags none, or one whose
/// arrival the index does not know.
pub fn clause_floor<'a>(
    index: &'a ClauseIndex,
    scenario: &ScenarioSpec,
) -> Option<(SpecVersion, &'a str)> {
    let mut floor: Option<(SpecVersion, &str)> = None;
    let tags = clause_tags(scenario);
    if tags.is_empty() {
        return None;
    }
    for (id, _) in tags {
        let clause = index.get(id)?;
        let arrived = SpecVersion::parse(clause.rule_since()?)?;
        if floor.is_none_or(|(f, _)| arrived > f) {
            floor = Some((arrived, clause.id.as_str()));
        }
    }
    floor
}

/// Whether the scenario names its own lower bound with a `since-` tag.
fn has_since_tag(scenario: &ScenarioSpec) -> bool {
    scenario.tags.iter().any(|t| t.starts_with("since-"))
}

/// Sets each scenario's lower bound from its clauses: without a `since-` tag, a scenario
/// whose every tagged clause has a known arrival holds from the latest of them (the SPEC
/// text that first has all it checks), not from the pin it was written against. Others keep
/// the bound their tags give.
pub fn derive_bounds(index: &ClauseIndex, scenarios: &mut [ScenarioSpec]) {
    for s in scenarios.iter_mut() {
        if has_since_tag(s) {
            continue;
        }
        if let Some((floor, _)) = clause_floor(index, s) {
            s.bounds.since = Some(floor);
        }
    }
}

/// The version-bound lint, one message per problem: a `since-`/`pin-` tag below the arrival
/// of one of the scenario's clauses (it claims a SPEC text that lacks what it checks), and
/// a `since-`/`until-` bound that no clause arrival gives (one read off a port's releases)
/// whose version the scenario's description does not name.
pub fn bounds_lint(
    index: &ClauseIndex,
    scenarios: &[ScenarioSpec],
    history: &[String],
) -> Vec<String> {
    let mut out = Vec::new();
    for s in scenarios {
        let at = format!("{}:{}: scenario \"{}\"", s.file, s.line, s.id);
        let floor = clause_floor(index, s);
        for tag in &s.tags {
            let Some((prefix, version)) = ["since-", "pin-", "until-"]
                .iter()
                .find_map(|p| tag.strip_prefix(p).map(|v| (*p, v)))
            else {
                continue;
            };
            let claimed = SpecVersion::parse(version);
            let below = match (floor, claimed) {
                (Some((f, clause)), Some(c)) if prefix != "until-" && c < f => Some((f, clause)),
                _ => None,
            };
            if let Some((f, clause)) = below {
                out.push(format!(
                    "{at}: @{tag} claims SPEC {version} but its clause {clause} arrived in {f}"
                ));
                continue;
            }
            // The pin names the text the scenario was written against; since/until bounds
            // the clauses do not give were read off a port's releases.
            let from_clauses = prefix == "since-" && floor.is_some_and(|(f, _)| Some(f) == claimed);
            if prefix != "pin-" && !from_clauses && !s.description.contains(version) {
                let whence = if history.iter().any(|h| h == version) {
                    "no clause of it arrives there"
                } else {
                    "no SPEC text of the history is that version"
                };
                out.push(format!(
                    "{at}: @{tag} is a bound read off a port, not the SPEC ({whence}); its description must say so, naming {version}"
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
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

/// Builds the report from the index and the tags.
pub fn coverage(index: &ClauseIndex, ties: &Ties, index_shown: &str) -> CoverageReport {
    let clauses: Vec<ClauseCoverage> = index
        .clauses
        .iter()
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
    super::arrival::per_version(index, versions)
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

/// Collapses every run of whitespace to one space and trims, as quotes are compared.
pub fn collapse_ws(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", text[..i].trim_end()),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features;
    use crate::outcome::ScenarioResult;

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
            started: None,
            port: toolnexus_ports::port::PortInfo {
                name: "p".into(),
                language: "x".into(),
                version: "1".into(),
            },
            port_spec: None,
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

    #[test]
    fn a_malformed_index_is_a_list_of_errors() {
        let bad = r#"{"spec": "0.16.0", "clauses": [
          {"id": "0.a.one", "section": "0", "quote": "x", "kind": "observable"},
          {"id": "0.a.one", "section": "0", "quote": "y", "kind": "observable"},
          {"id": "4A.Bad", "section": "4A", "quote": "z", "kind": "observable"},
          {"id": "5.a.b", "section": "5", "quote": " ", "kind": "unobservable"},
          {"id": "6.a.b", "section": "6", "quote": "q", "kind": "language-specific", "why": "w", "uncovered": "u"}
        ]}"#;
        let errors = ClauseIndex::parse(bad, "idx.json").unwrap_err();
        let expect = [
            "clause \"0.a.one\": duplicate id",
            "clause \"4A.Bad\": id must be",
            "clause \"5.a.b\": empty quote",
            "clause \"5.a.b\": a non-observable clause needs \"why\"",
            "clause \"6.a.b\": \"uncovered\" is only for observable",
        ];
        for e in expect {
            assert!(
                errors
                    .iter()
                    .any(|x| x.starts_with("idx.json: ") && x.contains(e)),
                "{e}: {errors:?}"
            );
        }
        assert_eq!(errors.len(), expect.len(), "{errors:?}");
        let typo = ClauseIndex::parse(
            r#"{"spec": "x", "clauses": [{"id": "0.a.b", "section": "0", "quote": "q", "kind": "visible"}]}"#,
            "i",
        );
        assert!(typo.unwrap_err()[0].starts_with("i: not a clause index"));
        assert!(
            valid_section("4A")
                && valid_section("10")
                && !valid_section("4a")
                && !valid_section("A")
        );
    }

    /// The lint: every `@clause-`/`@partial-clause-` tag in features/ names a clause of the
    /// checked-in index, and the index itself is well formed.
    #[test]
    fn every_clause_tag_names_a_clause_of_the_index() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let file = index_path(&repo);
        let index = ClauseIndex::load(&file, "conformance/clauses index")
            .unwrap_or_else(|e| panic!("{}", e.join("\n")));
        let (scenarios, errors) = features::load(&repo.join("features"));
        assert!(errors.is_empty(), "{errors:?}");
        let ties = tie(&index, &scenarios, "the clause index");
        assert!(ties.errors.is_empty(), "{}", ties.errors.join("\n"));
    }
}
