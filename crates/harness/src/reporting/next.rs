//! "implement next": when a port skipped most of a run's scenarios as unsupported, what
//! blocked the most of them (each skipped scenario's `blockedBy`), for the text report's end.

use std::collections::BTreeMap;
use std::fmt::Write;

use toolnexus_spec::sections;

use crate::outcome::model::{RunReport, Status};
use crate::outcome::needs::Blocker;

/// How many entries the list shows.
pub const SHOWN: usize = 5;

/// What blocked how many skipped scenarios, most first (ties in [`Blocker`] order).
pub fn ranking(report: &RunReport) -> Vec<(Blocker, usize)> {
    let mut counts: BTreeMap<&Blocker, usize> = BTreeMap::new();
    for r in &report.scenarios {
        if let (Status::Skipped, Some(b)) = (r.status, &r.meta.blocked_by) {
            *counts.entry(b).or_default() += 1;
        }
    }
    let mut ranked: Vec<(Blocker, usize)> =
        counts.into_iter().map(|(b, n)| (b.clone(), n)).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked
}

/// The list, or `""` unless more than half of the run's scenarios were skipped for something
/// the port did not implement.
pub fn text(report: &RunReport) -> String {
    let ranked = ranking(report);
    let blocked: usize = ranked.iter().map(|(_, n)| n).sum();
    let all = report.scenarios.len();
    if blocked * 2 <= all {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nimplement next: {blocked} of {all} scenarios were skipped for what the port does not\n\
         implement; what each skip met first, by how many skipped scenarios it blocked:"
    );
    let shown = &ranked[..ranked.len().min(SHOWN)];
    let width = shown
        .iter()
        .map(|(b, _)| b.to_string().chars().count())
        .max()
        .unwrap_or(0);
    for (blocker, n) in shown {
        let label = blocker.to_string();
        let pad = width - label.chars().count();
        let _ = writeln!(out, "  {label}{}  {n}", " ".repeat(pad));
    }
    if ranked.len() > shown.len() {
        let rest: usize = ranked[shown.len()..].iter().map(|(_, n)| n).sum();
        let _ = writeln!(
            out,
            "  … {} more, blocking {rest} (the JSON report's `blockedBy` names each)",
            ranked.len() - shown.len()
        );
    }
    let mut run_sections: Vec<&str> = report.sections.keys().map(String::as_str).collect();
    run_sections.sort_by(|a, b| sections::cmp_sections(a, b));
    let _ = writeln!(
        out,
        "a skipped scenario may need more once this is done; every command, option and\n\
         behaviour these sections use, in the order that unlocks the most scenarios:\n  \
         toolnexus-conformance porting --section {}",
        run_sections.join(",")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::model::{ScenarioMeta, ScenarioResult};
    use crate::outcome::needs::Need;
    use toolnexus_protocol::Command;

    fn result(
        name: &str,
        section: &str,
        status: Status,
        blocked: Option<Blocker>,
    ) -> ScenarioResult {
        ScenarioResult {
            name: name.into(),
            section: section.into(),
            status,
            message: String::new(),
            failure: None,
            expectations: Vec::new(),
            beyond_spec: false,
            beyond_spec_reason: None,
            preview: false,
            known: false,
            meta: ScenarioMeta {
                blocked_by: blocked,
                ..ScenarioMeta::default()
            },
        }
    }

    fn report(results: Vec<ScenarioResult>) -> RunReport {
        let mut r = RunReport::of(results);
        r.recount();
        r
    }

    fn option(key: &str) -> Option<Blocker> {
        Some(Blocker::Unsupported(Need::option(Command::Build, key)))
    }

    fn command(c: Command) -> Option<Blocker> {
        Some(Blocker::Unsupported(Need::command(c)))
    }

    /// A porter's first run: 3 passed, 9 skipped for six different reasons, 1 for the version.
    fn first_run() -> RunReport {
        let skip = |n: &str, s: &str, b| result(n, s, Status::Skipped, b);
        report(vec![
            result("p1", "1", Status::Passed, None),
            result("p2", "1", Status::Passed, None),
            result("p3", "4", Status::Passed, None),
            skip("s1", "4", option("builtins")),
            skip("s2", "4", option("builtins")),
            skip("s3", "4", option("builtins")),
            skip("s4", "0", command(Command::Sanitize)),
            skip("s5", "0", command(Command::Sanitize)),
            skip("s6", "4A", Some(Blocker::Section("4A".into()))),
            skip("s7", "4", option("skillsDir")),
            skip("s8", "4", option("mcpConfig")),
            skip("s9", "1", command(Command::SkillsPrompt)),
            skip("v", "1", None),
        ])
    }

    #[test]
    fn the_ranking_counts_skips_by_blocker_most_first() {
        let ranked: Vec<(String, usize)> = ranking(&first_run())
            .into_iter()
            .map(|(b, n)| (b.to_string(), n))
            .collect();
        assert_eq!(
            ranked,
            vec![
                ("build.builtins".to_string(), 3),
                ("sanitize".to_string(), 2),
                // Ties: in Blocker order (sections first, then by command, kind and name).
                ("declare §4A in hello's implements".to_string(), 1),
                ("build.mcpConfig".to_string(), 1),
                ("build.skillsDir".to_string(), 1),
                ("skills_prompt".to_string(), 1),
            ]
        );
    }

    #[test]
    fn a_mostly_skipped_run_ends_with_the_list_and_a_mostly_passing_one_does_not() {
        let text = text(&first_run());
        assert!(
            text.contains(
                "implement next: 9 of 13 scenarios were skipped for what the port does not\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("\n  build.builtins                     3\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  declare §4A in hello's implements  1\n"),
            "{text}"
        );
        assert!(text.contains("… 1 more, blocking 1"), "{text}");
        assert!(!text.contains("skills_prompt"), "{text}");
        assert!(
            text.trim_end().ends_with("porting --section 0,1,4,4A"),
            "{text}"
        );
        // The same report through the text renderer: the list is its last part.
        let full = crate::reporting::report::text(&first_run());
        assert!(full.ends_with(&text), "{full}");
        // Half skipped (5 of 10) is not most: no list.
        let mut half = first_run();
        half.scenarios.truncate(8);
        half.scenarios
            .extend((0..2).map(|i| result(&format!("q{i}"), "1", Status::Passed, None)));
        half.recount();
        assert_eq!(
            crate::reporting::report::text(&half)
                .matches("implement next")
                .count(),
            0
        );
        assert_eq!(super::text(&half), "");
    }
}
