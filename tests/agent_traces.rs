//! SPEC §7D: "conformance = identical per-handle transition traces … on a virtual clock".
//! The fan-out and lifecycle fixture scenarios run 20 times, in-process and through the
//! reference's driver; every run's `agent_trace` answers (per-handle transitions and events)
//! must be identical, so a scheduling-dependent trace (ids drawn at random, a transition
//! recorded out of order under concurrency) fails here even when one run happens to pass.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const RUNS: usize = 20;

/// The scenarios: the fan-out fixture and the six lifecycle scenarios.
const FILTERS: [&str; 2] = ["fan-out: two parallel", "lifecycle "];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One run's traces: per scenario, the `transitions` and `events` of each `agent_trace`
/// answer in order, as canonical JSON.
fn traces(port: Option<&str>) -> BTreeMap<String, Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("trace.jsonl");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolnexus-conformance"));
    cmd.current_dir(root()).arg("run").arg("--jobs").arg("4");
    for f in FILTERS {
        cmd.arg("--filter").arg(f);
    }
    cmd.arg("--trace").arg(&file);
    if let Some(p) = port {
        cmd.arg("--port").arg(p);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "the run failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).unwrap();
    // Answers follow their requests per scenario; pair them by `seq` within a worker.
    let mut asked: BTreeMap<(String, u64), String> = BTreeMap::new();
    let mut by_scenario: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let scenario = v["scenario"].as_str().unwrap_or_default().to_string();
        let worker = v["worker"].as_u64().unwrap_or(0).to_string();
        let seq = v["msg"]["seq"].as_u64().unwrap_or(u64::MAX);
        match v["dir"].as_str() {
            Some("request") => {
                let cmd = v["msg"]["cmd"].as_str().unwrap_or_default().to_string();
                asked.insert((worker, seq), cmd);
            }
            Some("answer")
                if asked.get(&(worker, seq)).map(String::as_str) == Some("agent_trace") =>
            {
                let kept = serde_json::json!({
                    "transitions": v["msg"]["transitions"],
                    "events": v["msg"]["events"],
                });
                by_scenario
                    .entry(scenario)
                    .or_default()
                    .push(kept.to_string());
            }
            _ => {}
        }
    }
    by_scenario
}

fn identical_across_runs(port: Option<&str>) {
    let first = traces(port);
    assert_eq!(
        first.len(),
        7,
        "expected the fan-out and six lifecycle scenarios to ask for traces: {:?}",
        first.keys().collect::<Vec<_>>()
    );
    assert!(
        first.values().all(|t| !t.is_empty()),
        "every scenario asked for its trace"
    );
    for run in 2..=RUNS {
        let again = traces(port);
        for (scenario, want) in &first {
            assert_eq!(
                again.get(scenario),
                Some(want),
                "run {run} of {scenario:?} traced differently"
            );
        }
    }
}

#[test]
fn traces_are_identical_across_20_runs_in_process() {
    identical_across_runs(None);
}

#[test]
fn traces_are_identical_across_20_runs_through_the_driver() {
    identical_across_runs(Some("reference"));
}
