//! Base64 payloads kept out of what a run writes down. A content part's `data` (SPEC §1B) is
//! user content that may run to tens of megabytes: a trace or a report that repeated it would
//! be as large, and SPEC §8 has a port render a part by its descriptor, never its `data`. The
//! harness holds itself to the same: a long run of base64 is cut to a short head and its
//! length. A trace also keeps a message's plain text to a budget ([`TEXT_BUDGET`]): a
//! classifier request may carry a megabyte of option descriptions and a state of a hundred,
//! none of it base64, and a trace that repeated it would be as large.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// The shortest run of base64 characters taken for a payload. Scenario payloads are a few
/// dozen characters and stay whole; a real image or document is far longer.
pub const MIN_RUN: usize = 4096;

/// How much of a payload is kept: a multiple of four, so the head is itself standard base64
/// (a trace's messages still match the protocol schema's `data` pattern).
pub const KEPT: usize = 64;

/// How much plain text [`elide`] keeps of one message, in bytes: its strings are kept whole
/// in document order while they fit; past it, each further string longer than [`KEPT`]
/// characters keeps its first [`KEPT`] and is listed. The protocol's messages are far
/// smaller; a request carrying a host's data may not be.
pub const TEXT_BUDGET: usize = 256 * 1024;

/// One payload cut out of a JSON value: where it was, and how many characters it had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elided {
    /// Its JSON path, `$.result.parts[0].data`.
    pub path: String,
    /// Its length in characters (for base64, bytes: it is ASCII).
    pub chars: usize,
}

fn is_base64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}

/// `text` with every run of at least [`MIN_RUN`] base64 characters cut to its first
/// [`KEPT`], followed by `… (base64, N chars)`; borrowed when it holds no such run.
pub fn shorten_text(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    // Where the part of `text` not yet copied to `out` starts.
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if !is_base64(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_base64(bytes[i]) {
            i += 1;
        }
        let len = i - start;
        if len >= MIN_RUN {
            // Every byte of the run is ASCII, so both cuts are on character boundaries.
            let o = out.get_or_insert_with(String::new);
            o.push_str(&text[copied..start + KEPT]);
            o.push_str(&format!("… (base64, {len} chars)"));
            copied = i;
        }
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

/// A copy of `value` with [`shorten_text`] applied to every string, for a report: a payload
/// alone reads as its head and its length too.
pub fn shorten_value(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(shorten_text(s).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(shorten_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (shorten_text(k).into_owned(), shorten_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether `s` is one payload and nothing else.
fn is_payload(s: &str) -> bool {
    s.len() >= MIN_RUN && s.bytes().all(is_base64)
}

/// A copy of `value` without its payloads, never copying one: a string that is a payload
/// alone keeps its first [`KEPT`] characters (still base64) and is listed in `elided`; a
/// longer text holding one is shortened as [`shorten_text`] does; and past [`TEXT_BUDGET`]
/// bytes of text, a further string longer than [`KEPT`] characters keeps its first [`KEPT`]
/// and is listed too.
pub fn elide(value: &Value, elided: &mut Vec<Elided>) -> Value {
    let mut path = String::from("$");
    let mut budget = TEXT_BUDGET;
    elide_at(value, &mut path, elided, &mut budget)
}

/// The first [`KEPT`] characters of `s`.
fn text_head(s: &str) -> &str {
    s.char_indices().nth(KEPT).map_or(s, |(end, _)| &s[..end])
}

fn elide_at(
    value: &Value,
    path: &mut String,
    elided: &mut Vec<Elided>,
    budget: &mut usize,
) -> Value {
    match value {
        Value::String(s) if is_payload(s) => {
            elided.push(Elided {
                path: path.clone(),
                chars: s.len(),
            });
            Value::String(s[..KEPT].to_string())
        }
        Value::String(s) => {
            let shown = shorten_text(s);
            if shown.len() <= *budget {
                *budget -= shown.len();
                return Value::String(shown.into_owned());
            }
            let head = text_head(&shown);
            if head.len() == shown.len() {
                // Short enough to keep whole even past the budget.
                return Value::String(shown.into_owned());
            }
            elided.push(Elided {
                path: path.clone(),
                chars: s.chars().count(),
            });
            Value::String(head.to_string())
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    let v = elide_at(item, path, elided, budget);
                    path.truncate(len);
                    v
                })
                .collect(),
        ),
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (key, item) in map {
                let len = path.len();
                path.push('.');
                path.push_str(key);
                out.insert(key.clone(), elide_at(item, path, elided, budget));
                path.truncate(len);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn payload(n: usize) -> String {
        "QUJD".repeat(n / 4)
    }

    #[test]
    fn short_runs_and_plain_text_are_left_alone() {
        let text = format!("a {} b", payload(MIN_RUN - 4));
        assert!(matches!(shorten_text(&text), Cow::Borrowed(_)));
        // A long text with spaces is no payload, however long.
        let words = "word ".repeat(10_000);
        assert!(matches!(shorten_text(&words), Cow::Borrowed(_)));
    }

    #[test]
    fn a_long_run_keeps_its_head_and_its_length() {
        let text = format!("url data:image/png;base64,{} end", payload(8192));
        let short = shorten_text(&text);
        assert_eq!(
            short,
            format!(
                "url data:image/png;base64,{}… (base64, 8192 chars) end",
                &payload(8192)[..KEPT]
            )
        );
        // Two runs, both cut; what is between them stays.
        let two = format!("{} and {}", payload(4096), payload(5000));
        assert_eq!(
            shorten_text(&two),
            format!(
                "{}… (base64, 4096 chars) and {}… (base64, 5000 chars)",
                &payload(64),
                &payload(64)
            )
        );
    }

    #[test]
    fn elide_cuts_payload_strings_and_names_them() {
        let big = payload(100_000);
        let value = json!({"ok": true, "result": {"output": "x", "parts": [
            {"type": "image", "mimeType": "image/png", "data": big},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}]},
            "messages": [{"content": format!("data:image/png;base64,{big}")}]});
        let mut elided = Vec::new();
        let shown = elide(&value, &mut elided);
        assert_eq!(
            elided,
            [Elided {
                path: "$.result.parts[0].data".into(),
                chars: 100_000
            }]
        );
        assert_eq!(shown["result"]["parts"][0]["data"], json!(&big[..KEPT]));
        assert_eq!(shown["result"]["parts"][1]["data"], "iVBORw0KGgo=");
        assert_eq!(
            shown["messages"][0]["content"],
            json!(format!(
                "data:image/png;base64,{}… (base64, 100000 chars)",
                &big[..KEPT]
            ))
        );
        assert!(shown.to_string().len() < 1000, "{shown}");
        let reported = shorten_value(&value);
        assert_eq!(
            reported["result"]["parts"][0]["data"],
            json!(format!("{}… (base64, 100000 chars)", &big[..KEPT]))
        );
        assert_eq!(reported["result"]["output"], "x");
    }

    #[test]
    fn plain_text_past_the_budget_is_cut_and_listed() {
        // 80 descriptions of about 6 kB (non-ASCII, so a cut must fall on a character
        // boundary): as many as fit the budget stay whole, the others are cut.
        let description = |i: usize| format!("option {i:03} {}", "é ".repeat(2040));
        let criteria: Map<String, Value> = (0..80)
            .map(|i| (format!("o{i:03}"), Value::String(description(i))))
            .collect();
        let big = "the board ".repeat(100_000);
        let value = json!({"cmd": "evaluate", "state": [big, "short"],
                           "questions": {"pick": {"type": "choice", "criteria": criteria}}});
        let mut elided = Vec::new();
        let shown = elide(&value, &mut elided);
        // The state's 1 MB string comes first in the message, and alone is over the budget.
        assert_eq!(shown["state"][0], json!(&big[..KEPT]));
        assert_eq!(shown["state"][1], "short");
        let kept = (0..80)
            .filter(|i| {
                shown["questions"]["pick"]["criteria"][format!("o{i:03}")] == json!(description(*i))
            })
            .count();
        assert_eq!(kept, TEXT_BUDGET / description(0).len());
        let cut = &shown["questions"]["pick"]["criteria"]["o079"];
        assert_eq!(cut.as_str().map(|s| s.chars().count()), Some(KEPT));
        assert!(description(79).starts_with(cut.as_str().unwrap()));
        assert_eq!(elided.len(), 1 + 80 - kept);
        assert_eq!(
            elided[0],
            Elided {
                path: "$.state[0]".into(),
                chars: 1_000_000
            }
        );
        assert_eq!(
            elided.last(),
            Some(&Elided {
                path: "$.questions.pick.criteria.o079".into(),
                chars: description(79).chars().count()
            })
        );
        // Short strings past the budget stay whole; the message stays near the budget.
        assert_eq!(shown["cmd"], "evaluate");
        assert!(shown.to_string().len() < TEXT_BUDGET + 8 * 1024);
    }
}
