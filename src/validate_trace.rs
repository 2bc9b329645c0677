//! `validate-trace FILE`: checks a `run --trace` file against conformance/protocol.schema.json
//! and the protocol rules a trace shows (PROTOCOL.md §11).

use std::collections::BTreeMap;
use std::path::Path;

use jsonschema::Validator;
use serde_json::{json, Value};

/// The longest a single problem's description gets: schema messages quote whole instances.
const MAX_PROBLEM_CHARS: usize = 300;

struct Validators {
    request: Validator,
    response: Validator,
    exchange: Validator,
}

fn validator(schema: &Value, def: &str) -> Result<Validator, String> {
    let mut entry = schema.clone();
    let map = entry
        .as_object_mut()
        .ok_or_else(|| "the protocol schema is not a JSON object".to_string())?;
    map.remove("oneOf");
    map.insert("$ref".into(), json!(format!("#/$defs/{def}")));
    jsonschema::draft202012::new(&entry)
        .map_err(|e| format!("the schema entry point `{def}` does not compile: {e}"))
}

fn shorten(text: &str) -> String {
    if text.chars().count() <= MAX_PROBLEM_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_PROBLEM_CHARS).collect();
    format!("{cut}…")
}

fn violations(v: &Validator, what: &str, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| shorten(&format!("{what} at `{}`: {e}", e.instance_path())))
        .collect()
}

/// A request waiting for its answer.
struct Pending {
    line: usize,
    msg: Value,
}

/// Where one driver's exchange stands: a `run --jobs N` trace interleaves N of them, told
/// apart by each line's `worker`.
#[derive(Default)]
struct Driver {
    pending: Option<Pending>,
    last_seq: Option<u64>,
    seen_request: bool,
}

/// The problems of a trace's text, each `line N: what`; an error when the schema is unusable.
pub fn problems(schema_path: &Path, trace: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(schema_path)
        .map_err(|e| format!("cannot read {}: {e}", schema_path.display()))?;
    let schema: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not JSON: {e}", schema_path.display()))?;
    let v = Validators {
        request: validator(&schema, "request")?,
        response: validator(&schema, "response")?,
        exchange: validator(&schema, "exchange")?,
    };
    let mut out = Vec::new();
    let mut drivers: BTreeMap<String, Driver> = BTreeMap::new();
    for (i, line) in trace.lines().enumerate() {
        let n = i + 1;
        let mut problem = |what: String| out.push(format!("line {n}: {what}"));
        if line.trim().is_empty() {
            continue;
        }
        let entry: Value = match serde_json::from_str(line) {
            Ok(e) => e,
            Err(e) => {
                problem(format!("not a JSON trace entry: {e}"));
                continue;
            }
        };
        let worker = entry.get("worker").map_or(String::new(), Value::to_string);
        let Driver {
            pending,
            last_seq,
            seen_request,
        } = drivers.entry(worker).or_default();
        match entry.get("dir").and_then(Value::as_str) {
            Some("request") => {
                let Some(msg) = entry.get("msg") else {
                    problem("request entry without `msg`".into());
                    continue;
                };
                if let Some(p) = pending.take() {
                    problem(format!("the request on line {} got no answer", p.line));
                }
                for e in violations(&v.request, "request", msg) {
                    problem(e);
                }
                let cmd = msg.get("cmd").and_then(Value::as_str);
                if !*seen_request && cmd != Some("hello") {
                    problem(format!(
                        "the first request is `{}`, not `hello`",
                        cmd.unwrap_or("?")
                    ));
                }
                *seen_request = true;
                // The one value the types leave open that a trace must pin: the harness speaks
                // this protocol (PROTOCOL.md §1), whatever a driver would accept.
                if cmd == Some("hello") {
                    let version = msg.get("protocol").and_then(Value::as_u64);
                    if version != Some(toolnexus_protocol::PROTOCOL_VERSION) {
                        problem(format!(
                            "`hello` announces protocol {}, not {}",
                            msg.get("protocol")
                                .map_or("(none)".to_string(), Value::to_string),
                            toolnexus_protocol::PROTOCOL_VERSION
                        ));
                    }
                }
                let seq = msg.get("seq").and_then(Value::as_u64);
                // `seq` counts from 0 per driver process: a 0 is a (re)start, which says hello.
                match (seq, *last_seq) {
                    (Some(0), _) if cmd != Some("hello") => {
                        problem("a request with seq 0 (a driver start) is not `hello`".into())
                    }
                    (Some(0), _) | (None, _) => {}
                    (Some(s), Some(prev)) if s != prev + 1 => problem(format!(
                        "request seq {s} does not follow the previous request's seq {prev}"
                    )),
                    (Some(_), _) => {}
                }
                *last_seq = seq.or(*last_seq);
                *pending = Some(Pending {
                    line: n,
                    msg: msg.clone(),
                });
            }
            Some("answer") => {
                let Some(p) = pending.take() else {
                    problem("an answer with no request awaiting it".into());
                    continue;
                };
                if let Some(raw) = entry.get("raw") {
                    problem(shorten(&format!(
                        "the answer to line {} is not a JSON object: {raw}",
                        p.line
                    )));
                    continue;
                }
                let Some(msg) = entry.get("msg") else {
                    problem("answer entry without `msg` or `raw`".into());
                    continue;
                };
                let asked = p.msg.get("seq");
                if asked.is_some() && msg.get("seq") != asked {
                    problem(format!(
                        "answer seq {} does not match the seq {} of its request (line {})",
                        msg.get("seq")
                            .map_or("(none)".to_string(), Value::to_string),
                        asked.map_or("(none)".to_string(), Value::to_string),
                        p.line
                    ));
                }
                let mut errs = violations(&v.response, "response", msg);
                if errs.is_empty() {
                    // The command's own success shape: only meaningful on a valid envelope.
                    let pair = json!({"request": p.msg, "response": msg});
                    errs = violations(&v.exchange, "exchange", &pair);
                }
                for e in errs {
                    problem(e);
                }
            }
            Some("truncated") => problem("the trace was truncated here: it is incomplete".into()),
            other => problem(format!("unknown `dir` {other:?}")),
        }
    }
    let mut unanswered: Vec<usize> = drivers
        .into_values()
        .filter_map(|d| d.pending.map(|p| p.line))
        .collect();
    unanswered.sort_unstable();
    for line in unanswered {
        out.push(format!("line {line}: the request got no answer"));
    }
    Ok(out)
}
