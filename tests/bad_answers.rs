//! Drivers whose answers break the protocol's typed form (tests/drivers/*.sh wrap the real
//! driver and corrupt one thing): each scenario reaching the broken answer must fail with a
//! message that names the field at fault, never pass and never crash the run.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

/// Runs section 6 (native tools: builds and executes) through `script` wrapping the driver.
fn run_through(script: &str) -> (Option<i32>, Value) {
    let driver = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/drivers")
        .join(script);
    let port = format!(
        "sh {} {} driver",
        driver.display(),
        env!("CARGO_BIN_EXE_toolnexus-conformance")
    );
    let out = Command::cargo_bin("toolnexus-conformance")
        .unwrap_or_else(|e| panic!("binary not built: {e}"))
        .args(["run", "--format", "json", "--section", "6", "--port", &port])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {stdout}"));
    (out.status.code(), report)
}

/// The messages of the failed scenarios; every scenario must have failed or passed.
fn failures(report: &Value) -> Vec<String> {
    let scenarios = report["scenarios"].as_array().cloned().unwrap_or_default();
    assert!(!scenarios.is_empty(), "{report}");
    scenarios
        .iter()
        .filter(|s| s["status"] != "passed")
        .map(|s| {
            assert_eq!(s["status"], "failed", "{s}");
            s["message"].as_str().unwrap_or("").to_string()
        })
        .collect()
}

fn assert_all_name(messages: &[String], needle: &str) {
    for m in messages {
        assert!(m.contains(needle), "message {m:?} does not name {needle:?}");
    }
}

#[test]
fn an_answer_without_seq_fails_naming_seq() {
    let (code, report) = run_through("no-seq.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    assert_eq!(failed.len(), 4, "{report}");
    assert_all_name(&failed, "out of step (seq: missing");
}

#[test]
fn an_empty_metadata_object_fails_naming_the_field() {
    let (code, report) = run_through("empty-metadata.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    // Every scenario that executes a tool; the one that only lists tools passes.
    assert_eq!(failed.len(), 3, "{report}");
    assert_all_name(&failed, "malformed_response");
    assert_all_name(
        &failed,
        "result.metadata: must be omitted when empty, got {}",
    );
}

#[test]
fn unsorted_names_fail_naming_the_field() {
    let (code, report) = run_through("unsorted-names.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    assert_eq!(failed.len(), 4, "{report}");
    assert_all_name(&failed, "names: not sorted by code point (");
}
