//! Renders a run: progress marks, the per-section table, failures with diffs, JSON.

use std::fmt::Write;

use crate::outcome::model::{BeyondCounts, Counts, RunReport, ScenarioResult, Status};

/// One progress line for a finished scenario (`xfail` for a failure marked `known`).
pub fn progress_line(r: &ScenarioResult) -> String {
    progress_line_known(r, r.known)
}

/// One progress line for a finished scenario, `known` saying whether the expected-failures
/// file lists its failure (progress is printed before the run is compared with the file).
pub fn progress_line_known(r: &ScenarioResult, known: bool) -> String {
    let mark = match r.status {
        Status::Passed => "ok  ",
        Status::Failed if known => "xfail",
        Status::Failed => "FAIL",
        Status::Skipped => "skip",
    };
    let beyond = if r.beyond_spec {
        " (beyond the SPEC)"
    } else {
        ""
    };
    let preview = if r.preview { " (preview)" } else { "" };
    let seed = if r.seed_only() { " (seed-only)" } else { "" };
    format!("{mark} [{}] {}{beyond}{seed}{preview}", r.section, r.name)
}

/// The outcome of a result in one word, as the progress marks give it.
fn status_word(r: &ScenarioResult) -> &'static str {
    match r.status {
        Status::Passed => "passed",
        Status::Failed if r.known => "xfail",
        Status::Failed => "failed",
        Status::Skipped => "skipped",
    }
}

/// The failure header's note for a `@seed-only` scenario, naming its pages.
fn seed_only_note(r: &ScenarioResult) -> String {
    if !r.seed_only() {
        return String::new();
    }
    let pages = crate::scenario::features::seed_pages(&r.meta.tags);
    format!(
        " (seed-only: the promise of seed {}, which the SPEC does not state)",
        pages.join(", ")
    )
}

/// A cell of a group counted apart (`beyond`, `seed`, `preview`): passed/failed/skipped
/// (known failures with the failed), or `-` when the group has none.
fn group_cell(b: &BeyondCounts) -> String {
    if b.is_empty() {
        "-".to_string()
    } else {
        format!("{}/{}/{}", b.passed, b.failed + b.xfail, b.skipped)
    }
}

/// One row of the section table: the SPEC's own counts, then each group counted apart.
fn table_row(out: &mut String, label: &str, c: &Counts) {
    let _ = writeln!(
        out,
        "{:<10} {:>7} {:>7} {:>7} {:>8} {:>9} {:>9} {:>9}",
        label,
        c.passed,
        c.failed,
        c.xfail,
        c.skipped,
        group_cell(&c.beyond_spec),
        group_cell(&c.seed_only),
        group_cell(&c.preview)
    );
}

/// The human summary: a table of sections, then each failure with its message and diff.
pub fn text(report: &RunReport) -> String {
    let mut out = String::new();
    let declared = report
        .port_spec
        .as_ref()
        .map_or(String::new(), |v| format!(", implements SPEC {v}"));
    let judged = match &report.judged_by {
        Some(text) => format!("judged by SPEC text {text}"),
        None => format!("against SPEC {}", report.spec),
    };
    let _ = writeln!(
        out,
        "\nport: {} ({} {}{declared}) {judged}",
        report.port.name, report.port.language, report.port.version
    );
    if let Some(harness) = &report.harness {
        let _ = writeln!(out, "harness: toolnexus-conformance {}", harness.line());
    }
    let _ = writeln!(
        out,
        "{:<10} {:>7} {:>7} {:>7} {:>8} {:>9} {:>9} {:>9}",
        "section", "passed", "failed", "xfail", "skipped", "beyond", "seed", "preview"
    );
    for (section, c) in &report.sections {
        table_row(&mut out, &format!("§{section}"), c);
    }
    let s = report.summary;
    table_row(&mut out, "total", &s);
    if s.xfail > 0 {
        let _ = writeln!(
            out,
            "(xfail: known failures, listed in the expected-failures file; they do not fail the run)"
        );
    }
    let _ = writeln!(
        out,
        "(beyond, seed: @beyond-spec and @seed-only scenarios, passed/failed/skipped, counted apart; {})",
        if report.strict {
            "--strict: their failures fail the run"
        } else {
            "their failures fail the run only with --strict"
        }
    );
    let failures: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|r| r.status == Status::Failed && !r.soft() && !r.known)
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "\nfailures:");
        for f in failures {
            let note = seed_only_note(f);
            let _ = writeln!(
                out,
                "\n--- [{}] {}{note}\n{}",
                f.section,
                f.name,
                failure_text(f)
            );
        }
    }
    let beyond: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|r| r.status == Status::Failed && r.soft() && r.beyond_spec && !r.known)
        .collect();
    if !beyond.is_empty() {
        let _ = writeln!(
            out,
            "\nbeyond-SPEC failures (behaviour the reference has and the SPEC does not state; {}):",
            if report.strict {
                "counted: --strict"
            } else {
                "not counted without --strict"
            }
        );
        for f in beyond {
            let reason = f.beyond_spec_reason.as_deref().unwrap_or("");
            let text = failure_text(f);
            let _ = writeln!(out, "\n--- [{}] {}\n{reason}\n{text}", f.section, f.name);
        }
    }
    let seeds: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|r| r.status == Status::Failed && r.soft() && !r.beyond_spec && !r.known)
        .collect();
    if !seeds.is_empty() {
        let _ = writeln!(
            out,
            "\nseed-only failures (a seed page's promise the SPEC does not state; {}):",
            if report.strict {
                "counted: --strict"
            } else {
                "not counted without --strict"
            }
        );
        for f in seeds {
            let note = seed_only_note(f);
            let text = failure_text(f);
            let _ = writeln!(out, "\n--- [{}] {}{note}\n{text}", f.section, f.name);
        }
    }
    let retried: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|r| r.meta.retried.is_some())
        .collect();
    if !retried.is_empty() {
        let _ = writeln!(
            out,
            "\nretried once, alone, after a harness time bound broke (the result is the second run's):"
        );
        for r in retried {
            let first = r.meta.retried.as_deref().unwrap_or("");
            let line = first.lines().next().unwrap_or("");
            let _ = writeln!(
                out,
                "  {} [{}]\n    first run: {line}",
                r.name,
                status_word(r)
            );
        }
    }
    let flaky: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|r| r.meta.flaky.is_some())
        .collect();
    if !flaky.is_empty() {
        let _ = writeln!(
            out,
            "\nflaky: failed, then passed when run again alone against a fresh port (still counted as failed):"
        );
        for r in flaky {
            let first = failure_text(r);
            let line = first.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            let _ = writeln!(
                out,
                "  {}\n    first run: {line}\n    run alone: passed",
                r.name
            );
        }
    }
    if let Some(b) = &report.baseline {
        let _ = writeln!(
            out,
            "\nexpected failures ({}): {} known, {} new, {} unexpected passes, {} stale entries",
            b.file,
            b.known_failures,
            b.new_failures.len(),
            b.unexpected_passes.len(),
            b.stale.len()
        );
        for n in &b.new_failures {
            let _ = writeln!(out, "  NEW FAILURE      {n}");
            // Repeated here, one line, because a CI log is often read from its end only.
            if let Some(why) = failure_line(report, n) {
                let _ = writeln!(out, "                   {why}");
            }
        }
        for n in &b.unexpected_passes {
            let _ = writeln!(out, "  UNEXPECTED PASS  {n}");
        }
        for n in &b.stale {
            let _ = writeln!(out, "  stale entry      {n}");
        }
    }
    if s.passed + s.beyond_spec.passed + s.seed_only.passed + s.preview.passed == 0 {
        let _ = writeln!(out, "\nno scenario passed: the run counts as a failure");
    }
    let b = s.beyond_spec;
    if b.passed + b.failed + b.skipped > 0 {
        let _ = writeln!(
            out,
            "\nbeyond the SPEC: {} passed, {} failed, {} skipped",
            b.passed, b.failed, b.skipped
        );
    }
    let seed = s.seed_only;
    if !seed.is_empty() {
        let _ = writeln!(
            out,
            "\nseed-only: {} passed, {} failed{}, {} skipped",
            seed.passed,
            seed.failed,
            if seed.xfail > 0 {
                format!(", {} xfail", seed.xfail)
            } else {
                String::new()
            },
            seed.skipped
        );
    }
    let p = s.preview;
    if !p.is_empty() {
        let xfail = if p.xfail > 0 {
            format!(", {} xfail", p.xfail)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "\npreview (@preview, SPEC §10 addenda; a port lacking them answers unsupported ⇒ skipped): {} passed, {} failed{xfail}, {} skipped",
            p.passed, p.failed, p.skipped
        );
    }
    let xfail = if s.xfail > 0 {
        format!(", {} xfail", s.xfail)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "\n{} passed, {} failed{xfail}, {} skipped",
        s.passed, s.failed, s.skipped
    );
    out.push_str(&super::next::text(report));
    out
}

/// A failed scenario's report text; reports read back from older JSON carry only the message.
fn failure_text(f: &ScenarioResult) -> String {
    f.failure
        .as_ref()
        .map_or_else(|| f.message.clone(), |x| x.report_text())
}

/// Longest reason repeated under a `NEW FAILURE` line, in characters.
const REASON_CHARS: usize = 300;

/// The first line of the named failed scenario's failure, cut to [`REASON_CHARS`].
fn failure_line(report: &RunReport, name: &str) -> Option<String> {
    let f = report
        .scenarios
        .iter()
        .find(|r| r.name == name && r.status == Status::Failed)?;
    let text = failure_text(f);
    let first = text.lines().find(|l| !l.trim().is_empty())?.trim();
    let mut kept: String = first.chars().take(REASON_CHARS).collect();
    if kept.len() < first.len() {
        kept.push_str(" […]");
    }
    Some(kept)
}

/// The stable machine shape (`--format json`).
pub fn json(report: &RunReport) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(name: &str, status: Status, known: bool) -> ScenarioResult {
        ScenarioResult {
            meta: Default::default(),
            name: name.into(),
            section: "4A".into(),
            status,
            message: format!("{name} broke"),
            failure: None,
            expectations: Vec::new(),
            beyond_spec: false,
            beyond_spec_reason: None,
            preview: false,
            known,
        }
    }

    #[test]
    fn a_preview_failure_is_reported_in_its_own_group() {
        let preview = ScenarioResult {
            preview: true,
            ..scenario("relay", Status::Failed, false)
        };
        let report = RunReport::of(vec![scenario("p", Status::Passed, false), preview]);
        let text = text(&report);
        assert!(text.contains("preview (@preview"), "{text}");
        assert!(progress_line(&report.scenarios[1]).ends_with("(preview)"));
    }

    #[test]
    fn json_carries_each_scenarios_file_line_tags_and_duration() {
        let mut sc = scenario("p", Status::Passed, false);
        sc.meta = crate::outcome::model::ScenarioMeta {
            file: "core.feature".into(),
            line: 12,
            tags: vec!["spec-4A".into()],
            duration_ms: 7,
            retried: None,
            blocked_by: None,
            flaky: None,
        };
        let report = RunReport {
            started: Some("2026-11-30T16:58:11Z".into()),
            ..RunReport::of(vec![sc])
        };
        let v: serde_json::Value =
            serde_json::from_str(&json(&report)).unwrap_or_else(|e| panic!("{e}"));
        let s = &v["scenarios"][0];
        assert_eq!(s["file"], "core.feature", "{v}");
        assert_eq!(s["line"], 12, "{v}");
        assert_eq!(s["tags"], serde_json::json!(["spec-4A"]), "{v}");
        assert_eq!(s["durationMs"], 7, "{v}");
        assert_eq!(v["started"], "2026-11-30T16:58:11Z", "{v}");
        // Read back, the report is the same.
        let back: RunReport = serde_json::from_value(v).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, report);
    }

    #[test]
    fn a_retried_scenario_is_listed_with_its_first_failure() {
        let mut late = scenario("late", Status::Passed, false);
        late.meta.retried = Some("step `When x`: driver failure: driver did not answer `run` within 5000 ms; killed it\nmore".into());
        let text = text(&RunReport::of(vec![
            late,
            scenario("p", Status::Passed, false),
        ]));
        assert!(
            text.contains("retried once, alone, after a harness time bound broke"),
            "{text}"
        );
        assert!(
            text.contains("  late [passed]\n    first run: step `When x`: driver failure: driver did not answer `run` within 5000 ms; killed it\n"),
            "{text}"
        );
        assert!(!text.contains("  p [passed]"), "{text}");
    }

    #[test]
    fn a_seed_only_failure_says_whose_promise_it_breaks() {
        let mut seed = scenario("s", Status::Failed, false);
        seed.meta.tags = vec!["spec-4".into(), "seed-001".into(), "seed-only".into()];
        assert_eq!(progress_line(&seed), "FAIL [4A] s (seed-only)");
        let text = text(&RunReport::of(vec![
            seed,
            scenario("n", Status::Failed, false),
        ]));
        assert!(
            text.contains(
                "--- [4A] s (seed-only: the promise of seed 001, which the SPEC does not state)\n"
            ),
            "{text}"
        );
        assert!(text.contains("--- [4A] n\n"), "{text}");
    }

    #[test]
    fn known_failures_are_xfail_in_progress_and_table() {
        let known = scenario("k", Status::Failed, true);
        assert_eq!(progress_line(&known), "xfail [4A] k");
        assert_eq!(
            progress_line(&scenario("n", Status::Failed, false)),
            "FAIL [4A] n"
        );
        assert_eq!(
            progress_line_known(&scenario("n", Status::Failed, false), true),
            "xfail [4A] n"
        );
        let mut report = RunReport::of(vec![
            known,
            scenario("n", Status::Failed, false),
            scenario("p", Status::Passed, false),
        ]);
        report.recount();
        let text = text(&report);
        assert!(
            text.contains(
                "section     passed  failed   xfail  skipped    beyond      seed   preview"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "§4A              1       1       1        0         -         -         -"
            ),
            "{text}"
        );
        assert!(text.contains("--- [4A] n"), "{text}");
        assert!(
            !text.contains("--- [4A] k"),
            "a known failure is not listed with the failures: {text}"
        );
        assert!(
            text.contains("1 passed, 1 failed, 1 xfail, 0 skipped"),
            "{text}"
        );
    }

    #[test]
    fn a_run_of_previews_alone_shows_them_in_the_section_table() {
        let preview = |name: &str, status| ScenarioResult {
            preview: true,
            section: "10".into(),
            ..scenario(name, status, false)
        };
        let mut report = RunReport::of(vec![
            preview("relay", Status::Passed),
            preview("resume", Status::Failed),
        ]);
        report.recount();
        let text = text(&report);
        assert!(
            text.contains(
                "§10              0       0       0        0         -         -     1/1/0"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "total            0       0       0        0         -         -     1/1/0"
            ),
            "{text}"
        );
        // JUnit gives the section a suite with both.
        let xml = crate::reporting::junit::render(&report);
        assert!(
            xml.contains("<testsuite name=\"SPEC §10\" tests=\"2\" failures=\"1\""),
            "{xml}"
        );
    }

    #[test]
    fn seed_only_scenarios_have_their_own_column_and_failure_list() {
        let mut seed = scenario("s", Status::Failed, false);
        seed.meta.tags = vec!["seed-001".into(), "seed-only".into()];
        let mut report = RunReport::of(vec![seed, scenario("p", Status::Passed, false)]);
        report.recount();
        let text = text(&report);
        assert!(
            text.contains(
                "§4A              1       0       0        0         -     0/1/0         -"
            ),
            "{text}"
        );
        assert!(
            text.contains("seed-only failures (a seed page's promise the SPEC does not state; not counted without --strict):"),
            "{text}"
        );
        assert!(!text.contains("\nfailures:"), "{text}");
        assert!(
            text.contains("seed-only: 0 passed, 1 failed, 0 skipped"),
            "{text}"
        );
        let v: serde_json::Value =
            serde_json::from_str(&json(&report)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            v["summary"]["seedOnly"],
            serde_json::json!({"passed": 0, "failed": 1, "skipped": 0}),
            "{v}"
        );
        let xml = crate::reporting::junit::render(&report);
        assert!(
            xml.contains("<testsuite name=\"seed-only\" tests=\"1\" failures=\"0\""),
            "{xml}"
        );
        assert!(
            xml.contains("failed seed-only (other; not counted without --strict)"),
            "{xml}"
        );
        let html = crate::reporting::html::render(&[report]);
        assert!(html.contains("data-section=\"seed-only\""), "{html}");
    }

    #[test]
    fn the_preview_line_counts_its_known_failures() {
        let mut known = scenario("k", Status::Failed, true);
        known.preview = true;
        let mut passed = scenario("p", Status::Passed, false);
        passed.preview = true;
        let mut report = RunReport::of(vec![known, passed, scenario("q", Status::Passed, false)]);
        report.recount();
        let text = text(&report);
        assert!(
            text.contains("⇒ skipped): 1 passed, 0 failed, 1 xfail, 0 skipped"),
            "{text}"
        );
    }

    #[test]
    fn a_new_failure_line_repeats_its_reason_cut_to_one_line() {
        let mut slow = scenario("slow", Status::Failed, false);
        slow.message = format!(
            "[bound] 2600 ms, not below 2500 ms\nmore detail\n{}",
            "x".repeat(10)
        );
        let mut long = scenario("long", Status::Failed, false);
        long.message = "y".repeat(REASON_CHARS + 50);
        let mut report = RunReport::of(vec![slow, long]);
        report.recount();
        report.baseline = Some(crate::outcome::model::Baseline {
            file: "expected.txt".into(),
            new_failures: vec!["slow".into(), "long".into()],
            ..Default::default()
        });
        let text = text(&report);
        assert!(
            text.contains(
                "  NEW FAILURE      slow\n                   [bound] 2600 ms, not below 2500 ms\n"
            ),
            "{text}"
        );
        let cut = format!(
            "  NEW FAILURE      long\n                   {} […]\n",
            "y".repeat(REASON_CHARS)
        );
        assert!(text.contains(&cut), "{text}");
    }
}
