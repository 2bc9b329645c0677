//! The benchmark engine on the in-process reference at unit-test sizes: rows, notes, ratios,
//! targets and the table (moved out of the harness crate, which never links the reference).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;
use toolnexus_bench::{run, table, BenchOptions, Op, REFERENCE};
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::{Port, PortError};

fn reference() -> InProcessPort {
    InProcessPort::new(toolnexus_driver::ReferenceSession::new())
}

fn tiny() -> BenchOptions {
    // Unit tests have no mock server binary; `tests/bench_smoke.rs` runs the real one.
    BenchOptions::smoke(PathBuf::from("/nonexistent/tnx-mock-server"))
}

/// No binary here: the MCP operations cannot start the mock server, nor the suite its run.
fn is_mcp(op: Op) -> bool {
    matches!(op, Op::McpCall | Op::McpBuild)
}

/// No mock LLM binary here either: the agent loop and the image loops are unsupported or
/// cannot start their mock.
fn is_loop(op: Op) -> bool {
    matches!(
        op,
        Op::AgentLoop | Op::ImageLoopOpenai | Op::ImageLoopAnthropic
    )
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
    let report = run(&mut ports, &tiny(), &mut |l: &str| {
        lines.push(l.to_string())
    })
    .await;
    assert!(!lines.is_empty());
    assert_eq!(report.rows.len(), 36);
    assert_eq!(report.reference.as_deref(), Some(REFERENCE));
    for r in report.rows.iter().filter(|r| r.port != "broken") {
        if is_mcp(r.op) {
            // No mock binary here: the server fails and that is a note, not a panic.
            assert_eq!(r.median_ms, None, "{r:?}");
            assert!(r.notes[0].contains("does not expose mock_echo"), "{r:?}");
            continue;
        }
        if r.op == Op::Suite {
            assert_eq!(r.median_ms, None, "{r:?}");
            assert!(r.notes[0].contains("cannot start"), "{r:?}");
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
        // The per-call operations count blocks: five calls make five blocks of one; the
        // classifier's rounds are its three `evaluate` calls.
        let rounds = match r.op {
            Op::RoundTrip | Op::ServeCall => 5,
            Op::ClassifierStatic | Op::ClassifierCanonical255 => 3,
            _ => 1,
        };
        assert_eq!(r.runs, rounds, "{r:?}");
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
        .filter(|r| r.port == REFERENCE && !is_mcp(r.op) && !is_loop(r.op) && r.op != Op::Suite)
    {
        assert_eq!(r.ratio_to_reference, Some(1.0));
    }
    // The served call ran on the in-process reference's own gateway, per call.
    let served = report
        .rows
        .iter()
        .find(|r| r.op == Op::ServeCall && r.port == REFERENCE)
        .unwrap();
    assert_eq!(served.samples, 5, "{served:?}");
    // Every operation but the suite has a floor, in operation order, and the skills build,
    // the MCP call and the served call fairer ones beside it (the YAML-loading walk; the
    // others in processes of their own); the ones that need no binary are measured, with a
    // ratio to the reference.
    let floor_ops: Vec<Op> = report.floors.iter().map(|f| f.op).collect();
    use Op::*;
    assert_eq!(
        floor_ops,
        [
            SkillsBuild,
            SkillsBuild,
            Grep,
            RoundTrip,
            McpCall,
            McpCall,
            McpBuild,
            AgentLoop,
            ServeCall,
            ServeCall,
            ServeCall,
            ImageLoopOpenai,
            ImageLoopAnthropic,
            ClassifierStatic,
            ClassifierCanonical255
        ],
        "{:?}",
        report.floors
    );
    for f in &report.floors {
        let in_process = !f.what.contains("process");
        match f.op {
            Op::SkillsBuild | Op::RoundTrip | Op::ServeCall if in_process => {
                assert!(f.notes.is_empty(), "{f:?}");
                assert!(f.ratio_to_reference.is_some(), "{f:?}");
                let want = if f.op == Op::SkillsBuild { 1 } else { 5 };
                assert_eq!(f.samples, want, "{f:?}");
            }
            Op::ClassifierStatic | Op::ClassifierCanonical255 => {
                assert!(f.notes.is_empty(), "{f:?}");
                assert_eq!(f.samples, 3, "{f:?}");
            }
            Op::Grep if f.notes.is_empty() => assert_eq!(f.samples, 1, "{f:?}"),
            Op::Grep => assert_eq!(f.notes, ["rg not installed"], "{f:?}"),
            _ => {
                assert_eq!(f.median_ms, None, "{f:?}");
                assert_eq!(f.notes.len(), 1, "{f:?}");
            }
        }
    }
    // The suite ran on the sections every working port implements (the broken one said
    // nothing and has a note), narrowed to the smoke's one section.
    assert_eq!(
        report.suite_sections.as_deref(),
        Some(&["1".to_string()][..])
    );
    for r in report.rows.iter().filter(|r| r.port == "broken") {
        assert_eq!(r.median_ms, None);
        assert_eq!(r.ratio_to_reference, None);
        assert!(!r.notes.is_empty(), "{r:?}");
    }
    // The skills-build and classifier targets against `rust-crate`; the loop's needs a
    // measured loop on some port to name one.
    let target_ops: Vec<Op> = report.targets.iter().map(|t| t.op).collect();
    assert_eq!(
        target_ops,
        [
            SkillsBuild,
            ClassifierStatic,
            ClassifierCanonical255,
            AgentLoop
        ],
        "{:?}",
        report.targets
    );
    assert_eq!(report.targets[3].met, None);
    assert!(report.targets[1..3]
        .iter()
        .all(|t| t.port == "rust-crate" && t.target == 1.0 && t.ratio.is_some()));
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
        text.contains("floor (parallel walk reading every SKILL.md)"),
        "{text}"
    );
    assert!(text.contains("floor (request line through cat)"), "{text}");
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["floors"][0]["op"], "skills_build", "{json}");
    assert!(json["floors"][0]["median_ms"].is_number(), "{json}");
    assert!(
        text.contains("MCP call: 5 calls after 1 × 5 warm-up calls, per call"),
        "{text}"
    );
    assert!(text.lines().next().unwrap().contains("  p90  "), "{text}");
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
    let report = run(&mut ports, &opts, &mut |_| {}).await;
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
    let report = run(&mut ports, &opts, &mut |_| {}).await;
    let ops: Vec<Op> = report.rows.iter().map(|r| r.op).collect();
    assert_eq!(ops, [Op::RoundTrip, Op::RoundTrip]);
    let text = table(&report);
    assert!(text.contains("round trip: 5 calls per run"), "{text}");
    assert!(!text.contains("MCP"), "{text}");
    // The skills-build target is about an operation that did not run.
    assert!(report.targets.is_empty(), "{:?}", report.targets);
}

/// The in-process reference, logging `(port, cmd)` of every request into a shared list.
struct Recorder {
    name: &'static str,
    inner: InProcessPort,
    log: Arc<Mutex<Vec<(&'static str, String)>>>,
}

#[async_trait]
impl Port for Recorder {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        let cmd = request["cmd"].as_str().unwrap_or("?").to_string();
        self.log.lock().unwrap().push((self.name, cmd));
        self.inner.call(request).await
    }
}

#[tokio::test]
async fn samples_are_interleaved_round_by_round() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let recorder = |name: &'static str| -> Box<dyn Port> {
        Box::new(Recorder {
            name,
            inner: reference(),
            log: log.clone(),
        })
    };
    let mut ports: Vec<(String, Box<dyn Port>)> = vec![
        (REFERENCE.into(), recorder("A")),
        ("other".into(), recorder("B")),
    ];
    let opts = BenchOptions {
        ops: vec![Op::Grep, Op::RoundTrip],
        runs: 3,
        warmup: 1,
        round_trips: 4,
        ..tiny()
    };
    let report = run(&mut ports, &opts, &mut |_| {}).await;
    for r in &report.rows {
        assert!(r.notes.is_empty(), "{r:?}");
    }
    let seen: Vec<String> = log
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, cmd)| ["build", "execute", "close"].contains(&cmd.as_str()))
        .map(|(who, cmd)| format!("{who} {cmd}"))
        .collect();
    let mut want: Vec<String> = Vec::new();
    let mut push = |who: &str, cmd: &str, n: usize| {
        want.extend(std::iter::repeat_n(format!("{who} {cmd}"), n));
    };
    // grep: both built first, then warm-up and three runs, A before B each round.
    push("A", "build", 1);
    push("B", "build", 1);
    for _ in 0..4 {
        push("A", "execute", 1);
        push("B", "execute", 1);
    }
    push("A", "close", 1);
    push("B", "close", 1);
    // round trip: a warm-up run of 4 calls each, then 3 × 4 = 12 counted calls in 10
    // blocks (2, 2, then 1 each), every block of A then of B.
    push("A", "build", 1);
    push("B", "build", 1);
    push("A", "execute", 4);
    push("B", "execute", 4);
    for size in [2, 2, 1, 1, 1, 1, 1, 1, 1, 1] {
        push("A", "execute", size);
        push("B", "execute", size);
    }
    push("A", "close", 1);
    push("B", "close", 1);
    assert_eq!(seen, want);
    let rt = report.rows.iter().find(|r| r.op == Op::RoundTrip).unwrap();
    assert_eq!((rt.runs, rt.samples), (10, 12), "{rt:?}");
}
