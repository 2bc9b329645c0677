//! `run`: the scenarios against the reference (in process) or a port, or, with
//! `--differential N`, the port against the reference on N random toolkit configurations.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use toolnexus_harness::outcome::model::RunReport;
use toolnexus_harness::run::runner;
use toolnexus_harness::{
    reporting::baseline, reporting::html, reporting::junit, reporting::report, run::differential,
};
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::Port;
use toolnexus_ports::trace::Tracer;

use super::workspace::Workspace;
use super::{
    ensure_set_up, fail, handshake_failure, jobs_count, open_port, open_port_with_startup,
    selection_and_registry, timeout_ms, Filter, Format,
};

/// The arguments of `run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// A port name from conformance/ports.json or a driver command speaking
    /// conformance/PROTOCOL.md; absent ⇒ the in-process reference.
    #[arg(long)]
    port: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Per-request timeout for a driver (and the in-process reference), in milliseconds.
    #[arg(long, default_value_t = 5_000, value_parser = timeout_ms)]
    timeout_ms: u64,
    /// How long a driver may take to start and answer `hello`, in milliseconds (default:
    /// 30000 or --timeout-ms, the longer): interpreters start slowly on a busy machine.
    #[arg(long, value_parser = timeout_ms)]
    startup_timeout_ms: Option<u64>,
    /// An expected-failures file (default: the registered port's own); the run then
    /// fails only on a new failure or an unexpected pass.
    #[arg(long)]
    expected_failures: Option<PathBuf>,
    /// Ignore the registered port's expected-failures file.
    #[arg(long)]
    no_expected_failures: bool,
    /// Count failed `@beyond-spec` and `@seed-only` scenarios (promises the SPEC does not
    /// state) as failures: in the exit code, the expected-failures comparison and JUnit.
    #[arg(long)]
    strict: bool,
    /// Fail (exit 1) when the share of the selected scenarios that ran (passed, failed or
    /// known failure, not skipped) is below FRACTION (0..=1): a mostly-skipped port is no pass.
    #[arg(long, value_name = "FRACTION", value_parser = fraction)]
    min_executed: Option<f64>,
    /// Instead of the scenarios, compare `--port` with the reference on N random
    /// toolkit configurations and print shrunk counterexamples.
    #[arg(long, value_name = "N", requires = "port")]
    differential: Option<usize>,
    /// Seed for `--differential` (runs are reproducible).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop after the first scenario that fails the run (the report covers what ran).
    #[arg(long)]
    fail_fast: bool,
    /// After the run, run up to N failed scenarios once more, each alone against a freshly
    /// started port; one that passes then is reported as flaky, with both outcomes, and still
    /// counts as failed (default 0: off).
    #[arg(long, value_name = "N", default_value_t = 0)]
    recheck: usize,
    /// Write every request and answer exchanged with the port to FILE as JSON lines
    /// (secrets redacted, capped at 256 MiB); check it with `validate-trace`.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Run N scenarios at a time, each worker with its own driver process (default: four
    /// per core, at most 32). Output and reports are those of `--jobs 1`; `@serial`
    /// scenarios run alone.
    #[arg(long, value_name = "N", value_parser = jobs_count)]
    jobs: Option<usize>,
    /// Also write the report as JUnit XML to FILE (whatever `--format` prints).
    #[arg(long, value_name = "FILE", conflicts_with = "differential")]
    junit: Option<PathBuf>,
    /// Also write the report as JSON to FILE (the `--format json` shape).
    #[arg(long, value_name = "FILE", conflicts_with = "differential")]
    json: Option<PathBuf>,
    /// Also write the report as a self-contained HTML page to FILE (what `report` makes
    /// of this run's JSON).
    #[arg(long, value_name = "FILE", conflicts_with = "differential")]
    html: Option<PathBuf>,
    #[command(flatten)]
    filter: Filter,
}

/// A `--min-executed` value: a number from 0 to 1.
fn fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "{text}: expected a fraction from 0 to 1 (e.g. 0.8)"
        )),
    }
}

/// `--jobs` when absent: four workers per core, at most 32. A scenario mostly waits (on
/// timeouts, mock servers and driver processes): the reference suite takes 22 s of wall time
/// for 6 s of CPU on one worker, so one worker per core would leave the machine mostly idle
/// (docs/benchmarks.md "Wall time of the whole suite" has the measurements).
pub(super) fn default_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    (4 * cores).min(32)
}

/// Runs `run`: the differential mode when `--differential` is given, the scenarios otherwise.
pub async fn run(ws: &Workspace, args: RunArgs) -> ExitCode {
    match args.differential {
        Some(cases) => differential(ws, &args, cases).await,
        None => scenarios(ws, args).await,
    }
}

/// The selected scenarios on the port, then the report in `--format`.
async fn scenarios(ws: &Workspace, args: RunArgs) -> ExitCode {
    let root = ws.root();
    let RunArgs {
        port,
        format,
        timeout_ms,
        startup_timeout_ms,
        expected_failures,
        no_expected_failures,
        strict,
        min_executed,
        fail_fast,
        recheck,
        trace,
        jobs,
        junit,
        json,
        html,
        filter,
        differential: _,
        seed: _,
    } = args;
    let jobs = jobs.unwrap_or_else(default_jobs);
    let (scenarios, registry) = match selection_and_registry(ws, &filter) {
        Ok(both) => both,
        Err(e) => return fail(&e),
    };
    let env = ws.env();
    let timeout = Duration::from_millis(timeout_ms);
    let startup = startup_timeout_ms.map(Duration::from_millis);
    let reference_spec = filter.spec.clone();
    let open = || {
        open_port_with_startup(
            ws,
            registry,
            port.as_deref(),
            timeout,
            startup,
            reference_spec.as_deref(),
        )
    };
    let (driver, resolved) = open();
    if let Some(name) = port.as_deref() {
        if let Err(e) = ensure_set_up(root, name, resolved.as_ref()) {
            return fail(&e);
        }
    }
    // One port per worker, never more workers than scenarios: each is a driver process.
    let workers = jobs.clamp(1, scenarios.len().max(1));
    let mut drivers = vec![driver];
    drivers.extend((1..workers).map(|_| open().0));
    if let Some(path) = trace.as_deref() {
        let tracer = match Tracer::create(path) {
            Ok(t) => t,
            Err(e) => return fail(&e),
        };
        // One worker's lines stay as they were; several name their worker.
        for (n, d) in drivers.iter_mut().enumerate() {
            d.set_tracer(if workers == 1 {
                tracer.clone()
            } else {
                tracer.for_worker(n)
            });
        }
    }
    let fallback = resolved
        .as_ref()
        .map_or("reference".to_string(), |r| r.name.clone());
    let baseline_file = match (no_expected_failures, expected_failures) {
        (true, _) => None,
        (false, Some(f)) => Some(f),
        (false, None) => resolved.as_ref().and_then(|r| r.expected_failures.clone()),
    };
    let expected = match baseline_file.as_deref().map(baseline::read).transpose() {
        Ok(e) => e,
        Err(e) => return fail(&e),
    };
    let show_progress = matches!(format, Format::Text);
    let mut stopped = false;
    let ports = drivers
        .iter_mut()
        .map(|d| d.as_mut() as &mut dyn Port)
        .collect();
    // A recheck budget goes first to the failures that would fail the run (not known ones).
    let counts = |r: &toolnexus_harness::outcome::model::ScenarioResult| {
        r.fails_runs(strict)
            && !expected
                .as_ref()
                .is_some_and(|e| baseline::is_known(r, e, strict))
    };
    let outcome = runner::run_pool_rechecking(
        ports,
        &env,
        &scenarios,
        &fallback,
        recheck,
        &counts,
        &mut |r| {
            let known = expected
                .as_ref()
                .is_some_and(|e| baseline::is_known(r, e, strict));
            if show_progress {
                println!("{}", report::progress_line_known(r, known));
            } else {
                eprintln!("{}", report::progress_line_known(r, known));
            }
            let fails_the_run = r.status == toolnexus_harness::outcome::model::Status::Failed
                && r.fails_runs(strict)
                && !known;
            stopped = fail_fast && fails_the_run;
            !stopped
        },
    )
    .await;
    let mut report: RunReport = match outcome {
        Ok(r) => r,
        Err(e) => return fail(&handshake_failure(&fallback, registry, &e)),
    };
    if stopped {
        eprintln!(
            "--fail-fast: stopped at the first failure; {} of {} scenarios not run",
            scenarios.len() - report.scenarios.len(),
            scenarios.len()
        );
    }
    report.strict = strict;
    report.judged_by = ws.judged_by(report.port_spec.as_deref());
    if let (Some(expected), Some(file)) = (expected, baseline_file) {
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .to_string();
        // Stale entries are judged against the whole suite, not the selection.
        let suite = ws
            .features()
            .map(|all| all.iter().map(|s| s.id.clone()).collect())
            .unwrap_or_default();
        baseline::apply(&mut report, &expected, &shown, &suite);
    }
    match format {
        Format::Text => print!("{}", report::text(&report)),
        Format::Json => println!("{}", report::json(&report)),
        Format::Junit => print!("{}", junit::render(&report)),
    }
    let files = [
        (junit, junit::render as fn(&RunReport) -> String),
        (json, |r: &RunReport| format!("{}\n", report::json(r))),
        (html, |r: &RunReport| html::render(std::slice::from_ref(r))),
    ];
    for (path, render) in files {
        let Some(path) = path else { continue };
        if let Err(e) = std::fs::write(&path, render(&report)) {
            return fail(&format!("cannot write {}: {e}", path.display()));
        }
    }
    let share = report.executed_share();
    if let Some(min) = min_executed.filter(|min| share < *min) {
        eprintln!(
            "--min-executed {min}: only {:.1}% of the selected scenarios ran (the rest were skipped)",
            share * 100.0
        );
        return ExitCode::FAILURE;
    }
    if report.has_failures() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `--differential CASES`: the port and the in-process reference on the same random toolkit
/// configurations; exit 1 when any differs.
async fn differential(ws: &Workspace, args: &RunArgs, cases: usize) -> ExitCode {
    let root = ws.root();
    let port = args.port.as_deref();
    let registry = match ws.registry() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let (mut other, resolved) =
        open_port(ws, registry, port, Duration::from_millis(args.timeout_ms));
    if let Some(name) = port {
        if let Err(e) = ensure_set_up(root, name, resolved.as_ref()) {
            return fail(&e);
        }
    }
    let name = resolved.map_or("reference".to_string(), |r| r.name);
    if let Err(e) = other.ensure_ready().await {
        return fail(&format!("port {name}: {e}"));
    }
    let mut reference = InProcessPort::new(toolnexus_driver::ReferenceSession::new());
    let report = differential::run(
        &mut reference,
        other.as_mut(),
        &name,
        cases,
        args.seed,
        &mut |i, differs| {
            eprintln!(
                "case {:>4}: {}",
                i + 1,
                if differs { "DIFFERS" } else { "same" }
            );
        },
    )
    .await;
    other.shutdown().await;
    match args.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ),
        _ => print!("{}", differential::text(&report)),
    }
    if report.counterexamples.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
