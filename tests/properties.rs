//! Property tests for the reference implementation, checked against small oracles written
//! from the SPEC text (never by calling the code under test for the expected value):
//!
//! 1. §0.2 `sanitize`.
//! 2. §3 S2 the skill name→bool filter (through the protocol, and `NameFilter` directly),
//!    including `disableSkills` folded in under the filter.
//! 3. §4 "Assembly order & builtin toggle": name collisions across the skill tool, the
//!    builtins (with their toggle) and `extraTools`, then `disableTools`.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::request;
use toolnexus_reference::filter::NameFilter;
use toolnexus_reference::sanitize::{prefixed_name, sanitize};

// ---------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------

/// Runs one async block on a fresh current-thread runtime (one per proptest case).
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
        .block_on(f)
}

/// Sends one protocol request to the in-process reference; any `ok:false` is a panic
/// (which proptest reports as a failing case with the shrunk input).
async fn call(port: &mut InProcessPort, req: Value) -> Value {
    match request(port, req.clone()).await {
        Ok(v) => v,
        Err(e) => panic!("request {req} failed: {e}"),
    }
}

fn str_array(v: &Value, key: &str, field: &str) -> Vec<String> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("response has no array {key:?}: {v}"))
        .iter()
        .map(|e| e[field].as_str().expect("string field").to_string())
        .collect()
}

// ---------------------------------------------------------------------------------------
// 1. sanitize (§0.2): replace [^a-zA-Z0-9_-] with `_`
// ---------------------------------------------------------------------------------------

/// SPEC §0.2 character class, spelled out (not `is_ascii_alphanumeric`).
fn spec_allowed(c: char) -> bool {
    matches!(c, 'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-')
}

/// Oracle: one output char per input char (per-scalar reading, see sanitize.rs docs).
fn spec_sanitize(s: &str) -> String {
    s.chars()
        .map(|c| if spec_allowed(c) { c } else { '_' })
        .collect()
}

/// Strings mixing allowed ASCII, other printable ASCII, controls, BMP non-ASCII and astral
/// characters, so every class shows up often (plain `any::<String>()` is mostly non-ASCII).
fn mixed_string() -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        3 => prop::sample::select(
            "abcxyzABCXYZ0189_-".chars().collect::<Vec<_>>()
        ),
        2 => prop::char::range(' ', '~'),
        1 => prop::char::range('\u{0}', '\u{1f}'),
        2 => prop::char::range('\u{80}', '\u{ffff}'),
        2 => prop::char::range('\u{10000}', '\u{10ffff}'),
        1 => any::<char>(),
    ];
    prop::collection::vec(ch, 0..40).prop_map(|v| v.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn sanitize_matches_spec(s in prop_oneof![mixed_string(), any::<String>()]) {
        let out = sanitize(&s);
        // Every output char is in the class.
        prop_assert!(out.chars().all(spec_allowed), "out {out:?} has a char outside the class");
        // Same number of chars (scalar values) in and out.
        prop_assert_eq!(out.chars().count(), s.chars().count());
        // Allowed chars unchanged in place; others become `_`.
        for (i, (a, b)) in s.chars().zip(out.chars()).enumerate() {
            if spec_allowed(a) {
                prop_assert_eq!(a, b, "allowed char at {} changed", i);
            } else {
                prop_assert_eq!(b, '_', "disallowed char {:?} at {} not replaced", a, i);
            }
        }
        prop_assert_eq!(&out, &spec_sanitize(&s));
        // Idempotent.
        prop_assert_eq!(sanitize(&out), out.clone());
    }

    #[test]
    fn sanitize_keeps_allowed_only_strings(s in "[a-zA-Z0-9_-]{0,40}") {
        prop_assert_eq!(sanitize(&s), s);
    }

    #[test]
    fn prefixed_name_is_sanitized_pair(p in mixed_string(), n in mixed_string()) {
        let expected = format!("{}_{}", spec_sanitize(&p), spec_sanitize(&n));
        prop_assert_eq!(prefixed_name(&p, &n), expected);
    }

    #[test]
    fn sanitize_protocol_command_agrees(s in mixed_string()) {
        let out = block_on(async {
            let mut port = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
            call(&mut port, json!({"cmd": "sanitize", "value": s})).await
        });
        let expected = spec_sanitize(&s);
        prop_assert_eq!(out["value"].as_str(), Some(expected.as_str()));
    }
}

// ---------------------------------------------------------------------------------------
// 2. Skill filter (§3 S2)
// ---------------------------------------------------------------------------------------

/// Skill names come from a tiny alphabet so duplicates happen; filter keys also draw from
/// names that never exist as skills (unknown entries).
const SKILL_POOL: [&str; 5] = ["a", "b", "c", "d", "e"];
const FILTER_POOL: [&str; 7] = ["a", "b", "c", "d", "e", "zz", "q"];

/// Oracle for S1 first-wins dedupe over the data defs, in original order.
fn dedupe_first(names: &[String]) -> Vec<String> {
    let mut seen = HashSet::new();
    names
        .iter()
        .filter(|n| seen.insert(n.as_str()))
        .cloned()
        .collect()
}

/// Oracle for S2: empty ⇒ all; ≥1 true ⇒ only true-mapped; only false ⇒ all minus those.
fn spec_filter(names: &[String], map: &BTreeMap<String, bool>) -> Vec<String> {
    let allow: BTreeSet<&str> = map
        .iter()
        .filter(|(_, v)| **v)
        .map(|(k, _)| k.as_str())
        .collect();
    if map.is_empty() {
        names.to_vec()
    } else if !allow.is_empty() {
        names
            .iter()
            .filter(|n| allow.contains(n.as_str()))
            .cloned()
            .collect()
    } else {
        names
            .iter()
            .filter(|n| !map.contains_key(*n))
            .cloned()
            .collect()
    }
}

/// Oracle for `disableSkills` folded under the filter: explicit filter entries win; an
/// allowlist (any `true` in the filter) keeps only its names; otherwise the disabled names
/// and the filter's `false` names are dropped.
fn spec_filter_with_disable(
    names: &[String],
    map: &BTreeMap<String, bool>,
    disable: &[String],
) -> Vec<String> {
    if map.values().any(|v| *v) {
        return names
            .iter()
            .filter(|n| map.get(*n) == Some(&true))
            .cloned()
            .collect();
    }
    names
        .iter()
        .filter(|n| !map.contains_key(*n) && !disable.contains(n))
        .cloned()
        .collect()
}

fn skill_names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::sample::select(SKILL_POOL.to_vec()).prop_map(String::from),
        0..8,
    )
}

fn filter_map() -> impl Strategy<Value = BTreeMap<String, bool>> {
    prop::collection::btree_map(
        prop::sample::select(FILTER_POOL.to_vec()).prop_map(String::from),
        any::<bool>(),
        0..5,
    )
}

fn disable_list() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::sample::select(FILTER_POOL.to_vec()).prop_map(String::from),
        0..4,
    )
}

/// Distinct content per def, so first-wins is observable through the `skill` tool.
fn content_of(name: &str, index: usize) -> String {
    format!("body of {name} def #{index}")
}

fn skill_defs(names: &[String]) -> Value {
    Value::Array(
        names
            .iter()
            .enumerate()
            .map(|(i, n)| json!({"name": n, "description": format!("desc {n}"), "content": content_of(n, i)}))
            .collect(),
    )
}

fn map_json(map: &BTreeMap<String, bool>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.clone(), Value::Bool(*v)))
            .collect::<Map<_, _>>(),
    )
}

/// Builds through the protocol and checks the catalog, the prompt and the `skill` tool's
/// lookup all agree with `expected`.
fn check_skill_build(
    names: &[String],
    options: Value,
    expected: &[String],
) -> Result<(), TestCaseError> {
    let (built, prompt, lookups) = block_on(async {
        let mut port = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
        let built = call(
            &mut port,
            json!({"cmd": "build", "id": "t", "options": options}),
        )
        .await;
        let prompt = call(&mut port, json!({"cmd": "skills_prompt", "toolkit": "t"})).await;
        let mut lookups = Vec::new();
        for n in FILTER_POOL {
            let r = call(
                &mut port,
                json!({"cmd": "execute", "toolkit": "t", "name": "skill", "args": {"name": n}}),
            )
            .await;
            lookups.push((n.to_string(), r["result"].clone()));
        }
        (built, prompt, lookups)
    });

    // The catalog, in original (first-wins) order.
    prop_assert_eq!(&str_array(&built, "skills", "name"), &expected.to_vec());

    // The prompt lists exactly the exposed (all described) skills, sorted.
    let prompt = prompt["prompt"]
        .as_str()
        .expect("prompt string")
        .to_string();
    let listed: Vec<String> = prompt
        .lines()
        .filter_map(|l| {
            l.strip_prefix("- **")
                .and_then(|r| r.split_once("**:"))
                .map(|(n, _)| n.to_string())
        })
        .collect();
    let mut sorted = expected.to_vec();
    sorted.sort();
    prop_assert_eq!(&listed, &sorted, "prompt: {}", prompt);

    // The `skill` tool finds exactly the exposed skills, with the first def's content.
    for (n, result) in lookups {
        let exposed = expected.contains(&n);
        prop_assert_eq!(
            result["isError"].as_bool(),
            Some(!exposed),
            "skill {} → {}",
            n,
            result
        );
        if exposed {
            let first = names
                .iter()
                .position(|x| *x == n)
                .expect("exposed name was defined");
            let output = result["output"].as_str().unwrap_or_default();
            prop_assert!(
                output.contains(&content_of(&n, first)),
                "skill {} output {:?}",
                n,
                output
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn skills_filter_via_protocol(names in skill_names(), map in filter_map()) {
        let expected = spec_filter(&dedupe_first(&names), &map);
        let options = json!({
            "skills": skill_defs(&names),
            "skillsFilter": map_json(&map),
            "builtins": false,
        });
        check_skill_build(&names, options.clone(), &expected)?;

        // Unknown filter names are ignored but warned about, once.
        let built = block_on(async {
            let mut port = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
            call(&mut port, json!({"cmd": "build", "id": "t", "options": options})).await
        });
        let present: HashSet<&String> = names.iter().collect();
        let unknown = map.keys().any(|k| !present.contains(k));
        let filter_warnings = built["warnings"]
            .as_array()
            .expect("warnings")
            .iter()
            .filter(|w| w.as_str().is_some_and(|w| w.contains("filter")))
            .count();
        prop_assert_eq!(filter_warnings, usize::from(unknown), "warnings: {}", built["warnings"]);
    }

    #[test]
    fn skills_filter_with_disable_skills(
        names in skill_names(),
        map in filter_map(),
        disable in disable_list(),
    ) {
        let expected = spec_filter_with_disable(&dedupe_first(&names), &map, &disable);
        let options = json!({
            "skills": skill_defs(&names),
            "skillsFilter": map_json(&map),
            "disableSkills": disable,
            "builtins": false,
        });
        check_skill_build(&names, options, &expected)?;
    }

    #[test]
    fn name_filter_direct(names in skill_names(), map in filter_map()) {
        let f = NameFilter::from_map(&map);
        for n in FILTER_POOL {
            let expected = spec_filter(&[n.to_string()], &map).len() == 1;
            prop_assert_eq!(f.allows(n), expected, "allows({})", n);
        }
        let (kept, warning) = NameFilter::apply(&map, names.clone(), |s| s.as_str(), "skill");
        prop_assert_eq!(&kept, &spec_filter(&names, &map));
        let unknown: Vec<&str> =
            map.keys().map(String::as_str).filter(|k| !names.iter().any(|n| n == k)).collect();
        match warning {
            None => prop_assert!(unknown.is_empty(), "no warning but unknown {:?}", unknown),
            Some(w) => {
                prop_assert!(!unknown.is_empty(), "warning {:?} with no unknown names", w);
                // Every unknown name is named, in sorted order, and no known one is.
                prop_assert!(w.ends_with(&unknown.join(", ")), "warning {:?} vs {:?}", w, unknown);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// 3. Assembly order & builtin toggle (§4, §4A)
// ---------------------------------------------------------------------------------------

/// §4A builtin order.
const BUILTINS: [&str; 10] = [
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
/// Names extra tools / disableTools draw from: some builtins, `skill`, and custom names.
const TOOL_POOL: [&str; 7] = ["bash", "read", "grep", "write", "skill", "x", "y"];

#[derive(Debug, Clone)]
struct Extra {
    name: String,
    source: &'static str,
}

fn extras() -> impl Strategy<Value = Vec<Extra>> {
    prop::collection::vec(
        (
            prop::sample::select(TOOL_POOL.to_vec()),
            prop::sample::select(vec!["native", "http", "custom"]),
        )
            .prop_map(|(n, s)| Extra {
                name: n.to_string(),
                source: s,
            }),
        0..7,
    )
}

/// `None` = option absent; otherwise the JSON `builtins` option.
fn builtins_cfg() -> impl Strategy<Value = Option<Value>> {
    let tools_map = prop::collection::btree_map(
        prop::sample::select(
            BUILTINS
                .iter()
                .copied()
                .chain(["nope", "skill", "x"])
                .collect::<Vec<_>>(),
        )
        .prop_map(String::from),
        prop_oneof![3 => Just(false), 1 => Just(true)],
        0..5,
    )
    .prop_map(|m| map_json(&m));
    prop_oneof![
        Just(None),
        Just(Some(json!(true))),
        Just(Some(json!(false))),
        Just(Some(json!({"enabled": false}))),
        Just(Some(json!({"disabled": true, "enabled": true}))),
        tools_map.clone().prop_map(|t| Some(json!({"tools": t}))),
        tools_map
            .clone()
            .prop_map(|t| Some(json!({"enabled": true, "disabled": false, "tools": t}))),
        tools_map
            .clone()
            .prop_map(|t| Some(json!({"disabled": true, "tools": t}))),
        tools_map.prop_map(|t| Some(json!({"enabled": false, "tools": t}))),
    ]
}

/// Oracle for §4 "builtin toggle": the builtins that are on, in §4A order.
fn spec_builtins(cfg: Option<&Value>) -> Vec<&'static str> {
    let whole_off = match cfg {
        Some(Value::Bool(b)) => !b,
        Some(Value::Object(o)) => {
            o.get("disabled") == Some(&json!(true)) || o.get("enabled") == Some(&json!(false))
        }
        _ => false,
    };
    if whole_off {
        return Vec::new();
    }
    let tools = cfg.and_then(|c| c.get("tools"));
    BUILTINS
        .iter()
        .copied()
        .filter(|n| tools.and_then(|t| t.get(*n)) != Some(&json!(false)))
        .collect()
}

/// One assembled tool in the oracle: name, source, and the marker of an extra tool.
#[derive(Debug, Clone, PartialEq)]
struct Slot {
    name: String,
    source: String,
    marker: Option<String>,
}

fn marker(i: usize) -> String {
    format!("marker-{i}")
}

/// Oracle for §4 assembly: (1) drop builtins an extra provides; (2) skill → builtins →
/// extras; (3) first wins; then `disableTools` removes names.
fn spec_assemble(extras: &[Extra], cfg: Option<&Value>, disable: &[String]) -> Vec<Slot> {
    let extra_names: HashSet<&str> = extras.iter().map(|e| e.name.as_str()).collect();
    let mut all = vec![Slot {
        name: "skill".into(),
        source: "skill".into(),
        marker: None,
    }];
    all.extend(
        spec_builtins(cfg)
            .into_iter()
            .filter(|b| !extra_names.contains(b))
            .map(|b| Slot {
                name: b.into(),
                source: "builtin".into(),
                marker: None,
            }),
    );
    all.extend(extras.iter().enumerate().map(|(i, e)| Slot {
        name: e.name.clone(),
        source: e.source.into(),
        marker: Some(marker(i)),
    }));
    let mut seen = HashSet::new();
    all.into_iter()
        .filter(|s| seen.insert(s.name.clone()))
        .filter(|s| !disable.contains(&s.name))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn assembly_order_and_collisions(
        extras in extras(),
        cfg in builtins_cfg(),
        with_skill in any::<bool>(),
        disable in prop::collection::vec(
            prop::sample::select(
                TOOL_POOL.iter().copied().chain(["glob", "todowrite"]).collect::<Vec<_>>(),
            )
            .prop_map(String::from),
            0..3,
        ),
    ) {
        let expected = spec_assemble(&extras, cfg.as_ref(), &disable);

        let mut options = Map::new();
        options.insert(
            "extraTools".into(),
            Value::Array(
                extras
                    .iter()
                    .enumerate()
                    .map(|(i, e)| json!({"name": e.name, "source": e.source, "behaviour": {"text": marker(i)}}))
                    .collect(),
            ),
        );
        if let Some(c) = &cfg {
            options.insert("builtins".into(), c.clone());
        }
        if with_skill {
            options.insert("skills".into(), json!([{"name": "s1", "description": "d", "content": "skill body"}]));
        }
        options.insert("disableTools".into(), json!(disable));

        let (built, executed) = block_on(async {
            let mut port = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
            let built =
                call(&mut port, json!({"cmd": "build", "id": "t", "options": Value::Object(options)})).await;
            let mut executed = BTreeMap::new();
            for slot in &expected {
                let args = if slot.name == "skill" { json!({"name": "s1"}) } else { json!({}) };
                if slot.marker.is_some() || slot.name == "skill" {
                    let r = call(
                        &mut port,
                        json!({"cmd": "execute", "toolkit": "t", "name": slot.name, "args": args}),
                    )
                    .await;
                    executed.insert(slot.name.clone(), r["result"].clone());
                }
            }
            (built, executed)
        });

        // Names in order, and each winner's source.
        let got_names = str_array(&built, "tools", "name");
        let want_names: Vec<String> = expected.iter().map(|s| s.name.clone()).collect();
        prop_assert_eq!(&got_names, &want_names);
        let got_sources = str_array(&built, "tools", "source");
        let want_sources: Vec<String> = expected.iter().map(|s| s.source.clone()).collect();
        prop_assert_eq!(&got_sources, &want_sources);

        // `names` is the same set, sorted.
        let mut sorted = want_names.clone();
        sorted.sort();
        let names: Vec<String> =
            built["names"].as_array().expect("names").iter().map(|v| v.as_str().unwrap().to_string()).collect();
        prop_assert_eq!(&names, &sorted);

        // The builtin status reflects the whole-source toggle.
        let on = match cfg.as_ref() {
            Some(Value::Bool(b)) => *b,
            Some(Value::Object(o)) => {
                !(o.get("disabled") == Some(&json!(true)) || o.get("enabled") == Some(&json!(false)))
            }
            _ => true,
        };
        prop_assert_eq!(
            built["statuses"]["builtin"].as_str(),
            Some(if on { "connected" } else { "disabled" })
        );

        // Executing proves which one won.
        for slot in &expected {
            if let Some(m) = &slot.marker {
                let r = &executed[&slot.name];
                prop_assert_eq!(r["output"].as_str(), Some(m.as_str()), "{} → {}", slot.name, r);
                prop_assert_eq!(r["isError"].as_bool(), Some(false));
            } else if slot.name == "skill" {
                let r = &executed["skill"];
                let out = r["output"].as_str().unwrap_or_default();
                prop_assert!(!out.starts_with("marker-"), "skill tool lost to an extra: {}", r);
                if with_skill {
                    prop_assert!(out.starts_with("<skill_content name=\"s1\">"), "skill output {:?}", out);
                    prop_assert_eq!(r["isError"].as_bool(), Some(false));
                } else {
                    prop_assert_eq!(r["isError"].as_bool(), Some(true));
                }
            }
        }
    }
}
