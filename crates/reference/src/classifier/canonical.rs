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

use super::question::{questions_wire, Questions};

/// `value` as canonical JSON text.
pub fn encode(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

/// The canonical `{"model": …, "questions": {key: question}}`: the bytes the byte-identity
/// claim covers, and the key a `static` corpus is looked up by.
pub fn canonical_request(model: &str, questions: &Questions) -> String {
    let mut request = serde_json::Map::new();
    request.insert("model".into(), Value::from(model));
    request.insert("questions".into(), questions_wire(questions));
    encode(&Value::Object(request))
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

/// A JSON string with the escapes JSON requires and no others.
fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classifier::question::{NoulCriteria, Question};
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
