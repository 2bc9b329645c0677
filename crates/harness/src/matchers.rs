//! Expectation matching: exact JSON where the SPEC pins bytes, matchers where it pins meaning.
//!
//! Matchers inside an expected JSON value:
//! `{"$match":"any"|"string"|"number"|"boolean"|"array"|"object"}`, `{"$contains":"text"}`,
//! `{"$regex":"re"}`, `{"$oneOf":[v1, v2]}`, `{"$unordered":[v1, v2]}` (the same items in any
//! order), `{"$json": expected}` (a string holding JSON that matches `expected`),
//! `{"$absent":true}` (as an object member), and
//! `"$partial": true` inside an object (extra actual keys allowed).

use std::collections::BTreeSet;

use regex::Regex;
use serde_json::Value;

/// The outcome of one comparison.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct MatchOutcome {
    /// Matcher kinds that applied; empty ⇒ the comparison was pinned (exact).
    pub matchers: BTreeSet<String>,
    /// Every mismatch, with its JSON path.
    pub mismatches: Vec<String>,
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
            .push(format!("{path}: missing (expected {})", short(expected)));
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
                for k in a.keys().filter(|k| !e.contains_key(*k)) {
                    out.mismatches.push(format!(
                        "{path}.{k}: unexpected key (value {})",
                        short(&a[k])
                    ));
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                out.mismatches.push(format!(
                    "{path}: expected {} items, got {}",
                    e.len(),
                    a.len()
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
            .push(format!("{path}: expected {}, got {}", short(e), short(a))),
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
    if key == "$absent" {
        if let Some(a) = actual {
            out.mismatches
                .push(format!("{path}: expected absent, got {}", short(a)));
        }
        return;
    }
    let Some(actual) = actual else {
        out.mismatches
            .push(format!("{path}: missing (expected {key} {})", short(arg)));
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
                out.mismatches
                    .push(format!("{path}: bad regex in expectation: {e}"));
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
        out.mismatches.push(format!(
            "{path}: expected {key} {}, got {}",
            short(arg),
            short(actual)
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
    super::port::truncate(&v.to_string(), 160)
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
}
