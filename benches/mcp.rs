//! Benchmarks of the reference's MCP source over stdio, against this crate's own mock server.
//!
//! `cargo bench --bench mcp` measures, with criterion, the in-process reference
//! (`Toolkit::build` / `execute` / `close` on a multi-thread tokio runtime):
//!
//! - `mcp/call_roundtrip_stdio`: one built toolkit with the `basic.json` mock server over
//!   stdio; one `execute mock_echo {"text": "bench"}` per iteration;
//! - `mcp/build_one_stdio_server`: `Toolkit::build` with that one stdio server, then `close`
//!   (which stops the server), per iteration.
//!
//! Then it prints p50 / p90 over 1,000 single timed calls of the in-process reference, and
//! the same two operations through the port protocol (`harness::bench`, 1,000 calls, 20
//! builds) for the reference's own driver and for every registered port that is set up here
//! (`python` after `setup python`, `rust-crate` after `setup rust-crate`), with the ratio
//! port ÷ reference driver.
//!
//! The mock server is the crate's binary (`toolnexus-conformance mock mcp --transport stdio
//! --scenario mock-servers/scenarios/basic.json`): cargo builds it for benches and names it
//! in `CARGO_BIN_EXE_toolnexus-conformance`; without that, `target/release` then
//! `target/debug` under the manifest directory are tried, and last
//! `cargo build --release --bin toolnexus-conformance` is run.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::Criterion;
use serde_json::{json, Value};
use tokio::runtime::Runtime;
use toolnexus_bench::{self as bench, BenchOptions, Op, MCP_TOOL, REFERENCE};
use toolnexus_ports::port::Port;
use toolnexus_ports::registry::Registry;
use toolnexus_ports::subprocess::SubprocessPort;
use toolnexus_reference::{Context, Toolkit, ToolkitOptions};

use support::{built_binary, root, BIN};

/// Single timed calls for the in-process p50 / p90.
const CALLS: usize = 1000;
/// Counted builds per port in the protocol comparison.
const BUILDS: usize = 20;
/// Registered ports compared with the reference's driver when they are set up.
const OTHER_PORTS: [&str; 2] = ["python", "rust-crate"];

/// The mock server binary: cargo's, else a built one under `target/`, else one built now.
fn mock_binary() -> PathBuf {
    if let Some(bin) = built_binary() {
        return bin;
    }
    eprintln!("mcp bench: no {BIN} binary; running cargo build --release --bin {BIN}");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--bin", BIN])
        .current_dir(root())
        .status()
        .expect("run cargo build");
    let bin = root().join("target").join("release").join(BIN);
    assert!(
        status.success() && bin.is_file(),
        "mcp bench: the mock server binary {} is missing and `cargo build --release --bin {BIN}` \
         did not produce it ({status})",
        bin.display()
    );
    bin
}

fn options(bin: &Path) -> ToolkitOptions {
    let scenario = root().join("mock-servers/scenarios/basic.json");
    let command = json!([
        bin,
        "mock",
        "mcp",
        "--transport",
        "stdio",
        "--scenario",
        scenario
    ]);
    ToolkitOptions {
        mcp_config: Some(json!({"mcpServers": {"mock": {"command": command}}})),
        builtins: Some(json!(false)),
        ..Default::default()
    }
}

/// Builds the toolkit and checks that the mock's echo tool is there.
async fn build(opts: &ToolkitOptions) -> Toolkit {
    let tk = Toolkit::build(opts.clone()).await;
    assert!(
        tk.get(MCP_TOOL).is_some(),
        "mcp bench: no {MCP_TOOL} after build; statuses {:?}, errors {:?}",
        tk.statuses(),
        tk.errors()
    );
    tk
}

async fn call(tk: &Toolkit, args: &Value) {
    let r = tk
        .execute(MCP_TOOL, args.clone(), &Context::default())
        .await;
    assert!(
        !r.is_error && r.output == "bench",
        "{MCP_TOOL}: {}",
        r.output
    );
}

fn criterion_benches(c: &mut Criterion, rt: &Runtime, opts: &ToolkitOptions) {
    let args = json!({"text": "bench"});
    let mut group = c.benchmark_group("mcp");
    let mut tk = rt.block_on(build(opts));
    group.bench_function("call_roundtrip_stdio", |b| {
        b.iter(|| rt.block_on(call(&tk, &args)))
    });
    rt.block_on(tk.close());
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("build_one_stdio_server", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut tk = build(opts).await;
                tk.close().await;
            })
        })
    });
    group.finish();
}

/// p50 and p90 (nearest rank) of `CALLS` single timed in-process calls, in milliseconds, as
/// `bench` computes them (`bench::stats`).
fn in_process_percentiles(rt: &Runtime, opts: &ToolkitOptions) -> (f64, f64) {
    let args = json!({"text": "bench"});
    rt.block_on(async {
        let mut tk = build(opts).await;
        for _ in 0..100 {
            call(&tk, &args).await;
        }
        let mut times = Vec::with_capacity(CALLS);
        for _ in 0..CALLS {
            let t = Instant::now();
            call(&tk, &args).await;
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        tk.close().await;
        let st = bench::stats::of(&times).expect("timed calls");
        (st.median, st.p90)
    })
}

/// The reference's driver and every other registered port whose driver is installed.
fn protocol_ports(bin: &Path) -> Vec<(String, Box<dyn Port>)> {
    let root = root();
    let registry = Registry::load(&root).expect("conformance/ports.json");
    let bin_s = bin.to_string_lossy();
    let mut ports: Vec<(String, Box<dyn Port>)> = Vec::new();
    for name in std::iter::once(REFERENCE).chain(OTHER_PORTS) {
        let resolved = registry.resolve(name, &root, &bin_s);
        let program = resolved.command.split_whitespace().next().unwrap_or("");
        if !root.join(program).is_file() {
            println!("{name}: not set up here (cargo run --release -- setup {name}), skipped");
            continue;
        }
        let port = SubprocessPort::new(resolved.command, Duration::from_secs(60)).in_dir(&root);
        ports.push((name.to_string(), Box::new(port)));
    }
    ports
}

/// The two MCP operations through the port protocol, all ports in one run.
fn protocol_comparison(rt: &Runtime, bin: &Path) {
    let opts = BenchOptions {
        skills: 0,
        grep_files: 0,
        mcp_calls: CALLS,
        mcp_builds: BUILDS,
        mock_exe: Some(bin.to_path_buf()),
        ops: vec![Op::McpCall, Op::McpBuild],
        ..BenchOptions::default()
    };
    let mut ports = protocol_ports(bin);
    let report = rt.block_on(async {
        let report = bench::run(&mut ports, &opts, &mut |_| {}).await;
        for (_, port) in &mut ports {
            port.shutdown().await;
        }
        report
    });
    println!("through the port protocol (reference = the reference's own driver):");
    print!("{}", bench::table(&report));
}

fn main() {
    let bin = mock_binary();
    let opts = options(&bin);
    let rt = Runtime::new().expect("tokio runtime");
    eprintln!("mcp bench: mock server {}", bin.display());

    let mut c = Criterion::default()
        .sample_size(50)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(2))
        .configure_from_args();
    criterion_benches(&mut c, &rt, &opts);
    c.final_summary();

    // Only a real benchmark run (`cargo bench`) gets the summary; not `cargo test --benches`,
    // `--test`, `--list` or `--profile-time`.
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if !has("--bench") || has("--test") || has("--list") || has("--profile-time") {
        return;
    }
    let (p50, p90) = in_process_percentiles(&rt, &opts);
    println!("\nin-process reference, {CALLS} single calls: p50 {p50:.3} ms, p90 {p90:.3} ms\n");
    protocol_comparison(&rt, &bin);
}
