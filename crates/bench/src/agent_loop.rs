//! The agent-loop operation: the port's own §8 client against the mock LLM answering one
//! tool call per turn at once, so what is timed is the loop's own overhead per LLM round
//! trip (request building, HTTP, parsing, tool dispatch, transcript growth).
//!
//! Per port: one fresh mock LLM (`<mock_exe> mock llm --scenario bench-loop.json`), one
//! toolkit with an extra `echo` tool, one client with `maxTurns` = `loop_turns`; then warm-up
//! runs and `loop_runs` counted `run`s. Each run is cut by `maxTurns` (a port may return a
//! result or raise there, PROTOCOL.md / NOTES.md), and its sample is the run's wall time
//! divided by its turns: the mean per round trip of that run. Means of 100-turn runs are what
//! is comparable across ports whose drivers cannot time single turns without hooks, which
//! would add their own cost; p50/p90 are then over the runs.

use std::path::PathBuf;
use std::time::Instant;

use serde_json::{json, Value};

use crate::fixtures::LOOP_SCENARIO_FILE;
use crate::measure::{note, Ctx, Go, Measured, Unit};
use crate::options::BenchOptions;
use crate::raw::send;
use crate::stats::ms;
use toolnexus_ports::port::{truncate, Port, PortError};
use toolnexus_protocol::client::ClientOptions;
use toolnexus_protocol::Request;

const TK_LOOP: &str = "bench-loop";
const CLIENT: &str = "bench-loop";

/// A running mock LLM (`mock_launch`), killed when dropped.
pub(crate) type MockLlm = toolnexus_ports::mock_launch::RunningMock;

/// The binary serving `mock llm`: `opts.mock_exe`, else the running binary.
pub(crate) fn mock_exe(opts: &BenchOptions) -> Result<PathBuf, String> {
    match &opts.mock_exe {
        Some(e) => std::path::absolute(e).map_err(|e| e.to_string()),
        None => std::env::current_exe().map_err(|e| e.to_string()),
    }
}

/// The `client` options of the loop: the mock's OpenAI wire, no retries (a failure shows at
/// once instead of as backoff time), a fixed key so no environment is read.
fn client_options(url: &str, turns: usize) -> ClientOptions {
    ClientOptions {
        base_url: Some(url.to_string()),
        style: Some("openai".into()),
        model: Some("bench".into()),
        api_key: Some("bench-key".into()),
        retries: Some(0),
        max_turns: Some(turns as u64),
        ..ClientOptions::default()
    }
}

/// The `client` request creating the loop's client.
fn client_request(options: ClientOptions) -> Request {
    Request::Client {
        id: CLIENT.into(),
        options: Box::new(options),
    }
}

/// The LLM round trips one `run` answer stands for, or why it stands for none.
///
/// A `result` gives its `turns`; `raised` is the `maxTurns` cut when the message speaks of
/// turns (a port may raise there), and counts as `turns` round trips.
pub(crate) fn turns_of(answer: &Value, turns: usize) -> Result<usize, String> {
    if let Some(result) = answer.get("result") {
        return match result.get("turns").and_then(Value::as_u64) {
            Some(0) | None => Err(format!(
                "run result has no turns: {}",
                truncate(&result.to_string(), 200)
            )),
            Some(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        };
    }
    match answer.get("raised").and_then(Value::as_str) {
        Some(m) if m.to_lowercase().contains("turn") => Ok(turns),
        Some(m) => Err(format!("run raised: {}", truncate(m, 200))),
        None => Err(format!(
            "run answered neither result nor raised: {}",
            truncate(&answer.to_string(), 200)
        )),
    }
}

/// The loop's state on a set-up port: the client points at `mock`, `turns` per run.
pub(crate) struct LoopState {
    _mock: MockLlm,
    turns: usize,
}

/// Builds the toolkit, probes `client` (a port without §8 is skipped before any mock
/// starts), starts a fresh mock LLM and points the client at it.
pub(crate) async fn setup(
    port: &mut dyn Port,
    ctx: &Ctx<'_>,
    m: &mut Measured,
) -> Result<Option<LoopState>, PortError> {
    let turns = ctx.opts.loop_turns.max(1);
    let options = json!({"builtins": false,
                         "extraTools": [{"name": "echo", "behaviour": {"echo": true}}]});
    port.build(TK_LOOP, &options).await?;
    let outcome = async {
        let probe = client_options("http://127.0.0.1:9", turns);
        send(port, client_request(probe)).await?;
        let mock = match start_loop_mock(ctx).await {
            Ok(mock) => mock,
            Err(why) => {
                note(&mut m.notes, why);
                return Ok(None);
            }
        };
        let options = client_options(&mock.url, turns);
        send(port, client_request(options)).await?;
        Ok(Some(mock))
    }
    .await;
    match outcome {
        Ok(Some(mock)) => Ok(Some(LoopState { _mock: mock, turns })),
        Ok(None) => port.close(TK_LOOP).await.map(|()| None),
        Err(e) => {
            let _ = port.close(TK_LOOP).await;
            Err(e)
        }
    }
}

/// A fresh mock LLM serving the loop scenario of the fixture directory.
pub(crate) async fn start_loop_mock(ctx: &Ctx<'_>) -> Result<MockLlm, String> {
    let exe = mock_exe(ctx.opts)?;
    toolnexus_ports::mock_launch::llm(&exe, &ctx.fx.dir.join(LOOP_SCENARIO_FILE)).await
}

/// One `run`; its sample is the run's time per turn.
pub(crate) async fn step(
    port: &mut dyn Port,
    state: &mut LoopState,
    unit: Unit,
    m: &mut Measured,
) -> Result<Go, PortError> {
    let turns = state.turns;
    let run = Request::Run {
        client: CLIENT.into(),
        toolkit: Some(TK_LOOP.into()),
        prompt: "loop".into(),
        history: None,
        cancel_after_ms: None,
    };
    let started = Instant::now();
    let answer = send(port, run).await?;
    let elapsed = ms(started);
    let done = match turns_of(&answer, turns) {
        Ok(done) => done,
        Err(why) => {
            // Without its round trips a run's time means nothing: stop here.
            note(&mut m.notes, why);
            return Ok(Go::Stop);
        }
    };
    if done != turns {
        note(
            &mut m.notes,
            format!("a run took {done} turns, maxTurns was {turns}"),
        );
    }
    record_turns(unit, done, elapsed, m);
    Ok(Go::On)
}

/// Keeps a counted run's mean per turn and says so on the progress line.
pub(crate) fn record_turns(unit: Unit, done: usize, elapsed: f64, m: &mut Measured) {
    let per_turn = elapsed / done.max(1) as f64;
    if unit.counted {
        m.samples.push(per_turn);
    }
    m.detail = Some(format!(
        "{done} turns in {elapsed:.1} ms, {per_turn:.3} ms per turn"
    ));
}

/// Closes the loop's toolkit; the mock LLM dies with the state.
pub(crate) async fn teardown(port: &mut dyn Port, state: LoopState) -> Result<(), PortError> {
    drop(state);
    port.close(TK_LOOP).await
}

/// A bare OpenAI-style tool loop: `turns` chat-completion POSTs to `<base_url>/chat/completions`,
/// each answer's `echo` tool call (arguments `{"text":"bench"}`) answered with its own
/// arguments as the tool result. Returns the turns done, or why an answer was not the
/// expected tool call. The floor of the agent-loop operation, and the loop of
/// `tests/bench_loop.rs`'s miniature port.
pub async fn http_tool_loop(
    http: &reqwest::Client,
    base_url: &str,
    turns: usize,
) -> Result<usize, String> {
    let url = format!("{base_url}/chat/completions");
    let mut messages = vec![json!({"role": "user", "content": "loop"})];
    /// Serialised from borrowed parts: copying the growing conversation into a new JSON
    /// value each turn would make the floor slower than the clients it is the floor of.
    #[derive(serde::Serialize)]
    struct Body<'a> {
        model: &'a str,
        messages: &'a [Value],
    }
    for turn in 0..turns {
        let body = serde_json::to_string(&Body {
            model: "bench",
            messages: &messages,
        })
        .map_err(|e| format!("turn {turn}: {e}"))?;
        let response = http
            .post(&url)
            .header("content-type", "application/json")
            .header("authorization", "Bearer bench-key")
            .body(body)
            .send()
            .await
            .map_err(|e| format!("turn {turn}: {e}"))?;
        let text = response
            .text()
            .await
            .map_err(|e| format!("turn {turn}: {e}"))?;
        let answer: Value = serde_json::from_str(&text)
            .map_err(|e| format!("turn {turn}: not JSON ({e}): {}", truncate(&text, 200)))?;
        let choice = &answer["choices"][0];
        let call = &choice["message"]["tool_calls"][0];
        if choice["finish_reason"] != "tool_calls"
            || call["function"]["name"] != "echo"
            || call["function"]["arguments"] != r#"{"text":"bench"}"#
        {
            return Err(format!(
                "turn {turn}: not the echo tool call: {}",
                truncate(&text, 200)
            ));
        }
        let result = json!({"role": "tool", "tool_call_id": call["id"],
                            "content": call["function"]["arguments"]});
        messages.push(choice["message"].clone());
        messages.push(result);
    }
    Ok(turns)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use async_trait::async_trait;

    use super::*;
    use crate::engine::run;
    use crate::fixtures::LOOP_SCENARIO;
    use crate::options::{Op, REFERENCE};
    use crate::render::table;

    /// The URL the fake mock LLM prints.
    const FAKE_URL: &str = "http://127.0.0.1:9";

    /// How a fake port answers `run`.
    #[derive(Clone, Copy)]
    enum Loop {
        /// `{"result": {"turns": maxTurns}}` after this many ms.
        Result(u64),
        /// `{"raised": "maxTurns …"}` after this many ms.
        Raises(u64),
        /// `client` is `unsupported`.
        Unsupported,
        /// `run` raises an HTTP error.
        Fails,
    }

    /// A driver in miniature: answers build/client/run/close, records every request.
    struct FakePort {
        how: Loop,
        max_turns: u64,
        seen: Arc<Mutex<Vec<Value>>>,
    }

    #[async_trait]
    impl Port for FakePort {
        async fn call(&mut self, request: Value) -> Result<Value, PortError> {
            self.seen.lock().unwrap().push(request.clone());
            let answer = match request["cmd"].as_str().unwrap_or("") {
                "build" => json!({"ok": true, "tools": [], "names": ["echo"], "statuses": {},
                                  "errors": {}, "skills": []}),
                "client" => {
                    if let Loop::Unsupported = self.how {
                        return Ok(json!({"ok": false, "error": {"kind": "unsupported",
                                         "message": "no §8 client in this port"}}));
                    }
                    self.max_turns = request["options"]["maxTurns"].as_u64().unwrap();
                    json!({"ok": true, "client": request["id"]})
                }
                "run" => match self.how {
                    Loop::Result(ms) => {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        json!({"ok": true, "result": {"turns": self.max_turns}})
                    }
                    Loop::Raises(ms) => {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                        json!({"ok": true, "raised": format!("maxTurns ({}) reached", self.max_turns)})
                    }
                    Loop::Fails => json!({"ok": true, "raised": "HTTP 500: mock down"}),
                    Loop::Unsupported => unreachable!(),
                },
                "close" => json!({"ok": true}),
                other => panic!("unexpected command {other}"),
            };
            Ok(answer)
        }
    }

    fn fake(how: Loop) -> (Box<dyn Port>, Arc<Mutex<Vec<Value>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let port = FakePort {
            how,
            max_turns: 0,
            seen: seen.clone(),
        };
        (Box::new(port), seen)
    }

    /// A stand-in for `toolnexus-conformance`: `mock llm` prints a URL and waits to be killed.
    fn fake_mock(dir: &Path) -> PathBuf {
        let exe = dir.join("fake-mock");
        std::fs::write(&exe, format!("#!/bin/sh\necho {FAKE_URL}\nexec sleep 60\n")).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        exe
    }

    #[tokio::test]
    async fn per_turn_samples_skips_and_the_fastest_port_target() {
        let dir = tempfile::tempdir().unwrap();
        let opts = BenchOptions {
            ops: vec![Op::AgentLoop],
            loop_turns: 4,
            loop_runs: 3,
            warmup: 1,
            work_dir: Some(dir.path().to_path_buf()),
            ..BenchOptions::smoke(fake_mock(dir.path()))
        };
        let (reference, seen) = fake(Loop::Result(20));
        let (python, _) = fake(Loop::Raises(80));
        let (crate_port, _) = fake(Loop::Result(30));
        let (old, _) = fake(Loop::Unsupported);
        let (failing, _) = fake(Loop::Fails);
        let mut ports: Vec<(String, Box<dyn Port>)> = vec![
            (REFERENCE.into(), reference),
            ("python".into(), python),
            ("rust-crate".into(), crate_port),
            ("old".into(), old),
            ("failing".into(), failing),
        ];
        let report = run(&mut ports, &opts, &mut |_| {}).await;
        let text = table(&report);
        let row = |port: &str| report.rows.iter().find(|r| r.port == port).unwrap();

        for port in [REFERENCE, "python", "rust-crate"] {
            let r = row(port);
            assert!(r.notes.is_empty(), "{r:?}\n{text}");
            assert_eq!((r.runs, r.samples), (3, 3), "{r:?}");
        }
        // A sample is the run's time over its 4 turns: at least 20 / 4 ms for the reference.
        let reference = row(REFERENCE);
        assert!(reference.min_ms.unwrap() >= 5.0, "{reference:?}");
        assert!(reference.median_ms.unwrap() < 20.0, "{reference:?}");
        assert!(row("python").min_ms.unwrap() >= 20.0, "{:?}", row("python"));

        let old = row("old");
        assert_eq!(old.median_ms, None);
        assert_eq!(
            old.notes,
            ["unsupported: no §8 client in this port"],
            "{text}"
        );
        let failing = row("failing");
        assert_eq!(failing.median_ms, None);
        assert!(
            failing.notes[0].contains("run raised: HTTP 500"),
            "{failing:?}"
        );

        // The real client got the fake mock's URL and the loop's maxTurns.
        let seen = seen.lock().unwrap();
        let clients: Vec<&Value> = seen.iter().filter(|r| r["cmd"] == "client").collect();
        assert_eq!(clients.last().unwrap()["options"]["baseUrl"], FAKE_URL);
        assert_eq!(clients.last().unwrap()["options"]["maxTurns"], 4);
        assert_eq!(seen.iter().filter(|r| r["cmd"] == "run").count(), 4);
        assert_eq!(seen.last().unwrap()["cmd"], "close");

        let t = report
            .targets
            .iter()
            .find(|t| t.op == Op::AgentLoop)
            .unwrap();
        assert_eq!(t.port, "rust-crate", "{text}");
        // About 20 / 30: the target is missed.
        assert_eq!(t.met, Some(false), "{text}");
        assert!(
            text.contains("agent loop: reference/rust-crate = "),
            "{text}"
        );
        assert!(
            text.contains("agent loop: 3 counted runs of 4 turns after 1 warm-up run(s), per turn"),
            "{text}"
        );
        assert!(
            text.contains("agent loop per LLM round trip (3 × 4 turns)"),
            "{text}"
        );
    }

    #[test]
    fn a_run_counts_its_turns_or_says_why_not() {
        assert_eq!(turns_of(&json!({"result": {"turns": 7}}), 9), Ok(7));
        assert_eq!(
            turns_of(&json!({"raised": "maxTurns (9) exceeded"}), 9),
            Ok(9)
        );
        assert_eq!(turns_of(&json!({"raised": "Max turns reached"}), 4), Ok(4));
        let http = turns_of(&json!({"raised": "HTTP 500: boom"}), 9).unwrap_err();
        assert!(http.contains("run raised: HTTP 500"), "{http}");
        assert!(turns_of(&json!({"result": {"turns": 0}}), 9).is_err());
        assert!(turns_of(&json!({"result": {}}), 9).is_err());
        assert!(turns_of(&json!({"elapsedMs": 3}), 9).is_err());
    }

    #[test]
    fn the_scenario_answers_one_echo_call() {
        let v: Value = serde_json::from_str(LOOP_SCENARIO).unwrap();
        let replies = v["replies"].as_array().unwrap();
        assert_eq!(replies.len(), 1);
        assert!(replies[0].get("match").is_none());
        assert_eq!(replies[0]["toolCalls"][0]["name"], "echo");
        assert!(replies[0].get("delayMs").is_none());
    }
}
