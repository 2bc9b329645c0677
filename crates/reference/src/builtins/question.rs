//! §4A `question`: asking the human is a §10 `kind:"question"` suspension.

use std::fmt::Write as _;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use super::write::{args_object, type_name, Step};
use crate::suspension::{new_request_id, Request};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub(super) const NAME: &str = "question";

/// Checks `questions` is an array of `{question:string, header?:string, options?:string[],
/// multiple?:boolean}`; the Python port coerces instead, but a malformed question cannot be
/// put to a human meaningfully.
fn validate(questions: &Value) -> Step<&Vec<Value>> {
    let Value::Array(items) = questions else {
        return Err(ToolResult::error(format!(
            "question: questions must be an array, got {}",
            type_name(questions)
        )));
    };
    for (i, item) in items.iter().enumerate() {
        let bad = |what: &str| ToolResult::error(format!("question: questions[{i}]{what}"));
        let Value::Object(q) = item else {
            return Err(bad(" must be an object"));
        };
        if !matches!(q.get("question"), Some(Value::String(_))) {
            return Err(bad(".question must be a string"));
        }
        if !matches!(
            q.get("header"),
            None | Some(Value::Null) | Some(Value::String(_))
        ) {
            return Err(bad(".header must be a string"));
        }
        match q.get("options") {
            None | Some(Value::Null) => {}
            Some(Value::Array(opts)) if opts.iter().all(Value::is_string) => {}
            Some(_) => return Err(bad(".options must be an array of strings")),
        }
        if !matches!(
            q.get("multiple"),
            None | Some(Value::Null) | Some(Value::Bool(_))
        ) {
            return Err(bad(".multiple must be a boolean"));
        }
    }
    Ok(items)
}

/// The §4A rendered prompt (byte-identical across ports): each question's text, with
/// `" (options: a, b)"` when it has options, joined by `\n`; `header` is not rendered.
fn render_prompt(questions: &[Value]) -> String {
    let lines: Vec<String> = questions
        .iter()
        .map(|q| {
            let mut line = q
                .get("question")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let opts: Vec<&str> = q
                .get("options")
                .and_then(Value::as_array)
                .map(|o| o.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if !opts.is_empty() {
                line.push_str(&format!(" (options: {})", opts.join(", ")));
            }
            line
        })
        .collect();
    lines.join("\n")
}

/// Serialises like Python's `json.dumps(v)` defaults (`", "`/`": "` separators, ASCII-only
/// with `\uXXXX` escapes, float `repr`), because the answer's bytes are what the model sees
/// and must match the Python port's.
pub(crate) fn python_json(v: &Value) -> String {
    let mut out = String::new();
    write_py(v, &mut out);
    out
}

fn write_py(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if n.is_i64() || n.is_u64() {
                out.push_str(&n.to_string());
            } else {
                out.push_str(&py_float(n.as_f64().unwrap_or(0.0)));
            }
        }
        Value::String(s) => write_py_str(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_py(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_py_str(k, out);
                out.push_str(": ");
                write_py(item, out);
            }
            out.push('}');
        }
    }
}

fn write_py_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// Python's `repr(float)`: shortest round-trip digits, scientific when the decimal exponent
/// is < -4 or >= 16 (as `1e+16`, `1e-05`), otherwise positional with at least one decimal.
fn py_float(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..16).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    let plain = format!("{f}");
    if plain.contains('.') {
        plain
    } else {
        format!("{plain}.0")
    }
}

struct Question;

#[async_trait]
impl ToolExec for Question {
    async fn execute(&self, args: Value, ctx: &Context) -> ToolResult {
        let args = match args_object("question", args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let Some(questions) = args.get("questions").filter(|q| !q.is_null()) else {
            return ToolResult::error("question: questions is required");
        };
        let items = match validate(questions) {
            Ok(items) => items,
            Err(e) => return e,
        };
        // The post-waitFor retry: the resolution IS the answer, forwarded verbatim.
        if let Some(answer) = &ctx.answer {
            let data = answer
                .data
                .clone()
                .unwrap_or_else(|| Value::Object(Map::new()));
            return ToolResult::ok(python_json(&data));
        }
        let prompt = render_prompt(items);
        let request = Request {
            id: new_request_id("pnd"),
            kind: "question".into(),
            prompt: prompt.clone(),
            url: None,
            data: Some(json!({"questions": questions})),
            expires_at: None,
        };
        match serde_json::to_value(&request) {
            Ok(pending) => ToolResult::error(prompt).with_meta("pending", pending),
            Err(e) => ToolResult::error(format!("question: {e}")),
        }
    }
}

/// The §4A `question` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "Ask the host one or more questions. Suspends via a kind:\"question\" Request (§10); the host's waitFor resolves it and the answer is returned to the model.",
        json!({
            "type": "object",
            "properties": {
                "questions": {
                    "type": "array",
                    "description": "Questions to ask",
                    "items": {
                        "type": "object",
                        "properties": {
                            "question": {"type": "string"},
                            "header": {"type": "string"},
                            "options": {"type": "array", "items": {"type": "string"}},
                            "multiple": {"type": "boolean"}
                        },
                        "required": ["question"]
                    }
                }
            },
            "required": ["questions"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(Question),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suspension::Answer;

    #[tokio::test]
    async fn suspends_with_rendered_prompt() {
        let qs = json!([
            {"question": "Pick one", "options": ["a", "b"]},
            {"question": "Why?", "header": "H"},
            {"question": "Empty", "options": []}
        ]);
        let r = tool()
            .execute(json!({"questions": qs}), &Context::default())
            .await;
        assert!(r.is_error);
        let want = "Pick one (options: a, b)\nWhy?\nEmpty";
        assert_eq!(r.output, want);
        let pending = &r.metadata.unwrap()["pending"];
        let req: Request = serde_json::from_value(pending.clone()).unwrap();
        assert!(req.id.starts_with("pnd-"));
        assert_eq!(req.kind, "question");
        assert_eq!(req.prompt, want);
        assert_eq!(req.data, Some(json!({"questions": qs})));
        let keys: Vec<&str> = pending
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["id", "kind", "prompt", "data"]);

        let r = tool()
            .execute(json!({"questions": []}), &Context::default())
            .await;
        assert!(r.is_error);
        assert_eq!(r.output, "");
    }

    #[tokio::test]
    async fn answer_is_python_json() {
        let ctx = |data: Option<Value>| Context {
            answer: Some(Answer {
                id: "x".into(),
                ok: true,
                data,
                reason: None,
            }),
            ..Context::default()
        };
        let args = json!({"questions": [{"question": "Pick one", "options": ["a", "b"]}]});
        let r = tool()
            .execute(args.clone(), &ctx(Some(json!({"answers": ["a"]}))))
            .await;
        assert!(!r.is_error);
        assert_eq!(r.output, "{\"answers\": [\"a\"]}");
        assert!(r.metadata.is_none());
        let r = tool().execute(args.clone(), &ctx(None)).await;
        assert_eq!(r.output, "{}");
        let data = json!({"s": "h\u{e9}\u{1F600}\"\\\n\u{7f}", "f": 1.0, "g": 1e16, "h": 1.5e-5, "i": -3, "n": null, "e": {}, "l": []});
        let r = tool().execute(args, &ctx(Some(data))).await;
        assert_eq!(
            r.output,
            r#"{"s": "h\u00e9\ud83d\ude00\"\\\n\u007f", "f": 1.0, "g": 1e+16, "h": 1.5e-05, "i": -3, "n": null, "e": {}, "l": []}"#
        );
    }

    #[tokio::test]
    async fn rejects_bad_questions() {
        let cases = [
            (json!({}), "question: questions is required"),
            (
                json!({"questions": "x"}),
                "question: questions must be an array, got string",
            ),
            (
                json!({"questions": [{}]}),
                "question: questions[0].question must be a string",
            ),
            (
                json!({"questions": ["q"]}),
                "question: questions[0] must be an object",
            ),
            (
                json!({"questions": [{"question": "q", "options": [1]}]}),
                "question: questions[0].options must be an array of strings",
            ),
            (
                json!({"questions": [{"question": "q", "multiple": "y"}]}),
                "question: questions[0].multiple must be a boolean",
            ),
        ];
        for (args, want) in cases {
            let r = tool().execute(args, &Context::default()).await;
            assert!(r.is_error);
            assert_eq!(r.output, want);
            assert!(r.metadata.is_none());
        }
    }
}
