//! The canary secret: with a known value in `TOOLNEXUS_CONFORMANCE_SECRET`, the MCP, HTTP-tool
//! and A2A scenarios expand it into `Authorization` headers (and the servers check it
//! arrived), yet no byte of any report — text, JSON, JUnit, HTML, in-process or through the
//! driver, stdout or stderr — may contain it.

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

const CANARY: &str = "canary-7d1f0c9e-do-not-print";

fn bin() -> Command {
    match Command::cargo_bin("toolnexus-conformance") {
        Ok(c) => c,
        Err(e) => panic!("binary not built: {e}"),
    }
}

/// Runs the MCP section with the canary and returns stdout and stderr.
fn run(args: &[&str]) -> (String, String) {
    let out = bin()
        .env("TOOLNEXUS_CONFORMANCE_SECRET", CANARY)
        .args(["run", "--section", "2,7,7A"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn assert_clean(what: &str, text: &str) {
    assert!(
        !text.contains(CANARY),
        "the canary secret appears in {what} (at byte {:?})",
        text.find(CANARY)
    );
}

/// The scenarios that only pass when the expanded secret reached the server.
const USES_THE_SECRET: [&str; 3] = [
    "mcp_config: remote header values expand ${ENV} from the environment and are never reported",
    "http: header values expand ${ENV} from the environment and are never reported",
    "a2a: agent headers expand ${ENV} and reach the agent; the value is never reported",
];

fn passed(report: &Value, name: &str) -> bool {
    report["scenarios"].as_array().is_some_and(|all| {
        all.iter()
            .any(|s| s["name"] == name && s["status"] == "passed")
    })
}

#[test]
fn the_canary_reaches_the_server_but_no_report_in_any_format() {
    let driver = format!(
        "{} driver",
        assert_cmd::cargo::cargo_bin("toolnexus-conformance").display()
    );
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut reports: Vec<PathBuf> = Vec::new();
    for (label, port) in [("in-process", None), ("driver", Some(driver.as_str()))] {
        let port_args: Vec<&str> = port.map(|p| vec!["--port", p]).unwrap_or_default();
        let (json, json_err) = run(&[&["--format", "json"][..], &port_args].concat());
        let report: Value = serde_json::from_str(&json)
            .unwrap_or_else(|e| panic!("{label}: report is not JSON ({e}): {json}"));
        for name in USES_THE_SECRET {
            assert!(
                passed(&report, name),
                "{label}: `{name}` did not pass, so the canary was never in play there: {}",
                report["summary"]
            );
        }
        assert_eq!(
            report["summary"]["failed"], 0,
            "{label}: every scenario of these sections (the secret checks among them) must pass: {}",
            report["summary"]
        );
        assert_clean(&format!("{label} JSON report"), &json);
        assert_clean(&format!("{label} JSON run's stderr"), &json_err);
        let file = dir.path().join(format!("{label}.json"));
        std::fs::write(&file, &json).unwrap_or_else(|e| panic!("{e}"));
        reports.push(file);

        // One more format per pass keeps the test short: text in-process, JUnit via the driver.
        let format = if port.is_none() { "text" } else { "junit" };
        {
            let (out, err) = run(&[&["--format", format][..], &port_args].concat());
            assert!(!out.is_empty(), "{label} {format}: empty report");
            assert_clean(&format!("{label} {format} report"), &out);
            assert_clean(&format!("{label} {format} run's stderr"), &err);
        }
    }
    let html = dir.path().join("matrix.html");
    let status = bin()
        .arg("report")
        .args(&reports)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(status.status.success(), "report failed: {status:?}");
    let page = std::fs::read_to_string(&html).unwrap_or_else(|e| panic!("{e}"));
    assert_clean("the HTML report", &page);
}

#[test]
fn the_search_itself_can_find_the_canary() {
    // A control: the same check on a text that does contain it must fail.
    let leaked = format!("error: header was Bearer {CANARY}");
    let caught = std::panic::catch_unwind(|| assert_clean("a leaking message", &leaked));
    assert!(caught.is_err());
}
