//! The report as a fixed-width text table (the JSON form is the report's `Serialize`).

use std::fmt::Write as _;

use crate::options::{Op, MCP_WARMUP_CALLS, REFERENCE};
use crate::report::{BenchReport, TargetCheck};

/// A duration for the table: fewer decimals as it grows.
pub(crate) fn fmt_ms(v: Option<f64>) -> String {
    match v {
        None => "—".to_string(),
        Some(v) if v >= 100.0 => format!("{v:.0} ms"),
        Some(v) if v >= 10.0 => format!("{v:.1} ms"),
        Some(v) if v >= 1.0 => format!("{v:.2} ms"),
        Some(v) => format!("{v:.3} ms"),
    }
}

/// A ratio for the table, two decimals and a `×`.
fn fmt_ratio(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), |r| format!("{r:.2}×"))
}

/// Pads `s` to `width` characters (by `char`, so `×` and `—` count as one).
fn pad(s: &str, width: usize, right: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(s.chars().count()));
    if right {
        format!("{fill}{s}")
    } else {
        format!("{s}{fill}")
    }
}

/// Renders the report as a fixed-width text table (op | port | median | p90 | min | max |
/// ratio vs reference; per operation its floors first, as port `floor (<what>)`), then one
/// line per target, then the notes.
pub fn table(report: &BenchReport) -> String {
    let mut out = grid(report);
    let _ = writeln!(out, "({})", footer(report).join("; "));
    let targets = target_lines(&report.targets);
    if !targets.is_empty() {
        out.push('\n');
    }
    for t in targets {
        let _ = writeln!(out, "{t}");
    }
    let notes: Vec<String> = report
        .notes
        .iter()
        .cloned()
        .chain(report.rows.iter().flat_map(|r| {
            r.notes
                .iter()
                .map(move |n| format!("{} on {}: {n}", r.label, r.port))
        }))
        .chain(report.floors.iter().flat_map(|f| {
            f.notes
                .iter()
                .map(move |n| format!("{} floor ({}): {n}", f.op.name(), f.what))
        }))
        .collect();
    if !notes.is_empty() {
        out.push('\n');
    }
    for n in notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// How often the operations in the report ran, one part per kind of schedule.
fn footer(report: &BenchReport) -> Vec<String> {
    let ran = |ops: &[Op]| report.rows.iter().any(|r| ops.contains(&r.op));
    let w = report.warmup;
    let mut parts = Vec::new();
    if ran(&[Op::SkillsBuild, Op::Grep, Op::RoundTrip]) {
        parts.push(format!(
            "{} counted run(s) after {w} warm-up run(s)",
            report.runs
        ));
    }
    if ran(&[Op::RoundTrip]) {
        parts.push(format!(
            "round trip: {} calls per run, per call",
            report.round_trips
        ));
    }
    if ran(&[Op::McpCall]) {
        parts.push(format!(
            "MCP call: {} calls after {w} × {} warm-up calls, per call",
            report.mcp_calls,
            report.mcp_calls.min(MCP_WARMUP_CALLS)
        ));
    }
    if ran(&[Op::McpBuild]) {
        parts.push(format!(
            "MCP build: {} counted build + close runs after {w} warm-up run(s)",
            report.mcp_builds
        ));
    }
    if ran(&[Op::AgentLoop]) {
        parts.push(format!(
            "agent loop: {} counted runs of {} turns after {w} warm-up run(s), per turn",
            report.loop_runs, report.loop_turns
        ));
    }
    if ran(&[Op::ServeCall]) {
        parts.push(format!(
            "served call: {} calls after {w} × {} warm-up calls, per call",
            report.serve_calls,
            report.serve_calls.min(MCP_WARMUP_CALLS)
        ));
    }
    if ran(&[Op::ImageLoopOpenai, Op::ImageLoopAnthropic]) {
        parts.push(format!(
            "image loops: {} counted runs of one loop turn ({} image bytes) after {w} warm-up run(s), per run",
            report.image_runs, report.image_bytes
        ));
    }
    if ran(&[Op::ClassifierStatic, Op::ClassifierCanonical255]) {
        parts.push(format!(
            "classifier: {} counted evaluate calls after {w} warm-up call(s), per call",
            report.classifier_runs
        ));
    }
    if ran(&[Op::Suite]) {
        parts.push(format!(
            "suite: {} run(s), no warm-up, sections {}",
            report.suite_runs,
            report
                .suite_sections
                .as_ref()
                .map_or_else(|| "—".to_string(), |s| s.join(","))
        ));
    }
    parts.push("samples interleaved across ports and floors, round by round".to_string());
    parts
}

/// The rows (each operation's floors first) as aligned columns under a header and a rule.
fn grid(report: &BenchReport) -> String {
    const COLUMNS: usize = 7;
    let header = ["op", "port", "median", "p90", "min", "max", "vs reference"];
    let mut cells: Vec<[String; COLUMNS]> = Vec::new();
    for (i, r) in report.rows.iter().enumerate() {
        let first_of_op = i == 0 || report.rows[i - 1].op != r.op;
        let floors = report.floors.iter().filter(|f| f.op == r.op && first_of_op);
        for f in floors {
            cells.push([
                r.label.clone(),
                format!("floor ({})", f.what),
                fmt_ms(f.median_ms),
                fmt_ms(f.p90_ms),
                fmt_ms(f.min_ms),
                fmt_ms(f.max_ms),
                fmt_ratio(f.ratio_to_reference),
            ]);
        }
        cells.push([
            r.label.clone(),
            r.port.clone(),
            fmt_ms(r.median_ms),
            fmt_ms(r.p90_ms),
            fmt_ms(r.min_ms),
            fmt_ms(r.max_ms),
            fmt_ratio(r.ratio_to_reference),
        ]);
    }
    let mut widths = header.map(|h| h.chars().count());
    for c in &cells {
        for (w, s) in widths.iter_mut().zip(c) {
            *w = (*w).max(s.chars().count());
        }
    }
    let line = |c: &[String; COLUMNS]| {
        let parts: Vec<String> = c
            .iter()
            .enumerate()
            .map(|(i, s)| pad(s, widths[i], i >= 2))
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    let mut out = String::new();
    let _ = writeln!(out, "{}", line(&header.map(str::to_string)));
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let _ = writeln!(out, "{}", rule.join("  "));
    for c in &cells {
        let _ = writeln!(out, "{}", line(c));
    }
    out
}

/// One line per target: the ratio, the target and the verdict.
fn target_lines(targets: &[TargetCheck]) -> Vec<String> {
    targets
        .iter()
        .map(|t| {
            let verdict = match t.met {
                Some(true) => "ok",
                Some(false) => "MISSED",
                None => "not measured",
            };
            let which = if t.op == Op::AgentLoop {
                ", the fastest other port"
            } else {
                ""
            };
            format!(
                "{}: {REFERENCE}/{} = {} (target ≤ {}×{which}) {verdict}",
                t.op.short(),
                t.port,
                fmt_ratio(t.ratio),
                t.target
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_ratios() {
        assert_eq!(fmt_ms(Some(1234.4)), "1234 ms");
        assert_eq!(fmt_ms(Some(0.01234)), "0.012 ms");
        assert_eq!(fmt_ratio(Some(0.314)), "0.31×");
    }
}
