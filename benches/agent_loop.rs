//! The SPEC §8 agent loop per LLM round trip: the reference's client in-process against this
//! crate's mock LLM (`toolnexus-conformance mock llm --scenario
//! mock-servers/scenarios/llm/bench-loop.json`), which answers every request at once with one
//! `echo` tool call, so what is timed is the loop's own cost per turn (request building,
//! HTTP on loopback, parsing, tool dispatch, transcript growth) plus the mock's.
//!
//! `cargo bench --bench agent_loop` measures with criterion:
//!
//! - `agent_loop/turn`: the reference `Client::run` (openai style, `retries` 0, `maxTurns`
//!   100) with a toolkit of one native `echo` tool; an iteration is one LLM round trip, timed
//!   as the wall time of 100-turn runs divided by their turns;
//! - `agent_loop/floor_turn`: the floor, a bare tool loop over reqwest posting the same
//!   openai-style bodies (model, transcript, the toolkit's tool schema) to the same mock and
//!   appending the tool's result each turn: the least any client must do.
//!
//! Then it prints, side by side, per-turn p50 / p90 over 10 runs × 100 turns of each side,
//! interleaved (run k of each before run k+1, so machine noise hits both), with the ratio
//! reference ÷ floor. `cargo test --benches` runs each criterion function once and skips the
//! printout.
//!
//! The mock is the crate's binary (`CARGO_BIN_EXE_toolnexus-conformance`, else
//! `target/release` then `target/debug`), started as a child that is killed when the bench
//! ends, panics, or dies (it gets SIGKILL when this process goes).

mod support;

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::{json, Value};
use tokio::runtime::Runtime;
use toolnexus_bench::stats;
use toolnexus_reference::adapters::Format;
use toolnexus_reference::client::{Client, ClientOptions, RunOptions, RunStatus, Style};
use toolnexus_reference::native::{define_tool, NativeReturn};
use toolnexus_reference::Toolkit;

use support::{built_binary, root, BIN};

/// LLM round trips per run (the client's `maxTurns`).
const TURNS: usize = 100;
/// Counted runs per side in the side-by-side printout.
const RUNS: usize = 10;
/// Uncounted runs per side before them.
const WARMUP: usize = 2;
/// What the mock's tool call asks `echo` to return.
const TEXT: &str = "bench";

/// The binary serving `mock llm`: cargo's, else a built one under `target/`.
fn mock_binary() -> PathBuf {
    built_binary().unwrap_or_else(|| {
        panic!("agent_loop bench: no {BIN} binary (cargo build --release --bin {BIN})")
    })
}

/// A running mock LLM, killed when dropped (also on a panic's unwinding).
struct MockLlm {
    child: Child,
    url: String,
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `<bin> mock llm --scenario bench-loop.json` and reads the URL it prints first.
fn start_mock(bin: &Path) -> Result<MockLlm, String> {
    let scenario = root().join("mock-servers/scenarios/llm/bench-loop.json");
    let mut command = Command::new(bin);
    command
        .args(["mock", "llm", "--scenario"])
        .arg(&scenario)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: prctl is async-signal-safe; the closure allocates nothing. A child that
    // outlives a killed bench would hold its port and its CPU.
    unsafe {
        command.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
                .map_err(std::io::Error::from)
        });
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let stdout = child.stdout.take();
    // From here on, every return drops the guard and so kills the child.
    let mut mock = MockLlm {
        child,
        url: String::new(),
    };
    let stdout = stdout.ok_or("the mock LLM has no stdout")?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = BufReader::new(stdout).read_line(&mut line).map(|_| line);
        let _ = tx.send(read);
    });
    let line = match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(Ok(line)) => line,
        Ok(Err(e)) => return Err(format!("reading the mock LLM's URL: {e}")),
        Err(_) => return Err("the mock LLM printed no URL within 10 s".into()),
    };
    let url = line.trim_end();
    if !url.starts_with("http://") {
        return Err(format!("the mock LLM's first line is not a URL: {url:?}"));
    }
    mock.url = url.to_string();
    Ok(mock)
}

/// The toolkit of the loop: one native `echo` returning its `text`.
fn toolkit() -> Toolkit {
    let echo = define_tool(
        "echo",
        "Returns its text",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |args: Value, _ctx| async move {
            match args.get("text").and_then(Value::as_str) {
                Some(text) => Ok(NativeReturn::Text(text.to_string())),
                None => Err("echo: `text` must be a string".to_string()),
            }
        },
    );
    Toolkit::from_tools(vec![echo])
}

/// The reference client as the driver builds it from the bench's `client` options
/// (crates/driver/src/client_behaviours.rs): openai style, a fixed key, no retries.
fn reference_client(url: &str) -> Client {
    Client::new(ClientOptions {
        base_url: url.to_string(),
        style: Style::OpenAi,
        model: "bench".into(),
        api_key: Some("bench-key".into()),
        retries: 0,
        max_turns: u32::try_from(TURNS).unwrap_or(u32::MAX),
        ..ClientOptions::default()
    })
}

/// One reference run of `TURNS` turns; its wall time. Panics unless every turn ran `echo`.
async fn reference_run(client: &Client, tk: &Toolkit) -> Duration {
    let started = Instant::now();
    let result = client
        .run(
            "loop",
            RunOptions {
                toolkit: Some(tk),
                ..RunOptions::default()
            },
        )
        .await;
    let elapsed = started.elapsed();
    let result = result.unwrap_or_else(|e| panic!("reference run failed: {e}"));
    assert_eq!(
        (result.status, result.turns as usize, result.tool_call_count),
        (RunStatus::Incomplete, TURNS, TURNS),
        "reference run: limit {:?}",
        result.limit
    );
    let last = result
        .tool_calls
        .last()
        .map(|r| (r.is_error, r.output.as_str()));
    assert_eq!(last, Some((false, TEXT)), "reference run: last tool call");
    elapsed
}

/// An openai-style request body, borrowing the transcript.
#[derive(serde::Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: &'a [Value],
    tools: &'a Value,
    tool_choice: &'a str,
}

/// The floor: the least an openai-style tool loop does per turn.
struct Floor {
    http: reqwest::Client,
    endpoint: String,
    tools: Value,
}

impl Floor {
    fn new(url: &str, tk: &Toolkit) -> Floor {
        Floor {
            http: toolnexus_ports::tls::client(),
            endpoint: format!("{}/chat/completions", url.trim_end_matches('/')),
            tools: tk.adapter(Format::OpenAi),
        }
    }

    /// One run of `TURNS` turns; its wall time. Panics on an answer without the echo call.
    async fn run(&self) -> Duration {
        let started = Instant::now();
        let mut messages = vec![json!({"role": "user", "content": "loop"})];
        let mut capacity = 0;
        for _ in 0..TURNS {
            // Serialized from borrowed parts, never copied into a `Value` first: the
            // transcript grows every turn, and a deep copy per turn would be the floor's own
            // overhead, not the least a client must do.
            let body = Body {
                model: "bench",
                messages: &messages,
                tools: &self.tools,
                tool_choice: "auto",
            };
            let mut out = Vec::with_capacity(capacity);
            serde_json::to_writer(&mut out, &body).unwrap_or_else(|e| panic!("floor: {e}"));
            capacity = out.len() + out.len() / 4;
            let bytes = self
                .http
                .post(&self.endpoint)
                .bearer_auth("bench-key")
                .header("content-type", "application/json")
                .body(out)
                .send()
                .await
                .unwrap_or_else(|e| panic!("floor: {e}"))
                .bytes()
                .await
                .unwrap_or_else(|e| panic!("floor: {e}"));
            let mut answer: Value =
                serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("floor: {e}"));
            let message = answer["choices"][0]["message"].take();
            let call = &message["tool_calls"][0];
            assert_eq!(call["function"]["name"], "echo", "floor: {message}");
            let args: Value = call["function"]["arguments"]
                .as_str()
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or_default();
            let output = args["text"].as_str().unwrap_or_default().to_string();
            assert_eq!(output, TEXT, "floor: {message}");
            let reply = json!({"role": "tool", "tool_call_id": call["id"], "content": output});
            messages.push(message);
            messages.push(reply);
        }
        started.elapsed()
    }
}

/// Per-turn time of `iters` round trips, from whole runs of `TURNS` turns.
fn per_turn_custom(iters: u64, mut run: impl FnMut() -> Duration) -> Duration {
    let turns = u64::try_from(TURNS).unwrap_or(1);
    let runs = iters.div_ceil(turns).max(1);
    let total: Duration = (0..runs).map(|_| run()).sum();
    total.mul_f64(iters as f64 / (runs * turns) as f64)
}

fn ms_per_turn(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0 / TURNS as f64
}

/// p50 / p90 per turn of `RUNS` runs of each side, interleaved, after `WARMUP` of each.
fn side_by_side(rt: &Runtime, client: &Client, floor: &Floor, tk: &Toolkit) {
    let (mut reference, mut bare) = (Vec::new(), Vec::new());
    rt.block_on(async {
        for k in 0..WARMUP + RUNS {
            let r = reference_run(client, tk).await;
            let f = floor.run().await;
            if k >= WARMUP {
                reference.push(ms_per_turn(r));
                bare.push(ms_per_turn(f));
            }
        }
    });
    let (Some(r), Some(f)) = (stats::of(&reference), stats::of(&bare)) else {
        println!("agent loop: no samples");
        return;
    };
    println!(
        "\nagent loop per LLM round trip, {RUNS} interleaved runs × {TURNS} turns per side \
         (after {WARMUP} warm-up runs each):"
    );
    println!(
        "  reference client  p50 {:.3} ms  p90 {:.3} ms",
        r.median, r.p90
    );
    println!(
        "  bare HTTP floor   p50 {:.3} ms  p90 {:.3} ms",
        f.median, f.p90
    );
    println!(
        "  reference ÷ floor: p50 {:.2}, p90 {:.2}",
        r.median / f.median,
        r.p90 / f.p90
    );
}

fn main() {
    let bin = mock_binary();
    let mock = start_mock(&bin).unwrap_or_else(|e| panic!("agent_loop bench: {e}"));
    eprintln!(
        "agent_loop bench: mock LLM {} at {}",
        bin.display(),
        mock.url
    );
    let rt = Runtime::new().expect("tokio runtime");
    let tk = toolkit();
    let client = reference_client(&mock.url);
    let floor = Floor::new(&mock.url, &tk);

    let mut c = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(2))
        .configure_from_args();
    let mut group = c.benchmark_group("agent_loop");
    group.bench_function("turn", |b| {
        b.iter_custom(|iters| per_turn_custom(iters, || rt.block_on(reference_run(&client, &tk))))
    });
    group.bench_function("floor_turn", |b| {
        b.iter_custom(|iters| per_turn_custom(iters, || rt.block_on(floor.run())))
    });
    group.finish();
    c.final_summary();

    // Only a real benchmark run (`cargo bench`) gets the printout; not `cargo test --benches`,
    // `--test`, `--list` or `--profile-time`.
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if has("--bench") && !has("--test") && !has("--list") && !has("--profile-time") {
        side_by_side(&rt, &client, &floor, &tk);
    }
    drop(mock);
}
