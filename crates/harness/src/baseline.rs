//! Per-port expected-failures files (as test262 hosts keep them): a run fails only on a new
//! failure or an unexpected pass, not on a known failure.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::runner::{RunReport, Status};

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
    /// Listed in the file but not run at all (renamed or removed scenarios).
    pub stale: Vec<String>,
}

impl Baseline {
    /// Whether the run is acceptable against the file.
    pub fn holds(&self) -> bool {
        self.new_failures.is_empty() && self.unexpected_passes.is_empty()
    }
}

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

/// Compares a run with the expected failures. `@beyond-spec` scenarios are outside the
/// baseline (their failures never fail a run) unless the run is `--strict`.
pub fn compare(report: &RunReport, expected: &BTreeSet<String>, file: &str) -> Baseline {
    let mut b = Baseline {
        file: file.to_string(),
        ..Baseline::default()
    };
    let ran: BTreeSet<&str> = report.scenarios.iter().map(|s| s.name.as_str()).collect();
    for s in report
        .scenarios
        .iter()
        .filter(|s| !s.beyond_spec || report.strict)
    {
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
        .filter(|e| !ran.contains(e.as_str()))
        .cloned()
        .collect();
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::PortInfo;
    use crate::runner::{Counts, ScenarioResult};

    fn scenario(name: &str, status: Status) -> ScenarioResult {
        ScenarioResult {
            name: name.into(),
            section: "0".into(),
            status,
            message: String::new(),
            failure: None,
            expectations: Vec::new(),
            beyond_spec: false,
            beyond_spec_reason: None,
            preview: false,
        }
    }

    #[test]
    fn new_known_unexpected_and_stale() {
        let report = RunReport {
            port: PortInfo::default(),
            port_spec: None,
            spec: "0.16.0".into(),
            summary: Counts::default(),
            sections: Default::default(),
            scenarios: vec![
                scenario("a", Status::Failed),
                scenario("b", Status::Failed),
                scenario("c", Status::Passed),
                scenario("d", Status::Skipped),
            ],
            baseline: None,
            strict: false,
        };
        let expected = parse("# why a fails\na\nc\nd\ngone\n\n");
        let b = compare(&report, &expected, "f");
        assert_eq!(b.known_failures, 1);
        assert_eq!(b.new_failures, vec!["b"]);
        assert_eq!(b.unexpected_passes, vec!["c"]);
        assert_eq!(b.stale, vec!["gone"]);
        assert!(!b.holds());
    }

    #[test]
    fn beyond_spec_scenarios_are_outside_the_baseline_unless_strict() {
        let beyond = |name: &str, status| ScenarioResult {
            beyond_spec: true,
            ..scenario(name, status)
        };
        let mut report = RunReport {
            port: PortInfo::default(),
            port_spec: None,
            spec: "0.16.0".into(),
            summary: Counts::default(),
            sections: Default::default(),
            scenarios: vec![
                scenario("a", Status::Passed),
                beyond("order", Status::Failed),
                beyond("listed", Status::Passed),
            ],
            baseline: None,
            strict: false,
        };
        let expected = parse("listed\n");
        let b = compare(&report, &expected, "f");
        assert!(b.holds(), "{b:?}");
        assert!(
            b.stale.is_empty(),
            "a listed beyond-SPEC scenario ran: {b:?}"
        );
        report.strict = true;
        let b = compare(&report, &expected, "f");
        assert_eq!(b.new_failures, vec!["order"]);
        assert_eq!(b.unexpected_passes, vec!["listed"]);
    }
}
