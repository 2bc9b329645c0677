//! JUnit XML for CI systems: one testsuite per SPEC section, one testcase per scenario; the
//! `@beyond-spec` and the `@seed-only` scenarios each in a testsuite of their own, whose
//! failures are `<failure>`s only in a `--strict` run (otherwise `<system-out>`, so CI stays green as the exit code does).
//! A known failure (listed in the expected-failures file, `xfail`) is a `<skipped
//! message="expected failure: …">` testcase with the failure text in `<system-out>`: it does
//! not fail the run, as pytest's xfail does not, and CI tools count it apart from passes.
//! A failure in which no expectation broke (kind `other`: the driver died, answered
//! malformed JSON or timed out) is the driver's fault, not a wrong answer: an `<error>`.
//! Each testcase and testsuite carries `time` (seconds), each testsuite the run's `timestamp`.

use std::fmt::Write;

use crate::compare::expectation::ExpectationKind;
use crate::outcome::model::{RunReport, ScenarioResult, Status};

/// Milliseconds as JUnit's `time`: seconds with three decimals.
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// Whether a failure is the driver's fault (no expectation broke), reported as `<error>`.
fn is_error(sc: &ScenarioResult) -> bool {
    sc.failure
        .as_ref()
        .is_some_and(|f| f.kind == ExpectationKind::Other)
}

/// ` time="…"` summed over `cases`, and ` timestamp="…"` when the run's start is known.
fn suite_attrs<'a>(report: &RunReport, cases: impl Iterator<Item = &'a ScenarioResult>) -> String {
    let ms: u64 = cases.map(|c| c.meta.duration_ms).sum();
    let stamp = report
        .started
        .as_deref()
        .map_or(String::new(), |t| format!(" timestamp=\"{}\"", esc(t)));
    format!(" time=\"{}\"{stamp}", seconds(ms))
}

/// A suite's `<properties>` line: `own` properties, then what judged the run (the harness's
/// version, port protocol and SPEC texts, when the report records them); empty when neither.
fn harness_properties(report: &RunReport, own: &str) -> String {
    let harness = report.harness.as_ref().map_or(String::new(), |h| {
        format!(
            "<property name=\"harness\" value=\"toolnexus-conformance {}\"/>",
            esc(&h.line())
        )
    });
    if own.is_empty() && harness.is_empty() {
        return String::new();
    }
    format!("\n    <properties>{own}{harness}</properties>")
}

/// Escapes text for XML attributes and content.
fn esc(s: &str) -> String {
    s.chars()
        .filter(|c| matches!(c, '\t' | '\n' | '\r') || !c.is_control())
        .fold(String::with_capacity(s.len()), |mut out, c| {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '\'' => out.push_str("&apos;"),
                c => out.push(c),
            }
            out
        })
}

/// Renders a run as JUnit XML.
pub fn render(report: &RunReport) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let all = tally(report, report.scenarios.iter());
    let _ = writeln!(
        out,
        "<testsuites name=\"toolnexus-conformance {} (SPEC {})\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"{}>",
        esc(&report.port.name),
        esc(&report.spec),
        all.tests,
        all.failures,
        all.errors,
        all.skipped,
        suite_attrs(report, report.scenarios.iter())
    );
    // Each section's suite holds its SPEC scenarios and its `@preview` ones (which count as
    // the SPEC's do when the run asked for them); so a run of previews alone still has them.
    for section in report.sections.keys() {
        let cases = || {
            report
                .scenarios
                .iter()
                .filter(move |x| &x.section == section && !x.apart())
        };
        if cases().next().is_none() {
            continue;
        }
        let t = tally(report, cases());
        let _ = writeln!(
            out,
            "  <testsuite name=\"SPEC §{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"{}>{}",
            esc(section),
            t.tests,
            t.failures,
            t.errors,
            t.skipped,
            suite_attrs(report, cases()),
            harness_properties(report, "")
        );
        for sc in cases() {
            testcase(&mut out, report, sc);
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    apart_suite(&mut out, report, "beyond the SPEC", "beyondSpec", &|x| {
        x.beyond_spec
    });
    apart_suite(&mut out, report, "seed-only", "seedOnly", &|x| {
        x.apart() && !x.beyond_spec
    });
    out.push_str("</testsuites>\n");
    out
}

/// A suite's JUnit counts: `failures` and `errors` only of failures that fail the run.
struct Tally {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

/// The JUnit counts of `cases` in `report` (a known failure is `skipped`).
fn tally<'a>(report: &RunReport, cases: impl Iterator<Item = &'a ScenarioResult>) -> Tally {
    let mut t = Tally {
        tests: 0,
        failures: 0,
        errors: 0,
        skipped: 0,
    };
    for c in cases {
        t.tests += 1;
        match c.status {
            Status::Skipped => t.skipped += 1,
            Status::Failed if c.known => t.skipped += 1,
            Status::Failed if report.counts_as_failure(c) && is_error(c) => t.errors += 1,
            Status::Failed if report.counts_as_failure(c) => t.failures += 1,
            _ => {}
        }
    }
    t
}

/// The suite of a group counted apart (`@beyond-spec`, `@seed-only`), when it has scenarios:
/// its failures count only in a `--strict` run.
fn apart_suite(
    out: &mut String,
    report: &RunReport,
    name: &str,
    property: &str,
    member: &dyn Fn(&ScenarioResult) -> bool,
) {
    let cases = || report.scenarios.iter().filter(|x| member(x));
    if cases().next().is_none() {
        return;
    }
    let t = tally(report, cases());
    let _ = writeln!(
        out,
        "  <testsuite name=\"{name}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"{}>{}",
        t.tests,
        t.failures,
        t.errors,
        t.skipped,
        suite_attrs(report, cases()),
        harness_properties(
            report,
            &format!(
                "<property name=\"{property}\" value=\"true\"/><property name=\"strict\" value=\"{}\"/>",
                report.strict
            )
        )
    );
    for sc in cases() {
        testcase(out, report, sc);
    }
    let _ = writeln!(out, "  </testsuite>");
}

/// One `<testcase>`; a failure that does not count (beyond the SPEC, not `--strict`) is
/// written to `<system-out>` rather than as a `<failure>`.
fn testcase(out: &mut String, report: &RunReport, sc: &ScenarioResult) {
    let head = format!(
        "    <testcase classname=\"{}.spec-{}\" name=\"{}\" time=\"{}\"",
        esc(&report.port.name),
        esc(&sc.section),
        esc(&sc.name),
        seconds(sc.meta.duration_ms)
    );
    let first_line = sc.message.lines().next().unwrap_or("");
    match sc.status {
        Status::Passed => {
            let _ = writeln!(out, "{head}/>");
        }
        Status::Failed if sc.known => {
            let (kind, body) = failure_body(sc);
            let _ = writeln!(
                out,
                "{head}>\n      <skipped message=\"expected failure: {}\"/>\n      <system-out>known failure ({kind}; listed in the expected-failures file)\n{}</system-out>\n    </testcase>",
                esc(first_line),
                esc(&body)
            );
        }
        Status::Failed if report.counts_as_failure(sc) => {
            let (kind, body) = failure_body(sc);
            // The driver's fault (dead, malformed, timed out) is an error, not a wrong answer.
            let element = if is_error(sc) { "error" } else { "failure" };
            let _ = writeln!(
                out,
                "{head}>\n      <{element} message=\"{}\" type=\"{kind}\">{}</{element}>\n    </testcase>",
                esc(first_line),
                esc(&body)
            );
        }
        Status::Failed => {
            let (kind, body) = failure_body(sc);
            let (what, reason) = match &sc.beyond_spec_reason {
                Some(r) if sc.beyond_spec => ("beyond the SPEC", r.clone()),
                _ => (
                    "seed-only",
                    "a seed page's promise the SPEC does not state".to_string(),
                ),
            };
            let _ = writeln!(
                out,
                "{head}>\n      <system-out>failed {what} ({kind}; not counted without --strict)\n{}\n{}</system-out>\n    </testcase>",
                esc(&reason),
                esc(&body)
            );
        }
        Status::Skipped => {
            let _ = writeln!(
                out,
                "{head}>\n      <skipped message=\"{}\"/>\n    </testcase>",
                esc(first_line)
            );
        }
    }
}

/// The failure's `type` (`pinned`, `lenient`, `other`) and body: the step and the kind,
/// each mismatch on a line of its own, then the diff and any notes.
fn failure_body(sc: &ScenarioResult) -> (&'static str, String) {
    let Some(f) = &sc.failure else {
        // A result without data (read back from an older report): its message as it is.
        return ("other", sc.message.clone());
    };
    let mut body = String::new();
    if let Some(step) = &f.step {
        let _ = writeln!(body, "step: {step}");
    }
    if let Some(label) = f.kind.label() {
        let _ = writeln!(body, "broke: {label}");
    }
    // Whole-text mismatches have no path: the headline and the diff say it better.
    let located: Vec<_> = f.mismatches.iter().filter(|m| !m.path.is_empty()).collect();
    if located.is_empty() {
        let _ = writeln!(body, "{}", f.message);
    }
    for m in located {
        let _ = writeln!(body, "{m}");
    }
    if let Some(diff) = &f.diff {
        body.push_str(diff);
    }
    for note in &f.notes {
        let _ = writeln!(body, "{note}");
    }
    (f.kind.tag(), body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_failure_is_a_skipped_testcase_saying_expected_failure() {
        let sc = |name: &str, known| ScenarioResult {
            meta: Default::default(),
            name: name.into(),
            section: "0".into(),
            status: Status::Failed,
            message: format!("{name} broke"),
            failure: None,
            expectations: Vec::new(),
            beyond_spec: false,
            beyond_spec_reason: None,
            preview: false,
            known,
        };
        let mut report = RunReport::of(vec![sc("k", true), sc("n", false)]);
        report.recount();
        let xml = render(&report);
        assert!(
            xml.contains(
                "name=\"k\" time=\"0.000\">\n      <skipped message=\"expected failure: k broke\"/>"
            ),
            "{xml}"
        );
        assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
        assert!(
            xml.contains("<testsuite name=\"SPEC §0\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"0.000\">"),
            "{xml}"
        );
        assert!(
            xml.contains("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"0.000\">"),
            "{xml}"
        );
    }

    #[test]
    fn a_driver_fault_is_an_error_and_times_and_timestamp_are_reported() {
        use crate::outcome::failure::Failure;
        let sc = |name: &str, failure: Failure, ms| ScenarioResult {
            name: name.into(),
            section: "1".into(),
            status: Status::Failed,
            message: failure.message.clone(),
            failure: Some(failure),
            expectations: Vec::new(),
            beyond_spec: false,
            beyond_spec_reason: None,
            preview: false,
            known: false,
            meta: crate::outcome::model::ScenarioMeta {
                duration_ms: ms,
                ..Default::default()
            },
        };
        let mut report = RunReport {
            started: Some("2026-11-30T16:58:11Z".into()),
            ..RunReport::of(vec![
                sc("dead", Failure::other("driver exited"), 1_250),
                sc(
                    "wrong",
                    Failure::of_kind(ExpectationKind::Pinned, "$.a: expected 1, got 2"),
                    30,
                ),
            ])
        };
        report.recount();
        let xml = render(&report);
        assert!(
            xml.contains("name=\"dead\" time=\"1.250\">\n      <error message=\"driver exited\" type=\"other\">"),
            "{xml}"
        );
        assert!(
            xml.contains("name=\"wrong\" time=\"0.030\">\n      <failure "),
            "{xml}"
        );
        assert!(
            xml.contains("<testsuite name=\"SPEC §1\" tests=\"2\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\"1.280\" timestamp=\"2026-11-30T16:58:11Z\">"),
            "{xml}"
        );
        assert!(
            xml.contains("failures=\"1\" errors=\"1\" skipped=\"0\" time=\"1.280\" timestamp"),
            "{xml}"
        );
    }

    #[test]
    fn every_suite_names_the_harness_that_judged_the_run() {
        let sc = |name: &str, beyond_spec| ScenarioResult {
            meta: Default::default(),
            name: name.into(),
            section: "0".into(),
            status: Status::Passed,
            message: String::new(),
            failure: None,
            expectations: Vec::new(),
            beyond_spec,
            beyond_spec_reason: None,
            preview: false,
            known: false,
        };
        let mut report = RunReport::of(vec![sc("a", false), sc("b", true)]);
        report.recount();
        let before = render(&report);
        assert!(
            !before.contains("<properties><property name=\"harness\""),
            "{before}"
        );
        report.harness = Some(crate::outcome::model::HarnessInfo::this());
        let xml = render(&report);
        let property = format!(
            "<property name=\"harness\" value=\"toolnexus-conformance {}\"/>",
            esc(&crate::outcome::model::HarnessInfo::this().line())
        );
        // The section's suite and the one counted apart (after its own properties).
        assert_eq!(xml.matches(&property).count(), 2, "{xml}");
        assert!(
            xml.contains(&format!(
                "<property name=\"strict\" value=\"false\"/>{property}</properties>"
            )),
            "{xml}"
        );
        assert!(crate::reporting::report::text(&report).contains(&format!(
            "harness: toolnexus-conformance {}",
            crate::outcome::model::HarnessInfo::this().line()
        )));
        assert!(
            crate::reporting::html::render(std::slice::from_ref(&report))
                .contains("judged by toolnexus-conformance 0.")
        );
    }

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(esc("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }
}
