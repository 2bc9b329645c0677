//! Converts a shared SPEC fixture's `mockLLM` block (`{style, usagePerCall, scripts{MODEL:
//! [step]}}`) into this mock's scenario format, so the fixtures are played as written.
//!
//! The fixtures describe some replies in prose (`<last tool msg content>`); each known prose
//! maps through the fixed tables below, and anything else is refused by name: a converter
//! that guessed would test the guess, not the fixture.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::scenario::{parse_count, parse_scenario};

/// How long a `blocksUntil` step waits: longer than any test, so the turn only ends when
/// the client gives up (an abort drops the connection and the mock drops the handler).
pub const BLOCKING_DELAY_MS: u64 = 60_000;

/// The one `blocksUntil` value the fixtures use.
const BLOCKS_UNTIL: &str = "released-or-aborted";

/// How deep `$ref`s may chain before the chain counts as a cycle.
const MAX_REF_DEPTH: usize = 16;

/// Prose placeholders inside a step's `text` → (template, separator).
const PLACEHOLDERS: &[(&str, &str, Option<&str>)] = &[
    (
        "<join all tool msg contents with ' + '>",
        "{{toolResults}}",
        Some(" + "),
    ),
    ("<first tool msg content>", "{{toolResult.0}}", None),
    ("<last tool msg content>", "{{toolResult.last}}", None),
    // A drained inbox renders one item per line as `N. …`: count the lines so numbered.
    (
        "<count of numbered inbox items in last user msg>",
        "{{lastUserText.count:(?m)^[0-9]+\\. }}",
        None,
    ),
    (
        "<comma-join of the bootstrapOrder files whose '## <file>' header appears in the system prompt>",
        "{{systemHeadings}}",
        None,
    ),
];

/// One branch of a prose conditional: substrings the system text and the last user text
/// must contain, and the literal answer.
struct Branch {
    system_contains: Option<&'static str>,
    user_contains: Option<&'static str>,
    text: &'static str,
}

/// Whole-text prose conditionals → ordered branches (the last one unconditional).
const CONDITIONALS: &[(&str, &[Branch])] = &[
    (
        "<if system prompt contains 'Prefers dark roast' then 'I recall: dark roast' else 'no memory'>",
        &[
            Branch {
                system_contains: Some("Prefers dark roast"),
                user_contains: None,
                text: "I recall: dark roast",
            },
            Branch {
                system_contains: None,
                user_contains: None,
                text: "no memory",
            },
        ],
    ),
    (
        "<if system prompt contains 'remind about the 3pm sync' AND last user message contains 'Heartbeat' then 'Reminder: 3pm sync \u{1f514}' else 'HEARTBEAT_OK'>",
        &[
            Branch {
                system_contains: Some("remind about the 3pm sync"),
                user_contains: Some("Heartbeat"),
                text: "Reminder: 3pm sync \u{1f514}",
            },
            Branch {
                system_contains: None,
                user_contains: None,
                text: "HEARTBEAT_OK",
            },
        ],
    ),
];

/// The step keys the converter knows.
const STEP_KEYS: &[&str] = &[
    "whenToolMsgs",
    "always",
    "whenToolMsgContains",
    "whenNoToolMsgContains",
    "toolCalls",
    "text",
    "blocksUntil",
];

/// Reads a shared fixture, resolves the `$ref`s of its `mockLLM` block (a path relative to
/// the file holding the `$ref`, plus an optional `#/json/pointer`) and converts the block
/// into scenario-file JSON; the error names the fixture and, for a step, the model, the
/// step index and the offending key or text.
pub fn from_fixture(path: &Path) -> Result<Value, String> {
    let fail = |e: String| format!("fixture {}: {e}", path.display());
    let fixture = read_json(path).map_err(fail)?;
    let block = fixture
        .get("mockLLM")
        .cloned()
        .ok_or_else(|| fail("has no mockLLM block".into()))?;
    let block = resolve(block, path, 0).map_err(|e| fail(format!("mockLLM: {e}")))?;
    let scenario = convert(&block).map_err(|e| fail(format!("mockLLM{e}")))?;
    // The output must be a scenario the mock accepts; checked here, not at the mock's start.
    parse_scenario(&scenario.to_string())
        .map_err(|e| fail(format!("converted scenario is invalid: {e}")))?;
    Ok(scenario)
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

/// Replaces every `{"$ref": …}` object below `value` (found in the file `from`) by what it
/// points at, itself resolved relative to its own file.
fn resolve(value: Value, from: &Path, depth: usize) -> Result<Value, String> {
    match value {
        Value::Object(map) if map.contains_key("$ref") => {
            if depth >= MAX_REF_DEPTH {
                return Err(format!("$ref chain deeper than {MAX_REF_DEPTH} (a cycle?)"));
            }
            if map.len() != 1 {
                return Err(
                    "a $ref object has other keys; refusing to guess how they merge".into(),
                );
            }
            let Some(Value::String(reference)) = map.get("$ref") else {
                return Err("$ref must be a string".into());
            };
            let (file, pointer) = reference.split_once('#').unwrap_or((reference, ""));
            if file.contains("://") {
                return Err(format!(
                    "$ref {reference:?}: only relative file paths are read"
                ));
            }
            let target: PathBuf = if file.is_empty() {
                from.to_path_buf()
            } else {
                from.parent().unwrap_or(Path::new(".")).join(file)
            };
            let document = read_json(&target).map_err(|e| format!("$ref {reference:?}: {e}"))?;
            let pointed = document
                .pointer(pointer)
                .cloned()
                .ok_or_else(|| format!("$ref {reference:?}: no value at {pointer:?}"))?;
            resolve(pointed, &target, depth + 1)
        }
        Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| resolve(v, from, depth).map(|v| (k, v)))
            .collect::<Result<Map<_, _>, _>>()
            .map(Value::Object),
        Value::Array(items) => items
            .into_iter()
            .map(|v| resolve(v, from, depth))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other),
    }
}

/// The resolved block → scenario JSON; errors start with the path below `mockLLM`.
fn convert(block: &Value) -> Result<Value, String> {
    let Some(block) = block.as_object() else {
        return Err(": must be an object".into());
    };
    let mut out = Map::new();
    for (key, value) in block {
        match key.as_str() {
            "style" | "usagePerCall" => {
                out.insert(key.clone(), value.clone());
            }
            "scripts" => {}
            other => return Err(format!(".{other}: unknown key")),
        }
    }
    let Some(scripts) = block.get("scripts").and_then(Value::as_object) else {
        return Err(".scripts: must be an object of model → steps".into());
    };
    let mut replies = Vec::new();
    for (model, steps) in scripts {
        let Some(steps) = steps.as_array() else {
            return Err(format!(".scripts.{model}: must be an array of steps"));
        };
        for (i, step) in steps.iter().enumerate() {
            let at = format!(".scripts.{model}[{i}]");
            replies.extend(convert_step(model, step).map_err(|e| format!("{at}: {e}"))?);
        }
    }
    out.insert("replies".into(), Value::Array(replies));
    Ok(Value::Object(out))
}

/// One script step → its replies (more than one for a prose conditional, in order).
fn convert_step(model: &str, step: &Value) -> Result<Vec<Value>, String> {
    let Some(step) = step.as_object() else {
        return Err("a step must be an object".into());
    };
    if let Some(key) = step.keys().find(|k| !STEP_KEYS.contains(&k.as_str())) {
        return Err(format!("unknown step key {key:?}"));
    }
    let mut when = Map::new();
    when.insert("model".into(), json!(model));
    let mut conditioned = false;
    if let Some(count) = step.get("whenToolMsgs") {
        parse_count(count).map_err(|e| format!("whenToolMsgs: {e}"))?;
        when.insert("toolMsgs".into(), count.clone());
        conditioned = true;
    }
    for (key, to) in [
        ("whenToolMsgContains", "toolResultContains"),
        ("whenNoToolMsgContains", "noToolResultContains"),
    ] {
        if let Some(v) = step.get(key) {
            let Some(s) = v.as_str() else {
                return Err(format!("{key}: must be a string"));
            };
            when.insert(to.into(), json!(s));
            conditioned = true;
        }
    }
    match step.get("always") {
        None => {}
        Some(Value::Bool(true)) => conditioned = true,
        Some(other) => return Err(format!("always: only true is known, got {other}")),
    }
    if !conditioned {
        return Err(
            "no condition (whenToolMsgs, whenToolMsgContains, whenNoToolMsgContains or always)"
                .into(),
        );
    }
    let mut base = Map::new();
    if let Some(calls) = step.get("toolCalls") {
        base.insert("toolCalls".into(), tool_calls(calls)?);
    }
    match step.get("blocksUntil") {
        None => {}
        Some(Value::String(s)) if s == BLOCKS_UNTIL => {
            base.insert("delayMs".into(), json!(BLOCKING_DELAY_MS));
        }
        Some(other) => return Err(format!("blocksUntil: unknown value {other}")),
    }
    let text = match step.get("text") {
        None => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(other) => return Err(format!("text: must be a string, got {other}")),
    };
    if text.is_none() && !base.contains_key("toolCalls") {
        return Err("a step needs text or toolCalls".into());
    }
    let Some(text) = text else {
        base.insert("match".into(), Value::Object(when));
        return Ok(vec![Value::Object(base)]);
    };
    if let Some((_, branches)) = CONDITIONALS.iter().find(|(prose, _)| *prose == text) {
        return Ok(branches
            .iter()
            .map(|b| {
                let mut when = when.clone();
                if let Some(s) = b.system_contains {
                    when.insert("systemText".into(), json!(regex::escape(s)));
                }
                if let Some(s) = b.user_contains {
                    when.insert("lastUserText".into(), json!(regex::escape(s)));
                }
                let mut reply = base.clone();
                reply.insert("match".into(), Value::Object(when));
                reply.insert("text".into(), json!(b.text));
                Value::Object(reply)
            })
            .collect());
    }
    let (template, separator) = template(text)?;
    let mut reply = base;
    reply.insert("match".into(), Value::Object(when));
    reply.insert("text".into(), json!(template));
    if let Some(sep) = separator {
        reply.insert("separator".into(), json!(sep));
    }
    Ok(vec![Value::Object(reply)])
}

/// `[{name, args}]` copied as is; any other key is refused.
fn tool_calls(calls: &Value) -> Result<Value, String> {
    let Some(list) = calls.as_array() else {
        return Err("toolCalls: must be an array".into());
    };
    for (j, call) in list.iter().enumerate() {
        let Some(call) = call.as_object() else {
            return Err(format!("toolCalls[{j}]: must be an object"));
        };
        if let Some(key) = call.keys().find(|k| !matches!(k.as_str(), "name" | "args")) {
            return Err(format!("toolCalls[{j}]: unknown key {key:?}"));
        }
    }
    Ok(calls.clone())
}

/// A prose text → template and separator: every known placeholder is replaced, and the
/// literal rest may hold no `<`, `>`, `{{` or `}}` (unknown prose, or a template by accident).
fn template(text: &str) -> Result<(String, Option<&'static str>), String> {
    let mut out = String::new();
    let mut separator = None;
    let mut rest = text;
    loop {
        let next = PLACEHOLDERS
            .iter()
            .filter_map(|p| rest.find(p.0).map(|at| (at, p)))
            .min_by_key(|(at, _)| *at);
        let literal = match next {
            Some((at, _)) => &rest[..at],
            None => rest,
        };
        if ["<", ">", "{{", "}}"].iter().any(|m| literal.contains(m)) {
            return Err(format!(
                "text {text:?}: prose the converter does not know (add it to the table in fixture.rs)"
            ));
        }
        out.push_str(literal);
        let Some((at, (prose, template, sep))) = next else {
            break;
        };
        out.push_str(template);
        if let Some(s) = sep {
            separator = Some(*s);
        }
        rest = &rest[at + prose.len()..];
    }
    Ok((out, separator))
}
