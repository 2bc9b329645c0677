//! Recorded entries (`hookCalls`, `metricEvents`, `onErrorCalls`, … PROTOCOL.md §5.13) are
//! the driver's records of what its port passed to host code: PROTOCOL.md §1 lets a driver add
//! keys to what it answers, so an entry is compared on the keys the expectation names, and a
//! key the driver added is not a mismatch (NOTES #429). Below an entry's top level nothing
//! changes: a value the port produced (a ToolResult, a Request's `data`) is compared as the
//! expectation says.

use serde_json::{Map, Value};

use crate::compare::json_path;

/// Whether the entries of `list` are the driver's records (tolerant of added keys), not a SPEC
/// data type passed through whole: a `waitForCalls` entry is the SPEC §10 `Request` the port
/// handed to `waitFor`, pinned like every SPEC data type (PROTOCOL.md §1), so an added key —
/// a `null` for an absent optional one — still fails there.
pub fn tolerates_added_keys(list: &str) -> bool {
    list != "waitForCalls"
}

/// `actual` (the value at `path` of a recorded list) with the top-level keys of each entry it
/// holds cut to those `expected` names. `path` `""` selects the whole list, `[n]` one entry;
/// anything deeper is inside an entry and is returned unchanged.
pub fn without_added_keys(path: &str, expected: &Value, actual: Value) -> Value {
    match json_path::parse(path).as_deref() {
        Ok([]) => match actual {
            Value::Array(entries) => {
                let named = named_keys_of_entries(expected);
                Value::Array(
                    entries
                        .into_iter()
                        .map(|e| cut(e, named.as_deref()))
                        .collect(),
                )
            }
            other => other,
        },
        Ok([json_path::Segment::Index(_)]) => match named_keys(expected) {
            Some(named) => cut(actual, Some(&named)),
            None => actual,
        },
        _ => actual,
    }
}

/// The keys an expected entry names, when it is a plain object (not a matcher such as
/// `{"$match": "object"}`); `None` leaves the entry alone.
fn named_keys(expected: &Value) -> Option<Vec<String>> {
    let obj = expected.as_object()?;
    if obj.keys().any(|k| k.starts_with('$') && k != "$partial") {
        return None;
    }
    Some(obj.keys().filter(|k| *k != "$partial").cloned().collect())
}

/// Every key any expected entry names: the entries of a list (or of its `$unordered`) pair up
/// only in the comparison, so each actual entry keeps the union.
fn named_keys_of_entries(expected: &Value) -> Option<Vec<String>> {
    let entries = match expected {
        Value::Array(a) => a,
        Value::Object(o) => o.get("$unordered")?.as_array()?,
        _ => return None,
    };
    let mut all = Vec::new();
    for e in entries {
        for k in named_keys(e)? {
            if !all.contains(&k) {
                all.push(k);
            }
        }
    }
    Some(all)
}

/// `entry` with only the `named` keys, when it is an object and there is a list to keep.
fn cut(entry: Value, named: Option<&[String]>) -> Value {
    match (entry, named) {
        (Value::Object(map), Some(keep)) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| keep.contains(k))
                .collect::<Map<String, Value>>(),
        ),
        (other, _) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::matchers::match_json;
    use serde_json::json;

    fn holds(path: &str, expected: Value, actual: Value) -> bool {
        let actual = without_added_keys(path, &expected, actual);
        match_json(&expected, &actual).mismatches.is_empty()
    }

    #[test]
    fn a_key_the_driver_added_to_an_entry_is_not_a_mismatch() {
        let want = json!({"hook": "beforeTool", "name": "t", "id": "c1"});
        let got = json!({"hook": "beforeTool", "name": "t", "id": "c1", "at": 17});
        assert!(holds("[0]", want.clone(), got.clone()));
        assert!(holds("", json!([want.clone()]), json!([got.clone()])));
        assert!(holds("", json!({"$unordered": [want]}), json!([got])));
    }

    #[test]
    fn a_missing_or_wrong_key_still_fails() {
        let want = json!({"hook": "beforeTool", "name": "t", "id": "c1"});
        assert!(!holds(
            "[0]",
            want.clone(),
            json!({"hook": "beforeTool", "name": "t"})
        ));
        assert!(!holds(
            "[0]",
            want.clone(),
            json!({"hook": "beforeTool", "name": "u", "id": "c1", "at": 1})
        ));
        assert!(!holds(
            "",
            json!([want.clone()]),
            json!([{"hook": "beforeTool", "id": "c1"}])
        ));
        // An entry too many is still a length mismatch.
        assert!(!holds(
            "",
            json!([want.clone()]),
            json!([want.clone(), want])
        ));
    }

    #[test]
    fn inside_an_entry_the_comparison_stays_exact() {
        // `result` is the port's ToolResult: a key it should not have still fails.
        let want = json!({"output": "ok", "isError": false});
        let got = json!({"output": "ok", "isError": false, "extra": 1});
        assert!(!holds("[0].result", want, got));
    }

    #[test]
    fn a_wait_for_entry_is_the_specs_request_and_stays_pinned() {
        assert!(!tolerates_added_keys("waitForCalls"));
        assert!(tolerates_added_keys("hookCalls") && tolerates_added_keys("metricEvents"));
    }

    #[test]
    fn a_matcher_entry_is_left_to_the_matcher() {
        assert!(holds("[0]", json!({"$match": "object"}), json!({"a": 1})));
        let absent = json!({"a": 1, "pending": {"$absent": true}});
        assert!(!holds("[0]", absent, json!({"a": 1, "pending": true})));
    }
}
