//! Reading the shared `examples/subagent-*` fixtures: `$ref`s resolved, only known keys and
//! prose read, and the fixture's registry and tools turned into an `agent_runtime` body.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::create_runtime;
use crate::scenario::state::{fail, ScenarioState, StepFailure, StepResult};
use toolnexus_ports::port::Port;

/// Reads a fixture and resolves every `{"$ref": "file#/pointer"}` in it (relative to the file
/// holding it; at most 16 levels, so a cycle fails).
pub(super) fn load_fixture(path: &Path) -> Result<Value, StepFailure> {
    let v = read_json(path)?;
    resolve_refs(v, path, 0)
}

fn read_json(path: &Path) -> Result<Value, StepFailure> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        StepFailure::failed(format!("cannot read the fixture {}: {e}", path.display()))
    })?;
    serde_json::from_str(&text).map_err(|e| {
        StepFailure::failed(format!("the fixture {} is not JSON: {e}", path.display()))
    })
}

fn resolve_refs(v: Value, base: &Path, depth: u32) -> Result<Value, StepFailure> {
    if depth > 16 {
        return fail(format!("$ref chain deeper than 16 from {}", base.display()));
    }
    match v {
        Value::Object(m) => {
            if let (1, Some(Value::String(r))) = (m.len(), m.get("$ref")) {
                let (file, pointer) = r.split_once('#').unwrap_or((r.as_str(), ""));
                let target = base.parent().unwrap_or(Path::new(".")).join(file);
                let doc = read_json(&target)?;
                let found = doc.pointer(pointer).cloned().ok_or_else(|| {
                    StepFailure::failed(format!(
                        "$ref {r:?} points at nothing in {}",
                        target.display()
                    ))
                })?;
                return resolve_refs(found, &target, depth + 1);
            }
            let mut out = Map::new();
            for (k, v) in m {
                out.insert(k, resolve_refs(v, base, depth)?);
            }
            Ok(Value::Object(out))
        }
        Value::Array(a) => a
            .into_iter()
            .map(|v| resolve_refs(v, base, depth))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other),
    }
}

pub(super) fn known_keys(v: &Value, known: &[&str], what: &str) -> StepResult {
    if let Some(m) = v.as_object() {
        if let Some(k) = m
            .keys()
            .find(|k| !known.contains(&k.as_str()) && *k != "note" && *k != "comment")
        {
            return fail(format!(
                "{what}: the harness has no reading for key {k:?} (known: {})",
                known.join(", ")
            ));
        }
    }
    Ok(())
}

/// The fixtures' tool behaviours, prose → the protocol catalogue (§7). Only these exact
/// texts are read; any other fails the step naming it, never a guess.
fn tool_behaviour(prose: &str) -> Option<Value> {
    Some(match prose {
        "returns \"data(<q>)\"" => json!({"template": "data({{q}})"}),
        "without ctx.answer → pending({ kind: \"approval\", prompt: \"approve secret access?\" }); with ctx.answer.ok → returns \"secret-token\"" => {
            json!({"suspend": {"kind": "approval", "prompt": "approve secret access?", "answerText": "secret-token"}})
        }
        _ => return None,
    })
}

/// The fixtures' `waitFor` prose → the catalogue's `waitFor` behaviour.
fn wait_for_behaviour(prose: &str) -> Option<Value> {
    Some(match prose {
        "auto-approve: returns { id: request.id, ok: true }" => json!({"answer": {"ok": true}}),
        _ => return None,
    })
}

/// The fixture's registry and tools as an `agent_runtime` body; a scenario adds its
/// `runtime` options and `registryOverride` (merged into the defs, `budget` field by field).
pub(super) async fn fixture_runtime(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    fixture: &Value,
    scenario: Option<&Value>,
) -> StepResult {
    let url = st
        .llms
        .first()
        .map(|(_, u)| u.clone())
        .ok_or_else(|| StepFailure::failed("no mock LLM runs for the fixture"))?;
    let style = fixture
        .pointer("/mockLLM/style")
        .and_then(Value::as_str)
        .unwrap_or("openai");
    let mut tools = Vec::new();
    if let Some(m) = fixture.get("tools").and_then(Value::as_object) {
        for (name, t) in m {
            known_keys(t, &["inputSchema", "behavior"], &format!("tool {name}"))?;
            let prose = t
                .get("behavior")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let behaviour = tool_behaviour(prose).ok_or_else(|| {
                StepFailure::failed(format!(
                    "tool {name}: the harness has no catalogue behaviour for the prose {prose:?}"
                ))
            })?;
            let mut spec = json!({"name": name, "behaviour": behaviour});
            if let Some(s) = t.get("inputSchema") {
                spec["inputSchema"] = s.clone();
            }
            tools.push(spec);
        }
    }
    let mut registry = Map::new();
    let defs = fixture
        .get("registry")
        .and_then(Value::as_object)
        .cloned()
        .ok_or_else(|| StepFailure::failed("the fixture has no `registry`"))?;
    let overrides = scenario
        .and_then(|s| s.get("registryOverride"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (name, d) in defs {
        known_keys(
            &d,
            &["does", "model", "team", "tools", "budget", "waitFor"],
            &format!("registry entry {name}"),
        )?;
        let mut def = d.as_object().cloned().unwrap_or_default();
        if let Some(w) = def.remove("waitFor") {
            let prose = w
                .get("behavior")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let b = wait_for_behaviour(prose).ok_or_else(|| StepFailure::failed(format!(
                "registry entry {name}: the harness has no waitFor behaviour for the prose {prose:?}"
            )))?;
            def.insert("waitFor".into(), b);
        }
        if let Some(Value::Object(o)) = overrides.get(&name) {
            for (k, v) in o {
                match (k.as_str(), def.get_mut(k)) {
                    ("budget", Some(Value::Object(b))) => {
                        if let Value::Object(add) = v {
                            b.extend(add.clone());
                        }
                    }
                    _ => {
                        def.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        registry.insert(name, Value::Object(def));
    }
    let options = scenario
        .and_then(|s| s.get("runtime"))
        .cloned()
        .unwrap_or_else(|| json!({}));
    known_keys(
        &options,
        &["inboxCap", "maxConcurrentTurns", "shutdownMs"],
        "the scenario's runtime options",
    )?;
    let body = json!({"baseUrl": url, "style": style, "apiKey": "test-key", "registry": registry, "tools": tools, "options": options});
    create_runtime(port, st, body).await
}
