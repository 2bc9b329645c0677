//! The four starters (issue 49), each a toy toolkit on its language's driver kit, registered in
//! conformance/ports.json as `starter` (Python), `starter-go`, `starter-ts` and `starter-java`:
//! `run --port NAME --section 0,1,4` passes exactly the scenarios stated below (and in
//! docs/writing-a-driver.md), fails none, and skips every other one for a reason the starter
//! chose: it answered `unsupported` to a command, option or behaviour its toy toolkit lacks, in
//! the words of the Python starter. The same counts for all four are the proof that a kit
//! carries the protocol; a kit regression (a dropped `seq`, a section left out of `hello`, a
//! wrong unregistered-command answer) turns a pass into a failure, or a skip into a wrong one.
//! Each run's trace must pass `validate-trace`.
//!
//! Each needs its language's tools; without them the test says `SKIPPED:` on stderr (a failure
//! under `TOOLNEXUS_REQUIRE_PEERS=1`, as CI runs it).

mod optional;

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

/// Per section: (passed, skipped). Stated in docs/writing-a-driver.md too; when a scenario of
/// §0, §1 or §4 is added or removed, change both.
const EXPECTED: [(&str, usize, usize); 3] = [("0", 12, 23), ("1", 5, 0), ("4", 1, 29)];

/// The messages of the starters' `unsupported` answers, as the report quotes them after
/// `port does not support this: `. The last is every kit's answer to an unregistered command
/// (PROTOCOL.md §4's wording).
const STARTER_REFUSALS: [&str; 4] = [
    "the option '",
    "builtin tools (SPEC §4A); only builtins: false",
    "the extra tool behaviour '",
    "unknown command \"",
];

/// Whether a skipped scenario's message is the harness quoting one of the starter's own
/// `unsupported` answers (not a section left out of its `hello`, nor a SPEC version it does
/// not declare).
fn refused_by_the_starter(message: &str) -> bool {
    message
        .split_once("port does not support this: ")
        .is_some_and(|(_, why)| STARTER_REFUSALS.iter().any(|r| why.starts_with(r)))
}

/// Runs starter `port` on §0, §1 and §4 and checks the counts, the skips and the trace.
fn check_starter(port: &str, tools: &[&str]) {
    if !optional::have_tools(
        optional::REQUIRE_PEERS,
        tools,
        &format!("the {port} run (tests/kit_starters.rs)"),
    ) {
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let scratch = tempfile::tempdir().unwrap_or_else(|e| panic!("a scratch directory: {e}"));
    let trace = scratch.path().join("starter.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_toolnexus-conformance"))
        .args(["run", "--port", port, "--section", "0,1,4"])
        // The starters declare 0.16.0: the scenarios of 0.17.0 are out of their scope.
        .args(["--spec", "0.16.0", "--format", "json", "--root", root])
        .arg("--trace")
        .arg(&trace)
        .output()
        .unwrap_or_else(|e| panic!("the CLI starts: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}):\n{stdout}\nstderr:\n{stderr}"));
    assert_eq!(report["port"]["name"], port, "{stderr}");

    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut wrong = Vec::new();
    for s in report["scenarios"].as_array().into_iter().flatten() {
        let (name, section, message) = (&s["name"], s["section"].as_str(), s["message"].as_str());
        let entry = counts
            .entry(section.unwrap_or("?").to_string())
            .or_default();
        match s["status"].as_str() {
            // A scenario of a SPEC text after the one the starter declares (the pinned one) is
            // not the starter's to run: skipped by version, counted nowhere.
            Some("skipped") if message.is_some_and(|m| m.starts_with("holds for SPEC ≥")) => {}
            Some("passed") => entry.0 += 1,
            Some("skipped") if message.is_some_and(refused_by_the_starter) => entry.1 += 1,
            _ => wrong.push(format!("{name} [{}]: {}", s["status"], s["message"])),
        }
    }
    assert!(
        wrong.is_empty(),
        "{port}: scenarios neither passed nor skipped by the starter's own `unsupported`:\n{}\nstderr:\n{stderr}",
        wrong.join("\n")
    );
    let expected: BTreeMap<String, (usize, usize)> = EXPECTED
        .iter()
        .map(|(s, p, k)| (s.to_string(), (*p, *k)))
        .collect();
    assert_eq!(
        counts, expected,
        "{port}: (passed, skipped) per section; update EXPECTED here and the counts in \
         docs/writing-a-driver.md when the §0/§1/§4 scenarios change"
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let check = Command::new(env!("CARGO_BIN_EXE_toolnexus-conformance"))
        .args(["validate-trace", "--root", root])
        .arg(&trace)
        .output()
        .unwrap_or_else(|e| panic!("the CLI starts: {e}"));
    assert_eq!(
        check.status.code(),
        Some(0),
        "{port}: {}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn the_python_starter_passes_its_stated_scenarios() {
    check_starter("starter", &["python3"]);
}

#[test]
fn the_go_starter_passes_the_same_scenarios() {
    check_starter("starter-go", &["go"]);
}

#[test]
fn the_typescript_starter_passes_the_same_scenarios() {
    check_starter("starter-ts", &["node"]);
}

#[test]
fn the_java_starter_passes_the_same_scenarios() {
    check_starter("starter-java", &["java", "mvn"]);
}
