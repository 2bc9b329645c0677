//! Comparing a port's output with an expectation: exact where the SPEC pins bytes, matchers
//! where it pins meaning, snapshot bodies for whole outputs, and readable diffs on failure.

use std::path::Path;

use serde_json::{json, Value};

use crate::compare::expectation::ExpectationKind;
use crate::compare::matchers::{match_json, MatchOutcome, Mismatch};
use crate::compare::snapshots;
use crate::outcome::failure::{Failure, FailureData};
use toolnexus_ports::payload::shorten_value;

/// The ten builtin names (§4A), whose descriptions and property descriptions the SPEC
/// leaves open and which are therefore compared leniently in snapshots. The harness keeps
/// its own copy of this SPEC fact rather than importing the reference's, so a mistake in the
/// reference cannot relax an expectation.
pub const BUILTIN_NAMES: [&str; 10] = [
    "bash",
    "read",
    "write",
    "edit",
    "grep",
    "glob",
    "webfetch",
    "question",
    "apply_patch",
    "todowrite",
];

/// Compares JSON, reporting the expectation kind and, on failure, every mismatch with its
/// path, the whole documents, and (when pinned) a diff.
pub fn expect_json(expected: &Value, actual: &Value) -> Result<String, Failure> {
    let outcome: MatchOutcome = match_json(expected, actual);
    if outcome.passed() {
        return Ok(outcome.kind());
    }
    let headline: Vec<String> = outcome.mismatches.iter().map(ToString::to_string).collect();
    // What the report shows: a content part's base64 as its head and length, so a failed
    // comparison of a 64 MiB image neither diffs nor copies the image.
    let (expected, actual) = (shorten_value(expected), shorten_value(actual));
    Err(Failure::from(FailureData {
        kind: outcome.expectation_kind(),
        message: headline.join("; "),
        // Matchers make a line diff noisy: the mismatches say more.
        diff: outcome
            .matchers
            .is_empty()
            .then(|| diff(&pretty(&expected), &pretty(&actual))),
        mismatches: outcome.mismatches,
        expected: Some(expected),
        actual: Some(actual),
        ..FailureData::default()
    }))
}

/// Compares text exactly (pinned), with a line diff on failure.
pub fn expect_text(expected: &str, actual: &str) -> Result<String, Failure> {
    if expected == actual {
        return Ok("pinned".to_string());
    }
    Err(Failure::from(FailureData {
        kind: ExpectationKind::Pinned,
        message: "text differs".to_string(),
        diff: Some(diff(expected, actual)),
        mismatches: vec![Mismatch::text(expected, actual)],
        ..FailureData::default()
    }))
}

/// Compares JSON with a snapshot's body; `lenient_builtins` relaxes what the SPEC leaves
/// open about builtins (see `relax_builtins`).
pub fn snapshot_json(
    dir: &Path,
    name: &str,
    actual: &Value,
    lenient_builtins: bool,
    drop_tool: Option<&str>,
) -> Result<String, Failure> {
    let body = snapshots::body(dir, name)?;
    let mut expected: Value =
        serde_json::from_str(&body).map_err(|e| format!("snapshot {name} is not JSON: {e}"))?;
    if let Some(tool) = drop_tool {
        expected = without_tool(&expected, tool);
    }
    if !lenient_builtins {
        return expect_json(&expected, actual);
    }
    let reason = "builtin descriptions, additionalProperties";
    let (e, a) = (relax_builtins(&expected), relax_builtins(actual));
    if e == a {
        return Ok(format!("lenient ({reason})"));
    }
    // The relaxed documents are what was compared, so their paths are what differs.
    let mismatches = match_json(&e, &a).mismatches;
    let (e, a) = (shorten_value(&e), shorten_value(&a));
    Err(Failure::from(FailureData {
        kind: ExpectationKind::Lenient {
            reason: reason.to_string(),
        },
        message: format!("differs from snapshot {name}"),
        diff: Some(diff(&pretty(&e), &pretty(&a))),
        mismatches,
        expected: Some(e),
        actual: Some(a),
        ..FailureData::default()
    }))
}

/// An adapter array (any of the three shapes) without the entries for the tool `name`, so one
/// reviewed snapshot also states the expectation for a toolkit built without that tool.
pub fn without_tool(v: &Value, name: &str) -> Value {
    let named = |e: &Value| {
        e.get("name").or_else(|| e.pointer("/function/name")) == Some(&Value::from(name))
    };
    match v {
        Value::Array(a) => Value::Array(
            a.iter()
                .filter(|e| !named(e))
                .map(|e| without_tool(e, name))
                .collect(),
        ),
        Value::Object(m) if m.contains_key("functionDeclarations") => Value::Object(
            m.iter()
                .map(|(k, e)| (k.clone(), without_tool(e, name)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Blanks what the SPEC leaves open: builtin tool and property descriptions and
/// `additionalProperties` (names, types and `required` stay compared), and the top-level
/// `additionalProperties` of the skill tool's schema.
pub fn relax_builtins(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(relax_builtins).collect()),
        Value::Object(m) => {
            let is_builtin = m
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| BUILTIN_NAMES.contains(&n));
            // The skill tool's description and schema are pinned by §3, except the
            // `additionalProperties` key ports add (conformance/NOTES.md #4).
            let is_skill = m.get("name").and_then(Value::as_str) == Some("skill");
            let mut out = serde_json::Map::new();
            for (k, val) in m {
                let is_schema = ["inputSchema", "input_schema", "parameters"].contains(&k.as_str());
                if is_builtin && k == "description" {
                    out.insert(k.clone(), json!("<lenient>"));
                } else if is_builtin && is_schema {
                    out.insert(k.clone(), strip_schema_prose(val));
                } else if is_skill && is_schema {
                    let mut schema = val.clone();
                    if let Some(obj) = schema.as_object_mut() {
                        obj.remove("additionalProperties");
                    }
                    out.insert(k.clone(), schema);
                } else {
                    out.insert(k.clone(), relax_builtins(val));
                }
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn strip_schema_prose(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(strip_schema_prose).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, val)| {
                    !(k.as_str() == "additionalProperties"
                        || (k.as_str() == "description" && val.is_string()))
                })
                .map(|(k, val)| (k.clone(), strip_schema_prose(val)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// A unified expected-vs-actual diff.
pub fn diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relaxing_builtins_keeps_names_types_and_required() {
        let v = json!([{"name": "bash", "description": "x", "inputSchema": {"type": "object",
            "properties": {"command": {"type": "string", "description": "d"}}, "required": ["command"],
            "additionalProperties": false}}]);
        assert_eq!(
            relax_builtins(&v),
            json!([{"name": "bash", "description": "<lenient>", "inputSchema": {"type": "object",
                "properties": {"command": {"type": "string"}}, "required": ["command"]}}])
        );
    }

    #[test]
    fn a_pinned_json_failure_carries_paths_values_documents_and_a_diff() {
        let (e, a) = (
            json!({"tools": [{"name": "x"}]}),
            json!({"tools": [{"name": "y"}]}),
        );
        let f = expect_json(&e, &a).unwrap_err();
        assert_eq!(f.kind, ExpectationKind::Pinned);
        assert_eq!(f.mismatches.len(), 1);
        assert_eq!(f.mismatches[0].path, "$.tools[0].name");
        assert_eq!(f.mismatches[0].expected, Some(json!("x")));
        assert_eq!(f.mismatches[0].actual, Some(json!("y")));
        assert_eq!(
            (f.expected.as_ref(), f.actual.as_ref()),
            (Some(&e), Some(&a))
        );
        let d = diff(&pretty(&e), &pretty(&a));
        assert_eq!(f.diff.as_deref(), Some(d.as_str()));
        assert_eq!(
            f.to_string(),
            format!("[pinned] $.tools[0].name: expected \"x\", got \"y\"\n{d}")
        );
        assert_eq!(expect_json(&e, &e).unwrap(), "pinned");
    }

    #[test]
    fn a_lenient_json_failure_has_its_reason_and_no_diff() {
        let f = expect_json(&json!({"$regex": "^a"}), &json!("b")).unwrap_err();
        assert_eq!(
            f.kind,
            ExpectationKind::Lenient {
                reason: "regex".into()
            }
        );
        assert_eq!(f.diff, None);
        assert_eq!(
            f.to_string(),
            "[lenient (regex)] $: expected $regex \"^a\", got \"b\""
        );
    }

    #[test]
    fn a_text_failure_is_pinned_with_both_texts_and_a_diff() {
        let f = expect_text("a\nb\n", "a\nc\n").unwrap_err();
        assert_eq!(f.kind, ExpectationKind::Pinned);
        assert_eq!(f.mismatches, vec![Mismatch::text("a\nb\n", "a\nc\n")]);
        assert_eq!(
            f.to_string(),
            format!("[pinned] text differs\n{}", diff("a\nb\n", "a\nc\n"))
        );
    }

    #[test]
    fn a_lenient_snapshot_failure_names_the_relaxed_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("s.snap"),
            "---\nsource: x\n---\n[{\"name\": \"bash\", \"description\": \"d\", \"source\": \"builtin\"}]\n",
        )
        .unwrap();
        let actual = json!([{"name": "bash", "description": "other", "source": "mcp"}]);
        let f = snapshot_json(dir.path(), "s", &actual, true, None).unwrap_err();
        assert_eq!(
            f.kind,
            ExpectationKind::Lenient {
                reason: "builtin descriptions, additionalProperties".into()
            }
        );
        assert_eq!(f.message, "differs from snapshot s");
        assert_eq!(f.mismatches.len(), 1, "{:?}", f.mismatches);
        assert_eq!(f.mismatches[0].path, "$[0].source");
        let missing = snapshot_json(dir.path(), "nope", &actual, true, None).unwrap_err();
        assert_eq!(missing.kind, ExpectationKind::Other);
        assert!(missing.to_string().starts_with("cannot read snapshot"));
    }
}
