//! Differential mode: proptest generates random toolkit configurations, both the reference
//! and a port build each one, and every disagreement on tool names, order, sources or
//! adapter output is shrunk to a small counterexample.

use std::collections::BTreeMap;
use std::path::Path;

use futures::future::{FutureExt, LocalBoxFuture};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRng, TestRunner};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::compare::expect::relax_builtins;
use crate::compare::matchers::match_json;
use toolnexus_ports::port::Port;

/// One generated configuration: protocol options plus a skill tree to write first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    /// `build` options; `{{TMP}}` stands for the case's skill tree root.
    pub options: Value,
    /// Skill files to create under the root: (relative dir, name, description).
    pub tree: Vec<(String, String, Option<String>)>,
}

/// A shrunk disagreement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Counterexample {
    /// What differs (JSON paths), the grouping key.
    pub signature: String,
    /// The smallest failing case found.
    pub case: Case,
    /// The mismatches, reference vs port.
    pub mismatches: Vec<String>,
}

/// The outcome of a differential run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiffReport {
    /// The port compared with the reference.
    pub port: String,
    /// Cases generated.
    pub cases: usize,
    /// Cases on which the two disagreed.
    pub mismatching: usize,
    /// One shrunk counterexample per distinct signature.
    pub counterexamples: Vec<Counterexample>,
}

fn pick(options: &'static [&'static str]) -> impl Strategy<Value = String> {
    proptest::sample::select(options).prop_map(str::to_string)
}

fn builtins_strategy() -> impl Strategy<Value = Option<Value>> {
    let names: &'static [&'static str] = &["bash", "read", "grep", "question", "nope"];
    prop_oneof![
        Just(None),
        Just(Some(json!(true))),
        Just(Some(json!(false))),
        Just(Some(json!({"disabled": true}))),
        Just(Some(json!({"enabled": false}))),
        proptest::collection::btree_map(pick(names), any::<bool>(), 0..4)
            .prop_map(|m| Some(json!({ "tools": m }))),
    ]
}

/// The strategy behind the generated configurations.
pub fn case_strategy() -> impl Strategy<Value = Case> {
    let skill_names: &'static [&'static str] = &["a", "b", "c"];
    let filter_names: &'static [&'static str] = &["a", "b", "x", "zz"];
    let tool_names: &'static [&'static str] = &["bash", "read", "skill", "t1", "t2"];
    let drop_names: &'static [&'static str] = &["bash", "grep", "skill", "t1", "nope"];
    let dirs: &'static [&'static str] = &["g1", "g2/sub"];
    (
        builtins_strategy(),
        // Every case has a skill source: without one the `skill` tool is optional by
        // design (conformance/NOTES.md #1), which would drown every other finding.
        Just(true),
        proptest::collection::vec((pick(skill_names), any::<bool>()), 0..3),
        proptest::collection::vec((pick(dirs), pick(&["x", "y", "a"]), any::<bool>()), 0..3),
        proptest::collection::btree_map(pick(filter_names), any::<bool>(), 0..3),
        proptest::collection::vec(pick(filter_names), 0..2),
        proptest::collection::vec((pick(tool_names), any::<bool>()), 0..4),
        proptest::collection::vec(pick(drop_names), 0..3),
    )
        .prop_map(
            |(builtins, with_skills, defs, tree, filter, disable_skills, extras, disable_tools)| {
                let mut o = Map::new();
                if let Some(b) = builtins {
                    o.insert("builtins".into(), b);
                }
                let mut files = Vec::new();
                if with_skills {
                    let defs: Vec<Value> = defs
                        .iter()
                        .map(|(n, described)| {
                            let mut d = json!({"name": n, "content": format!("body of {n}")});
                            if *described {
                                d["description"] = json!(format!("data skill {n}"));
                            }
                            d
                        })
                        .collect();
                    o.insert("skills".into(), Value::Array(defs));
                    o.insert("skillsDir".into(), json!("{{TMP}}"));
                    for (i, (dir, name, described)) in tree.into_iter().enumerate() {
                        let desc = described.then(|| format!("tree skill {name}"));
                        files.push((format!("{dir}/{name}-{i}"), name, desc));
                    }
                    if !filter.is_empty() {
                        o.insert("skillsFilter".into(), json!(filter));
                    }
                    if !disable_skills.is_empty() {
                        o.insert("disableSkills".into(), json!(disable_skills));
                    }
                }
                if !extras.is_empty() {
                    let tools: Vec<Value> = extras
                        .iter()
                        .enumerate()
                        .map(|(i, (n, custom))| {
                            let mut t = json!({"name": n, "description": format!("extra {i}"),
                                "behaviour": {"text": format!("marker-{i}")}});
                            if *custom {
                                t["source"] = json!("custom");
                            }
                            t
                        })
                        .collect();
                    o.insert("extraTools".into(), Value::Array(tools));
                }
                if !disable_tools.is_empty() {
                    o.insert("disableTools".into(), json!(disable_tools));
                }
                Case {
                    options: Value::Object(o),
                    tree: files,
                }
            },
        )
}

/// Writes the case's skill tree under `dir` and returns its options with `{{TMP}}` filled.
fn materialise(case: &Case, dir: &Path) -> Result<Value, String> {
    for (rel, name, desc) in &case.tree {
        let d = dir.join(rel);
        std::fs::create_dir_all(&d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
        let mut text = format!("---\nname: {name}\n");
        if let Some(desc) = desc {
            text.push_str(&format!("description: {desc}\n"));
        }
        text.push_str("---\nTree skill body.\n");
        std::fs::write(d.join("SKILL.md"), text).map_err(|e| format!("cannot write skill: {e}"))?;
    }
    let text = case
        .options
        .to_string()
        .replace("{{TMP}}", &dir.to_string_lossy());
    serde_json::from_str(&text).map_err(|e| format!("bad options: {e}"))
}

/// What is compared: tools (name, source) in order and the three adapters, with what the
/// SPEC leaves open relaxed exactly as the scenarios relax it.
async fn observe(port: &mut dyn Port, options: &Value) -> Result<Value, String> {
    let built = port
        .build("diff", options)
        .await
        .map_err(|e| e.to_string())?;
    let tools: Vec<Value> = built
        .get("tools")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|t| json!({"name": t.get("name"), "source": t.get("source")}))
                .collect()
        })
        .unwrap_or_default();
    let mut out = json!({ "tools": tools });
    for format in ["openai", "anthropic", "gemini"] {
        let adapted = port
            .adapter("diff", format)
            .await
            .map_err(|e| e.to_string())?;
        out[format] = strip_additional_properties(&relax_builtins(&adapted));
    }
    let _ = port.close("diff").await;
    Ok(out)
}

fn strip_additional_properties(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(strip_additional_properties).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| k.as_str() != "additionalProperties")
                .map(|(k, v)| (k.clone(), strip_additional_properties(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Runs one case on both ports; `Some(mismatches)` when they disagree.
async fn disagreement(
    reference: &mut dyn Port,
    other: &mut dyn Port,
    case: &Case,
) -> Option<Vec<String>> {
    let dir = match tempfile::Builder::new().prefix("tnx-diff-").tempdir() {
        Ok(d) => d,
        Err(e) => return Some(vec![format!("cannot create temp dir: {e}")]),
    };
    let options = match materialise(case, dir.path()) {
        Ok(o) => o,
        Err(e) => return Some(vec![e]),
    };
    let expected = observe(reference, &options).await;
    let actual = observe(other, &options).await;
    match (expected, actual) {
        (Ok(e), Ok(a)) => {
            let outcome = match_json(&e, &a);
            (!outcome.passed())
                .then(|| outcome.mismatches.iter().map(ToString::to_string).collect())
        }
        (Err(e), _) => Some(vec![format!("the reference failed: {e}")]),
        (_, Err(e)) => Some(vec![format!("the port failed: {e}")]),
    }
}

fn signature(mismatches: &[String]) -> String {
    // Adapter arrays follow from the tool list: when the tools differ, they are the finding.
    let tools_only: Vec<&String> = mismatches
        .iter()
        .filter(|m| m.starts_with("$.tools"))
        .collect();
    let chosen: Vec<&String> = if tools_only.is_empty() {
        mismatches.iter().collect()
    } else {
        tools_only
    };
    let mut paths: Vec<String> = chosen
        .into_iter()
        .map(|m| {
            let path = m.split(':').next().unwrap_or(m);
            // Group by what differs, not by which index: `$.openai[3].x` ⇒ `$.openai[].x`.
            let mut out = String::new();
            let mut skipping = false;
            for c in path.chars() {
                match c {
                    '[' => {
                        skipping = true;
                        out.push_str("[]");
                    }
                    ']' => skipping = false,
                    c if !skipping => out.push(c),
                    _ => {}
                }
            }
            out
        })
        .collect();
    paths.sort();
    paths.dedup();
    paths.truncate(4);
    paths.join(" ")
}

/// Generates `cases` configurations (deterministically from `seed`), compares the two ports on
/// each, and shrinks one counterexample per distinct signature.
pub fn run<'a>(
    reference: &'a mut dyn Port,
    other: &'a mut dyn Port,
    port_name: &'a str,
    cases: usize,
    seed: u64,
    progress: &'a mut dyn FnMut(usize, bool),
) -> LocalBoxFuture<'a, DiffReport> {
    async move {
        let mut seed_bytes = [0u8; 32];
        seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let rng = TestRng::from_seed(proptest::test_runner::RngAlgorithm::ChaCha, &seed_bytes);
        let mut runner = TestRunner::new_with_rng(Config::default(), rng);
        let strategy = case_strategy();
        let mut report = DiffReport {
            port: port_name.to_string(),
            cases,
            mismatching: 0,
            counterexamples: Vec::new(),
        };
        let mut seen: BTreeMap<String, ()> = BTreeMap::new();
        for i in 0..cases {
            let Ok(mut tree) = strategy.new_tree(&mut runner) else {
                continue;
            };
            let first = tree.current();
            let Some(mismatches) = disagreement(reference, other, &first).await else {
                progress(i, false);
                continue;
            };
            progress(i, true);
            report.mismatching += 1;
            let sig = signature(&mismatches);
            if seen.contains_key(&sig) {
                continue;
            }
            let mut best = (first, mismatches);
            // Proptest's shrinking loop: simplify while the case still fails the same way,
            // complicate back when a simplification stops failing.
            let mut budget = 256;
            if tree.simplify() {
                while budget > 0 {
                    budget -= 1;
                    let current = tree.current();
                    let still = disagreement(reference, other, &current)
                        .await
                        .filter(|m| signature(m) == sig);
                    let moved = match still {
                        Some(m) => {
                            best = (current, m);
                            tree.simplify()
                        }
                        None => tree.complicate(),
                    };
                    if !moved {
                        break;
                    }
                }
            }
            seen.insert(sig.clone(), ());
            report.counterexamples.push(Counterexample {
                signature: sig,
                case: best.0,
                mismatches: best.1,
            });
        }
        report
    }
    .boxed_local()
}

/// A readable summary with every counterexample.
pub fn text(report: &DiffReport) -> String {
    let mut out = format!(
        "differential: {} cases against the reference, {} disagreed, {} distinct counterexamples\n",
        report.cases,
        report.mismatching,
        report.counterexamples.len()
    );
    for (i, c) in report.counterexamples.iter().enumerate() {
        out.push_str(&format!("\n#{} differs at: {}\n", i + 1, c.signature));
        out.push_str(&format!("  options: {}\n", c.case.options));
        for (rel, name, desc) in &c.case.tree {
            out.push_str(&format!(
                "  skill file: {{{{TMP}}}}/{rel}/SKILL.md name={name} description={desc:?}\n"
            ));
        }
        for m in c.mismatches.iter().take(8) {
            out.push_str(&format!("  - {m}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_group_by_path_not_index() {
        assert_eq!(
            signature(&["$.openai[3].function.name: expected 1, got 2".into()]),
            "$.openai[].function.name"
        );
    }
}
