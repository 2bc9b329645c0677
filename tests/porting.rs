//! `porting` end to end, its counts checked against what `list` and a `run --trace` of the
//! same section show; and the "implement next" list a mostly-unsupported port's run ends with.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    match Command::cargo_bin("toolnexus-conformance") {
        Ok(c) => c,
        Err(e) => panic!("binary not built: {e}"),
    }
}

fn stdout_of(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{args:?}: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// How many scenarios `list --section S` shows (its last line, `N scenarios`).
fn listed(section: &str) -> u64 {
    let text = stdout_of(&["list", "--section", section]);
    let last = text.lines().last().unwrap_or_default();
    last.strip_suffix(" scenarios")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count line: {text}"))
}

/// Per command, per option key and per other request field (`execute.context`), the
/// scenarios whose requests in a `run --trace` file carry it (`hello` and `shutdown` left
/// out), and per extra-tool behaviour; and the names of all but the other request fields,
/// which `porting` must all list.
fn traced(section: &str) -> (BTreeMap<String, BTreeSet<String>>, BTreeSet<String>) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("trace.jsonl");
    let path = file.to_string_lossy().to_string();
    stdout_of(&[
        "run",
        "--section",
        section,
        "--trace",
        &path,
        "--format",
        "json",
    ]);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}"));
    let mut by_need: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut must_list = BTreeSet::new();
    for line in text.lines() {
        let entry: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if entry["dir"] != "request" {
            continue;
        }
        let scenario = entry["scenario"].as_str().unwrap_or_default().to_string();
        let msg = &entry["msg"];
        let cmd = msg["cmd"].as_str().unwrap_or_default();
        if cmd == "hello" || cmd == "shutdown" {
            continue;
        }
        // `build.builtins` counts builds with the builtin tools on: the key absent or not
        // `false` (the scenarios' only off form), PROTOCOL.md §6.
        let options = msg["options"]
            .as_object()
            .into_iter()
            .flat_map(|o| o.keys())
            .filter(|k| !(cmd == "build" && *k == "builtins"));
        let on = cmd == "build" && msg["options"]["builtins"] != Value::Bool(false);
        let builtins = on.then(|| ("build.builtins".to_string(), true));
        let fields = msg.as_object().into_iter().flat_map(|o| o.keys());
        // An extra tool's behaviour: its one key (PROTOCOL.md §7).
        let tools = msg["options"]["extraTools"]
            .as_array()
            .into_iter()
            .flatten();
        let behaviours = tools.filter_map(|t| t["behaviour"].as_object()?.keys().next());
        let needs = std::iter::once((cmd.to_string(), true))
            .chain(options.map(|k| (format!("{cmd}.{k}"), true)))
            .chain(fields.map(|k| (format!("{cmd}.{k}"), false)))
            .chain(behaviours.map(|b| (format!("{cmd}.extraTools:{b}"), true)))
            .chain(builtins);
        for (need, listed) in needs {
            if listed {
                must_list.insert(need.clone());
            }
            by_need.entry(need).or_default().insert(scenario.clone());
        }
    }
    (by_need, must_list)
}

#[test]
fn porting_maps_a_section_with_counts_that_list_and_a_trace_confirm() {
    let text = stdout_of(&["porting", "--section", "1", "--format", "json"]);
    let map: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(map["always"], serde_json::json!(["hello", "shutdown"]));
    let sections = map["sections"].as_array().cloned().unwrap_or_default();
    assert_eq!(sections.len(), 1, "{map}");
    let one = &sections[0];
    assert_eq!(one["section"], "1");
    let scenarios = one["scenarios"].as_u64().unwrap_or(0);
    assert_eq!(scenarios, listed("1"), "{map}");
    assert_eq!(map["scenarios"].as_u64(), Some(scenarios));
    // The reference leaves out only what its SPEC version does not hold (it declares the
    // pinned SPEC; scenarios from a later text, such as §1B's content parts, are skipped so).
    let left_out = one["leftOut"].as_array().cloned().unwrap_or_default();
    assert!(
        left_out.iter().all(|e| e["why"]
            .as_str()
            .is_some_and(|w| w.starts_with("skipped: holds for SPEC ≥"))),
        "{map}"
    );
    let run = scenarios - left_out.len() as u64;
    assert!(run > 0, "{map}");
    // Every scenario run is unlocked at the end of the order.
    let order = one["order"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        order.last().and_then(|s| s["unlocked"].as_u64()),
        Some(run),
        "{map}"
    );
    let unlocks: u64 = order.iter().filter_map(|s| s["unlocks"].as_u64()).sum();
    assert_eq!(unlocks + one["needNothing"].as_u64().unwrap_or(0), run);
    // The counts are those a trace of the same run shows, scenario by scenario; the trace
    // also holds the clean-up `close` after each scenario's steps, which `porting` leaves out.
    let (trace, must_list) = traced("1");
    let mut checked = 0;
    for kind in ["commands", "options", "behaviours"] {
        for count in one[kind].as_array().into_iter().flatten() {
            let need = count["need"].as_str().unwrap_or_default();
            let n = count["scenarios"].as_u64().unwrap_or(0);
            let seen = trace.get(need).map_or(0, |s| s.len() as u64);
            if need == "close" {
                assert!(n <= seen, "{need}: porting {n}, trace {seen}");
            } else {
                assert_eq!(n, seen, "{need}: porting {n}, trace {seen}");
            }
            checked += 1;
        }
    }
    for need in &must_list {
        let seen = trace.get(need).cloned().unwrap_or_default();
        let listed = ["commands", "options", "behaviours"].iter().any(|kind| {
            one[kind]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["need"] == need.as_str())
        });
        assert!(
            listed || need == "close",
            "{need} ({} scenarios in the trace) missing from porting",
            seen.len()
        );
    }
    assert!(checked >= 8, "only {checked} counts: {map}");
}

#[test]
fn porting_text_lists_each_section_and_the_order_across_them() {
    let text = stdout_of(&["porting", "--section", "0,4A"]);
    assert!(text.starts_with("every session: hello, shutdown"), "{text}");
    assert!(text.contains("\n§0 Conformance contract: "), "{text}");
    assert!(text.contains("\n§4A Built-in tools: "), "{text}");
    assert!(
        text.contains("  commands (scenarios using each): "),
        "{text}"
    );
    assert!(
        text.contains("  order (implement; scenarios it unlocks; unlocked so far):"),
        "{text}"
    );
    assert!(text.contains("\nall 2 selected sections ("), "{text}");
}

fn driver(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/drivers")
        .join(name)
        .to_string_lossy()
        .to_string()
}

#[test]
fn a_mostly_unsupported_run_ends_with_what_to_implement_next() {
    let port = driver("unsupported.sh");
    let run = |format: &str| {
        let out = bin()
            .args([
                "run",
                "--port",
                &port,
                "--section",
                "0,1,4,4A",
                "--format",
                format,
            ])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let text = run("text");
    let list = text
        .split("\nimplement next: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no implement-next list: {text}"));
    assert!(list.contains("\n  build "), "{list}");
    assert!(
        list.contains("\n  declare §4A in hello's implements "),
        "{list}"
    );
    assert!(
        list.trim_end()
            .ends_with("toolnexus-conformance porting --section 0,1,4,4A"),
        "{list}"
    );
    // The JSON report names each skip's blocker; the list's counts are theirs.
    let report: Value = serde_json::from_str(&run("json")).unwrap_or_else(|e| panic!("{e}"));
    let blocked_by_build = report["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| {
            s["blockedBy"]
                == serde_json::json!({"unsupported": {"command": "build", "kind": "command"}})
        })
        .count();
    assert!(blocked_by_build > 0, "{report}");
    assert!(
        list.lines()
            .any(|l| l.starts_with("  build ") && l.ends_with(&format!(" {blocked_by_build}"))),
        "{blocked_by_build} blocked by build: {list}"
    );
}
