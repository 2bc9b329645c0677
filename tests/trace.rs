//! `run --trace FILE` and `validate-trace FILE` (issue 17 item 3): a recorded run validates,
//! a hand-corrupted trace fails naming its line, and the canary secret never reaches a trace.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

const CANARY: &str = "canary-3b9e1a77-not-in-traces";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> Command {
    match Command::cargo_bin("toolnexus-conformance") {
        Ok(mut c) => {
            c.current_dir(root());
            c
        }
        Err(e) => panic!("binary not built: {e}"),
    }
}

fn driver() -> String {
    format!(
        "{} driver",
        assert_cmd::cargo::cargo_bin("toolnexus-conformance").display()
    )
}

/// Runs §6 with `--trace` on one worker (extra args select the port) and returns the
/// trace's lines.
fn traced_run(trace: &Path, args: &[&str]) -> Vec<Value> {
    traced_run_on(trace, "1", args)
}

/// Runs §6 with `--trace` and `--jobs JOBS` and returns the trace's lines.
fn traced_run_on(trace: &Path, jobs: &str, args: &[&str]) -> Vec<Value> {
    let out = bin()
        .env("TOOLNEXUS_CONFORMANCE_SECRET", CANARY)
        .args(["run", "--section", "6", "--jobs", jobs, "--trace"])
        .arg(trace)
        .args(args)
        .output()
        .unwrap();
    let text = std::fs::read_to_string(trace).unwrap();
    assert!(!text.is_empty(), "empty trace; run said {out:?}");
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `validate-trace FILE`: exit code and stdout.
fn validate(trace: &Path) -> (i32, String) {
    let out = bin().arg("validate-trace").arg(trace).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

#[test]
fn a_recorded_run_validates_in_process_and_through_the_driver() {
    let dir = tempfile::tempdir().unwrap();
    for (label, args) in [
        ("in-process", vec![]),
        ("driver", vec!["--port".to_string(), driver()]),
    ] {
        let trace = dir.path().join(format!("{label}.jsonl"));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let lines = traced_run(&trace, &args);
        assert_eq!(lines[0]["dir"], "request", "{label}");
        assert_eq!(lines[0]["msg"]["cmd"], "hello", "{label}");
        let requests = lines.iter().filter(|l| l["dir"] == "request").count();
        let answers = lines.iter().filter(|l| l["dir"] == "answer").count();
        assert!(requests > 5, "{label}: only {requests} requests");
        assert_eq!(requests, answers, "{label}");
        assert!(
            lines.iter().any(|l| l["scenario"].as_str().is_some()),
            "{label}: no line names its scenario"
        );
        let (code, stdout) = validate(&trace);
        assert_eq!(code, 0, "{label}: {stdout}");
    }
}

#[test]
fn a_parallel_run_traces_each_driver_apart_and_validates() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("jobs.jsonl");
    let lines = traced_run_on(&trace, "3", &["--port", &driver()]);
    let mut workers: Vec<u64> = lines.iter().filter_map(|l| l["worker"].as_u64()).collect();
    assert_eq!(workers.len(), lines.len(), "a line without its worker");
    workers.sort_unstable();
    workers.dedup();
    assert_eq!(workers, [0, 1, 2]);
    for w in &workers {
        let first = lines.iter().find(|l| l["worker"] == *w).unwrap();
        assert_eq!(first["msg"]["cmd"], "hello", "worker {w}");
    }
    let (code, stdout) = validate(&trace);
    assert_eq!(code, 0, "{stdout}");
    // Each driver's sequence is checked on its own: a seq skipped in one worker is found.
    let n = 1 + lines
        .iter()
        .rposition(|l| l["worker"] == 1 && l["dir"] == "request" && l["msg"]["seq"] != 0)
        .unwrap();
    assert_rejected(
        &trace,
        n,
        |v| v["msg"]["seq"] = 4242.into(),
        "skip.jsonl",
        &format!("line {n}: request seq 4242 does not follow"),
    );
}

/// Rewrites line `n` (1-based) of `trace` with `edit` into a new file.
fn corrupt(trace: &Path, n: usize, edit: impl Fn(&mut Value), name: &str) -> PathBuf {
    let text = std::fs::read_to_string(trace).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut v: Value = serde_json::from_str(&lines[n - 1]).unwrap();
    edit(&mut v);
    lines[n - 1] = v.to_string();
    let out = trace.with_file_name(name);
    std::fs::write(&out, lines.join("\n") + "\n").unwrap();
    out
}

/// Corrupts line `n` of `trace` with `edit` (as `corrupt`) and asserts that `validate-trace`
/// rejects the copy with a problem containing `problem`.
fn assert_rejected(trace: &Path, n: usize, edit: impl Fn(&mut Value), name: &str, problem: &str) {
    let copy = corrupt(trace, n, edit, name);
    let (code, stdout) = validate(&copy);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains(problem), "{stdout}");
}

#[test]
fn a_corrupted_trace_fails_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("good.jsonl");
    let lines = traced_run(&trace, &[]);
    // The answer to the first `build` (line numbers are 1-based).
    let build = lines
        .iter()
        .position(|l| l["msg"]["cmd"] == "build")
        .unwrap();
    let answer_line = build + 2;
    assert_eq!(lines[build + 1]["dir"], "answer");

    assert_rejected(
        &trace,
        answer_line,
        |v| v["msg"]["seq"] = 4242.into(),
        "seq.jsonl",
        &format!("line {answer_line}: answer seq 4242"),
    );
    assert_rejected(
        &trace,
        answer_line,
        |v| v["msg"]["ok"] = "yes".into(),
        "schema.jsonl",
        &format!("line {answer_line}: response"),
    );
    assert_rejected(
        &trace,
        1,
        |v| v["msg"]["cmd"] = "tools".into(),
        "hello.jsonl",
        "line 1: the first request is `tools`",
    );
    // The schema leaves `hello`'s protocol an integer (a driver reads any); the trace pins it.
    assert_rejected(
        &trace,
        1,
        |v| v["msg"]["protocol"] = 2.into(),
        "protocol.jsonl",
        "line 1: `hello` announces protocol 2, not 1",
    );

    let (code, _) = validate(&dir.path().join("missing.jsonl"));
    assert_eq!(code, 2);
}

#[test]
fn the_canary_never_appears_in_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("canary.jsonl");
    // This wrapper puts the canary in hello's port fields and in an out-of-step answer.
    let wrapped = format!(
        "sh {} {}",
        root().join("tests/drivers/canary-hello.sh").display(),
        driver()
    );
    let lines = traced_run(&trace, &["--port", &wrapped]);
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(
        !text.contains(CANARY),
        "the canary is in the trace at byte {:?}",
        text.find(CANARY)
    );
    // The wrapper's answers are there, redacted: the check above looked at the right lines.
    assert!(
        lines.iter().any(|l| l["msg"]["seq"] == 999_999
            && l["msg"]["pad"].as_str().is_some_and(|p| p.ends_with("***"))),
        "{text}"
    );
}
