//! §8 Observability: the semantic metric records and the Prometheus text registry.
//!
//! The text is byte-identical across ports: fixed metric order, series sorted by their
//! rendered label string, fixed buckets, numbers as ECMAScript `String(number)` renders them.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// One `onMetric` record.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricEvent {
    /// One per LLM request.
    Llm {
        /// The configured model.
        model: String,
        /// `ok` or `error`.
        status: String,
        /// Wall-clock milliseconds.
        ms: u64,
        /// Prompt tokens of the answer (0 on error).
        prompt_tokens: u64,
        /// Completion tokens of the answer (0 on error).
        completion_tokens: u64,
        /// `{type, mimeType, bytes}` of each non-text part the request carried (§8's optional
        /// descriptor; never the data, and never a Prometheus label).
        parts: Vec<serde_json::Value>,
    },
    /// One per tool call.
    Tool {
        /// Tool name.
        tool: String,
        /// The tool's source (`native`, `mcp`, ...; `unknown` for a name the toolkit lacks).
        source: String,
        /// Whether the result is an error (never for a suspension).
        is_error: bool,
        /// §10: the call suspended (a distinct state, not a failure).
        pending: bool,
        /// Wall-clock milliseconds.
        ms: u64,
    },
    /// One per `run`/`ask`/`stream`/`send`.
    Run {
        /// The configured model.
        model: String,
        /// LLM round trips.
        turns: u32,
        /// Tool calls made.
        tool_calls: usize,
        /// Total tokens used.
        total_tokens: u64,
        /// Wall-clock milliseconds.
        ms: u64,
        /// The failure message when the run raised.
        error: Option<String>,
    },
    /// §8B: one per `Classifier::evaluate` (never in the Prometheus text, which §8 fixes).
    ClassifierEvaluate {
        /// The model that answered, else the configured one.
        model: String,
        /// `ok` or `error`.
        status: String,
        /// Wall-clock milliseconds.
        ms: u64,
        /// Input tokens, when the backend reported them.
        input_tokens: Option<u64>,
        /// Output tokens, when the backend reported them.
        output_tokens: Option<u64>,
        /// The failure message; set only when the evaluation failed.
        error: Option<String>,
    },
    /// §8B: degenerate choice criteria, once per question key per classifier. Advisory: the
    /// text is in `warning`, and there is no error.
    ClassifierWarning {
        /// The question's key.
        question: String,
        /// The advisory text.
        warning: String,
    },
}

/// Histogram upper bounds, seconds.
const BUCKETS: [f64; 10] = [0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

#[derive(Debug, Clone, Default)]
struct Hist {
    counts: [u64; 10],
    sum: f64,
    count: u64,
}

impl Hist {
    fn observe(&mut self, seconds: f64) {
        self.sum += seconds;
        self.count += 1;
        for (i, b) in BUCKETS.iter().enumerate() {
            if seconds <= *b {
                self.counts[i] += 1;
            }
        }
    }
}

#[derive(Debug, Default)]
struct State {
    llm_requests: BTreeMap<String, u64>,
    llm_tokens: BTreeMap<String, u64>,
    llm_duration: BTreeMap<String, Hist>,
    tool_calls: BTreeMap<String, u64>,
    tool_duration: BTreeMap<String, Hist>,
    run_errors: BTreeMap<String, u64>,
}

/// The in-memory registry behind `metrics()`.
#[derive(Debug, Default)]
pub struct Registry {
    state: Mutex<State>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one record in. Tokens count only on successful requests; a run counts only
    /// when it failed.
    pub fn record(&self, event: &MetricEvent) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            MetricEvent::Llm {
                model,
                status,
                ms,
                prompt_tokens,
                completion_tokens,
                ..
            } => {
                *s.llm_requests
                    .entry(labels(&[("model", model), ("status", status)]))
                    .or_default() += 1;
                if status == "ok" {
                    // Saturating: token counts come from the server.
                    let p = s
                        .llm_tokens
                        .entry(labels(&[("type", "prompt")]))
                        .or_default();
                    *p = p.saturating_add(*prompt_tokens);
                    let c = s
                        .llm_tokens
                        .entry(labels(&[("type", "completion")]))
                        .or_default();
                    *c = c.saturating_add(*completion_tokens);
                }
                s.llm_duration
                    .entry(labels(&[("model", model)]))
                    .or_default()
                    .observe(*ms as f64 / 1000.0);
            }
            MetricEvent::Tool {
                tool,
                source,
                is_error,
                pending: _,
                ms,
            } => {
                let is_error = if *is_error { "true" } else { "false" };
                *s.tool_calls
                    .entry(labels(&[
                        ("tool", tool),
                        ("source", source),
                        ("is_error", is_error),
                    ]))
                    .or_default() += 1;
                s.tool_duration
                    .entry(labels(&[("tool", tool)]))
                    .or_default()
                    .observe(*ms as f64 / 1000.0);
            }
            MetricEvent::Run { model, error, .. } => {
                if error.is_some() {
                    *s.run_errors.entry(labels(&[("model", model)])).or_default() += 1;
                }
            }
            // A classifier has no §8 metric of its own; its records go to the sink only.
            MetricEvent::ClassifierEvaluate { .. } | MetricEvent::ClassifierWarning { .. } => {}
        }
    }

    /// The Prometheus text exposition, ending with a newline.
    pub fn render(&self) -> String {
        let s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::new();
        counter(
            &mut out,
            "toolnexus_llm_requests_total",
            "Total LLM requests.",
            &s.llm_requests,
        );
        counter(
            &mut out,
            "toolnexus_llm_tokens_total",
            "Total tokens, by type.",
            &s.llm_tokens,
        );
        histogram(
            &mut out,
            "toolnexus_llm_request_duration_seconds",
            "LLM request duration in seconds.",
            &s.llm_duration,
        );
        counter(
            &mut out,
            "toolnexus_tool_calls_total",
            "Total tool calls.",
            &s.tool_calls,
        );
        histogram(
            &mut out,
            "toolnexus_tool_duration_seconds",
            "Tool execution duration in seconds.",
            &s.tool_duration,
        );
        counter(
            &mut out,
            "toolnexus_run_errors_total",
            "Total run errors.",
            &s.run_errors,
        );
        out.join("\n") + "\n"
    }
}

fn header(out: &mut Vec<String>, name: &str, help: &str, kind: &str) {
    out.push(format!("# HELP {name} {help}"));
    out.push(format!("# TYPE {name} {kind}"));
}

// BTreeMap<String, _> iterates in byte order, which is the lexicographic order of the
// rendered label strings the SPEC pins.
fn counter(out: &mut Vec<String>, name: &str, help: &str, series: &BTreeMap<String, u64>) {
    header(out, name, help, "counter");
    for (key, v) in series {
        out.push(format!("{name}{} {v}", braces(key)));
    }
}

fn histogram(out: &mut Vec<String>, name: &str, help: &str, series: &BTreeMap<String, Hist>) {
    header(out, name, help, "histogram");
    for (key, h) in series {
        for (i, b) in BUCKETS.iter().enumerate() {
            let le = with_le(key, &js_number(*b));
            out.push(format!("{name}_bucket{{{le}}} {}", h.counts[i]));
        }
        out.push(format!(
            "{name}_bucket{{{}}} {}",
            with_le(key, "+Inf"),
            h.count
        ));
        out.push(format!("{name}_sum{} {}", braces(key), js_number(h.sum)));
        out.push(format!("{name}_count{} {}", braces(key), h.count));
    }
}

fn braces(key: &str) -> String {
    if key.is_empty() {
        String::new()
    } else {
        format!("{{{key}}}")
    }
}

fn with_le(key: &str, le: &str) -> String {
    if key.is_empty() {
        format!("le=\"{le}\"")
    } else {
        format!("{key},le=\"{le}\"")
    }
}

/// `k="v",k="v"` in the given order, values escaped.
fn labels(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape_label(v)))
        .collect::<Vec<_>>()
        .join(",")
}

/// Prometheus label escaping: `\` first, then `"` and newline.
pub fn escape_label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A number as ECMAScript `String(number)` renders it: shortest round-trip digits, no
/// `.0` on integers, exponent form below 1e-6 and from 1e21.
pub fn js_number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-6..1e21).contains(&a) {
        return format!("{x}");
    }
    // Rust's `{:e}` gives the shortest digits too ("1e-7", "1.5e21"); JS writes the
    // positive exponent with a sign.
    let e = format!("{x:e}");
    match e.split_once('e') {
        Some((m, exp)) if !exp.starts_with('-') => format!("{m}e+{exp}"),
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD_LLM_REQ: &str = "# HELP toolnexus_llm_requests_total Total LLM requests.\n# TYPE toolnexus_llm_requests_total counter\n";
    const HEAD_TOKENS: &str = "# HELP toolnexus_llm_tokens_total Total tokens, by type.\n# TYPE toolnexus_llm_tokens_total counter\n";
    const HEAD_LLM_DUR: &str = "# HELP toolnexus_llm_request_duration_seconds LLM request duration in seconds.\n# TYPE toolnexus_llm_request_duration_seconds histogram\n";
    const HEAD_TOOLS: &str = "# HELP toolnexus_tool_calls_total Total tool calls.\n# TYPE toolnexus_tool_calls_total counter\n";
    const HEAD_TOOL_DUR: &str = "# HELP toolnexus_tool_duration_seconds Tool execution duration in seconds.\n# TYPE toolnexus_tool_duration_seconds histogram\n";
    const HEAD_RUN_ERR: &str = "# HELP toolnexus_run_errors_total Total run errors.\n# TYPE toolnexus_run_errors_total counter\n";

    #[test]
    fn empty_registry_renders_only_help_and_type() {
        let expected = [
            HEAD_LLM_REQ,
            HEAD_TOKENS,
            HEAD_LLM_DUR,
            HEAD_TOOLS,
            HEAD_TOOL_DUR,
            HEAD_RUN_ERR,
        ]
        .concat();
        assert_eq!(Registry::new().render(), expected);
    }

    fn bucket_lines(name: &str, key: &str, counts: [u64; 10], count: u64, sum: &str) -> String {
        let les = [
            "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30", "60",
        ];
        let mut s = String::new();
        for (le, c) in les.iter().zip(counts) {
            s += &format!("{name}_bucket{{{key},le=\"{le}\"}} {c}\n");
        }
        s += &format!("{name}_bucket{{{key},le=\"+Inf\"}} {count}\n");
        s += &format!("{name}_sum{{{key}}} {sum}\n{name}_count{{{key}}} {count}\n");
        s
    }

    #[test]
    fn activity_renders_byte_for_byte() {
        let r = Registry::new();
        let llm = |model: &str, status: &str, ms, p, c| MetricEvent::Llm {
            model: model.into(),
            status: status.into(),
            ms,
            prompt_tokens: p,
            completion_tokens: c,
            parts: Vec::new(),
        };
        r.record(&llm("m-b", "ok", 120, 3, 2));
        r.record(&llm("m-a", "error", 2000, 99, 99));
        r.record(&llm("m-b", "ok", 1000, 10, 5));
        r.record(&MetricEvent::Tool {
            tool: "lo\"ok\\up\n".into(),
            source: "native".into(),
            is_error: false,
            pending: false,
            ms: 30,
        });
        r.record(&MetricEvent::Tool {
            tool: "alpha".into(),
            source: "mcp".into(),
            is_error: true,
            pending: false,
            ms: 70000,
        });
        let run = |error: Option<&str>| MetricEvent::Run {
            model: "m-b".into(),
            turns: 2,
            tool_calls: 1,
            total_tokens: 20,
            ms: 5,
            error: error.map(str::to_string),
        };
        r.record(&run(None));
        r.record(&run(Some("boom")));

        let tool_key = "tool=\"lo\\\"ok\\\\up\\n\"";
        let expected = [
            HEAD_LLM_REQ,
            "toolnexus_llm_requests_total{model=\"m-a\",status=\"error\"} 1\n",
            "toolnexus_llm_requests_total{model=\"m-b\",status=\"ok\"} 2\n",
            HEAD_TOKENS,
            "toolnexus_llm_tokens_total{type=\"completion\"} 7\n",
            "toolnexus_llm_tokens_total{type=\"prompt\"} 13\n",
            HEAD_LLM_DUR,
            &bucket_lines(
                "toolnexus_llm_request_duration_seconds",
                "model=\"m-a\"",
                [0, 0, 0, 0, 0, 1, 1, 1, 1, 1],
                1,
                "2",
            ),
            &bucket_lines(
                "toolnexus_llm_request_duration_seconds",
                "model=\"m-b\"",
                [0, 0, 1, 1, 2, 2, 2, 2, 2, 2],
                2,
                "1.12",
            ),
            HEAD_TOOLS,
            "toolnexus_tool_calls_total{tool=\"alpha\",source=\"mcp\",is_error=\"true\"} 1\n",
            &format!(
                "toolnexus_tool_calls_total{{{tool_key},source=\"native\",is_error=\"false\"}} 1\n"
            ),
            HEAD_TOOL_DUR,
            &bucket_lines(
                "toolnexus_tool_duration_seconds",
                "tool=\"alpha\"",
                [0; 10],
                1,
                "70",
            ),
            &bucket_lines(
                "toolnexus_tool_duration_seconds",
                tool_key,
                [1; 10],
                1,
                "0.03",
            ),
            HEAD_RUN_ERR,
            "toolnexus_run_errors_total{model=\"m-b\"} 1\n",
        ]
        .concat();
        assert_eq!(r.render(), expected);
    }

    #[test]
    fn numbers_render_like_javascript() {
        assert_eq!(js_number(1.0), "1");
        assert_eq!(js_number(0.05), "0.05");
        assert_eq!(js_number(2.5), "2.5");
        assert_eq!(js_number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(js_number(1e-7), "1e-7");
        assert_eq!(js_number(1.5e21), "1.5e+21");
        assert_eq!(js_number(0.000001), "0.000001");
        assert_eq!(js_number(0.0), "0");
    }
}
