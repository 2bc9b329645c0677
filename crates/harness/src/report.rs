//! Renders a run: progress marks, the per-section table, failures with diffs, JSON.

use std::fmt::Write;

use super::runner::{Counts, RunReport, ScenarioResult, Status};

/// One progress line for a finished scenario.
pub fn progress_line(r: &ScenarioResult) -> String {
    let mark = match r.status {
        Status::Passed => "ok  ",
        Status::Failed => "FAIL",
        Status::Skipped => "skip",
    };
    let beyond = if r.beyond_spec {
        " (beyond the SPEC)"
    } else {
        ""
    };
    let preview = if r.preview { " (preview)" } else { "" };
    format!("{mark} [{}] {}{beyond}{preview}", r.section, r.name)
}

/// A `beyond` cell: `@beyond-spec` passed/failed/skipped, or `-` when there are none.
fn beyond_cell(c: &Counts) -> String {
    let b = c.beyond_spec;
    if b.passed + b.failed + b.skipped == 0 {
        "-".to_string()
    } else {
        format!("{}/{}/{}", b.passed, b.failed, b.skipped)
    }
}

/// The human summary: a table of sections, then each failure with its message and diff.
pub fn text(report: &RunReport) -> String {
    let mut out = String::new();
    let declared = report
        .port_spec
        .as_ref()
        .map_or(String::new(), |v| format!(", implements SPEC {v}"));
    let _ = writeln!(
        out,
        "\nport: {} ({} {}{declared}) against SPEC {}",
        report.port.name, report.port.language, report.port.version, report.spec
    );
    let _ = writeln!(
        out,
        "{:<10} {:>7} {:>7} {:>8} {:>9}",
        "section", "passed", "failed", "skipped", "beyond"
    );
    for (section, c) in &report.sections {
        let _ = writeln!(
            out,
            "§{:<9} {:>7} {:>7} {:>8} {:>9}",
            section,
            c.passed,
            c.failed,
            c.skipped,
            beyond_cell(c)
        );
    }
    let s = report.summary;
    let _ = writeln!(
        out,
        "{:<10} {:>7} {:>7} {:>8} {:>9}",
        "total",
        s.passed,
        s.failed,
        s.skipped,
        beyond_cell(&s)
    );
    let _ = writeln!(
        out,
        "(beyond: @beyond-spec scenarios, passed/failed/skipped, counted apart; {})",
        if report.strict {
            "--strict: their failures fail the run"
        } else {
            "their failures fail the run only with --strict"
        }
    );
    let failures: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|r| r.status == Status::Failed && !r.beyond_spec)
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "\nfailures:");
        for f in failures {
            // Reports read back from older JSON carry only the message.
            let text = f
                .failure
                .as_ref()
                .map_or_else(|| f.message.clone(), |x| x.report_text());
            let _ = writeln!(out, "\n--- [{}] {}\n{}", f.section, f.name, text);
        }
    }
    let beyond: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|r| r.status == Status::Failed && r.beyond_spec)
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
            let text = f
                .failure
                .as_ref()
                .map_or_else(|| f.message.clone(), |x| x.report_text());
            let reason = f.beyond_spec_reason.as_deref().unwrap_or("");
            let _ = writeln!(out, "\n--- [{}] {}\n{reason}\n{text}", f.section, f.name);
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
        }
        for n in &b.unexpected_passes {
            let _ = writeln!(out, "  UNEXPECTED PASS  {n}");
        }
        for n in &b.stale {
            let _ = writeln!(out, "  stale entry      {n}");
        }
    }
    if s.passed + s.beyond_spec.passed + s.preview.passed == 0 {
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
    let p = s.preview;
    if !p.is_empty() {
        let _ = writeln!(
            out,
            "\npreview (@preview, SPEC §10 addenda; a port lacking them answers unsupported ⇒ skipped): {} passed, {} failed, {} skipped",
            p.passed, p.failed, p.skipped
        );
    }
    let _ = writeln!(
        out,
        "\n{} passed, {} failed, {} skipped",
        s.passed, s.failed, s.skipped
    );
    out
}

/// The stable machine shape (`--format json`).
pub fn json(report: &RunReport) -> String {
    serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}
