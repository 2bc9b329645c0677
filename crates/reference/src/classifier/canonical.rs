//! The canonical JSON of §8B: what makes every port's `model` + `questions` bytes identical.
//!
//! - object keys sorted recursively by the bytes of their UTF-8 (Rust's `str` order, which
//!   is Unicode code-point order and, for ASCII keys, ASCII order: `10_alpha` < `Alpha` <
//!   `beta` < `café`);
//! - arrays never reordered (a score rubric's order is its numbering);
//! - compact: no space after `:` or `,`;
//! - only what JSON requires is escaped (`"`, `\` and the control characters below U+0020);
//!   `<`, `>`, `&`, `'` and every non-ASCII character travel raw;
//! - absent stays absent: the encoder writes what the value holds, never a `null` or `{}`
//!   for a missing key.
//!
//! Numbers are written as `serde_json` writes them (integers as integers, floats in their
//! shortest round-trip form). No generated structure holds one; they occur only in a
//! caller's `state`, which the SPEC leaves outside the byte claim.

use serde_json::Value;

use super::question::{Question, Questions};

/// `value` as canonical JSON text.
pub fn encode(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// The canonical `{"model": …, "questions": {key: question}}`: the bytes the byte-identity
/// claim covers, and the key a `static` corpus is looked up by. Written straight from the
/// questions (no JSON value built first: a wide request is thousands of strings), with the
/// same rules [`encode`] applies to their wire form.
pub fn canonical_request(model: &str, questions: &Questions) -> String {
    let mut out = String::with_capacity(model.len() + questions_size(questions) + 32);
    out.push_str("{\"model\":");
    write_string(&mut out, model);
    out.push_str(",\"questions\":");
    write_questions(&mut out, questions);
    out.push('}');
    out
}

/// The canonical `{"model": …, "questions": …, "state": …}` (the keys' byte order), written
/// from the borrowed parts into one buffer sized for them.
pub fn canonical_body(model: &str, questions: &Questions, state: &Value) -> String {
    let size = model.len() + questions_size(questions) + value_size(state) + 48;
    let mut out = String::with_capacity(size);
    out.push_str("{\"model\":");
    write_string(&mut out, model);
    out.push_str(",\"questions\":");
    write_questions(&mut out, questions);
    out.push_str(",\"state\":");
    write_value(&mut out, state);
    out.push('}');
    out
}

/// About the canonical length of `value`: its texts and a little per item (numbers at their
/// longest), so a large state is written into one allocation.
fn value_size(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 24,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(|v| value_size(v) + 1).sum::<usize>(),
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| k.len() + 4 + value_size(v))
                .sum::<usize>()
        }
    }
}

/// About the canonical length of `questions`: their texts and a little per key, so the
/// output is allocated once.
fn questions_size(questions: &Questions) -> usize {
    questions
        .iter()
        .map(|(key, q)| {
            let texts = match q {
                Question::Noul {
                    instructions,
                    criteria,
                } => {
                    instructions.len()
                        + criteria.as_ref().map_or(0, |c| {
                            c.true_case.as_ref().map_or(0, String::len)
                                + c.false_case.as_ref().map_or(0, String::len)
                                + 32
                        })
                }
                Question::Choice {
                    instructions,
                    criteria,
                } => {
                    instructions.len()
                        + criteria
                            .iter()
                            .map(|(id, d)| id.len() + d.len() + 6)
                            .sum::<usize>()
                }
                Question::Score {
                    instructions,
                    criteria,
                } => instructions.len() + criteria.iter().map(|d| d.len() + 3).sum::<usize>(),
            };
            key.len() + texts + 64
        })
        .sum()
}

/// `{key: question, …}`, keys in byte order.
fn write_questions(out: &mut String, questions: &Questions) {
    write_sorted_object(out, questions.iter(), write_question);
}

/// `{key: value, …}` of `entries`, keys in byte order, each value written by `write_value`.
fn write_sorted_object<'a, V: 'a>(
    out: &mut String,
    entries: impl Iterator<Item = (&'a String, V)>,
    write_value: impl Fn(&mut String, V),
) {
    let mut entries: Vec<(&String, V)> = entries.collect();
    // Map keys are unique, so the unstable sort is the stable one.
    entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    out.push('{');
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        write_value(out, value);
    }
    out.push('}');
}

/// One question's wire form (`Question::to_wire`) canonically: its keys in byte order are
/// `criteria` (when present), `instructions`, `type`; a noul's cases `false`, `true`; a
/// choice's option ids sorted; a rubric in its own order.
fn write_question(out: &mut String, q: &Question) {
    out.push('{');
    let instructions = match q {
        Question::Noul {
            instructions,
            criteria,
        } => {
            if let Some(c) = criteria {
                out.push_str("\"criteria\":{");
                if let Some(f) = &c.false_case {
                    out.push_str("\"false\":");
                    write_string(out, f);
                }
                if let Some(t) = &c.true_case {
                    if c.false_case.is_some() {
                        out.push(',');
                    }
                    out.push_str("\"true\":");
                    write_string(out, t);
                }
                out.push_str("},");
            }
            instructions
        }
        Question::Choice {
            instructions,
            criteria,
        } => {
            out.push_str("\"criteria\":");
            write_sorted_object(out, criteria.iter(), |out, d: &String| write_string(out, d));
            out.push(',');
            instructions
        }
        Question::Score {
            instructions,
            criteria,
        } => {
            out.push_str("\"criteria\":[");
            for (i, level) in criteria.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, level);
            }
            out.push_str("],");
            instructions
        }
    };
    out.push_str("\"instructions\":");
    write_string(out, instructions);
    out.push_str(",\"type\":\"");
    out.push_str(q.kind());
    out.push_str("\"}");
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            // Byte order of the UTF-8 keys; a JSON object has no duplicate keys here.
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(out, k);
                out.push(':');
                write_value(out, v);
            }
            out.push('}');
        }
    }
}

/// Which bytes [`write_string`] escapes: `"`, `\\` and the control characters below U+0020.
const ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// A JSON string with the escapes JSON requires and no others. The text between escapes is
/// copied as slices: every escaped character is ASCII, so each cut is a character boundary.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut plain = 0;
    for (i, b) in s.bytes().enumerate() {
        if !ESCAPED[usize::from(b)] {
            continue;
        }
        out.push_str(&s[plain..i]);
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => out.push_str(&format!("\\u{b:04x}")),
        }
        plain = i + 1;
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classifier::question::{questions_wire, NoulCriteria, Question};
    use serde_json::json;

    /// Key order is byte order, recursively; arrays keep theirs; compact separators.
    #[test]
    fn keys_sort_by_bytes_and_arrays_keep_their_order() {
        let v = json!({"beta": 1, "café": 2, "Alpha": [3, {"z": 1, "a": 2}], "10_alpha": null});
        assert_eq!(
            encode(&v),
            r#"{"10_alpha":null,"Alpha":[3,{"a":2,"z":1}],"beta":1,"café":2}"#
        );
    }

    /// Only `"`, `\` and control characters are escaped; HTML-special and non-ASCII
    /// characters travel raw (python's `json.dumps(..., ensure_ascii=False)` agrees).
    #[test]
    fn strings_escape_only_what_json_requires() {
        let v = json!("<b>&'\"\\ é 😀 \n\t\u{1}\u{1f}\u{7f}\u{2028}");
        assert_eq!(
            encode(&v),
            "\"<b>&'\\\"\\\\ é 😀 \\n\\t\\u0001\\u001f\u{7f}\u{2028}\""
        );
    }

    /// The hardened request, derived by hand from the SPEC's rules: `<>&'"`, a backslash,
    /// unicode text, a non-ASCII key, digit < upper < lower ordering, a rubric in
    /// non-alphabetical order kept, and absent vs empty noul criteria. Cross-checked with
    /// `json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
    #[test]
    fn the_hardened_request_is_byte_exact() {
        let mut qs = Questions::new();
        qs.insert(
            "zeta".into(),
            Question::choice(
                "Pick <one> & 'quote' \"it\"",
                [
                    ("right", "turn into the wall \\ back"),
                    ("left", "turn away — ünïcode"),
                    ("Up", "go up"),
                    ("2nd", "second"),
                ],
            ),
        );
        qs.insert(
            "éclair".into(),
            Question::score("Rate", ["terrible", "great", "okay"]),
        );
        qs.insert("Bare".into(), Question::noul("Is it?"));
        qs.insert(
            "empty".into(),
            Question::Noul {
                instructions: "Holds?".into(),
                criteria: Some(NoulCriteria::default()),
            },
        );
        let expected = concat!(
            r#"{"model":"jev-1.13.0","questions":{"#,
            r#""Bare":{"instructions":"Is it?","type":"noul"},"#,
            r#""empty":{"criteria":{},"instructions":"Holds?","type":"noul"},"#,
            r#""zeta":{"criteria":{"2nd":"second","Up":"go up","left":"turn away — ünïcode","#,
            r#""right":"turn into the wall \\ back"},"#,
            r#""instructions":"Pick <one> & 'quote' \"it\"","type":"choice"},"#,
            r#""éclair":{"criteria":["terrible","great","okay"],"instructions":"Rate","type":"score"}"#,
            r#"}}"#
        );
        assert_eq!(canonical_request("jev-1.13.0", &qs), expected);
    }

    /// A criteria map wider than 32 keys sorts whole (the SPEC's "wide" fixture's point).
    #[test]
    fn a_wide_criteria_map_sorts_whole() {
        // Written in descending order: o39, o38, … o00.
        let options: Vec<(String, String)> = (0..40)
            .rev()
            .map(|i| (format!("o{i:02}"), format!("option {i}")))
            .collect();
        let mut qs = Questions::new();
        qs.insert("wide".into(), Question::choice("Pick", options));
        let criteria: Vec<String> = (0..40)
            .map(|i| format!(r#""o{i:02}":"option {i}""#))
            .collect();
        let expected = format!(
            r#"{{"model":"m","questions":{{"wide":{{"criteria":{{{}}},"instructions":"Pick","type":"choice"}}}}}}"#,
            criteria.join(",")
        );
        assert_eq!(canonical_request("m", &qs), expected);
    }

    /// The request written straight from the questions is the generic encoder's bytes for
    /// their wire form, for every question shape (absent, empty and full noul criteria,
    /// escapes in keys, ids and texts, a rubric, a wide choice).
    #[test]
    fn the_direct_writer_is_the_encoder_of_the_wire_form() {
        let qs: Questions = serde_json::from_value(json!({
            "z\"q": {"type": "noul", "instructions": "tab\there"},
            "a": {"type": "noul", "instructions": "i", "criteria": {}},
            "b": {"type": "noul", "instructions": "i", "criteria": {"true": "T"}},
            "c": {"type": "noul", "instructions": "i", "criteria": {"false": "F"}},
            "d": {"type": "noul", "instructions": "i", "criteria": {"true": "T", "false": "F\u{1}"}},
            "m": {"type": "choice", "instructions": "<&>", "criteria": {"b\\": "B\n", "a": "", "É": "é"}},
            "s": {"type": "score", "instructions": "i", "criteria": ["lo", "mid \"q\"", "hi"]}
        }))
        .unwrap();
        let mut wide = qs.clone();
        wide.insert(
            "wide".into(),
            Question::choice(
                "w",
                (0..300).rev().map(|i| (format!("o{i}"), format!("d {i}"))),
            ),
        );
        for questions in [qs, wide, Questions::new()] {
            let wire = json!({"model": "m\u{2028}", "questions": questions_wire(&questions)});
            assert_eq!(canonical_request("m\u{2028}", &questions), encode(&wire));
        }
    }

    /// The body written from borrowed parts is the encoder's bytes for the same object.
    #[test]
    fn the_borrowed_body_is_the_encoder_of_the_body_value() {
        let qs: Questions = serde_json::from_value(json!({
            "b": {"type": "noul", "instructions": "x"},
            "a": {"type": "choice", "instructions": "y", "criteria": {"q": "Q", "p": "P\""}}
        }))
        .unwrap();
        let state = json!({"z": [1, -0.5, "é\n", null, true], "a": {"y": {}, "x": []}});
        let body = json!({"state": state, "questions": questions_wire(&qs), "model": "m"});
        assert_eq!(canonical_body("m", &qs, &state), encode(&body));
        assert_eq!(
            canonical_body("m", &Questions::new(), &json!(null)),
            r#"{"model":"m","questions":{},"state":null}"#
        );
    }

    /// Keys differ only in the caller's writing order ⇒ identical bytes.
    #[test]
    fn the_callers_order_does_not_change_the_bytes() {
        let a: Questions = serde_json::from_value(json!({
            "b": {"type": "noul", "instructions": "x"},
            "a": {"type": "choice", "instructions": "y", "criteria": {"q": "Q", "p": "P"}}
        }))
        .unwrap();
        let b: Questions = serde_json::from_value(json!({
            "a": {"type": "choice", "instructions": "y", "criteria": {"p": "P", "q": "Q"}},
            "b": {"type": "noul", "instructions": "x"}
        }))
        .unwrap();
        assert_eq!(canonical_request("m", &a), canonical_request("m", &b));
    }
}
