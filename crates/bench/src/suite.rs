//! The suite operation: the wall time of one whole conformance run through a port, as
//! `<this binary> run --port <port> --format json --no-expected-failures --section …` in a
//! child process, on the SPEC sections every port of the bench implements, so each port
//! runs the same scenarios. The child's output is captured with a cap, never inherited.

use std::process::Stdio;
use std::time::Instant;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;

use crate::measure::{note, Ctx, Go, Measured, Unit};
use crate::options::BenchOptions;
use crate::stats::ms;
use toolnexus_ports::port::{hello, truncate, Port};

/// The most of the child's JSON report kept in memory; the rest is read and dropped.
const STDOUT_CAP: usize = 64 << 20;
/// The most of the child's stderr kept (for the note when it fails).
const STDERR_CAP: usize = 64 << 10;

/// The `--port` value of the port `name`: its name as given to the bench (`reference` for
/// the reference) unless [`crate::options::SuiteOptions::specs`] says otherwise.
pub(crate) fn spec_of(opts: &BenchOptions, name: &str) -> String {
    opts.suite
        .specs
        .get(name)
        .cloned()
        .unwrap_or_else(|| name.to_string())
}

/// The SPEC sections every port's `hello` lists (in the first port's order), narrowed to
/// `only` when it is not empty; and per port the notes of a port that could not say (it
/// takes no part). No common section is a note on every port.
pub(crate) async fn common_sections(
    ports: &mut [(String, Box<dyn Port>)],
    only: &[String],
) -> (Vec<String>, Vec<Vec<String>>) {
    let mut notes = vec![Vec::new(); ports.len()];
    let mut common: Option<Vec<String>> = None;
    for ((_, port), notes) in ports.iter_mut().zip(notes.iter_mut()) {
        let said = match port.ensure_ready().await {
            Ok(()) => hello(port.as_mut()).await,
            Err(e) => Err(e),
        };
        match said {
            Ok(h) => {
                common = Some(match common {
                    None => h.implements,
                    Some(c) => c.into_iter().filter(|s| h.implements.contains(s)).collect(),
                });
            }
            Err(e) => note(
                notes,
                format!("hello failed: {}", truncate(&e.to_string(), 300)),
            ),
        }
    }
    let mut sections = common.unwrap_or_default();
    if !only.is_empty() {
        sections.retain(|s| only.iter().any(|o| o.eq_ignore_ascii_case(s)));
    }
    if sections.is_empty() {
        for n in notes.iter_mut().filter(|n| n.is_empty()) {
            note(n, "no SPEC section that every port implements".to_string());
        }
    }
    (sections, notes)
}

/// One suite run of the port `spec` (counted ones add their wall time); the note says what
/// the run's report counted. A run without a readable report is a note and stops the port.
pub(crate) async fn step(ctx: &Ctx<'_>, spec: &str, unit: Unit, m: &mut Measured) -> Go {
    match run_once(ctx, spec).await {
        Ok((elapsed, counts)) => {
            if unit.counted {
                m.samples.push(elapsed);
            }
            note(&mut m.notes, counts.clone());
            m.detail = Some(format!("{elapsed:.0} ms ({counts})"));
            Go::On
        }
        Err(why) => {
            note(&mut m.notes, why);
            Go::Stop
        }
    }
}

/// Runs the suite once; its wall time and `passed N, failed N, skipped N`.
async fn run_once(ctx: &Ctx<'_>, spec: &str) -> Result<(f64, String), String> {
    let opts = ctx.opts;
    let exe = match &opts.mock_exe {
        Some(e) => std::path::absolute(e).map_err(|e| e.to_string())?,
        None => std::env::current_exe().map_err(|e| e.to_string())?,
    };
    let mut command = Command::new(&exe);
    if let Some(root) = &opts.suite.root {
        command.arg("--root").arg(root);
    }
    command.args([
        "run",
        "--port",
        spec,
        "--format",
        "json",
        "--no-expected-failures",
    ]);
    if let Some(jobs) = opts.suite.jobs {
        command.arg("--jobs").arg(jobs.to_string());
    }
    if let Some(ms) = opts.suite.timeout_ms {
        command.arg("--timeout-ms").arg(ms.to_string());
    }
    command.arg("--section").arg(ctx.suite_sections.join(","));
    for name in &opts.suite.names {
        command.arg("--filter").arg(name);
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err("the suite child has no stdout/stderr pipes".into());
    };
    let (out, err, status) = tokio::join!(
        capped(stdout, STDOUT_CAP),
        capped(stderr, STDERR_CAP),
        child.wait()
    );
    let elapsed = ms(started);
    let status = status.map_err(|e| format!("waiting for the suite run: {e}"))?;
    let report = serde_json::from_slice::<Value>(&out).ok();
    let Some(summary) = report.as_ref().and_then(|r| r.get("summary")) else {
        let tail = String::from_utf8_lossy(&err);
        let tail: String = tail.lines().rev().take(3).collect::<Vec<_>>().join(" / ");
        return Err(format!(
            "suite run gave no JSON report ({status}): {}",
            truncate(&tail, 300)
        ));
    };
    let count = |k: &str| summary.get(k).and_then(Value::as_u64).unwrap_or(0);
    Ok((
        elapsed,
        format!(
            "passed {}, failed {}, skipped {}",
            count("passed"),
            count("failed"),
            count("skipped")
        ),
    ))
}

/// Reads `from` to its end, keeping at most `cap` bytes.
async fn capped(mut from: impl AsyncRead + Unpin, cap: usize) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        match from.read(&mut chunk).await {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                let room = cap.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&chunk[..room]);
            }
        }
    }
}
