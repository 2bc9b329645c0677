//! The benchmark engine on the in-process reference at unit-test sizes: rows, notes, ratios,
//! targets and the table (moved out of the harness crate, which never links the reference).

use std::path::PathBuf;

use async_trait::async_trait;
use serde_json::Value;
use toolnexus_harness::bench::{run, table, BenchOptions, Op, REFERENCE};
use toolnexus_harness::inprocess::InProcessPort;
use toolnexus_harness::port::{Port, PortError};

fn reference() -> InProcessPort {
    InProcessPort::new(toolnexus_driver::ReferenceSession::new())
}

fn tiny() -> BenchOptions {
    // Unit tests have no mock server binary; `tests/bench_smoke.rs` runs the real one.
    BenchOptions::smoke(PathBuf::from("/nonexistent/tnx-mock-server"))
}

fn is_mcp(op: Op) -> bool {
    matches!(op, Op::McpCall | Op::McpBuild)
}

/// No mock LLM binary here either: the agent loop is unsupported or cannot start its mock.
fn is_loop(op: Op) -> bool {
    op == Op::AgentLoop
}

/// A port whose every call fails, as a dead driver would.
struct Broken;

#[async_trait]
impl Port for Broken {
    async fn call(&mut self, _request: Value) -> Result<Value, PortError> {
        Err(PortError::Transport("driver is not running".into()))
    }
}

#[tokio::test]
async fn tiny_run_in_process() {
    let mut ports: Vec<(String, Box<dyn Port>)> = vec![
        (REFERENCE.into(), Box::new(reference())),
        // Named like the crate port only to exercise the target line.
        ("rust-crate".into(), Box::new(reference())),
        ("broken".into(), Box::new(Broken)),
    ];
    let mut lines = Vec::new();
    let report = run(&mut ports, &tiny(), |l| lines.push(l.to_string())).await;
    assert!(!lines.is_empty());
    assert_eq!(report.rows.len(), 18);
    assert_eq!(report.reference.as_deref(), Some(REFERENCE));
    for r in report.rows.iter().filter(|r| r.port != "broken") {
        if is_mcp(r.op) {
            // No mock binary here: the server fails and that is a note, not a panic.
            assert_eq!(r.median_ms, None, "{r:?}");
            assert!(r.notes[0].contains("does not expose mock_echo"), "{r:?}");
            continue;
        }
        if is_loop(r.op) {
            assert_eq!(r.median_ms, None, "{r:?}");
            assert_eq!(r.notes.len(), 1, "{r:?}");
            let n = &r.notes[0];
            assert!(
                n.starts_with("unsupported: ") || n.contains("cannot start the mock LLM"),
                "{r:?}"
            );
            continue;
        }
        assert!(r.median_ms.is_some(), "{r:?}");
        assert!(r.p90_ms.is_some(), "{r:?}");
        assert!(r.notes.is_empty(), "{r:?}");
        assert_eq!(r.runs, 1);
    }
    let rt = report
        .rows
        .iter()
        .find(|r| r.op == Op::RoundTrip && r.port == REFERENCE)
        .unwrap();
    assert_eq!(rt.samples, 5);
    for r in report
        .rows
        .iter()
        .filter(|r| r.port == REFERENCE && !is_mcp(r.op) && !is_loop(r.op))
    {
        assert_eq!(r.ratio_to_reference, Some(1.0));
    }
    for r in report.rows.iter().filter(|r| r.port == "broken") {
        assert_eq!(r.median_ms, None);
        assert_eq!(r.ratio_to_reference, None);
        assert!(!r.notes.is_empty(), "{r:?}");
    }
    // The skills-build target; the loop's needs a measured loop on some port to name one.
    assert_eq!(report.targets.len(), 2, "{:?}", report.targets);
    assert_eq!(report.targets[1].op, Op::AgentLoop);
    assert_eq!(report.targets[1].met, None);
    assert_eq!(report.targets[0].port, "rust-crate");
    assert!(report.targets[0].ratio.is_some());
    let text = table(&report);
    assert!(
        text.contains("skills build: reference/rust-crate = "),
        "{text}"
    );
    assert!(text.contains("(target ≤ 0.5×)"), "{text}");
    assert!(text.contains("note: grep (50 files) on broken: "), "{text}");
    assert!(
        text.contains("note: MCP call round trip, stdio (5 calls) on reference: "),
        "{text}"
    );
    assert!(text.starts_with("op  "), "{text}");
    assert!(
        text.contains("MCP call: 5 calls after 1 × 5 warm-up calls, per call"),
        "{text}"
    );
    assert!(text.lines().next().unwrap().contains("  p90  "), "{text}");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["rows"][0]["op"], "skills_build");
}

#[tokio::test]
async fn unwritable_work_dir_is_a_note() {
    let file = tempfile::NamedTempFile::new().unwrap();
    let opts = BenchOptions {
        work_dir: Some(file.path().join("under-a-file")),
        ..tiny()
    };
    let mut ports: Vec<(String, Box<dyn Port>)> = vec![(REFERENCE.into(), Box::new(reference()))];
    let report = run(&mut ports, &opts, |_| {}).await;
    assert_eq!(report.notes.len(), 1, "{report:?}");
    assert!(report.fixtures.is_none());
    assert_eq!(report.rows.len(), Op::ALL.len());
    assert!(report
        .rows
        .iter()
        .all(|r| r.median_ms.is_none() && r.notes.len() == 1));
    assert!(table(&report).contains("note: cannot generate the fixtures"));
}

#[tokio::test]
async fn only_the_chosen_ops_run() {
    let opts = BenchOptions {
        ops: vec![Op::RoundTrip],
        ..tiny()
    };
    let mut ports: Vec<(String, Box<dyn Port>)> = vec![
        (REFERENCE.into(), Box::new(reference())),
        ("python".into(), Box::new(reference())),
    ];
    let report = run(&mut ports, &opts, |_| {}).await;
    let ops: Vec<Op> = report.rows.iter().map(|r| r.op).collect();
    assert_eq!(ops, [Op::RoundTrip, Op::RoundTrip]);
    let text = table(&report);
    assert!(text.contains("round trip: 5 calls per run"), "{text}");
    assert!(!text.contains("MCP"), "{text}");
    // The skills-build target is about an operation that did not run.
    assert!(report.targets.is_empty(), "{:?}", report.targets);
}
