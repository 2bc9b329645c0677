//! The §10 "Durations" normalisation of a `metrics` text (SPEC §8 "Observability"): the only
//! wall-clock parts of the Prometheus text become placeholders so the rest compares byte for
//! byte, after checking they are well formed.
//!
//! Every `…_duration_seconds_sum` value becomes `<sum>` (it must be a number ≥ 0); every
//! finite `le` bucket count of a `…_duration_seconds` histogram becomes `<n>` (the buckets of
//! a series must be cumulative in `le` order and at most its `+Inf` count, and `+Inf` must
//! equal the series' `_count`). `+Inf` buckets, `_count` lines, counters, comments and line
//! order stay exactly as written.

use std::collections::BTreeMap;

const HISTOGRAM: &str = "_duration_seconds";

/// One sample line split up: the metric name, its labels in order, its value text.
struct Sample {
    name: String,
    labels: Vec<(String, String)>,
    value: String,
}

/// Reads `name{k="v",…} value` (labels optional); `None` for anything else.
fn sample(line: &str) -> Option<Sample> {
    let line = line.trim_end();
    let (name, labels, rest) = match line.find('{') {
        Some(open) => {
            let (labels, after) = labels(&line[open + 1..])?;
            (&line[..open], labels, after)
        }
        None => {
            let space = line.find(' ')?;
            (&line[..space], Vec::new(), &line[space..])
        }
    };
    let value = rest.split_whitespace().next()?.to_string();
    Some(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// Parses `k="v",…}` (escapes kept as written) and returns the labels and what follows `}`.
fn labels(text: &str) -> Option<(Vec<(String, String)>, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(',');
        if let Some(after) = rest.strip_prefix('}') {
            return Some((out, after));
        }
        let eq = rest.find("=\"")?;
        let key = rest[..eq].to_string();
        let body = &rest[eq + 2..];
        let mut end = None;
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end?;
        out.push((key, body[..end].to_string()));
        rest = &body[end + 1..];
    }
}

/// The series a histogram line belongs to: its base name and every label but `le`.
fn series(base: &str, labels: &[(String, String)]) -> String {
    let rest: Vec<String> = labels
        .iter()
        .filter(|(k, _)| k != "le")
        .map(|(k, v)| format!("{k}=\"{v}\""))
        .collect();
    format!("{base}{{{}}}", rest.join(","))
}

#[derive(Default)]
struct Histogram {
    finite: Vec<(f64, f64)>,
    inf: Option<f64>,
    count: Option<f64>,
}

fn number(s: &Sample, line: &str) -> Result<f64, String> {
    s.value
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("not a number in `{line}`"))
}

/// `text` with its durations replaced (see the module doc), or why the histograms are not
/// well formed.
pub fn normalise_durations(text: &str) -> Result<String, String> {
    let mut histograms: BTreeMap<String, Histogram> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let Some(s) = sample(line) else { continue };
        if let Some(base) = s
            .name
            .strip_suffix("_bucket")
            .filter(|b| b.ends_with(HISTOGRAM))
        {
            let h = histograms.entry(series(base, &s.labels)).or_default();
            let v = number(&s, line)?;
            match s
                .labels
                .iter()
                .find(|(k, _)| k == "le")
                .map(|(_, v)| v.as_str())
            {
                Some("+Inf") => h.inf = Some(v),
                Some(le) => {
                    let le = le
                        .parse::<f64>()
                        .map_err(|_| format!("bad `le` in `{line}`"))?;
                    h.finite.push((le, v));
                }
                None => return Err(format!("a bucket without `le`: `{line}`")),
            }
        } else if let Some(base) = s
            .name
            .strip_suffix("_count")
            .filter(|b| b.ends_with(HISTOGRAM))
        {
            histograms.entry(series(base, &s.labels)).or_default().count = Some(number(&s, line)?);
        } else if s.name.ends_with(&format!("{HISTOGRAM}_sum")) {
            let v = number(&s, line)?;
            if v < 0.0 {
                return Err(format!("a negative duration sum: `{line}`"));
            }
        }
    }
    for (name, h) in &mut histograms {
        h.finite
            .sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
        for pair in h.finite.windows(2) {
            if pair[1].1 < pair[0].1 {
                return Err(format!(
                    "{name}: buckets are not cumulative (le={} has {}, le={} has {})",
                    pair[0].0, pair[0].1, pair[1].0, pair[1].1
                ));
            }
        }
        let Some(inf) = h.inf else {
            return Err(format!("{name}: no `+Inf` bucket"));
        };
        if let Some((le, top)) = h.finite.last() {
            if *top > inf {
                return Err(format!("{name}: le={le} has {top}, more than +Inf's {inf}"));
            }
        }
        match h.count {
            Some(c) if c == inf => {}
            Some(c) => return Err(format!("{name}: +Inf bucket {inf} differs from _count {c}")),
            None => return Err(format!("{name}: no `_count` line")),
        }
    }
    let mut out = String::with_capacity(text.len());
    for piece in text.split_inclusive('\n') {
        let (line, newline) = match piece.strip_suffix('\n') {
            Some(l) => (l, "\n"),
            None => (piece, ""),
        };
        out.push_str(&replaced(line).unwrap_or_else(|| line.to_string()));
        out.push_str(newline);
    }
    Ok(out)
}

/// The line with its duration value replaced, when it carries one.
fn replaced(line: &str) -> Option<String> {
    if line.starts_with('#') {
        return None;
    }
    let s = sample(line)?;
    let placeholder = if s.name.ends_with(&format!("{HISTOGRAM}_sum")) {
        "<sum>"
    } else if s.name.ends_with(&format!("{HISTOGRAM}_bucket"))
        && s.labels.iter().any(|(k, v)| k == "le" && v != "+Inf")
    {
        "<n>"
    } else {
        return None;
    };
    let cut = line.rfind(&s.value)?;
    Some(format!(
        "{}{placeholder}{}",
        &line[..cut],
        &line[cut + s.value.len()..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUCKETS: [&str; 10] = [
        "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "60",
    ];

    fn histogram(name: &str, labels: &str, counts: [u32; 10], inf: u32, count: u32) -> String {
        let mut out = String::new();
        for (le, n) in BUCKETS.iter().zip(counts) {
            out.push_str(&format!("{name}_bucket{{{labels},le=\"{le}\"}} {n}\n"));
        }
        out.push_str(&format!("{name}_bucket{{{labels},le=\"+Inf\"}} {inf}\n"));
        out.push_str(&format!("{name}_sum{{{labels}}} 0.0123\n"));
        out.push_str(&format!("{name}_count{{{labels}}} {count}\n"));
        out
    }

    const NAME: &str = "toolnexus_llm_request_duration_seconds";

    #[test]
    fn durations_become_placeholders_and_counters_stay() {
        let text = format!(
            "# HELP toolnexus_llm_requests_total Total LLM requests.\n\
             # TYPE toolnexus_llm_requests_total counter\n\
             toolnexus_llm_requests_total{{model=\"m\",status=\"ok\"}} 2\n{}",
            histogram(NAME, "model=\"m\"", [1, 1, 2, 2, 2, 2, 2, 2, 2, 2], 2, 2)
        );
        let out = normalise_durations(&text).unwrap();
        assert!(out.contains("toolnexus_llm_requests_total{model=\"m\",status=\"ok\"} 2\n"));
        assert!(out.contains(&format!("{NAME}_bucket{{model=\"m\",le=\"0.05\"}} <n>\n")));
        assert!(out.contains(&format!("{NAME}_bucket{{model=\"m\",le=\"+Inf\"}} 2\n")));
        assert!(out.contains(&format!("{NAME}_sum{{model=\"m\"}} <sum>\n")));
        assert!(out.contains(&format!("{NAME}_count{{model=\"m\"}} 2\n")));
        assert!(!out.contains("0.0123"));
        assert_eq!(out.lines().count(), text.lines().count());
        assert!(out.ends_with('\n'));
    }

    #[test]
    fn a_label_value_with_quotes_and_braces_is_one_series() {
        let labels = r#"tool="a\"}b""#;
        let text = histogram("toolnexus_tool_duration_seconds", labels, [0; 10], 1, 1);
        let out = normalise_durations(&text).unwrap();
        assert!(
            out.contains(r#"toolnexus_tool_duration_seconds_sum{tool="a\"}b"} <sum>"#),
            "{out}"
        );
    }

    #[test]
    fn broken_histograms_fail() {
        let not_cumulative = histogram(NAME, "model=\"m\"", [2, 1, 2, 2, 2, 2, 2, 2, 2, 2], 2, 2);
        assert!(normalise_durations(&not_cumulative)
            .unwrap_err()
            .contains("not cumulative"));
        let above_inf = histogram(NAME, "model=\"m\"", [1, 1, 1, 1, 1, 1, 1, 1, 1, 3], 2, 2);
        assert!(normalise_durations(&above_inf)
            .unwrap_err()
            .contains("more than +Inf"));
        let count_differs = histogram(NAME, "model=\"m\"", [0; 10], 2, 3);
        assert!(normalise_durations(&count_differs)
            .unwrap_err()
            .contains("differs from _count"));
        let negative = histogram(NAME, "model=\"m\"", [0; 10], 0, 0).replace("0.0123", "-1");
        assert!(normalise_durations(&negative)
            .unwrap_err()
            .contains("negative"));
        let no_count: String = histogram(NAME, "model=\"m\"", [0; 10], 0, 0)
            .lines()
            .filter(|l| !l.contains("_count"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(normalise_durations(&no_count)
            .unwrap_err()
            .contains("no `_count`"));
    }

    #[test]
    fn the_empty_exposition_is_unchanged() {
        let text = "# HELP toolnexus_llm_request_duration_seconds LLM request duration in seconds.\n# TYPE toolnexus_llm_request_duration_seconds histogram\n";
        assert_eq!(normalise_durations(text).unwrap(), text);
    }
}
