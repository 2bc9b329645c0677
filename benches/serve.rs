//! Latency of `tools/call` through the served gateway (SPEC §7C): a toolkit aggregating the
//! mock MCP server (stdio, `basic.json`) and a native tool, served on loopback with the MCP
//! profile, called over HTTP by a plain client (reqwest, one JSON-RPC POST to `/mcp` per
//! call, no MCP session: §7C's transport is stateless).
//!
//! `cargo bench --bench serve` measures with criterion `serve/mock_echo` (the call crosses
//! the gateway into the stdio MCP server and back) and `serve/native_upper` (it stays in the
//! gateway) on the reference, then prints p50 / p90 over 1,000 single timed calls of each, for:
//!
//! - the reference, served in-process by `Toolkit::serve`;
//! - the published Python port, served by `tests/sdk/serve_python.py` with the port's venv
//!   (`$TOOLNEXUS_PYTHON`, default `target/ports/python-0.21.0/venv/bin/python`, which
//!   `cargo run -- setup python` makes); skipped, saying so, when that Python is missing;
//! - any other served gateway at `$SERVE_BENCH_URL` (its base URL; it must expose the
//!   same `mock_echo` and `upper` tools).

#[path = "../tests/serve_support/mod.rs"]
mod serve_support;

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::{json, Value};
use serve_support::{repo, serve_gateway, BIN};
use tokio::runtime::Runtime;

/// Single timed calls per tool and target for p50 / p90.
const CALLS: usize = 1000;

fn body(tool: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": tool, "arguments": {"text": "bench"}}})
    .to_string()
}

/// One `tools/call` over HTTP; panics unless the answer carries the expected text.
async fn call(http: &reqwest::Client, url: &str, tool: &str, want: &str) {
    let text = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body(tool))
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"))
        .text()
        .await
        .unwrap_or_default();
    let json = text
        .lines()
        .map(|l| l.strip_prefix("data:").unwrap_or(l).trim())
        .find_map(|l| serde_json::from_str::<Value>(l).ok())
        .unwrap_or_else(|| panic!("{url}: no JSON-RPC answer in {text:?}"));
    assert_eq!(
        json["result"]["content"][0]["text"], want,
        "{url} {tool}: {json}"
    );
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

/// p50 / p90 of `CALLS` sequential calls of `tool` at `url` (after 50 warm-up calls).
fn measure(rt: &Runtime, http: &reqwest::Client, url: &str, tool: &str, want: &str) -> String {
    rt.block_on(async {
        for _ in 0..50 {
            call(http, url, tool, want).await;
        }
        let mut times = Vec::with_capacity(CALLS);
        for _ in 0..CALLS {
            let start = Instant::now();
            call(http, url, tool, want).await;
            times.push(start.elapsed());
        }
        times.sort();
        format!(
            "p50 {:>8.3} ms  p90 {:>8.3} ms",
            percentile(&times, 0.5).as_secs_f64() * 1e3,
            percentile(&times, 0.9).as_secs_f64() * 1e3
        )
    })
}

/// The Python port's gateway: a child serving until its stdin closes (on drop).
struct PythonGateway {
    child: Child,
    url: String,
}

impl Drop for PythonGateway {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn python_gateway() -> Result<PythonGateway, String> {
    let python = std::env::var_os("TOOLNEXUS_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/ports/python-0.21.0/venv/bin/python"));
    if !python.is_file() {
        return Err(format!(
            "{} not found (run `cargo run -- setup python` or set TOOLNEXUS_PYTHON)",
            python.display()
        ));
    }
    let mut child = Command::new(&python)
        .arg(repo().join("tests/sdk/serve_python.py"))
        .arg(BIN)
        .arg(repo().join("mock-servers/scenarios/basic.json"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
    let mut line = String::new();
    let stdout = child.stdout.take().ok_or("no stdout")?;
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let url = line.trim().to_string();
    if !url.starts_with("http://") {
        let _ = child.kill();
        return Err(format!("serve_python.py printed {line:?}, not its URL"));
    }
    if let Some(stdin) = child.stdin.as_mut() {
        let _ = stdin.flush();
    }
    Ok(PythonGateway { child, url })
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let http = toolnexus_ports::tls::client();
    let (tk, handle) = rt.block_on(serve_gateway(false));
    let url = format!("{}/mcp", handle.url().trim_end_matches('/'));

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("serve");
    group.bench_function("mock_echo", |b| {
        b.iter(|| rt.block_on(call(&http, &url, "mock_echo", "bench")))
    });
    group.bench_function("native_upper", |b| {
        b.iter(|| rt.block_on(call(&http, &url, "upper", "BENCH")))
    });
    group.finish();
    c.final_summary();

    let mut targets = vec![("reference".to_string(), url.clone(), None)];
    match python_gateway() {
        Ok(py) => targets.push(("python".into(), format!("{}/mcp", py.url), Some(py))),
        Err(e) => println!("python: skipped: {e}"),
    }
    if let Ok(other) = std::env::var("SERVE_BENCH_URL") {
        targets.push((
            other.clone(),
            format!("{}/mcp", other.trim_end_matches('/')),
            None,
        ));
    }
    println!("\ntools/call through the served gateway, {CALLS} sequential calls each:");
    for (name, url, _keep) in &targets {
        for (tool, want) in [("mock_echo", "bench"), ("upper", "BENCH")] {
            println!(
                "  {name:<10} {tool:<10} {}",
                measure(&rt, &http, url, tool, want)
            );
        }
    }
    drop(targets);
    rt.block_on(handle.stop());
    drop(tk);
}
