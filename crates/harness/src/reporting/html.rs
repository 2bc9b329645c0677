//! Renders one or more runs as a single self-contained HTML page: a SPEC section × port
//! matrix with drill-down to failures (diffs coloured) and skips, `@beyond-spec` scenarios
//! in a row of their own, then a scenario × port table; for `history`, a release-history
//! section too, and optionally the SPEC clause coverage. No scripts, no network assets; the
//! same reports always give the same bytes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde_json::Value;
use toolnexus_spec::sections::{self, cmp_sections};

use super::clause_releases::{self, AfterHistory, Holds};
use super::coverage::CoverageReport;
use super::history::{History, Outcome};
use crate::compare::expectation::ExpectationKind;
use crate::compare::matchers::{Mismatch, Problem};
use crate::outcome::model::{Counts, RunReport, ScenarioResult, Status};

/// The longest message kept in a `title` tooltip, in characters.
const TOOLTIP_MAX: usize = 1500;
/// The longest expected or actual value shown in a mismatch row, in characters.
const VALUE_MAX: usize = 300;
/// The most mismatch rows shown per failure; the diff has the rest.
const MISMATCH_ROWS: usize = 20;

const STYLE: &str = r#"
:root { --pass:#1f7a3a; --pass-bg:#e3f4e8; --fail:#b3261e; --fail-bg:#fde7e5;
  --skip:#7a5a00; --skip-bg:#fff4d6; --xfail:#6a3fa0; --xfail-bg:#efe6fa; --mostly-skip-bg:#fbe9c0; --beyond-bg:#f6e7d0; --part-bg:#eef6e0; --absent:#8a8f98; --absent-bg:#f3f4f6;
  --line:#d5d9e0; --ink:#1c2330; --muted:#5b6472; }
* { box-sizing: border-box; }
body { margin: 0; padding: 24px 32px 48px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #fbfbfd; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 32px 0 8px; }
p.meta { margin: 0 0 12px; color: var(--muted); }
.legend { display: flex; flex-wrap: wrap; gap: 8px 16px; margin: 8px 0 16px; color: var(--muted); font-size: 13px; }
.legend span { display: inline-flex; align-items: center; gap: 6px; }
.legend i { display: inline-block; width: 14px; height: 14px; border-radius: 3px; border: 1px solid var(--line); }
table { border-collapse: separate; border-spacing: 0; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
th, td { border-bottom: 1px solid var(--line); border-right: 1px solid var(--line); padding: 6px 10px; vertical-align: top; text-align: left; }
tr > :last-child { border-right: 0; }
tbody tr:last-child > * { border-bottom: 0; }
thead th { position: sticky; top: 0; background: #f0f2f6; z-index: 2; }
th.port .pname { display: block; font-size: 15px; }
th.port .pinfo { display: block; font-weight: normal; color: var(--muted); font-size: 12px; }
table.matrix th.section { white-space: nowrap; font-variant-numeric: tabular-nums; background: #f7f8fa; }
table.matrix td.cell { min-width: 180px; max-width: 60vw; }
.counts { font-variant-numeric: tabular-nums; white-space: nowrap; font-weight: 600; }
.counts .p { color: var(--pass); } .counts .f { color: var(--fail); } .counts .s { color: var(--skip); }
.counts .z { color: #b8bdc6; font-weight: normal; }
.counts .x { color: var(--xfail); }
.executed { display: block; font-weight: normal; color: var(--muted); font-size: 12px; }
td.xfail { background: var(--xfail-bg); } td.mostly-skip { background: var(--mostly-skip-bg); }
.item.xfail .sname::before { content: "xfail "; color: var(--xfail); font-weight: 700; }
table.scenarios td.st.xfail { color: var(--xfail); }
td.pass { background: var(--pass-bg); } td.fail { background: var(--fail-bg); }
td.skip { background: var(--skip-bg); } td.partial { background: var(--part-bg); }
td.beyond-fail { background: var(--beyond-bg); }
table.matrix tr.beyond-row th.section { font-style: italic; }
.badge.beyond { background: var(--beyond-bg); color: #6b3d00; }
td.absent { background: repeating-linear-gradient(135deg, var(--absent-bg) 0 6px, #fff 6px 12px); color: var(--absent); }
tr.totals > * { border-top: 2px solid var(--ink); font-weight: 700; }
details > summary { cursor: pointer; list-style-position: inside; }
details[open] > summary { margin-bottom: 6px; }
.item { margin: 6px 0 10px; }
.item .sname { font-weight: 600; word-break: break-word; }
.sname a { color: inherit; }
.kinds { color: var(--muted); font-size: 12px; }
pre.msg { margin: 4px 0 0; padding: 8px 10px; background: #fff; border: 1px solid var(--line); border-radius: 4px; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; white-space: pre-wrap; word-break: break-word; max-height: 420px; overflow: auto; }
pre.msg .add { color: #0b6b2c; background: #dff5e4; display: inline-block; width: 100%; }
pre.msg .del { color: #a0161b; background: #fde2e1; display: inline-block; width: 100%; }
pre.msg .hunk { color: #5a3fc0; }
pre.msg .hdr { color: var(--muted); font-weight: 600; }
ul.skips { margin: 4px 0 0; padding-left: 18px; }
ul.skips li { margin: 2px 0; }
ul.skips .reason { color: var(--muted); }
.filter { margin: 4px 0 10px; color: var(--muted); }
body:has(#only-problems:checked) table.scenarios tr.all-ok { display: none; }
table.scenarios td.sname { max-width: 560px; word-break: break-word; }
table.scenarios td.sec { white-space: nowrap; color: var(--muted); }
table.scenarios td.st { white-space: nowrap; font-weight: 600; }
table.scenarios td.st.pass { color: var(--pass); } table.scenarios td.st.fail { color: var(--fail); }
table.scenarios td.st.skip { color: var(--skip); }
table.scenarios td.st .kinds { display: block; font-weight: normal; white-space: normal; }
table.scenarios tbody tr:hover > * { filter: brightness(0.97); }
.empty { color: var(--muted); font-style: italic; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .03em; }
.badge.pinned { background: #e4e0fb; color: #3d2a9c; } .badge.lenient { background: #dcefff; color: #0b4f8a; }
.reason { color: var(--muted); font-size: 12px; }
.step { color: var(--muted); font-size: 12px; margin: 2px 0; } .step code { color: var(--ink); }
.headline { margin: 2px 0; word-break: break-word; }
.mm { display: grid; grid-template-columns: minmax(80px, auto) 1fr 1fr; gap: 2px 10px; margin: 4px 0; padding: 6px 8px; background: #fff; border: 1px solid var(--line); border-radius: 4px; font-size: 12px; }
.mm .h { color: var(--muted); font-weight: 600; }
.mm code { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; word-break: break-all; }
.mm .exp { color: #a0161b; } .mm .act { color: #0b6b2c; } .mm .none { color: var(--absent); font-style: italic; }
.mm .more { grid-column: 1 / -1; color: var(--muted); }
"#;

/// Renders `reports` (one column per report, in the given order) as one HTML page.
pub fn render(reports: &[RunReport]) -> String {
    render_all(reports, None, None)
}

/// Renders `reports` as [`render`] does, with a release-history section (`history -o`) after
/// the section matrix when `history` is given.
pub fn render_with_history(reports: &[RunReport], history: Option<&History>) -> String {
    render_all(reports, history, None)
}

/// [`render`], with a SPEC clause coverage section (from `coverage --format json`) after
/// the scenario table when `coverage` is given.
pub fn render_with_coverage(reports: &[RunReport], coverage: Option<&CoverageReport>) -> String {
    render_all(reports, None, coverage)
}

/// The page with every optional section that is given.
pub fn render_all(
    reports: &[RunReport],
    history: Option<&History>,
    coverage: Option<&CoverageReport>,
) -> String {
    let spec = spec_label(reports);
    let sections = sections_of(reports);
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(
        out,
        "<title>toolnexus conformance — SPEC {}</title>",
        esc(&spec)
    );
    let _ = writeln!(out, "<style>{STYLE}</style>\n</head>\n<body>");
    let _ = writeln!(out, "<h1>toolnexus conformance — SPEC {}</h1>", esc(&spec));
    let scenario_count = scenario_names(reports).len();
    let _ = writeln!(
        out,
        "<p class=\"meta\">{} port{} · {} scenario{} · {} SPEC section{}</p>",
        reports.len(),
        plural(reports.len()),
        scenario_count,
        plural(scenario_count),
        sections.len(),
        plural(sections.len())
    );
    // What judged the reports, once per distinct harness (reports may come from several).
    let judged: std::collections::BTreeSet<String> = reports
        .iter()
        .filter_map(|r| r.harness.as_ref().map(|h| h.line()))
        .collect();
    if !judged.is_empty() {
        let lines: Vec<String> = judged.iter().map(|l| esc(l)).collect();
        let _ = writeln!(
            out,
            "<p class=\"meta\">judged by toolnexus-conformance {}</p>",
            lines.join("; ")
        );
    }
    out.push_str(LEGEND);
    if reports.is_empty() {
        out.push_str("<p class=\"empty\">No reports.</p>\n");
    } else {
        matrix(&mut out, reports, &sections);
        if let Some(h) = history {
            history_section(&mut out, h, &scenario_anchors(reports));
        }
        scenario_table(&mut out, reports);
    }
    if let Some(c) = coverage {
        coverage_section(&mut out, c);
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// A page holding only the clause coverage section (`coverage -o FILE.html`).
pub fn render_coverage(c: &CoverageReport) -> String {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(
        out,
        "<title>toolnexus SPEC {} clause coverage</title>\n<style>{STYLE}</style>\n</head>\n<body>",
        esc(&c.spec)
    );
    let _ = writeln!(
        out,
        "<h1>toolnexus SPEC {} clause coverage</h1>",
        esc(&c.spec)
    );
    coverage_section(&mut out, c);
    out.push_str("</body>\n</html>\n");
    out
}

/// The clause coverage section: counts per SPEC section, then the uncovered observable
/// clauses (a missing reason flagged), then, for a `--port` report, the clauses it fails.
fn coverage_section(out: &mut String, c: &CoverageReport) {
    let port = c.port.as_deref();
    let _ = writeln!(
        out,
        "<h2 id=\"coverage\">SPEC clause coverage</h2>\n<p class=\"meta\">{} · {} clause{} · SPEC {}{}</p>",
        esc(&c.index),
        c.clauses.len(),
        plural(c.clauses.len()),
        esc(&c.spec),
        port.map(|p| format!(" · port {}", esc(p))).unwrap_or_default()
    );
    out.push_str("<table class=\"coverage\">\n<thead><tr><th>SPEC section</th><th>covered</th><th>partly covered</th><th>uncovered</th><th>language-specific</th><th>unobservable</th>");
    if port.is_some() {
        out.push_str("<th>port: clauses passed / failed / skipped</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in c.sections.iter().chain(std::iter::once(&c.total)) {
        let (class, label) = if row.section == "total" {
            (" class=\"totals\"", "Total".to_string())
        } else {
            ("", section_label(&row.section))
        };
        let state = if row.uncovered > 0 {
            "fail"
        } else if row.partial > 0 {
            "partial"
        } else {
            "pass"
        };
        let _ = write!(
            out,
            "<tr{class} data-section=\"{}\"><th class=\"section\">{}</th><td class=\"{state}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            esc(&row.section),
            esc(&label),
            row.covered,
            row.partial,
            row.uncovered,
            row.language_specific,
            row.unobservable
        );
        if let Some(p) = row.port {
            let _ = write!(
                out,
                "<td class=\"counts\"><span class=\"p\">{}</span> / <span class=\"f\">{}</span> / <span class=\"s\">{}</span></td>",
                p.passed, p.failed, p.skipped
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    let _ = writeln!(
        out,
        "<h2>Uncovered observable clauses ({})</h2>",
        c.uncovered.len()
    );
    if c.uncovered.is_empty() {
        out.push_str("<p class=\"empty\">None.</p>\n");
    } else {
        out.push_str("<ul class=\"skips uncovered\">\n");
        for u in &c.uncovered {
            let reason = match &u.reason {
                Some(r) => format!("<span class=\"reason\">{}</span>", esc(r)),
                None => {
                    "<b class=\"counts\"><span class=\"f\">no reason given</span></b>".to_string()
                }
            };
            let _ = writeln!(
                out,
                "<li><code>{}</code> “{}” — {reason}</li>",
                esc(&u.id),
                esc(&u.quote)
            );
        }
        out.push_str("</ul>\n");
    }
    if port.is_some() {
        let failed: Vec<_> = c
            .clauses
            .iter()
            .filter(|x| x.port == Some(Status::Failed))
            .collect();
        let _ = writeln!(out, "<h2>Clauses the port fails ({})</h2>", failed.len());
        out.push_str("<ul class=\"skips\">\n");
        for x in failed {
            let names: Vec<String> = x.scenarios.iter().map(|s| esc(&s.name)).collect();
            let _ = writeln!(
                out,
                "<li><code>{}</code> “{}” <span class=\"reason\">{}</span></li>",
                esc(&x.id),
                esc(&truncate(&x.quote, VALUE_MAX)),
                names.join("; ")
            );
        }
        out.push_str("</ul>\n");
    }
}

const LEGEND: &str = "<div class=\"legend\">\
<span><i style=\"background:var(--pass-bg)\"></i>all passed</span>\
<span><i style=\"background:var(--part-bg)\"></i>passed, some skipped</span>\
<span><i style=\"background:var(--fail-bg)\"></i>some failed</span>\
<span><i style=\"background:var(--xfail-bg)\"></i>only known failures (xfail: listed in the port's expected-failures file)</span>\
<span><i style=\"background:var(--mostly-skip-bg)\"></i>mostly skipped (under half of the scenarios ran)</span>\
<span><i style=\"background:var(--skip-bg)\"></i>all skipped</span>\
<span><i style=\"background:var(--absent-bg)\"></i>not run</span>\
<span><i style=\"background:var(--beyond-bg)\"></i>failed beyond the SPEC or seed-only (@beyond-spec, @seed-only; not counted without --strict)</span>\
<span>counts: <b class=\"counts\"><span class=\"p\">passed</span> / <span class=\"f\">failed</span> / <span class=\"s\">skipped</span> + <span class=\"x\">xfail</span></b>; executed: the share that ran (not skipped); click a cell for failures and skips</span>\
</div>\n";

fn matrix(out: &mut String, reports: &[RunReport], sections: &[String]) {
    let specs: BTreeSet<&str> = reports.iter().map(|r| r.spec.as_str()).collect();
    let anchors = scenario_anchors(reports);
    out.push_str("<h2>SPEC sections × ports</h2>\n<table class=\"matrix\" id=\"matrix\">\n<thead><tr><th>SPEC section</th>");
    for r in reports {
        port_header(out, r, specs.len() > 1);
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for section in sections {
        let _ = write!(
            out,
            "<tr class=\"section-row\" data-section=\"{s}\"><th class=\"section\">{label}</th>",
            s = esc(section),
            label = esc(&section_heading(section))
        );
        for (i, r) in reports.iter().enumerate() {
            let results: Vec<&ScenarioResult> = sorted_by_name(
                r.scenarios
                    .iter()
                    .filter(|s| &s.section == section && !s.apart())
                    .collect(),
            );
            cell(out, section, i, &results, &anchors, false);
        }
        out.push_str("</tr>\n");
    }
    // Beyond-SPEC and seed-only scenarios are rows of their own: their outcomes are not the
    // SPEC's, and a failure there is not a port failure unless the run was `--strict`.
    apart_row(
        out,
        reports,
        &anchors,
        (
            "beyond-spec",
            "beyond the SPEC",
            "scenarios tagged @beyond-spec: what the reference does where the SPEC says nothing",
        ),
        &|s| s.beyond_spec,
    );
    apart_row(
        out,
        reports,
        &anchors,
        (
            "seed-only",
            "seed-only",
            "scenarios tagged @seed-only: a seed page's promise that the SPEC does not state",
        ),
        &|s| s.apart() && !s.beyond_spec,
    );
    out.push_str("<tr class=\"totals\"><th class=\"section\">Total</th>");
    for (i, r) in reports.iter().enumerate() {
        let c = count(r.scenarios.iter().filter(|s| !s.apart()));
        let _ = write!(
            out,
            "<td class=\"cell {state}\" data-port=\"{i}\">{counts}{executed}</td>",
            state = state(&c),
            counts = counts_html(&c),
            executed = executed_html(&c)
        );
    }
    out.push_str("</tr>\n</tbody>\n</table>\n");
}

/// The test262-style release matrix: totals per release, then each scenario whose outcome
/// changed, with its outcome per release and the first release where it changed.
fn history_section(out: &mut String, h: &History, anchors: &BTreeMap<&str, usize>) {
    let _ = writeln!(
        out,
        "<h2 id=\"history\">Release history — {}</h2>\n<table class=\"matrix history\">\n<thead><tr><th>Release</th>",
        esc(&h.port)
    );
    for r in &h.releases {
        let spec = r
            .port_spec
            .as_ref()
            .map_or(String::new(), |s| format!("SPEC {}", esc(s)));
        let _ = write!(
            out,
            "<th class=\"port\"><span class=\"pname\">{}</span><span class=\"pinfo\">{spec}</span></th>",
            esc(&r.version)
        );
    }
    out.push_str("<th>First change</th></tr>\n</thead>\n<tbody>\n<tr class=\"totals\"><th class=\"section\">Total</th>");
    for r in &h.releases {
        match (&r.summary, &r.setup_failed) {
            (Some(c), _) => {
                let _ = write!(
                    out,
                    "<td class=\"cell {}\">{}</td>",
                    state(c),
                    counts_html(c)
                );
            }
            (None, reason) => {
                let _ = write!(
                    out,
                    "<td class=\"cell absent\">setup failed: {}</td>",
                    esc(reason.as_deref().unwrap_or("did not run"))
                );
            }
        }
    }
    out.push_str("<td></td></tr>\n");
    for c in &h.changed {
        let _ = write!(
            out,
            "<tr><th class=\"sname\">{} <span class=\"reason\">{}</span></th>",
            linked_name(&c.name, anchors),
            esc(&section_label(&c.section))
        );
        for o in &c.outcomes {
            let (class, mark) = match o {
                Some(Outcome::Passed) => ("pass", "passed"),
                Some(Outcome::Failed) => ("fail", "failed"),
                Some(Outcome::Skipped) => ("skip", "skipped"),
                Some(Outcome::NotRun) => ("absent", "not run"),
                None => ("absent", "—"),
            };
            let _ = write!(out, "<td class=\"cell {class}\">{mark}</td>");
        }
        let _ = writeln!(out, "<td>{}</td></tr>", esc(&c.first_change));
    }
    out.push_str("</tbody>\n</table>\n");
    if h.changed.is_empty() {
        out.push_str(
            "<p class=\"empty\">No scenario's outcome changed across these releases.</p>\n",
        );
    }
    if let Some(after) = &h.after_history {
        after_history_table(out, after, h);
    }
}

/// Where the clauses newer than the SPEC history first hold: one row per stored arrival and
/// reading, with the ids of each group that does not simply confirm its arrival.
fn after_history_table(out: &mut String, after: &AfterHistory, h: &History) {
    let versions: Vec<String> = h.releases.iter().map(|r| r.version.clone()).collect();
    let _ = writeln!(
        out,
        "<h3>Clauses newer than SPEC {}: the first release from which every in-scope scenario \
         tagging each passes, through the last release</h3>\n<table class=\"matrix\">\n\
         <thead><tr><th>Arrived</th><th>Holds from</th><th>Clauses</th><th>Ids</th></tr></thead>\n<tbody>",
        esc(&after.last_text)
    );
    for g in clause_releases::groups(after, &versions) {
        let confirms = matches!((g.holds, g.arrived), (Holds::From(f), Some(a)) if f == a);
        let ids = if confirms {
            String::new()
        } else {
            esc(&g.ids.join(", "))
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{ids}</td></tr>",
            esc(g.arrived.unwrap_or("unplaced")),
            esc(&g.holds.label()),
            g.ids.len()
        );
    }
    out.push_str("</tbody>\n</table>\n");
}

fn port_header(out: &mut String, r: &RunReport, show_spec: bool) {
    let spec = if show_spec {
        format!(" · SPEC {}", esc(&r.spec))
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<th class=\"port\"><span class=\"pname\">{}</span><span class=\"pinfo\">{} {}{spec}</span></th>",
        esc(&r.port.name),
        esc(&r.port.language),
        esc(&r.port.version)
    );
}

/// A matrix row of a group counted apart (`(key, label, title)`), when any port ran one.
fn apart_row(
    out: &mut String,
    reports: &[RunReport],
    anchors: &BTreeMap<&str, usize>,
    (key, label, title): (&str, &str, &str),
    member: &dyn Fn(&ScenarioResult) -> bool,
) {
    if !reports.iter().any(|r| r.scenarios.iter().any(member)) {
        return;
    }
    let _ = write!(
        out,
        "<tr class=\"section-row beyond-row\" data-section=\"{key}\"><th class=\"section\" title=\"{}\">{label}</th>",
        esc(title)
    );
    for (i, r) in reports.iter().enumerate() {
        let results: Vec<&ScenarioResult> =
            sorted_by_name(r.scenarios.iter().filter(|s| member(s)).collect());
        cell(out, key, i, &results, anchors, !r.strict);
    }
    out.push_str("</tr>\n");
}

fn cell(
    out: &mut String,
    section: &str,
    port: usize,
    results: &[&ScenarioResult],
    anchors: &BTreeMap<&str, usize>,
    soft_failures: bool,
) {
    let c = count(results.iter().copied());
    let st = match state(&c) {
        "fail" if soft_failures => "beyond-fail",
        st => st,
    };
    let _ = write!(
        out,
        "<td class=\"cell {st}\" data-section=\"{s}\" data-port=\"{port}\">",
        s = esc(section)
    );
    if c.passed + c.failed + c.skipped + c.xfail == 0 {
        out.push_str("<span class=\"counts z\">not run</span></td>");
        return;
    }
    if c.failed + c.skipped + c.xfail == 0 {
        let _ = write!(out, "{}</td>", counts_html(&c));
        return;
    }
    let _ = write!(out, "<details><summary>{}</summary>", counts_html(&c));
    for r in results.iter().filter(|r| r.status == Status::Failed) {
        let reason = r
            .beyond_spec_reason
            .as_deref()
            .map(|w| format!("<div class=\"reason\">{}</div>", esc(w)))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<div class=\"item {}\"><div class=\"sname\">{}</div>{reason}{}</div>",
            if r.known { "xfail" } else { "fail" },
            linked_name(&r.name, anchors),
            failure_html(r)
        );
    }
    let skipped: Vec<&&ScenarioResult> = results
        .iter()
        .filter(|r| r.status == Status::Skipped)
        .collect();
    if !skipped.is_empty() {
        out.push_str("<div class=\"kinds\">skipped:</div><ul class=\"skips\">");
        for r in skipped {
            let _ = write!(
                out,
                "<li><span class=\"sname\">{}</span> — <span class=\"reason\">{}</span></li>",
                linked_name(&r.name, anchors),
                esc(&r.message)
            );
        }
        out.push_str("</ul>");
    }
    out.push_str("</details></td>");
}

fn scenario_table(out: &mut String, reports: &[RunReport]) {
    let names = scenario_names(reports);
    let anchors = scenario_anchors(reports);
    out.push_str("<h2>Scenarios × ports</h2>\n");
    out.push_str("<div class=\"filter\"><label><input type=\"checkbox\" id=\"only-problems\"> only scenarios that fail or skip on some port</label></div>\n");
    out.push_str(
        "<table class=\"scenarios\" id=\"scenarios\">\n<thead><tr><th>Scenario</th><th>§</th>",
    );
    for r in reports {
        port_header(out, r, false);
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let lookup: Vec<BTreeMap<&str, &ScenarioResult>> = reports
        .iter()
        .map(|r| r.scenarios.iter().map(|s| (s.name.as_str(), s)).collect())
        .collect();
    for name in names {
        let found: Vec<Option<&ScenarioResult>> =
            lookup.iter().map(|m| m.get(name).copied()).collect();
        let section = found
            .iter()
            .flatten()
            .map(|s| s.section.as_str())
            .next()
            .unwrap_or("");
        let all_ok = found
            .iter()
            .all(|s| matches!(s, Some(s) if s.status == Status::Passed));
        let id = anchors.get(name).copied().unwrap_or(0);
        let beyond = found
            .iter()
            .flatten()
            .find(|s| s.apart())
            .map(|s| match &s.beyond_spec_reason {
                Some(why) if s.beyond_spec => format!(
                    " <span class=\"badge beyond\" title=\"{}\">beyond the SPEC</span>",
                    esc(why)
                ),
                _ => " <span class=\"badge beyond\" title=\"a seed page's promise the SPEC does not state\">seed-only</span>".to_string(),
            })
            .unwrap_or_default();
        let _ = write!(
            out,
            "<tr id=\"s-{id}\" class=\"{}\"><td class=\"sname\">{}{beyond}</td><td class=\"sec\">{}</td>",
            if all_ok { "all-ok" } else { "problem" },
            esc(name),
            esc(&section_label(section))
        );
        for s in found {
            match s {
                None => out.push_str("<td class=\"st absent\" title=\"not run\">—</td>"),
                Some(s) => {
                    let (class, text) = match s.status {
                        Status::Passed => ("pass", "✓ passed"),
                        Status::Failed if s.known => ("xfail", "✗ xfail (known)"),
                        Status::Failed => ("fail", "✗ failed"),
                        Status::Skipped => ("skip", "– skipped"),
                    };
                    let title = if s.message.is_empty() {
                        "passed".to_string()
                    } else {
                        truncate(&s.message, TOOLTIP_MAX)
                    };
                    let kinds = match (&s.status, &s.failure) {
                        (Status::Failed, Some(f)) => broken_kind_html(&f.kind),
                        (Status::Failed, None) => String::new(),
                        _ => kinds_html(&s.expectations),
                    };
                    let _ = write!(
                        out,
                        "<td class=\"st {class}\" title=\"{}\">{text}{kinds}</td>",
                        esc(&title)
                    );
                }
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

fn kinds_html(kinds: &[String]) -> String {
    if kinds.is_empty() {
        return String::new();
    }
    let list: Vec<String> = kinds.iter().map(|k| esc(k)).collect();
    format!("<span class=\"kinds\">{}</span>", list.join(", "))
}

/// The kind of expectation a failure broke, as a badge (`broke: PINNED`); nothing when the
/// failure broke no expectation.
fn broken_kind_html(kind: &ExpectationKind) -> String {
    match kind {
        ExpectationKind::Pinned => {
            "<span class=\"kinds\">broke: <span class=\"badge pinned\">pinned</span></span>"
                .to_string()
        }
        ExpectationKind::Lenient { reason } => format!(
            "<span class=\"kinds\">broke: <span class=\"badge lenient\">lenient</span> \
             <span class=\"reason\">({})</span></span>",
            esc(reason)
        ),
        ExpectationKind::Other => String::new(),
    }
}

/// A failure's drill-down from its data: kind badge, step, a path / expected / actual row per
/// mismatch, the coloured diff and notes. A result read from a report written before
/// failures were data shows its message as plain text.
fn failure_html(r: &ScenarioResult) -> String {
    let Some(f) = &r.failure else {
        return format!("<pre class=\"msg\">{}</pre>", esc(&r.message));
    };
    let mut out = broken_kind_html(&f.kind);
    if let Some(step) = &f.step {
        let _ = write!(
            out,
            "<div class=\"step\">step <code>{}</code></div>",
            esc(step)
        );
    }
    // Whole-text mismatches have no path: the headline and the diff say it better.
    let located: Vec<&Mismatch> = f.mismatches.iter().filter(|m| !m.path.is_empty()).collect();
    if located.is_empty() {
        let _ = write!(out, "<div class=\"headline\">{}</div>", esc(&f.message));
    } else {
        mismatch_table(&mut out, &located);
    }
    if let Some(diff) = &f.diff {
        let _ = write!(out, "<pre class=\"msg diff\">{}</pre>", diff_html(diff));
    }
    if !f.notes.is_empty() {
        let _ = write!(out, "<pre class=\"msg\">{}</pre>", esc(&f.notes.join("\n")));
    }
    out
}

/// One row per mismatch: path, expected, actual. A grid of spans, not a table: the report
/// sits inside table cells, and cells are found by their first `</td>`.
fn mismatch_table(out: &mut String, mismatches: &[&Mismatch]) {
    out.push_str(
        "<div class=\"mm\"><span class=\"h\">path</span><span class=\"h\">expected</span><span class=\"h\">actual</span>",
    );
    for m in mismatches.iter().take(MISMATCH_ROWS) {
        let (expected, actual) = match m.problem {
            Problem::Length => (
                format!("{} items", value_text(m.expected.as_ref())),
                format!("{} items", value_text(m.actual.as_ref())),
            ),
            _ => (
                value_text(m.expected.as_ref()),
                value_text(m.actual.as_ref()),
            ),
        };
        let side = |class: &str, text: String, absent: &str, present: bool| {
            if present {
                format!("<code class=\"{class}\">{}</code>", esc(&text))
            } else {
                format!("<span class=\"{class} none\">{absent}</span>")
            }
        };
        let actual_cell = match (&m.problem, &m.detail) {
            (Problem::BadExpectation, Some(detail)) => {
                format!("<span class=\"act none\">{}</span>", esc(detail))
            }
            _ => side("act", actual, "missing", m.actual.is_some()),
        };
        let _ = write!(
            out,
            "<code class=\"path\">{}</code>{}{}",
            esc(&m.path),
            side("exp", expected, "not expected", m.expected.is_some()),
            actual_cell
        );
    }
    if mismatches.len() > MISMATCH_ROWS {
        let _ = write!(
            out,
            "<span class=\"more\">… and {} more (see the diff)</span>",
            mismatches.len() - MISMATCH_ROWS
        );
    }
    out.push_str("</div>");
}

/// A value as compact JSON, shortened for a grid cell.
fn value_text(v: Option<&Value>) -> String {
    v.map(|v| truncate(&v.to_string(), VALUE_MAX))
        .unwrap_or_default()
}

fn linked_name(name: &str, anchors: &BTreeMap<&str, usize>) -> String {
    match anchors.get(name) {
        Some(i) => format!("<a href=\"#s-{i}\">{}</a>", esc(name)),
        None => esc(name),
    }
}

fn counts_html(c: &Counts) -> String {
    let part = |n: usize, class: &str| {
        if n == 0 {
            format!("<span class=\"z\">{n}</span>")
        } else {
            format!("<span class=\"{class}\">{n}</span>")
        }
    };
    let xfail = if c.xfail > 0 {
        format!(" + <span class=\"x\">{} xfail</span>", c.xfail)
    } else {
        String::new()
    };
    format!(
        "<span class=\"counts\" title=\"passed / failed / skipped + known failures\">{} / {} / {}{xfail}</span>",
        part(c.passed, "p"),
        part(c.failed, "f"),
        part(c.skipped, "s")
    )
}

/// The share of scenarios that ran (passed, failed or known failure) rather than skipped,
/// so a mostly-skipped port does not read as a pass.
fn executed_html(c: &Counts) -> String {
    let executed = c.passed + c.failed + c.xfail;
    let all = executed + c.skipped;
    if all == 0 {
        return String::new();
    }
    format!(
        "<span class=\"executed\" title=\"scenarios that ran, not skipped\">executed {}% ({executed} of {all})</span>",
        executed * 100 / all
    )
}

/// A unified diff as HTML, every line escaped and coloured by its role.
fn diff_html(diff: &str) -> String {
    let mut out = String::new();
    for (i, line) in diff.lines().enumerate() {
        let class = if i < 2 && (line.starts_with("--- ") || line.starts_with("+++ ")) {
            Some("hdr")
        } else if line.starts_with("@@") {
            Some("hunk")
        } else if line.starts_with('+') {
            Some("add")
        } else if line.starts_with('-') {
            Some("del")
        } else {
            None
        };
        if i > 0 {
            out.push('\n');
        }
        match class {
            Some(c) => {
                let _ = write!(out, "<span class=\"{c}\">{}</span>", esc(line));
            }
            None => out.push_str(&esc(line)),
        }
    }
    out
}

fn count<'a>(results: impl Iterator<Item = &'a ScenarioResult>) -> Counts {
    let mut c = Counts::default();
    for r in results {
        match r.status {
            Status::Passed => c.passed += 1,
            Status::Failed if r.known => c.xfail += 1,
            Status::Failed => c.failed += 1,
            Status::Skipped => c.skipped += 1,
        }
    }
    c
}

/// A cell's colour class: any failure is `fail`; only known failures besides passes and
/// skips is `xfail`; more skipped than run is `mostly-skip`, never the green of a pass.
fn state(c: &Counts) -> &'static str {
    let executed = c.passed + c.xfail;
    if c.failed > 0 {
        "fail"
    } else if executed + c.skipped == 0 {
        "absent"
    } else if executed == 0 {
        "skip"
    } else if c.skipped > executed {
        "mostly-skip"
    } else if c.xfail > 0 {
        "xfail"
    } else if c.skipped > 0 {
        "partial"
    } else {
        "pass"
    }
}

fn sorted_by_name(mut v: Vec<&ScenarioResult>) -> Vec<&ScenarioResult> {
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// Every scenario name across the reports, sorted.
fn scenario_names(reports: &[RunReport]) -> BTreeSet<&str> {
    reports
        .iter()
        .flat_map(|r| r.scenarios.iter().map(|s| s.name.as_str()))
        .collect()
}

/// A stable row id per scenario name (its position in name order).
fn scenario_anchors(reports: &[RunReport]) -> BTreeMap<&str, usize> {
    scenario_names(reports)
        .into_iter()
        .enumerate()
        .map(|(i, n)| (n, i))
        .collect()
}

/// Every section any report mentions, in natural order.
fn sections_of(reports: &[RunReport]) -> Vec<String> {
    let mut set: BTreeSet<&str> = BTreeSet::new();
    for r in reports {
        // A section whose only scenarios are beyond the SPEC or seed-only has no row: they have
        // theirs.
        set.extend(
            r.sections
                .iter()
                .filter(|(_, c)| c.passed + c.failed + c.skipped > 0)
                .map(|(k, _)| k.as_str()),
        );
        set.extend(
            r.scenarios
                .iter()
                .filter(|s| !s.apart())
                .map(|s| s.section.as_str()),
        );
    }
    let mut v: Vec<String> = set.into_iter().map(str::to_string).collect();
    v.sort_by(|a, b| cmp_sections(a, b));
    v
}

fn section_label(section: &str) -> String {
    if section.starts_with(|c: char| c.is_ascii_digit()) {
        format!("§{section}")
    } else {
        section.to_string()
    }
}

/// A matrix row header: `§7B A2A inbound`, or the bare label for a section the SPEC lacks.
fn section_heading(section: &str) -> String {
    match sections::title(section) {
        Some(t) => format!("{} {t}", section_label(section)),
        None => section_label(section),
    }
}

fn spec_label(reports: &[RunReport]) -> String {
    let specs: BTreeSet<&str> = reports.iter().map(|r| r.spec.as_str()).collect();
    if specs.is_empty() {
        "(no reports)".to_string()
    } else {
        specs.into_iter().collect::<Vec<_>>().join(" / ")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Escapes text for HTML element content and quoted attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::failure::Failure;

    fn result(name: &str, section: &str, status: Status, message: &str) -> ScenarioResult {
        ScenarioResult {
            meta: Default::default(),
            name: name.to_string(),
            section: section.to_string(),
            status,
            message: message.to_string(),
            failure: (status == Status::Failed).then(|| Failure::other(message)),
            expectations: vec!["pinned".to_string()],
            beyond_spec: false,
            beyond_spec_reason: None,
            preview: false,
            known: false,
        }
    }

    /// A pinned failure as `expect_json` gives it, in a step, with its report message.
    fn pinned_failure(name: &str, section: &str) -> ScenarioResult {
        let failure = crate::compare::expect::expect_json(
            &serde_json::json!({"tools": ["a", "b"]}),
            &serde_json::json!({"tools": ["a", "c"]}),
        )
        .expect_err("differs")
        .in_step("Then x");
        ScenarioResult {
            message: failure.report_text(),
            failure: Some(failure),
            ..result(name, section, Status::Failed, "")
        }
    }

    /// Built through serde, so fields other engineers add with defaults need no change here.
    fn report(port: &str, scenarios: Vec<ScenarioResult>) -> RunReport {
        let mut sections: BTreeMap<String, Counts> = BTreeMap::new();
        for s in &scenarios {
            let c = sections.entry(s.section.clone()).or_default();
            match s.status {
                Status::Passed => c.passed += 1,
                Status::Failed => c.failed += 1,
                Status::Skipped => c.skipped += 1,
            }
        }
        serde_json::from_value(serde_json::json!({
            "port": {"name": port, "language": "rust", "version": "0.1.0"},
            "spec": "0.16.0",
            "summary": count(scenarios.iter()),
            "sections": sections,
            "scenarios": scenarios,
        }))
        .expect("a valid report")
    }

    /// The text of the matrix cell for `section` and port index `port`.
    fn cell_of<'a>(html: &'a str, section: &str, port: usize) -> &'a str {
        let open = format!("data-section=\"{section}\" data-port=\"{port}\">");
        let at = html.find(&open).expect("cell present");
        let start = html[..at].rfind("<td").expect("cell opened");
        let end = start + html[start..].find("</td>").expect("cell closed");
        &html[start..end]
    }

    #[test]
    fn untrusted_text_is_escaped() {
        let evil = "x <script>alert('\"&')</script>";
        let r = report(
            "<b>port</b>",
            vec![
                result(evil, "3", Status::Failed, "boom <script>alert(1)</script>"),
                result("ok", "<img src=x onerror=alert(1)>", Status::Passed, ""),
            ],
        );
        let html = render(&[r]);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<img"));
        assert!(!html.contains("<b>port"));
        assert!(html.contains("x &lt;script&gt;alert(&#39;&quot;&amp;&#39;)&lt;/script&gt;"));
        assert!(html.contains("&lt;b&gt;port&lt;/b&gt;"));
    }

    #[test]
    fn sections_sort_naturally() {
        let mut v: Vec<&str> = vec![
            "10", "4A", "untagged", "7A", "2", "0", "4", "7", "1", "3", "5", "6", "11",
        ];
        v.sort_by(|a, b| cmp_sections(a, b));
        assert_eq!(
            v,
            ["0", "1", "2", "3", "4", "4A", "5", "6", "7", "7A", "10", "11", "untagged"]
        );
        let scenarios = ["10", "4A", "4", "0", "7A", "2"]
            .iter()
            .map(|s| result(&format!("s{s}"), s, Status::Passed, ""))
            .collect();
        let html = render(&[report("reference", scenarios)]);
        let positions: Vec<usize> = ["0", "2", "4", "4A", "7A", "10"]
            .iter()
            .map(|s| {
                html.find(&format!("<tr class=\"section-row\" data-section=\"{s}\">"))
                    .expect("row present")
            })
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    }

    #[test]
    fn a_failure_lands_in_its_own_cell_details() {
        let good = report(
            "reference",
            vec![
                result("core: one", "0", Status::Passed, ""),
                result("skills: two", "3", Status::Passed, ""),
            ],
        );
        let bad = report(
            "broken",
            vec![
                result("core: one", "0", Status::Passed, ""),
                pinned_failure("skills: two", "3"),
                result(
                    "skills: three",
                    "3",
                    Status::Skipped,
                    "port does not implement",
                ),
            ],
        );
        let html = render(&[good, bad]);
        let cell = cell_of(&html, "3", 1);
        assert!(cell.contains("class=\"cell fail\""), "{cell}");
        let details = &cell[cell.find("<details>").expect("details")..];
        assert!(details.contains("skills: two"));
        assert!(details.contains("broke: <span class=\"badge pinned\">pinned</span>"));
        assert!(details.contains("step <code>Then x</code>"));
        // The mismatch as a row of data: path, expected, actual.
        assert!(
            details.contains(
                "<code class=\"path\">$.tools[1]</code><code class=\"exp\">&quot;b&quot;</code>\
                 <code class=\"act\">&quot;c&quot;</code>"
            ),
            "{details}"
        );
        assert!(details.contains("<span class=\"del\">-    &quot;b&quot;</span>"));
        assert!(details.contains("<span class=\"add\">+    &quot;c&quot;</span>"));
        assert!(details.contains("<span class=\"hdr\">--- expected</span>"));
        assert!(details.contains("skills: three"));
        assert!(details.contains("port does not implement"));
        for (section, port) in [("3", 0), ("0", 0), ("0", 1)] {
            let other = cell_of(&html, section, port);
            assert!(!other.contains("skills: two"), "{section}/{port}: {other}");
            assert!(!other.contains("<details"));
        }
        // One scenario row per name, in name order, with the failure's tooltip.
        let a = html.find(">core: one</td>").expect("row");
        let b = html.find(">skills: three</td>").expect("row");
        let c = html.find(">skills: two</td>").expect("row");
        assert!(a < b && b < c);
        assert!(html.contains("title=\"step `Then x`: [pinned] $.tools[1]: expected &quot;b&quot;"));
    }

    #[test]
    fn beyond_spec_scenarios_have_their_own_row_and_soft_failures() {
        let beyond = |name: &str, status| ScenarioResult {
            beyond_spec: true,
            beyond_spec_reason: Some("Beyond the SPEC: grep's file order".into()),
            preview: false,
            ..result(name, "4A", status, "order differs")
        };
        let loose = report(
            "loose",
            vec![
                result("builtins: one", "4A", Status::Passed, ""),
                beyond("grep: sorted", Status::Failed),
            ],
        );
        let mut strict = loose.clone();
        strict.port.name = "strict".into();
        strict.strict = true;
        let html = render(&[loose, strict]);
        // The section counts only the SPEC's scenario; the beyond row has the failure.
        assert!(cell_of(&html, "4A", 0).contains("cell pass"), "{html}");
        let soft = cell_of(&html, "beyond-spec", 0);
        assert!(soft.contains("cell beyond-fail"), "{soft}");
        assert!(soft.contains("grep&#39;s file order"), "{soft}");
        assert!(cell_of(&html, "beyond-spec", 1).contains("cell fail"));
        assert!(html.contains("badge beyond"));
    }

    #[test]
    fn a_section_one_port_lacks_is_marked_absent_and_output_is_deterministic() {
        let a = report("a", vec![result("s", "5", Status::Passed, "")]);
        let b = report("b", vec![result("t", "6", Status::Skipped, "nope")]);
        let html = render(&[a.clone(), b.clone()]);
        assert!(cell_of(&html, "6", 0).contains("absent"));
        assert!(cell_of(&html, "6", 1).contains("cell skip"));
        assert_eq!(html, render(&[a, b]));
    }

    #[test]
    fn a_lenient_failure_shows_its_reason_and_missing_values() {
        let failure = crate::compare::expect::expect_json(
            &serde_json::json!({"d": {"$contains": "ell"}, "n": 1, "$partial": true}),
            &serde_json::json!({"d": "hullo"}),
        )
        .expect_err("differs");
        let r = ScenarioResult {
            message: failure.report_text(),
            failure: Some(failure),
            ..result("x", "2", Status::Failed, "")
        };
        let html = failure_html(&r);
        assert!(html.contains("<span class=\"badge lenient\">lenient</span> <span class=\"reason\">(contains, partial)</span>"), "{html}");
        assert!(
            html.contains("<code class=\"path\">$.n</code><code class=\"exp\">1</code><span class=\"act none\">missing</span>"),
            "{html}"
        );
        assert!(
            html.contains("<code class=\"exp\">{&quot;$contains&quot;:&quot;ell&quot;}</code>"),
            "{html}"
        );
        assert!(
            !html.contains("class=\"msg diff\""),
            "lenient failures carry no diff"
        );
    }

    #[test]
    fn a_report_without_failure_data_shows_the_message_plainly() {
        let r = ScenarioResult {
            failure: None,
            ..result(
                "x",
                "2",
                Status::Failed,
                "[pinned] old\n--- expected\n+++ actual\n-a",
            )
        };
        let html = failure_html(&r);
        assert_eq!(
            html,
            "<pre class=\"msg\">[pinned] old\n--- expected\n+++ actual\n-a</pre>"
        );
        // And such a report still loads: `failure` is optional in the JSON.
        let old = serde_json::json!({"name": "x", "section": "2", "status": "failed",
            "message": "m", "expectations": []});
        let back: ScenarioResult = serde_json::from_value(old).expect("an older result");
        assert_eq!(back.failure, None);
    }

    #[test]
    fn diff_lines_are_coloured_by_their_role() {
        let html = diff_html("--- expected\n+++ actual\n@@ -1 +1 @@\n-a\n+b\n context\n--- x");
        assert_eq!(
            html,
            "<span class=\"hdr\">--- expected</span>\n<span class=\"hdr\">+++ actual</span>\n\
             <span class=\"hunk\">@@ -1 +1 @@</span>\n<span class=\"del\">-a</span>\n\
             <span class=\"add\">+b</span>\n context\n<span class=\"del\">--- x</span>"
        );
    }

    fn reading(id: &str, arrived: Option<&str>, holds: Holds) -> clause_releases::ClauseReading {
        clause_releases::ClauseReading {
            id: id.into(),
            section: "1".into(),
            arrived: arrived.map(str::to_string),
            scenarios: vec!["s".into()],
            outcomes: vec![],
            holds,
        }
    }

    #[test]
    fn the_history_section_shows_each_changed_scenario_per_release() {
        let old = report("python", vec![result("a <b>", "4A", Status::Failed, "x")]);
        let new = report("python", vec![result("a <b>", "4A", Status::Passed, "")]);
        let runs = vec![
            ("0.16.0".to_string(), Ok(old.clone())),
            ("0.17.0".to_string(), Err("no such <release>".to_string())),
            ("0.18.0".to_string(), Ok(new.clone())),
        ];
        let h = crate::reporting::history::build("python", &runs, &|_, _| true);
        let html = render_with_history(&[old.clone(), new.clone()], Some(&h));
        let start = html.find("<h2 id=\"history\">").expect("history section");
        let end = start + html[start..].find("</table>").expect("table closed");
        let section = &html[start..end];
        assert!(section.contains("Release history — python"), "{section}");
        assert!(
            section.contains("setup failed: no such &lt;release&gt;"),
            "{section}"
        );
        assert!(
            section.contains("a &lt;b&gt;</a> <span class=\"reason\">§4A</span></th><td class=\"cell fail\">failed</td><td class=\"cell absent\">—</td><td class=\"cell pass\">passed</td><td>0.18.0</td>"),
            "{section}"
        );
        assert!(html.find("<h2 id=\"history\">") < html.find("<h2>Scenarios × ports</h2>"));
        assert!(!render(std::slice::from_ref(&old)).contains("id=\"history\""));

        // The clauses newer than the history, grouped; a group holding from its stored
        // arrival lists no ids.
        let mut h = h;
        h.after_history = Some(clause_releases::AfterHistory {
            last_text: "0.16.0".into(),
            clauses: vec![
                reading("1.a.on-time", Some("0.17.0"), Holds::From("0.17.0".into())),
                reading("8B.a.<late>", None, Holds::From("0.18.0".into())),
            ],
            not_observable: vec![],
        });
        let html = render_with_history(&[old, new], Some(&h));
        assert!(
            html.contains("<h3>Clauses newer than SPEC 0.16.0"),
            "{html}"
        );
        assert!(
            html.contains("<tr><td>0.17.0</td><td>0.17.0</td><td>1</td><td></td></tr>"),
            "{html}"
        );
        assert!(
            html.contains(
                "<tr><td>unplaced</td><td>0.18.0</td><td>1</td><td>8B.a.&lt;late&gt;</td></tr>"
            ),
            "{html}"
        );
    }

    #[test]
    fn known_failures_mostly_skipped_ports_and_section_titles_are_marked() {
        let known = ScenarioResult {
            known: true,
            ..result("a2a: known", "7B", Status::Failed, "expected failure")
        };
        let port = report(
            "p",
            vec![
                known,
                result("a2a: ok", "7B", Status::Passed, ""),
                result("core: ok", "0", Status::Passed, ""),
                result("core: s1", "0", Status::Skipped, "unsupported"),
                result("core: s2", "0", Status::Skipped, "unsupported"),
                result("core: s3", "0", Status::Skipped, "unsupported"),
            ],
        );
        let html = render(&[port]);
        assert!(
            html.contains("<th class=\"section\">§7B A2A inbound</th>"),
            "{html}"
        );
        assert!(html.contains("<th class=\"section\">§0 Conformance contract</th>"));
        let xfail = cell_of(&html, "7B", 0);
        assert!(xfail.contains("class=\"cell xfail\""), "{xfail}");
        assert!(
            xfail.contains("<span class=\"x\">1 xfail</span>"),
            "{xfail}"
        );
        assert!(xfail.contains("<div class=\"item xfail\">"), "{xfail}");
        // One of four ran: not the green of a partial pass.
        let skipped = cell_of(&html, "0", 0);
        assert!(skipped.contains("class=\"cell mostly-skip\""), "{skipped}");
        // Totals: 3 of 6 ran (2 passed + 1 xfail), shown as the executed share.
        assert!(
            html.contains("<span class=\"executed\" title=\"scenarios that ran, not skipped\">executed 50% (3 of 6)</span>"),
            "{html}"
        );
        assert!(html.contains("<td class=\"st xfail\""), "{html}");
    }
}
