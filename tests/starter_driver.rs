//! The starter driver (`conformance/ports/starter/driver.py`, registered as `starter` in
//! conformance/ports.json) through the CLI: `run --port starter --section 0,1,4` passes the
//! number of scenarios stated below (and in docs/writing-a-driver.md), fails none, and skips
//! every other one for a reason the starter chose: it answered `unsupported` to a command,
//! option or behaviour the toy toolkit lacks. A driver regression (a dropped `seq`, a
//! wrong adapter shape, a section left out of `hello`) turns a pass into a failure here, and
//! the run's trace must pass `validate-trace`.
//!
//! Needs python3 only; without it the test says `SKIPPED:` on stderr (a failure under
//! `TOOLNEXUS_REQUIRE_PEERS=1`, as CI runs it).

mod optional;

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

/// Per section: (passed, skipped). Stated in docs/writing-a-driver.md too; when a scenario of
/// §0, §1 or §4 is added or removed, change both.
const EXPECTED: [(&str, usize, usize); 3] = [("0", 12, 23), ("1", 5, 0), ("4", 1, 29)];

/// The messages of the starter's `unsupported` answers (driver.py, and the kit's
/// `unknown command "X"` for a command it has no handler for), as the report quotes them after
/// `port does not support this: `.
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

#[test]
fn the_starter_passes_its_stated_scenarios_and_skips_the_rest_as_unsupported() {
    if !optional::have_tools(
        optional::REQUIRE_PEERS,
        &["python3"],
        "the starter driver's run (tests/starter_driver.rs)",
    ) {
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let trace = scratch.path().join("starter.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_toolnexus-conformance"))
        .args([
            "run",
            "--port",
            "starter",
            "--section",
            "0,1,4",
            // The starter declares 0.16.0: the scenarios of 0.17.0 are out of its scope.
            "--spec",
            "0.16.0",
            "--format",
            "json",
        ])
        .args(["--root", root])
        .arg("--trace")
        .arg(&trace)
        .output()
        .expect("the CLI starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}):\n{stdout}\nstderr:\n{stderr}"));
    assert_eq!(report["port"]["name"], "starter", "{stderr}");

    let scenarios = report["scenarios"].as_array().expect("scenarios");
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut wrong = Vec::new();
    for s in scenarios {
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
        "scenarios neither passed nor skipped by the starter's own `unsupported`:\n{}",
        wrong.join("\n")
    );
    let expected: BTreeMap<String, (usize, usize)> = EXPECTED
        .iter()
        .map(|(s, p, k)| (s.to_string(), (*p, *k)))
        .collect();
    assert_eq!(
        counts, expected,
        "(passed, skipped) per section; update EXPECTED here and the counts in \
         docs/writing-a-driver.md when the §0/§1/§4 scenarios change"
    );
    // Nothing failed and something passed: the run succeeds.
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // And every request and answer of the run, error answers included, is what
    // conformance/protocol.schema.json allows, in step.
    let check = Command::new(env!("CARGO_BIN_EXE_toolnexus-conformance"))
        .args(["validate-trace", "--root", root])
        .arg(&trace)
        .output()
        .expect("the CLI starts");
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}
