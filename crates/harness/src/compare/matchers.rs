//! Expectation matching: exact JSON where the SPEC pins bytes, matchers where it pins meaning.
//!
//! Matchers inside an expected JSON value:
//! `{"$match":"any"|"string"|"number"|"boolean"|"array"|"object"}`, `{"$contains":"text"}`,
//! `{"$regex":"re"}`, `{"$oneOf":[v1, v2]}`, `{"$unordered":[v1, v2]}` (the same items in any
//! order), `{"$json": expected}` (a string holding JSON that matches `expected`),
//! `{"$absent":true}` (as an object member), and
//! `"$partial": true` inside an object (extra actual keys allowed).

use std::collections::BTreeSet;
use toolnexus_ports::payload::shorten_value;

use std::fmt;

use regex::Regex;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::compare::expectation::ExpectationKind;

/// The outcome of one comparison.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MatchOutcome {
    /// Matcher kinds that applied; empty ⇒ the comparison was pinned (exact).
    pub matchers: BTreeSet<String>,
    /// Every mismatch, with its JSON path.
    pub mismatches: Vec<Mismatch>,
}

/// What went wrong at one place of a compared output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Problem {
    /// A value (or a matcher) was expected here and something else came.
    Differs,
    /// Something was expected here and nothing came.
    Missing,
    /// A key came that the expectation does not allow.
    Unexpected,
    /// An array has another length than expected (`expected`/`actual` are the lengths).
    Length,
    /// The expectation itself cannot be applied (a bad regex); `detail` says why.
    BadExpectation,
}

/// One mismatch: where, what was expected, what came instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    /// A JSON path from `$` (`$.tools[2].name`); empty when whole texts were compared.
    pub path: String,
    /// What went wrong there.
    pub problem: Problem,
    /// What the expectation asked for: a value, or a matcher such as `{"$contains": "x"}`;
    /// absent for an unexpected key.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub expected: Option<Value>,
    /// What the port gave; absent when nothing was there.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub actual: Option<Value>,
    /// Why the expectation could not be applied, for `bad-expectation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A member that is present is `Some`, even when it is `null` (serde's default reads `null`
/// as `None`, which would turn "expected null" into "expected nothing").
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Mismatch {
    /// The values are kept as a report shows them: a content part's base64 as its head and
    /// length ([`shorten_value`]), so a mismatch on a 64 MiB image does not copy it.
    fn new(path: &str, problem: Problem, expected: Option<&Value>, actual: Option<&Value>) -> Self {
        Mismatch {
            path: path.to_string(),
            problem,
            expected: expected.map(shorten_value),
            actual: actual.map(shorten_value),
            detail: None,
        }
    }

    /// Two whole texts that differ (no JSON path).
    pub fn text(expected: &str, actual: &str) -> Self {
        Mismatch::new(
            "",
            Problem::Differs,
            Some(&Value::String(expected.to_string())),
            Some(&Value::String(actual.to_string())),
        )
    }
}

/// The one-line form reports have always shown (`$.a: expected 1, got 2`); values are
/// shortened here only, the data keeps them whole.
impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let expected = self.expected.as_ref().map(describe).unwrap_or_default();
        let actual = self.actual.as_ref().map(short).unwrap_or_default();
        let path = &self.path;
        match self.problem {
            Problem::Differs => write!(f, "{path}: expected {expected}, got {actual}"),
            Problem::Missing => write!(f, "{path}: missing (expected {expected})"),
            Problem::Unexpected => write!(f, "{path}: unexpected key (value {actual})"),
            Problem::Length => write!(f, "{path}: expected {expected} items, got {actual}"),
            Problem::BadExpectation => {
                write!(f, "{path}: {}", self.detail.as_deref().unwrap_or(""))
            }
        }
    }
}

/// An expected value as a message names it: a matcher as `$key arg` (`absent` for
/// `$absent`), anything else shortened.
fn describe(v: &Value) -> String {
    match v.as_object().and_then(matcher_of) {
        Some(("$absent", _)) => "absent".to_string(),
        Some((key, arg)) => format!("{key} {}", short(arg)),
        None => short(v),
    }
}

impl MatchOutcome {
    /// Whether everything matched.
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// `pinned` or `lenient (contains, regex)`.
    pub fn kind(&self) -> String {
        if self.matchers.is_empty() {
            "pinned".to_string()
        } else {
            format!(
                "lenient ({})",
                self.matchers.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        }
    }

    /// The kind as data: pinned, or lenient with the matchers as its reason.
    pub fn expectation_kind(&self) -> ExpectationKind {
        if self.matchers.is_empty() {
            ExpectationKind::Pinned
        } else {
            ExpectationKind::Lenient {
                reason: self.matchers.iter().cloned().collect::<Vec<_>>().join(", "),
            }
        }
    }
}

/// Compares `actual` with `expected` (which may contain matchers).
pub fn match_json(expected: &Value, actual: &Value) -> MatchOutcome {
    let mut out = MatchOutcome::default();
    walk(expected, Some(actual), "$", &mut out);
    out
}

/// Matches one text against a text matcher (`$contains`, `$regex`) or exact text.
pub fn match_text(expected: &Value, actual: &str) -> MatchOutcome {
    match_json(expected, &Value::String(actual.to_string()))
}

fn walk(expected: &Value, actual: Option<&Value>, path: &str, out: &mut MatchOutcome) {
    if let Some(obj) = expected.as_object() {
        if let Some((key, arg)) = matcher_of(obj) {
            out.matchers.insert(key.trim_start_matches('$').to_string());
            apply_matcher(key, arg, actual, path, out);
            return;
        }
    }
    let Some(actual) = actual else {
        out.mismatches
            .push(Mismatch::new(path, Problem::Missing, Some(expected), None));
        return;
    };
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let partial = e.get("$partial") == Some(&Value::Bool(true));
            if partial {
                out.matchers.insert("partial".into());
            }
            for (k, ev) in e.iter().filter(|(k, _)| k.as_str() != "$partial") {
                walk(ev, a.get(k), &format!("{path}.{k}"), out);
            }
            if !partial {
                for (k, v) in a.iter().filter(|(k, _)| !e.contains_key(*k)) {
                    out.mismatches.push(Mismatch::new(
                        &format!("{path}.{k}"),
                        Problem::Unexpected,
                        None,
                        Some(v),
                    ));
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                out.mismatches.push(Mismatch::new(
                    path,
                    Problem::Length,
                    Some(&Value::from(e.len())),
                    Some(&Value::from(a.len())),
                ));
            }
            for (i, ev) in e.iter().enumerate() {
                walk(ev, a.get(i), &format!("{path}[{i}]"), out);
            }
        }
        (e, a) if numbers_equal(e, a) => {}
        (e, a) if e == a => {}
        (e, a) => out
            .mismatches
            .push(Mismatch::new(path, Problem::Differs, Some(e), Some(a))),
    }
}

fn numbers_equal(e: &Value, a: &Value) -> bool {
    match (e.as_f64(), a.as_f64()) {
        (Some(x), Some(y)) => e.is_number() && a.is_number() && x == y,
        _ => false,
    }
}

fn matcher_of(obj: &serde_json::Map<String, Value>) -> Option<(&str, &Value)> {
    if obj.len() != 1 {
        return None;
    }
    let (k, v) = obj.iter().next()?;
    [
        "$match",
        "$contains",
        "$regex",
        "$oneOf",
        "$unordered",
        "$json",
        "$absent",
    ]
    .contains(&k.as_str())
    .then_some((k.as_str(), v))
}

fn apply_matcher(
    key: &str,
    arg: &Value,
    actual: Option<&Value>,
    path: &str,
    out: &mut MatchOutcome,
) {
    // The matcher itself is what was expected, so the data says which one failed.
    let matcher = Value::Object([(key.to_string(), arg.clone())].into_iter().collect());
    if key == "$absent" {
        if let Some(a) = actual {
            out.mismatches.push(Mismatch::new(
                path,
                Problem::Differs,
                Some(&matcher),
                Some(a),
            ));
        }
        return;
    }
    let Some(actual) = actual else {
        out.mismatches
            .push(Mismatch::new(path, Problem::Missing, Some(&matcher), None));
        return;
    };
    let ok = match key {
        "$match" => match arg.as_str().unwrap_or("any") {
            "any" => true,
            "string" => actual.is_string(),
            "number" => actual.is_number(),
            "boolean" => actual.is_boolean(),
            "array" => actual.is_array(),
            "object" => actual.is_object(),
            _ => false,
        },
        "$contains" => match (arg.as_str(), actual.as_str()) {
            (Some(needle), Some(hay)) => hay.contains(needle),
            _ => false,
        },
        "$regex" => match (arg.as_str().map(Regex::new), actual.as_str()) {
            (Some(Ok(re)), Some(text)) => re.is_match(text),
            (Some(Err(e)), _) => {
                let mut m =
                    Mismatch::new(path, Problem::BadExpectation, Some(&matcher), Some(actual));
                m.detail = Some(format!("bad regex in expectation: {e}"));
                out.mismatches.push(m);
                return;
            }
            _ => false,
        },
        "$oneOf" => arg
            .as_array()
            .is_some_and(|opts| opts.iter().any(|o| match_json(o, actual).passed())),
        "$json" => actual
            .as_str()
            .and_then(|text| serde_json::from_str::<Value>(text).ok())
            .is_some_and(|parsed| match_json(arg, &parsed).passed()),
        "$unordered" => match (arg.as_array(), actual.as_array()) {
            (Some(want), Some(got)) => {
                want.len() == got.len() && assign(want, got, &mut vec![false; got.len()])
            }
            _ => false,
        },
        _ => false,
    };
    if !ok {
        out.mismatches.push(Mismatch::new(
            path,
            Problem::Differs,
            Some(&matcher),
            Some(actual),
        ));
    }
}

/// Whether every expected item matches a distinct actual item (small lists: backtracking).
fn assign(want: &[Value], got: &[Value], used: &mut Vec<bool>) -> bool {
    let Some((first, rest)) = want.split_first() else {
        return true;
    };
    for i in 0..got.len() {
        if !used[i] && match_json(first, &got[i]).passed() {
            used[i] = true;
            if assign(rest, got, used) {
                return true;
            }
            used[i] = false;
        }
    }
    false
}

fn short(v: &Value) -> String {
    toolnexus_ports::port::truncate(&v.to_string(), 160)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_text_matches_its_parsed_value() {
        let want = json!({"$json": {"schema": {"type": "object", "$partial": true}}});
        assert!(match_json(
            &want,
            &json!("{ \"schema\" : {\"type\":\"object\",\"x\":1}}")
        )
        .passed());
        assert!(!match_json(&want, &json!("{\"schema\":{\"type\":\"array\"}}")).passed());
        assert!(!match_json(&want, &json!("not json")).passed());
        assert!(!match_json(&want, &json!({"schema": {"type": "object"}})).passed());
    }

    #[test]
    fn pinned_and_lenient() {
        let exact = match_json(&json!({"a": [1, "x"]}), &json!({"a": [1, "x"]}));
        assert!(exact.passed());
        assert_eq!(exact.kind(), "pinned");
        let bad = match_json(&json!({"a": 1}), &json!({"a": 1, "b": 2}));
        assert!(!bad.passed());
        let lenient = match_json(
            &json!({"d": {"$contains": "ell"}, "n": {"$match": "number"}, "$partial": true}),
            &json!({"d": "hello", "n": 3, "extra": true}),
        );
        assert!(lenient.passed(), "{:?}", lenient.mismatches);
        assert_eq!(lenient.kind(), "lenient (contains, match, partial)");
        assert!(!match_json(&json!({"$regex": "^a$"}), &json!("ab")).passed());
        assert!(match_json(&json!({"x": {"$absent": true}}), &json!({})).passed());
        let un = json!({"$unordered": [{"$partial": true, "a": 1}, {"$partial": true, "a": 2}]});
        assert!(match_json(&un, &json!([{"a": 2, "b": 0}, {"a": 1}])).passed());
        assert!(!match_json(&un, &json!([{"a": 2}, {"a": 2}])).passed());
        assert!(!match_json(&un, &json!([{"a": 1}])).passed());
        assert!(!match_json(&json!({"x": {"$absent": true}}), &json!({"x": 1})).passed());
    }

    #[test]
    fn mismatches_are_data_and_read_as_messages_always_did() {
        let out = match_json(
            &json!({"a": 1, "b": [1, 2], "c": {"$contains": "x"}, "d": {"$absent": true},
                    "e": 5, "f": {"$match": "string"}, "r": {"$regex": "("}}),
            &json!({"a": 2, "b": [1], "c": "y", "d": 0, "r": "t", "z": true}),
        );
        let texts: Vec<String> = out.mismatches.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts[..7],
            [
                "$.a: expected 1, got 2",
                "$.b: expected 2 items, got 1",
                "$.b[1]: missing (expected 2)",
                "$.c: expected $contains \"x\", got \"y\"",
                "$.d: expected absent, got 0",
                "$.e: missing (expected 5)",
                "$.f: missing (expected $match \"string\")",
            ]
        );
        assert!(
            texts[7].starts_with("$.r: bad regex in expectation: "),
            "{texts:?}"
        );
        assert_eq!(texts[8], "$.z: unexpected key (value true)");
        assert_eq!(texts.len(), 9);
        let at = |i: usize| {
            let m = &out.mismatches[i];
            (
                m.path.as_str(),
                m.problem,
                m.expected.clone(),
                m.actual.clone(),
            )
        };
        assert_eq!(
            at(0),
            ("$.a", Problem::Differs, Some(json!(1)), Some(json!(2)))
        );
        assert_eq!(
            at(1),
            ("$.b", Problem::Length, Some(json!(2)), Some(json!(1)))
        );
        assert_eq!(at(2), ("$.b[1]", Problem::Missing, Some(json!(2)), None));
        assert_eq!(
            at(3),
            (
                "$.c",
                Problem::Differs,
                Some(json!({"$contains": "x"})),
                Some(json!("y"))
            )
        );
        assert_eq!(at(7).1, Problem::BadExpectation);
        assert_eq!(at(8), ("$.z", Problem::Unexpected, None, Some(json!(true))));
        assert_eq!(
            out.expectation_kind(),
            ExpectationKind::Lenient {
                reason: "absent, contains, match, regex".into()
            }
        );
    }
}
