//! Per-port expected-failures files (as test262 hosts keep them): a run fails only on a new
//! failure or an unexpected pass, not on a known failure.

use std::collections::BTreeSet;
use std::path::Path;

use crate::outcome::model::{Baseline, RunReport, ScenarioResult, Status};

/// Reads an expected-failures file: one scenario name per line; `#` starts a comment line.
pub fn read(path: &Path) -> Result<BTreeSet<String>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read expected failures {}: {e}", path.display()))?;
    Ok(parse(&text))
}

/// Parses the file's text.
pub fn parse(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Whether `s` is one the baseline judges: `@beyond-spec` and `@seed-only` scenarios are
/// outside it (their failures never fail a run) unless the run is `--strict`.
fn judged(report: &RunReport, s: &ScenarioResult) -> bool {
    s.fails_runs(report.strict)
}

/// Compares a run with the expected failures. `suite` holds the id of every scenario of the
/// whole suite, selected or not: an entry is stale only when it names none of them (a
/// `--section` run must not call the other sections' entries stale).
pub fn compare(
    report: &RunReport,
    expected: &BTreeSet<String>,
    file: &str,
    suite: &BTreeSet<String>,
) -> Baseline {
    let mut b = Baseline {
        file: file.to_string(),
        ..Baseline::default()
    };
    let ran: BTreeSet<&str> = report.scenarios.iter().map(|s| s.name.as_str()).collect();
    for s in report.scenarios.iter().filter(|s| judged(report, s)) {
        let listed = expected.contains(&s.name);
        match (s.status, listed) {
            (Status::Failed, true) => b.known_failures += 1,
            (Status::Failed, false) => b.new_failures.push(s.name.clone()),
            (Status::Passed, true) => b.unexpected_passes.push(s.name.clone()),
            _ => {}
        }
    }
    b.stale = expected
        .iter()
        .filter(|e| !ran.contains(e.as_str()) && !suite.contains(e.as_str()))
        .cloned()
        .collect();
    b
}

/// Compares the run with the expected failures ([`compare`]), records the comparison in the
/// report and marks each known failure `known`, so the counts show it as `xfail`, not as
/// failed.
pub fn apply(
    report: &mut RunReport,
    expected: &BTreeSet<String>,
    file: &str,
    suite: &BTreeSet<String>,
) {
    let b = compare(report, expected, file, suite);
    let strict = report.strict;
    for s in &mut report.scenarios {
        s.known = is_known(s, expected, strict);
    }
    report.baseline = Some(b);
    report.recount();
}

/// Whether `r` is a known failure of `expected` in a run (`strict` or not): what the
/// progress line shows as `xfail` before the whole run is compared.
pub fn is_known(r: &ScenarioResult, expected: &BTreeSet<String>, strict: bool) -> bool {
    r.status == Status::Failed && r.fails_runs(strict) && expected.contains(&r.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(name: &str, status: Status) -> ScenarioResult {
        ScenarioResult {
            meta: Default::default(),
            name: name.into(),
            section: "0".into(),
            status,
            message: String::new(),
            failure: None,
            expectations: Vec::new(),
            beyond_spec: false,
            beyond_spec_reason: None,
            preview: false,
            known: false,
        }
    }

    #[test]
    fn new_known_unexpected_and_stale() {
        let report = RunReport::of(vec![
            scenario("a", Status::Failed),
            scenario("b", Status::Failed),
            scenario("c", Status::Passed),
            scenario("d", Status::Skipped),
        ]);
        let expected = parse("# why a fails\na\nc\nd\ngone\nelsewhere\n\n");
        let suite = parse("a\nb\nc\nd\nelsewhere\n");
        let b = compare(&report, &expected, "f", &suite);
        assert_eq!(b.known_failures, 1);
        assert_eq!(b.new_failures, vec!["b"]);
        assert_eq!(b.unexpected_passes, vec!["c"]);
        // `elsewhere` is in the suite but was not selected: not stale.
        assert_eq!(b.stale, vec!["gone"]);
        assert!(!b.holds());
    }

    #[test]
    fn known_failures_count_as_xfail_not_failed() {
        let mut report = RunReport::of(vec![
            scenario("a", Status::Failed),
            scenario("b", Status::Failed),
            scenario("c", Status::Passed),
        ]);
        report.recount();
        assert_eq!(report.summary.failed, 2);
        let expected = parse("a\n");
        apply(&mut report, &expected, "f", &parse("a\nb\nc\n"));
        assert!(report.scenarios[0].known);
        assert!(!report.scenarios[1].known);
        assert_eq!((report.summary.failed, report.summary.xfail), (1, 1));
        assert_eq!(report.sections["0"].xfail, 1);
        assert_eq!(report.counted_failures(), 1);
        assert!(!report.counts_as_failure(&report.scenarios[0]));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["scenarios"][0]["known"], true);
        assert_eq!(json["scenarios"][0]["status"], "failed");
        assert!(json["scenarios"][1].get("known").is_none());
        assert_eq!(json["summary"]["xfail"], 1);
        assert_eq!(json["summary"]["failed"], 1);
        // Older readers: a report without `xfail`/`known` still reads.
        let mut old = json.clone();
        old["summary"].as_object_mut().unwrap().remove("xfail");
        old["scenarios"][0].as_object_mut().unwrap().remove("known");
        let back: RunReport = serde_json::from_value(old).unwrap();
        assert!(!back.scenarios[0].known);
    }

    #[test]
    fn beyond_spec_scenarios_are_outside_the_baseline_unless_strict() {
        let beyond = |name: &str, status| ScenarioResult {
            beyond_spec: true,
            ..scenario(name, status)
        };
        let mut report = RunReport::of(vec![
            scenario("a", Status::Passed),
            beyond("order", Status::Failed),
            beyond("listed", Status::Passed),
        ]);
        let expected = parse("listed\n");
        let suite = parse("a\norder\nlisted\n");
        let b = compare(&report, &expected, "f", &suite);
        assert!(b.holds(), "{b:?}");
        assert!(
            b.stale.is_empty(),
            "a listed beyond-SPEC scenario ran: {b:?}"
        );
        report.strict = true;
        let b = compare(&report, &expected, "f", &suite);
        assert_eq!(b.new_failures, vec!["order"]);
        assert_eq!(b.unexpected_passes, vec!["listed"]);
    }

    #[test]
    fn seed_only_scenarios_are_outside_the_baseline_unless_strict() {
        let seed = |name: &str, status| {
            let mut s = scenario(name, status);
            s.meta.tags = vec!["seed-001".into(), "seed-only".into()];
            s
        };
        let mut report = RunReport::of(vec![
            scenario("a", Status::Passed),
            seed("malformed", Status::Failed),
            seed("listed", Status::Passed),
        ]);
        let expected = parse("listed\n");
        let suite = parse("a\nmalformed\nlisted\n");
        let b = compare(&report, &expected, "f", &suite);
        assert!(b.holds(), "{b:?}");
        assert!(!is_known(
            &report.scenarios[1],
            &parse("malformed\n"),
            false
        ));
        report.strict = true;
        let b = compare(&report, &expected, "f", &suite);
        assert_eq!(b.new_failures, vec!["malformed"]);
        assert_eq!(b.unexpected_passes, vec!["listed"]);
        assert!(is_known(&report.scenarios[1], &parse("malformed\n"), true));
    }
}
