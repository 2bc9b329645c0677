//! JUnit XML for CI systems: one testsuite per SPEC section, one testcase per scenario; the
//! `@beyond-spec` scenarios in a testsuite of their own, whose failures are `<failure>`s only
//! in a `--strict` run (otherwise `<system-out>`, so CI stays green as the exit code does).
//! A known failure (listed in the expected-failures file, `xfail`) is a `<skipped
//! message="expected failure: …">` testcase with the failure text in `<system-out>`: it does
//! not fail the run, as pytest's xfail does not, and CI tools count it apart from passes.

use std::fmt::Write;

use super::runner::{RunReport, ScenarioResult, Status};

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
    let _ = writeln!(
        out,
        "<testsuites name=\"toolnexus-conformance {} (SPEC {})\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
        esc(&report.port.name),
        esc(&report.spec),
        s.passed + s.failed + s.skipped + s.xfail + b.passed + b.failed + b.skipped + b.xfail,
        report.counted_failures(),
        s.skipped + s.xfail + b.skipped + b.xfail
    );
    for (section, c) in &report.sections {
        if c.passed + c.failed + c.skipped + c.xfail == 0 {
            continue;
        }
        let _ = writeln!(
            out,
            "  <testsuite name=\"SPEC §{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">",
            esc(section),
            c.passed + c.failed + c.skipped + c.xfail,
            c.failed,
            c.skipped + c.xfail
        );
        for sc in report
            .scenarios
            .iter()
            .filter(|x| &x.section == section && !x.beyond_spec)
        {
            testcase(&mut out, report, sc);
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    if b.passed + b.failed + b.skipped + b.xfail > 0 {
        let _ = writeln!(
            out,
            "  <testsuite name=\"beyond the SPEC\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n    <properties><property name=\"beyondSpec\" value=\"true\"/><property name=\"strict\" value=\"{}\"/></properties>",
            b.passed + b.failed + b.skipped + b.xfail,
            if report.strict { b.failed } else { 0 },
            b.skipped + b.xfail,
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
        "    <testcase classname=\"{}.spec-{}\" name=\"{}\"",
        esc(&report.port.name),
        esc(&sc.section),
        esc(&sc.name)
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
            let _ = writeln!(
                out,
                "{head}>\n      <failure message=\"{}\" type=\"{kind}\">{}</failure>\n    </testcase>",
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
        let mut report = RunReport {
            port: crate::port::PortInfo::default(),
            port_spec: None,
            spec: "0.16.0".into(),
            summary: Default::default(),
            sections: Default::default(),
            scenarios: vec![sc("k", true), sc("n", false)],
            baseline: None,
            strict: false,
        };
        report.recount();
        let xml = render(&report);
        assert!(
            xml.contains("name=\"k\">\n      <skipped message=\"expected failure: k broke\"/>"),
            "{xml}"
        );
        assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
        assert!(
            xml.contains("<testsuite name=\"SPEC §0\" tests=\"2\" failures=\"1\" skipped=\"1\">"),
            "{xml}"
        );
        assert!(
            xml.contains("tests=\"2\" failures=\"1\" skipped=\"1\">"),
            "{xml}"
        );
    }

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(esc("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot;");
    }
}
