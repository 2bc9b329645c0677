//! JUnit XML for CI systems: one testsuite per SPEC section, one testcase per scenario; the
//! `@beyond-spec` scenarios in a testsuite of their own, whose failures are `<failure>`s only
//! in a `--strict` run (otherwise `<system-out>`, so CI stays green as the exit code does).
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
    let s = report.summary;
    let b = s.beyond_spec;
    let errors = |cases: &mut dyn Iterator<Item = &ScenarioResult>| {
        cases
            .filter(|c| report.counts_as_failure(c) && is_error(c))
            .count()
    };
    let all_errors = errors(&mut report.scenarios.iter());
    let _ = writeln!(
        out,
        "<testsuites name=\"toolnexus-conformance {} (SPEC {})\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"{}>",
        esc(&report.port.name),
        esc(&report.spec),
        s.passed + s.failed + s.skipped + s.xfail + b.passed + b.failed + b.skipped + b.xfail,
        report.counted_failures() - all_errors,
        all_errors,
        s.skipped + s.xfail + b.skipped + b.xfail,
        suite_attrs(report, report.scenarios.iter())
    );
    for (section, c) in &report.sections {
        if c.passed + c.failed + c.skipped + c.xfail == 0 {
            continue;
        }
        let cases = || {
            report
                .scenarios
                .iter()
                .filter(|x| &x.section == section && !x.beyond_spec)
        };
        let suite_errors = errors(&mut cases());
        let _ = writeln!(
            out,
            "  <testsuite name=\"SPEC §{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"{}>",
            esc(section),
            c.passed + c.failed + c.skipped + c.xfail,
            c.failed.saturating_sub(suite_errors),
            suite_errors,
            c.skipped + c.xfail,
            suite_attrs(report, cases())
        );
        for sc in cases() {
            testcase(&mut out, report, sc);
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    if b.passed + b.failed + b.skipped + b.xfail > 0 {
        let beyond_errors = errors(&mut report.scenarios.iter().filter(|x| x.beyond_spec));
        let _ = writeln!(
            out,
            "  <testsuite name=\"beyond the SPEC\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"{}>\n    <properties><property name=\"beyondSpec\" value=\"true\"/><property name=\"strict\" value=\"{}\"/></properties>",
            b.passed + b.failed + b.skipped + b.xfail,
            if report.strict { b.failed.saturating_sub(beyond_errors) } else { 0 },
            beyond_errors,
            b.skipped + b.xfail,
            suite_attrs(report, report.scenarios.iter().filter(|x| x.beyond_spec)),
            report.strict
        );
        for sc in report.scenarios.iter().filter(|x| x.beyond_spec) {
            testcase(&mut out, report, sc);
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    out.push_str("</testsuites>\n");
    out
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
            let reason = sc.beyond_spec_reason.as_deref().unwrap_or("");
            let _ = writeln!(
                out,
                "{head}>\n      <system-out>failed beyond the SPEC ({kind}; not counted without --strict)\n{}\n{}</system-out>\n    </testcase>",
                esc(reason),
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
    fn escapes_markup_and_control_characters() {
        assert_eq!(esc("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }
}
