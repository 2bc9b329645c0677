//! The agent-loop bench operation against the real mock LLM binary, before any driver has
//! the §8 client: a port in miniature whose `run` is a real (minimal) OpenAI tool loop over
//! HTTP against the URL the operation hands it, so the scenario (bench-loop.json), the mock
//! start and the per-turn arithmetic are checked end to end.

use async_trait::async_trait;
use serde_json::{json, Value};
use toolnexus_bench::{self as bench, BenchOptions, Op, REFERENCE};
use toolnexus_ports::port::{Port, PortError};

/// Answers build/client/close; `run` loops `maxTurns` chat requests, answering each tool
/// call with the echo of its arguments.
struct LoopPort {
    base_url: String,
    max_turns: u64,
    http: reqwest::Client,
}

impl LoopPort {
    async fn run(&self) -> Value {
        let turns = usize::try_from(self.max_turns).unwrap();
        // The same bare loop is the operation's floor; it checks every answer is the echo call.
        let done = bench::http_tool_loop(&self.http, &self.base_url, turns)
            .await
            .unwrap();
        json!({"ok": true, "result": {"turns": done, "toolCallCount": done}})
    }
}

#[async_trait]
impl Port for LoopPort {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        Ok(match request["cmd"].as_str().unwrap_or("") {
            "build" => {
                assert_eq!(request["options"]["extraTools"][0]["name"], "echo");
                json!({"ok": true, "tools": [], "names": ["echo"], "statuses": {},
                       "errors": {}, "skills": []})
            }
            "client" => {
                let options = &request["options"];
                assert_eq!(options["style"], "openai");
                self.base_url = options["baseUrl"].as_str().unwrap().to_string();
                self.max_turns = options["maxTurns"].as_u64().unwrap();
                json!({"ok": true, "client": request["id"]})
            }
            "run" => self.run().await,
            "close" => json!({"ok": true}),
            other => panic!("unexpected command {other}"),
        })
    }
}

#[tokio::test]
async fn the_loop_runs_against_the_real_mock_llm() {
    let bin = env!("CARGO_BIN_EXE_toolnexus-conformance");
    let port = || -> Box<dyn Port> {
        Box::new(LoopPort {
            base_url: String::new(),
            max_turns: 0,
            http: toolnexus_ports::tls::client(),
        })
    };
    let mut ports: Vec<(String, Box<dyn Port>)> = vec![
        (REFERENCE.to_string(), port()),
        ("python".to_string(), port()),
    ];
    let opts = BenchOptions {
        ops: vec![Op::AgentLoop],
        loop_turns: 20,
        loop_runs: 3,
        ..BenchOptions::smoke(bin.into())
    };
    let mut lines = Vec::new();
    let report = bench::run(&mut ports, &opts, &mut |l| lines.push(l.to_string())).await;
    let text = bench::table(&report);
    assert_eq!(report.rows.len(), 2, "{text}");
    for r in &report.rows {
        assert!(r.notes.is_empty(), "{r:?}\n{text}");
        assert_eq!((r.runs, r.samples), (3, 3), "{r:?}");
        // A loopback round trip to the mock: well under 100 ms per turn, above zero.
        let median = r.median_ms.unwrap();
        assert!(median > 0.0 && median < 100.0, "{r:?}");
    }
    assert!(
        lines.iter().any(|l| l.contains("run 3/3 20 turns in")),
        "{lines:?}"
    );
    let target = &report.targets[0];
    assert_eq!((target.op, target.port.as_str()), (Op::AgentLoop, "python"));
    assert!(target.ratio.is_some(), "{text}");
    assert!(text.contains("agent loop: reference/python = "), "{text}");
    // The floor: the same loop from the harness itself, against its own fresh mock.
    let floor = &report.floors[0];
    assert_eq!(floor.op, Op::AgentLoop);
    assert!(floor.notes.is_empty(), "{floor:?}");
    assert_eq!(floor.samples, 3, "{floor:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  floor (bare HTTP tool loop): run 3/3 20 turns in")),
        "{lines:?}"
    );
}
