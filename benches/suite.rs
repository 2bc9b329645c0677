//! The conformance suite's wall time with `--jobs`: the CLI run as a child process against
//! the reference's own driver (`--port reference`, i.e. `toolnexus-conformance driver`).
//!
//! `cargo bench --bench suite` measures with criterion (group `suite`, 10 samples of the same
//! number of runs, flat sampling, about 5 s):
//!
//! - `section_0_1_jobs_1`: `run --port reference --section 0,1 --jobs 1`;
//! - `section_0_1_jobs_default`: the same with the default `--jobs` (four per core, ≤ 32).
//!
//! Then it prints once, side by side, the whole suite's wall time (`run --port reference
//! --format json`) at `--jobs 1` and at the default, the ratio, and each run's scenario counts
//! from its JSON report. `cargo test --benches` runs each criterion function once and skips
//! the whole-suite printout.
//!
//! The binary is cargo's (`CARGO_BIN_EXE_toolnexus-conformance`), else `target/release` then
//! `target/debug`; every run gets `--root` the repository. A child's stdout and stderr are
//! captured with caps, and a failed run is reported after the measurement, not panicked on.

mod support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode};
use serde_json::Value;

use support::{built_binary, root, BIN};

/// The most of a child's stdout kept (a whole-suite JSON report is a few MiB).
const STDOUT_CAP: usize = 64 * 1024 * 1024;
/// The most of a child's stderr kept (its head: the first complaint is the telling one).
const STDERR_CAP: usize = 4 * 1024;
/// A run taking longer than this is killed and reported.
const RUN_LIMIT: Duration = Duration::from_secs(600);

/// The CLI: cargo's, else a built one under `target/`.
fn binary() -> PathBuf {
    built_binary().unwrap_or_else(|| {
        panic!("suite bench: no {BIN} binary (cargo build --release --bin {BIN})")
    })
}

/// Reads a pipe to its end on a thread, keeping at most `cap` bytes (the rest is drained,
/// so the child never blocks on a full pipe).
fn capped_reader(pipe: Option<impl Read + Send + 'static>, cap: usize) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let Some(mut pipe) = pipe else {
            return kept;
        };
        let mut buf = [0u8; 64 * 1024];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            let room = cap.saturating_sub(kept.len());
            kept.extend_from_slice(&buf[..n.min(room)]);
        }
        kept
    })
}

/// A finished run: its wall time and captured output.
struct Finished {
    wall: Duration,
    status: ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Waits for `child` until `RUN_LIMIT`, then kills it.
fn wait_bounded(child: &mut Child) -> Result<ExitStatus, String> {
    let deadline = Instant::now() + RUN_LIMIT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("killed after {RUN_LIMIT:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting: {e}")),
        }
    }
}

/// `<bin> --root <repo> run --port reference <args>`, timed from spawn to exit.
fn run_suite(bin: &Path, args: &[&str]) -> Result<Finished, String> {
    let started = Instant::now();
    let mut child = Command::new(bin)
        .arg("--root")
        .arg(root())
        .args(["run", "--port", "reference"])
        .args(args)
        .current_dir(root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let stdout = capped_reader(child.stdout.take(), STDOUT_CAP);
    let stderr = capped_reader(child.stderr.take(), STDERR_CAP);
    let status = wait_bounded(&mut child);
    let wall = started.elapsed();
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(Finished {
        wall,
        status: status?,
        stdout,
        stderr,
    })
}

/// Why a finished run is not a clean pass, if it is not.
fn failure(f: &Finished) -> Option<String> {
    (!f.status.success()).then(|| {
        format!(
            "{}; stderr: {}",
            f.status,
            String::from_utf8_lossy(&f.stderr).trim()
        )
    })
}

/// One timed run for criterion: its wall time, a failure recorded in `failures`.
fn timed(bin: &Path, args: &[&str], failures: &Mutex<Vec<String>>) -> Duration {
    let started = Instant::now();
    let why = match run_suite(bin, args) {
        Ok(f) => failure(&f),
        Err(e) => Some(e),
    };
    if let Some(why) = why {
        if let Ok(mut list) = failures.lock() {
            list.push(format!("run {}: {why}", args.join(" ")));
        }
    }
    started.elapsed()
}

/// `passed / failed / skipped` (and xfail, beyond-spec) of a JSON report's summary.
fn counts(stdout: &[u8]) -> String {
    let report: Value = match serde_json::from_slice(stdout) {
        Ok(v) => v,
        Err(e) => return format!("no JSON report ({e})"),
    };
    let s = &report["summary"];
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or(0);
    let b = &s["beyondSpec"];
    format!(
        "{} passed, {} failed, {} xfail, {} skipped; beyond-spec {} passed, {} failed, {} skipped",
        n(s, "passed"),
        n(s, "failed"),
        n(s, "xfail"),
        n(s, "skipped"),
        n(b, "passed"),
        n(b, "failed"),
        n(b, "skipped"),
    )
}

/// The whole suite once at `--jobs 1` and once at the default, side by side.
fn whole_suite(bin: &Path) {
    println!(
        "\nthe whole suite through the reference's driver (run --port reference --format json):"
    );
    let mut walls = Vec::new();
    for (label, args) in [
        ("--jobs 1", &["--format", "json", "--jobs", "1"][..]),
        ("default --jobs", &["--format", "json"][..]),
    ] {
        match run_suite(bin, args) {
            Ok(f) => {
                let secs = f.wall.as_secs_f64();
                let verdict = failure(&f).map_or(String::new(), |why| format!("; FAILED: {why}"));
                println!(
                    "  {label:<15} {secs:>7.1} s  {}{verdict}",
                    counts(&f.stdout)
                );
                walls.push(secs);
            }
            Err(e) => println!("  {label:<15} not measured: {e}"),
        }
    }
    if let [one, default] = walls[..] {
        println!("  --jobs 1 ÷ default: {:.2}", one / default);
    }
}

fn main() {
    let bin = binary();
    eprintln!("suite bench: {}", bin.display());
    let failures = Mutex::new(Vec::new());

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut group = c.benchmark_group("suite");
    // The same few runs per sample: a run takes a quarter second or more, so criterion's
    // linear sampling (1..10 × d runs per sample) would take minutes per function.
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for (name, args) in [
        (
            "section_0_1_jobs_1",
            &["--section", "0,1", "--jobs", "1"][..],
        ),
        ("section_0_1_jobs_default", &["--section", "0,1"][..]),
    ] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| (0..iters).map(|_| timed(&bin, args, &failures)).sum())
        });
    }
    group.finish();
    c.final_summary();
    let failed = failures.lock().map(|l| l.clone()).unwrap_or_default();
    for why in &failed {
        println!("suite bench: FAILED {why}");
    }
    if !failed.is_empty() {
        // The times above include failed runs: say so in the exit code too.
        std::process::exit(1);
    }

    // Only a real benchmark run (`cargo bench`) gets the whole suite; not `cargo test
    // --benches`, `--test`, `--list` or `--profile-time`.
    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if has("--bench") && !has("--test") && !has("--list") && !has("--profile-time") {
        whole_suite(&bin);
    }
}
