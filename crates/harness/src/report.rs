//! Renders a run: progress marks, the per-section table, failures with diffs, JSON.

use std::fmt::Write;

use super::runner::{RunReport, ScenarioResult, Status};

/// One progress line for a finished scenario.
pub fn progress_line(r: &ScenarioResult) -> String {
    let mark = match r.status {
        Status::Passed => "ok  ",
        Status::Failed => "FAIL",
        Status::Skipped => "skip",
    };
    format!("{mark} [{}] {}", r.section, r.name)
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
        "{:<10} {:>7} {:>7} {:>8}",
        "section", "passed", "failed", "skipped"
    );
    for (section, c) in &report.sections {
        let _ = writeln!(
            out,
            "§{:<9} {:>7} {:>7} {:>8}",
            section, c.passed, c.failed, c.skipped
        );
    }
    let s = report.summary;
    let _ = writeln!(
        out,
        "{:<10} {:>7} {:>7} {:>8}",
        "total", s.passed, s.failed, s.skipped
    );
    let failures: Vec<&ScenarioResult> = report
        .scenarios
        .iter()
        .filter(|r| r.status == Status::Failed)
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
    if s.passed == 0 {
        let _ = writeln!(out, "\nno scenario passed: the run counts as a failure");
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
