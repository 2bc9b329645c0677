//! `history`: the whole suite across a port's published releases, test262-style — per
//! scenario whose outcome differs between releases, its outcome in each and the first release
//! where it changed, plus per-release totals. Running the releases is the CLI's job; this module
//! expands version ranges and turns the runs into the matrix.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};
use toolnexus_spec::text::shorten;
use toolnexus_spec::version::{cmp_versions, version_key};

use super::clause_releases::{self, AfterHistory};
use crate::outcome::model::{Counts, RunReport, Status};

/// The `--versions` argument: an inclusive range `LO..HI` or an explicit comma list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Versions {
    /// Every published release from the first to the second, inclusive.
    Range(String, String),
    /// Exactly these releases.
    List(Vec<String>),
}

/// Parses `--versions`: `0.16.0..0.21.0` or `0.16.0,0.18.0`.
pub fn parse_versions(arg: &str) -> Result<Versions, String> {
    let arg = arg.trim();
    if let Some((lo, hi)) = arg.split_once("..") {
        let (lo, hi) = (lo.trim(), hi.trim().trim_start_matches('='));
        for v in [lo, hi] {
            if version_key(v).is_none() {
                return Err(format!(
                    "\"{v}\" in --versions {arg} is not a release number (like 0.16.0)"
                ));
            }
        }
        if cmp_versions(lo, hi) == Ordering::Greater {
            return Err(format!(
                "--versions {arg}: the range is empty ({lo} is after {hi})"
            ));
        }
        return Ok(Versions::Range(lo.to_string(), hi.to_string()));
    }
    let list: Vec<String> = arg
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
        .collect();
    if list.is_empty() {
        return Err("--versions needs a range LO..HI or a comma list".to_string());
    }
    if let Some(bad) = list.iter().find(|v| version_key(v).is_none()) {
        return Err(format!(
            "\"{bad}\" in --versions is not a release number (like 0.16.0)"
        ));
    }
    Ok(Versions::List(list))
}

/// The releases to run, oldest first: a range keeps the `published` releases inside it (it
/// needs them); a list is taken as given (a release that does not exist fails its own setup).
pub fn expand(versions: &Versions, published: &[String]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = match versions {
        Versions::List(list) => list.clone(),
        Versions::Range(lo, hi) => published
            .iter()
            .filter(|v| version_key(v).is_some())
            .filter(|v| {
                cmp_versions(v, lo) != Ordering::Less && cmp_versions(v, hi) != Ordering::Greater
            })
            .cloned()
            .collect(),
    };
    out.sort_by(|a, b| cmp_versions(a, b));
    out.dedup();
    if out.is_empty() {
        if let Versions::Range(lo, hi) = versions {
            return Err(format!(
                "no published release in {lo}..{hi} (published: {})",
                if published.is_empty() {
                    "none found".to_string()
                } else {
                    published.join(", ")
                }
            ));
        }
    }
    Ok(out)
}

/// The releases in `pip index versions` output (its `Available versions:` line).
pub fn pip_versions(output: &str) -> Vec<String> {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix("Available versions:"))
        .map(|rest| {
            rest.split(',')
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A scenario's outcome on one release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// Passed.
    Passed,
    /// Failed.
    Failed,
    /// Skipped.
    Skipped,
    /// The release ran, but not this scenario (e.g. not valid for its SPEC version).
    NotRun,
}

impl Outcome {
    fn of(status: Status) -> Outcome {
        match status {
            Status::Passed => Outcome::Passed,
            Status::Failed => Outcome::Failed,
            Status::Skipped => Outcome::Skipped,
        }
    }

    /// The short mark used in the text matrix.
    pub fn mark(self) -> &'static str {
        match self {
            Outcome::Passed => "ok",
            Outcome::Failed => "FAIL",
            Outcome::Skipped => "skip",
            Outcome::NotRun => "-",
        }
    }
}

/// One release's column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Release {
    /// The release number.
    pub version: String,
    /// The SPEC version its driver declared in `hello`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port_spec: Option<String>,
    /// The SPEC text it was judged by (the one its declared SPEC selects), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judged_by: Option<String>,
    /// Its totals, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Counts>,
    /// Why it did not run (its setup failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup_failed: Option<String>,
    /// How many scenarios hold for its SPEC (the others were not run on it), `@beyond-spec`
    /// ones left out as in its totals, when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_scope: Option<usize>,
    /// The clauses of the index arriving in its SPEC text; `None` when the SPEC history has
    /// no text of that version (a release after the pinned SPEC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrived: Option<Vec<String>>,
}

/// A scenario whose outcome differs across the releases that ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Changed {
    /// Scenario id.
    pub name: String,
    /// SPEC section.
    pub section: String,
    /// Its outcome per release, in release order (`null` where the release did not run).
    pub outcomes: Vec<Option<Outcome>>,
    /// The first release whose outcome differs from the previous release that ran.
    pub first_change: String,
}

/// The whole history: `history --format json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct History {
    /// The port family (`python`, `rust-crate`).
    pub port: String,
    /// The releases, oldest first.
    pub releases: Vec<Release>,
    /// How many distinct scenarios ran on any release.
    pub scenarios: usize,
    /// The scenarios whose outcome changed, by first change then name.
    pub changed: Vec<Changed>,
    /// Where each clause newer than the SPEC history first holds on these releases, when
    /// the checkout has a clause index and a history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_history: Option<AfterHistory>,
}

/// Whether a scenario (by id) holds for a SPEC version (the one a release declared).
pub type InScope<'a> = &'a dyn Fn(&str, Option<&str>) -> bool;

/// Per release, oldest first, the outcome of each scenario in scope there (`in_scope`),
/// by scenario id; `None` for a release that did not set up.
pub fn scoped_outcomes(
    runs: &[(String, Result<RunReport, String>)],
    in_scope: InScope<'_>,
) -> Vec<Option<BTreeMap<String, Outcome>>> {
    runs.iter()
        .map(|(_, run)| {
            run.as_ref().ok().map(|report| {
                report
                    .scenarios
                    .iter()
                    .filter(|s| in_scope(&s.name, report.port_spec.as_deref()))
                    .map(|s| (s.name.clone(), Outcome::of(s.status)))
                    .collect()
            })
        })
        .collect()
}

/// Builds the history from one run (or setup failure) per release, oldest first. A
/// scenario outside a release's SPEC (`in_scope` false) counts as not run on it, so coming
/// into scope is not a change of outcome.
pub fn build(
    port: &str,
    runs: &[(String, Result<RunReport, String>)],
    in_scope: InScope<'_>,
) -> History {
    let mut sections: BTreeMap<&str, &str> = BTreeMap::new();
    let per_release = scoped_outcomes(runs, in_scope);
    let mut releases = Vec::new();
    for ((version, run), outcomes) in runs.iter().zip(&per_release) {
        match (run, outcomes) {
            (Ok(report), Some(outcomes)) => {
                // `@beyond-spec` and `@seed-only` outcomes are counted apart, as in the totals.
                let mut scope = 0;
                for s in &report.scenarios {
                    sections.insert(&s.name, &s.section);
                    if !s.apart() && outcomes.contains_key(&s.name) {
                        scope += 1;
                    }
                }
                releases.push(Release {
                    version: version.clone(),
                    port_spec: report.port_spec.clone(),
                    judged_by: report.judged_by.clone(),
                    summary: Some(report.summary),
                    setup_failed: None,
                    in_scope: Some(scope),
                    arrived: None,
                });
            }
            (run, _) => {
                releases.push(Release {
                    version: version.clone(),
                    port_spec: None,
                    judged_by: None,
                    summary: None,
                    setup_failed: Some(run.as_ref().err().cloned().unwrap_or_default()),
                    in_scope: None,
                    arrived: None,
                });
            }
        }
    }
    let mut changed = Vec::new();
    for (&name, &section) in &sections {
        let outcomes: Vec<Option<Outcome>> = per_release
            .iter()
            .map(|r| {
                r.as_ref()
                    .map(|m| m.get(name).copied().unwrap_or(Outcome::NotRun))
            })
            .collect();
        if let Some(first_change) = first_change(&outcomes) {
            changed.push(Changed {
                name: name.to_string(),
                section: section.to_string(),
                outcomes,
                first_change: releases[first_change].version.clone(),
            });
        }
    }
    let order: BTreeMap<&str, usize> = releases
        .iter()
        .enumerate()
        .map(|(i, r)| (r.version.as_str(), i))
        .collect();
    changed.sort_by(|a, b| {
        order
            .get(a.first_change.as_str())
            .cmp(&order.get(b.first_change.as_str()))
            .then_with(|| a.name.cmp(&b.name))
    });
    History {
        port: port.to_string(),
        releases,
        scenarios: sections.len(),
        changed,
        after_history: None,
    }
}

/// The index of the first release whose outcome differs from that of the previous release
/// that ran it; releases that did not run (`None`) or did not run it (`NotRun`: outside its
/// SPEC) are passed over, not counted as a change.
pub fn first_change(outcomes: &[Option<Outcome>]) -> Option<usize> {
    let mut previous: Option<Outcome> = None;
    for (i, o) in outcomes.iter().enumerate() {
        let Some(o) = o.filter(|o| *o != Outcome::NotRun) else {
            continue;
        };
        let o = &o;
        match previous {
            Some(p) if p != *o => return Some(i),
            _ => previous = Some(*o),
        }
    }
    None
}

/// The human table: per-release totals, then the changed scenarios' matrix.
pub fn text(h: &History) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "release history: {} — {} release{}, {} scenarios",
        h.port,
        h.releases.len(),
        if h.releases.len() == 1 { "" } else { "s" },
        h.scenarios
    );
    let _ = writeln!(
        out,
        "\n{:<10} {:<8} {:<18} {:>8} {:>7} {:>7} {:>8} {:>8}",
        "release", "spec", "judged by", "in scope", "passed", "failed", "skipped", "arrived"
    );
    for r in &h.releases {
        match (&r.summary, &r.setup_failed) {
            (Some(c), _) => {
                let scope = r.in_scope.unwrap_or(c.passed + c.failed + c.skipped);
                let arrived = r
                    .arrived
                    .as_ref()
                    .map_or("-".to_string(), |a| a.len().to_string());
                let _ = writeln!(
                    out,
                    "{:<10} {:<8} {:<18} {:>8} {:>7} {:>7} {:>8} {:>8}",
                    r.version,
                    r.port_spec.as_deref().unwrap_or("-"),
                    r.judged_by.as_deref().unwrap_or("-"),
                    scope,
                    c.passed,
                    c.failed,
                    scope.saturating_sub(c.passed + c.failed),
                    arrived
                );
            }
            (None, reason) => {
                let reason = reason.as_deref().unwrap_or("did not run");
                let _ = writeln!(
                    out,
                    "{:<10} not run: {}",
                    r.version,
                    shorten(first_line(reason), 200)
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "(in scope: scenarios whose clauses its SPEC text has; skipped: in scope, not run for a \
         refusal or a missing peer; arrived: clauses of the index whose stored arrival is its \
         SPEC, `-` when the history has no text of it and the index places none there)"
    );
    let with_arrivals: Vec<&Release> = h
        .releases
        .iter()
        .filter(|r| r.arrived.as_ref().is_some_and(|a| !a.is_empty()))
        .collect();
    if !with_arrivals.is_empty() {
        let _ = writeln!(out, "\nclauses arriving per release:");
        for r in with_arrivals {
            let ids = r.arrived.as_deref().unwrap_or_default();
            let shown: Vec<&str> = ids.iter().take(8).map(String::as_str).collect();
            let more = if ids.len() > shown.len() {
                format!(" … and {} more", ids.len() - shown.len())
            } else {
                String::new()
            };
            let _ = writeln!(out, "  {:<8} {}{more}", r.version, shown.join(", "));
        }
    }
    if h.changed.is_empty() {
        let _ = writeln!(out, "\nno scenario's outcome changed across these releases");
    } else {
        changed_text(&mut out, h);
    }
    if let Some(after) = &h.after_history {
        out.push_str(&clause_releases::text(after, &h.releases));
    }
    out
}

/// The changed scenarios' matrix: per scenario its outcome per release and first change.
fn changed_text(out: &mut String, h: &History) {
    let versions: Vec<String> = h.releases.iter().map(|r| r.version.clone()).collect();
    let (widths, header) = release_columns(&versions);
    let _ = writeln!(
        out,
        "\nscenarios whose outcome changed ({}; `-` not run, `?` release did not set up):",
        h.changed.len()
    );
    let _ = writeln!(out, "{header}{:<12} scenario", "first change");
    for c in &h.changed {
        let line = outcome_cells(&c.outcomes, &widths);
        let _ = writeln!(
            out,
            "{line}{:<12} [{}] {}",
            c.first_change, c.section, c.name
        );
    }
}

/// The release columns of a text matrix: each one's width (its version, at least 4 for the
/// widest mark) and the header of the versions, each padded to its width.
pub(super) fn release_columns(versions: &[String]) -> (Vec<usize>, String) {
    let widths: Vec<usize> = versions.iter().map(|v| v.len().max(4)).collect();
    let mut header = String::new();
    for (v, w) in versions.iter().zip(&widths) {
        let _ = write!(header, "{v:<w$} ");
    }
    (widths, header)
}

/// One row's cells of a text matrix: each release's mark ([`Outcome::mark`], `?` where the
/// release did not set up), padded to its column.
pub(super) fn outcome_cells(outcomes: &[Option<Outcome>], widths: &[usize]) -> String {
    let mut line = String::new();
    for (o, w) in outcomes.iter().zip(widths) {
        let _ = write!(line, "{:<w$} ", o.map_or("?", Outcome::mark));
    }
    line
}

/// A setup error's first line, for a one-line table row.
fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(text)
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(spec: &str, outcomes: &[(&str, Status)]) -> RunReport {
        let scenarios: Vec<serde_json::Value> = outcomes
            .iter()
            .map(|(n, s)| serde_json::json!({"name": n, "section": "4A", "status": s, "message": ""}))
            .collect();
        let mut summary = Counts::default();
        for (_, s) in outcomes {
            match s {
                Status::Passed => summary.passed += 1,
                Status::Failed => summary.failed += 1,
                Status::Skipped => summary.skipped += 1,
            }
        }
        match serde_json::from_value(serde_json::json!({
            "port": {"name": "python", "language": "python", "version": spec},
            "portSpec": spec,
            "spec": "0.16.0",
            "summary": summary,
            "sections": {},
            "scenarios": scenarios,
        })) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_range_keeps_the_published_releases_inside_it_in_numeric_order() {
        let published = strings(&[
            "0.21.0",
            "0.20.0",
            "0.19.0",
            "0.18.1",
            "0.18.0",
            "0.17.0",
            "0.16.0",
            "0.15.0",
            "0.9.5",
            "0.17.0rc1",
        ]);
        let v = parse_versions("0.16.0..0.21.0").unwrap();
        assert_eq!(
            expand(&v, &published).unwrap(),
            strings(&["0.16.0", "0.17.0", "0.18.0", "0.18.1", "0.19.0", "0.20.0", "0.21.0"])
        );
        let low = parse_versions("0.9.0..0.15.0").unwrap();
        assert_eq!(
            expand(&low, &published).unwrap(),
            strings(&["0.9.5", "0.15.0"])
        );
        assert!(expand(&parse_versions("1.0.0..2.0.0").unwrap(), &published).is_err());
    }

    #[test]
    fn a_list_is_taken_as_given_sorted_and_without_repeats() {
        let v = parse_versions("0.18.0, 0.16.0,0.18.0").unwrap();
        assert_eq!(expand(&v, &[]).unwrap(), strings(&["0.16.0", "0.18.0"]));
    }

    #[test]
    fn bad_version_arguments_are_messages() {
        assert!(parse_versions("0.21.0..0.16.0").is_err());
        assert!(parse_versions("latest..0.21.0").is_err());
        assert!(parse_versions("0.16.0,$(id)").is_err());
        assert!(parse_versions(" , ").is_err());
    }

    #[test]
    fn pip_index_output_gives_the_available_versions() {
        let out = "WARNING: pip index is currently an experimental command.\ntoolnexus (0.21.0)\nAvailable versions: 0.21.0, 0.20.0, 0.18.1\n";
        assert_eq!(pip_versions(out), strings(&["0.21.0", "0.20.0", "0.18.1"]));
        assert!(pip_versions("ERROR: No matching distribution found").is_empty());
    }

    #[test]
    fn the_first_change_passes_over_releases_that_did_not_run() {
        use Outcome::*;
        assert_eq!(
            first_change(&[Some(Failed), Some(Failed), Some(Passed)]),
            Some(2)
        );
        assert_eq!(first_change(&[Some(Failed), None, Some(Failed)]), None);
        assert_eq!(
            first_change(&[None, Some(Passed), None, Some(Skipped)]),
            Some(3)
        );
        assert_eq!(first_change(&[Some(Passed), Some(Passed)]), None);
    }

    #[test]
    fn the_history_lists_only_changed_scenarios_with_their_first_change() {
        use Status::*;
        let runs = vec![
            (
                "0.16.0".to_string(),
                Ok(report(
                    "0.16.0",
                    &[("a", Failed), ("b", Passed), ("c", Failed)],
                )),
            ),
            (
                "0.17.0".to_string(),
                Err("setup.sh: PyPI has no release\nmore".to_string()),
            ),
            (
                "0.18.0".to_string(),
                Ok(report(
                    "0.18.0",
                    &[("a", Passed), ("b", Passed), ("c", Failed)],
                )),
            ),
            (
                "0.19.0".to_string(),
                Ok(report("0.19.0", &[("a", Passed), ("b", Failed)])),
            ),
        ];
        let h = build("python", &runs, &|_, _| true);
        assert_eq!(h.scenarios, 3);
        let names: Vec<(&str, &str)> = h
            .changed
            .iter()
            .map(|c| (c.name.as_str(), c.first_change.as_str()))
            .collect();
        // c fails where it runs; missing from 0.19.0's report is not a change.
        assert_eq!(names, vec![("a", "0.18.0"), ("b", "0.19.0")]);
        assert_eq!(
            h.releases[1].setup_failed.as_deref(),
            Some("setup.sh: PyPI has no release\nmore")
        );

        let text = text(&h);
        assert!(
            text.contains("0.17.0     not run: setup.sh: PyPI has no release\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "0.16.0     0.16.0   -                         3       1       2        0        -"
            ),
            "{text}"
        );
        assert!(
            text.contains("FAIL   ?      ok     ok     0.18.0       [4A] a"),
            "{text}"
        );

        // Judged by its own SPEC: out of 0.16.0's scope, b is not run there, and coming into
        // scope is no change; the release's row counts only what is in scope.
        let scoped = build("python", &runs, &|name, spec| {
            !(name == "b" && spec == Some("0.16.0"))
        });
        let b = scoped.changed.iter().find(|c| c.name == "b").unwrap();
        assert_eq!(b.outcomes[0], Some(Outcome::NotRun));
        assert_eq!(b.first_change, "0.19.0");
        assert_eq!(scoped.releases[0].in_scope, Some(2));
        // A `@beyond-spec` scenario is counted apart: in no release's scope count.
        let mut beyond = runs.clone();
        if let Ok(r) = &mut beyond[0].1 {
            r.scenarios[0].beyond_spec = true;
        }
        let apart = build("python", &beyond, &|_, _| true);
        assert_eq!(apart.releases[0].in_scope, Some(2));
        let mut with_arrivals = scoped.clone();
        with_arrivals.releases[0].arrived = Some(vec!["8.x.y".into()]);
        let shown = super::text(&with_arrivals);
        assert!(
            shown.contains(
                "0.16.0     0.16.0   -                         2       1       2        0        1"
            ) && shown.contains("clauses arriving per release:\n  0.16.0   8.x.y\n"),
            "{shown}"
        );
        assert!(
            text.contains("ok     ?      ok     FAIL   0.19.0       [4A] b"),
            "{text}"
        );

        let json = match serde_json::to_value(&h) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(json["changed"][0]["firstChange"], "0.18.0");
        assert_eq!(json["changed"][1]["outcomes"][3], "failed");
        let json = serde_json::to_value(&scoped).unwrap_or_default();
        assert_eq!(json["changed"][1]["outcomes"][0], "notRun");
        assert_eq!(json["releases"][0]["inScope"], 2);
        assert_eq!(
            json["releases"][1]["setupFailed"],
            "setup.sh: PyPI has no release\nmore"
        );
    }

    #[test]
    fn no_change_says_so() {
        let runs = vec![
            (
                "0.16.0".to_string(),
                Ok(report("0.16.0", &[("a", Status::Passed)])),
            ),
            (
                "0.17.0".to_string(),
                Ok(report("0.17.0", &[("a", Status::Passed)])),
            ),
        ];
        let h = build("python", &runs, &|_, _| true);
        assert!(h.changed.is_empty());
        assert!(text(&h).contains("no scenario's outcome changed"));
    }
}
