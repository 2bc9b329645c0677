//! Runs the suite through a wrapper around the reference's own driver (the broken and false
//! drivers of tests/drivers), for the tests that check what a bad port gets.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

/// tests/drivers/`name`, as a path for a wrapper command.
pub fn script(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/drivers")
        .join(name)
        .display()
        .to_string()
}

/// Runs `sections` in JSON with `--port "<wrapper> <this binary> driver"`; returns the exit
/// code and the report.
pub fn run_wrapped(wrapper: &str, sections: &str) -> (Option<i32>, Value) {
    run_wrapped_selecting(wrapper, &["--section", sections])
}

/// Runs the scenarios `selection` picks (`--section 6`, `--filter TEXT`) in JSON with
/// `--port "<wrapper> <this binary> driver"`; returns the exit code and the report.
pub fn run_wrapped_selecting(wrapper: &str, selection: &[&str]) -> (Option<i32>, Value) {
    let port = format!(
        "{wrapper} {} driver",
        env!("CARGO_BIN_EXE_toolnexus-conformance")
    );
    let out = Command::cargo_bin("toolnexus-conformance")
        .unwrap_or_else(|e| panic!("binary not built: {e}"))
        .args(["run", "--format", "json"])
        .args(selection)
        .args(["--port", &port])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {stdout}"));
    (out.status.code(), report)
}
