//! `bench`: the same operations timed on several ports through their drivers, side by side
//! with the reference's own driver.

use std::process::ExitCode;
use std::time::Duration;

use toolnexus_bench as bench;
use toolnexus_ports::port::Port;

use super::workspace::Workspace;
use super::{ensure_set_up, fail, jobs_count, open_port, timeout_ms, Format};

/// The arguments of `bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Port names or driver commands (repeatable); the reference is always included.
    #[arg(long)]
    port: Vec<String>,
    /// Skills in the generated skills tree.
    #[arg(long, default_value_t = 5000)]
    skills: usize,
    /// Files in the generated grep tree.
    #[arg(long, default_value_t = 20000)]
    grep_files: usize,
    /// Executes timed for the round-trip operation.
    #[arg(long, default_value_t = 200)]
    round_trips: usize,
    /// Timed runs per operation (after one warm-up).
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// Only these operations (repeatable): skills_build, grep, round_trip, mcp_call,
    /// mcp_build, agent_loop, serve_call, image_loop_openai, image_loop_anthropic,
    /// classifier_static, classifier_canonical_255, suite; all when absent.
    #[arg(long = "op")]
    ops: Vec<String>,
    /// Timed `tools/call` POSTs of the served-call operation (after warm-up calls).
    #[arg(long, default_value_t = 1000)]
    serve_calls: usize,
    /// Timed runs of the conformance suite per port (no warm-up).
    #[arg(long, default_value_t = 3)]
    suite_runs: usize,
    /// `--jobs` of the suite runs (default: `run`'s own).
    #[arg(long, value_name = "N", value_parser = jobs_count)]
    suite_jobs: Option<usize>,
    /// `--timeout-ms` of the suite runs (default: `run`'s own).
    #[arg(long, value_name = "MS", value_parser = timeout_ms)]
    suite_timeout_ms: Option<u64>,
    /// Only these SPEC sections in the suite runs (comma-separated; default: every
    /// section all the ports implement).
    #[arg(long, value_delimiter = ',')]
    suite_section: Vec<String>,
    /// LLM round trips per agent-loop run (the client's maxTurns).
    #[arg(long, default_value_t = 100)]
    loop_turns: usize,
    /// Timed agent-loop runs (after one warm-up); each gives one per-turn sample.
    #[arg(long, default_value_t = 10)]
    loop_runs: usize,
    /// The image loops' image in bytes (before base64).
    #[arg(long, default_value_t = 1 << 20)]
    image_bytes: usize,
    /// Timed runs of each image loop (after one warm-up); one loop turn each.
    #[arg(long, default_value_t = 20)]
    image_runs: usize,
    /// Timed `evaluate` calls of each classifier operation (after one warm-up call).
    #[arg(long, default_value_t = 1000)]
    classifier_runs: usize,
    /// Per-request timeout for drivers, in milliseconds.
    #[arg(long, default_value_t = 120_000, value_parser = timeout_ms)]
    timeout_ms: u64,
    /// Output format (text or json).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

/// Times the chosen operations on the reference and every `--port`, then prints the table.
pub async fn run(ws: &Workspace, args: BenchArgs) -> ExitCode {
    let root = ws.root();
    let BenchArgs {
        port: ports,
        skills,
        grep_files,
        round_trips,
        runs,
        ops,
        serve_calls,
        suite_runs,
        suite_jobs,
        suite_timeout_ms,
        suite_section,
        loop_turns,
        loop_runs,
        image_bytes,
        image_runs,
        classifier_runs,
        timeout_ms,
        format,
    } = args;
    let mut chosen = Vec::new();
    for name in &ops {
        match bench::Op::parse(name) {
            Some(op) => chosen.push(op),
            None => return fail(&format!("unknown bench operation {name:?}")),
        }
    }
    if chosen.is_empty() {
        chosen = bench::Op::ALL.to_vec();
    }
    let opts = bench::BenchOptions {
        ops: chosen,
        skills,
        grep_files,
        round_trips,
        runs,
        loop_turns,
        loop_runs,
        serve_calls,
        image_bytes,
        image_runs,
        classifier_runs,
        suite_runs,
        suite: bench::SuiteOptions {
            root: Some(root.to_path_buf()),
            jobs: suite_jobs,
            timeout_ms: suite_timeout_ms,
            sections: suite_section,
            ..bench::SuiteOptions::default()
        },
        ..bench::BenchOptions::default()
    };
    let registry = match ws.registry() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let timeout = Duration::from_millis(timeout_ms);
    let mut names = vec![bench::REFERENCE.to_string()];
    names.extend(
        ports
            .iter()
            .filter(|p| p.as_str() != bench::REFERENCE)
            .cloned(),
    );
    let mut drivers: Vec<(String, Box<dyn Port>)> = Vec::new();
    for n in &names {
        let (port, resolved) = open_port(ws, registry, Some(n), timeout);
        if let Err(e) = ensure_set_up(root, n, resolved.as_ref()) {
            return fail(&e);
        }
        drivers.push((resolved.map_or(n.clone(), |r| r.name), port));
    }
    let report = bench::run(&mut drivers, &opts, &mut |line| eprintln!("{line}")).await;
    for (_, port) in drivers.iter_mut() {
        port.shutdown().await;
    }
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ),
        _ => print!("{}", bench::table(&report)),
    }
    ExitCode::SUCCESS
}
