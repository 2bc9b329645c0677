//! Renders one or more runs as a single self-contained HTML page: a SPEC section × port
//! matrix with drill-down to failures (diffs coloured) and skips, then a scenario × port
//! table. No scripts, no network assets; the same reports always give the same bytes.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::runner::{Counts, RunReport, ScenarioResult, Status};

/// The longest message kept in a `title` tooltip, in characters.
const TOOLTIP_MAX: usize = 1500;

const STYLE: &str = r#"
:root { --pass:#1f7a3a; --pass-bg:#e3f4e8; --fail:#b3261e; --fail-bg:#fde7e5;
  --skip:#7a5a00; --skip-bg:#fff4d6; --part-bg:#eef6e0; --absent:#8a8f98; --absent-bg:#f3f4f6;
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
td.pass { background: var(--pass-bg); } td.fail { background: var(--fail-bg); }
td.skip { background: var(--skip-bg); } td.partial { background: var(--part-bg); }
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
"#;

/// Renders `reports` (one column per report, in the given order) as one HTML page.
pub fn render(reports: &[RunReport]) -> String {
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
    out.push_str(LEGEND);
    if reports.is_empty() {
        out.push_str("<p class=\"empty\">No reports.</p>\n</body>\n</html>\n");
        return out;
    }
    matrix(&mut out, reports, &sections);
    scenario_table(&mut out, reports);
    out.push_str("</body>\n</html>\n");
    out
}

const LEGEND: &str = "<div class=\"legend\">\
<span><i style=\"background:var(--pass-bg)\"></i>all passed</span>\
<span><i style=\"background:var(--part-bg)\"></i>passed, some skipped</span>\
<span><i style=\"background:var(--fail-bg)\"></i>some failed</span>\
<span><i style=\"background:var(--skip-bg)\"></i>all skipped</span>\
<span><i style=\"background:var(--absent-bg)\"></i>not run</span>\
<span>counts: <b class=\"counts\"><span class=\"p\">passed</span> / <span class=\"f\">failed</span> / <span class=\"s\">skipped</span></b>; click a cell for failures and skips</span>\
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
            label = esc(&section_label(section))
        );
        for (i, r) in reports.iter().enumerate() {
            let results: Vec<&ScenarioResult> = sorted_by_name(
                r.scenarios
                    .iter()
                    .filter(|s| &s.section == section)
                    .collect(),
            );
            cell(out, section, i, &results, &anchors);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("<tr class=\"totals\"><th class=\"section\">Total</th>");
    for (i, r) in reports.iter().enumerate() {
        let c = count(r.scenarios.iter());
        let _ = write!(
            out,
            "<td class=\"cell {state}\" data-port=\"{i}\">{counts}</td>",
            state = state(&c),
            counts = counts_html(&c)
        );
    }
    out.push_str("</tr>\n</tbody>\n</table>\n");
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

fn cell(
    out: &mut String,
    section: &str,
    port: usize,
    results: &[&ScenarioResult],
    anchors: &BTreeMap<&str, usize>,
) {
    let c = count(results.iter().copied());
    let _ = write!(
        out,
        "<td class=\"cell {state}\" data-section=\"{s}\" data-port=\"{port}\">",
        state = state(&c),
        s = esc(section)
    );
    if c.passed + c.failed + c.skipped == 0 {
        out.push_str("<span class=\"counts z\">not run</span></td>");
        return;
    }
    if c.failed + c.skipped == 0 {
        let _ = write!(out, "{}</td>", counts_html(&c));
        return;
    }
    let _ = write!(out, "<details><summary>{}</summary>", counts_html(&c));
    for r in results.iter().filter(|r| r.status == Status::Failed) {
        let _ = write!(
            out,
            "<div class=\"item fail\"><div class=\"sname\">{}</div>{}<pre class=\"msg\">{}</pre></div>",
            linked_name(&r.name, anchors),
            broken_kind_html(&r.message),
            message_html(&r.message)
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
        let _ = write!(
            out,
            "<tr id=\"s-{id}\" class=\"{}\"><td class=\"sname\">{}</td><td class=\"sec\">{}</td>",
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
                        Status::Failed => ("fail", "✗ failed"),
                        Status::Skipped => ("skip", "– skipped"),
                    };
                    let title = if s.message.is_empty() {
                        "passed".to_string()
                    } else {
                        truncate(&s.message, TOOLTIP_MAX)
                    };
                    let kinds = match s.status {
                        Status::Failed => broken_kind_html(&s.message),
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

/// The kind of the expectation a failure broke, as its message states it
/// (`step `…`: [pinned] …`), shown as `broke: pinned`.
fn broken_kind_html(message: &str) -> String {
    match broken_kind(message) {
        Some(kind) => format!("<span class=\"kinds\">broke: {}</span>", esc(kind)),
        None => String::new(),
    }
}

fn broken_kind(message: &str) -> Option<&str> {
    let first = message.lines().next().unwrap_or("");
    let start = match first.find("`: [") {
        Some(i) => i + 4,
        None if first.starts_with('[') => 1,
        None => return None,
    };
    let rest = &first[start..];
    let kind = &rest[..rest.find(']')?];
    (kind == "pinned" || kind.starts_with("lenient")).then_some(kind)
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
    format!(
        "<span class=\"counts\" title=\"passed / failed / skipped\">{} / {} / {}</span>",
        part(c.passed, "p"),
        part(c.failed, "f"),
        part(c.skipped, "s")
    )
}

/// The message as HTML: escaped, with the lines of unified diffs coloured.
fn message_html(message: &str) -> String {
    let lines: Vec<&str> = message.lines().collect();
    let mut out = String::new();
    let mut in_diff = false;
    for (i, line) in lines.iter().enumerate() {
        let next = lines.get(i + 1).copied().unwrap_or("");
        if (line.starts_with("--- ") && next.starts_with("+++ ")) || line.starts_with("@@ ") {
            in_diff = true;
        } else if in_diff && !looks_like_diff_body(line) {
            in_diff = false;
        }
        let class = if !in_diff {
            None
        } else if (line.starts_with("--- ") && next.starts_with("+++ "))
            || (line.starts_with("+++ ") && i > 0 && lines[i - 1].starts_with("--- "))
        {
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

fn looks_like_diff_body(line: &str) -> bool {
    line.is_empty()
        || line.starts_with(' ')
        || line.starts_with('+')
        || line.starts_with('-')
        || line.starts_with("@@")
        || line.starts_with('\\')
}

fn count<'a>(results: impl Iterator<Item = &'a ScenarioResult>) -> Counts {
    let mut c = Counts::default();
    for r in results {
        match r.status {
            Status::Passed => c.passed += 1,
            Status::Failed => c.failed += 1,
            Status::Skipped => c.skipped += 1,
        }
    }
    c
}

fn state(c: &Counts) -> &'static str {
    if c.failed > 0 {
        "fail"
    } else if c.passed + c.skipped == 0 {
        "absent"
    } else if c.passed == 0 {
        "skip"
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
        set.extend(r.sections.keys().map(String::as_str));
        set.extend(r.scenarios.iter().map(|s| s.section.as_str()));
    }
    let mut v: Vec<String> = set.into_iter().map(str::to_string).collect();
    v.sort_by(|a, b| cmp_sections(a, b));
    v
}

/// Natural order for SPEC sections: numeric part first, then the suffix (`4` < `4A` < `5`
/// < `10`); names without a leading number come last, alphabetically.
pub fn cmp_sections(a: &str, b: &str) -> Ordering {
    section_key(a).cmp(&section_key(b))
}

fn section_key(s: &str) -> (bool, usize, String, String, String) {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    let suffix = s[digits.len()..].to_string();
    let trimmed = digits.trim_start_matches('0');
    // Length then text orders numbers of any size without parsing them.
    (
        digits.is_empty(),
        trimmed.len(),
        trimmed.to_string(),
        suffix,
        s.to_string(),
    )
}

fn section_label(section: &str) -> String {
    if section.starts_with(|c: char| c.is_ascii_digit()) {
        format!("§{section}")
    } else {
        section.to_string()
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

    fn result(name: &str, section: &str, status: Status, message: &str) -> ScenarioResult {
        ScenarioResult {
            name: name.to_string(),
            section: section.to_string(),
            status,
            message: message.to_string(),
            expectations: vec!["pinned".to_string()],
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
        let msg = "step `Then x`: [pinned] differs\n--- expected\n+++ actual\n@@ -1 +1 @@\n-\"a\"\n+\"b\"";
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
                result("skills: two", "3", Status::Failed, msg),
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
        assert!(details.contains("broke: pinned"));
        assert!(details.contains("<span class=\"del\">-&quot;a&quot;</span>"));
        assert!(details.contains("<span class=\"add\">+&quot;b&quot;</span>"));
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
        assert!(html.contains("title=\"step `Then x`: [pinned] differs"));
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
    fn the_broken_expectation_kind_is_read_from_the_message() {
        assert_eq!(
            broken_kind("step `Then a [x]`: [pinned] differs"),
            Some("pinned")
        );
        assert_eq!(
            broken_kind("step `Then b`: [lenient (contains, match)] no"),
            Some("lenient (contains, match)")
        );
        assert_eq!(broken_kind("[pinned] text differs"), Some("pinned"));
        assert_eq!(broken_kind("driver failure: crashed"), None);
        assert_eq!(broken_kind("step `Then c`: [weird] no"), None);
    }

    #[test]
    fn diff_colouring_only_inside_diffs() {
        let html = message_html("- not a diff\nstep failed\n--- expected\n+++ actual\n@@ -1 +1 @@\n-a\n+b\n context\nafter");
        assert!(html.starts_with("- not a diff\n"));
        assert!(html.contains("<span class=\"del\">-a</span>"));
        assert!(html.contains("<span class=\"add\">+b</span>"));
        assert!(html.ends_with(" context\nafter"));
    }
}
