//! `toolnexus-conformance`: run the conformance scenarios against a port, list them, prepare
//! registered ports, combine reports, benchmark ports, run the suite across a port's published
//! releases (`history`), report SPEC clause coverage, diff two SPEC texts clause by clause, or
//! act as the reference's own driver.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use toolnexus_driver::driver;
use toolnexus_harness::clauses::{self, ClauseIndex, Ties};
use toolnexus_harness::features::{self, ScenarioSpec};
use toolnexus_harness::inprocess::InProcessPort;
use toolnexus_harness::outcome::{RunReport, Status};
use toolnexus_harness::port::Port;
use toolnexus_harness::registry::{self, Registry, ResolvedPort};
use toolnexus_harness::runner::{self, Selection};
use toolnexus_harness::scenario::Env;
use toolnexus_harness::subprocess::SubprocessPort;
use toolnexus_harness::trace::Tracer;
use toolnexus_harness::{
    baseline, bench, children, differential, history, html, junit, report, secret, spec_diff,
};

mod validate_trace;

#[derive(Parser)]
#[command(
    name = "toolnexus-conformance",
    version,
    about = "Conformance harness for the toolnexus contract (SPEC 0.16.0)"
)]
struct Cli {
    /// The checkout holding features/, conformance/ and snapshots/.
    #[arg(long, global = true, env = "TOOLNEXUS_CONFORMANCE_ROOT")]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
    Junit,
}

#[derive(clap::Args)]
struct Filter {
    /// Only scenarios carrying one of these tags (comma-separated, `@` optional).
    #[arg(long, value_delimiter = ',')]
    tags: Vec<String>,
    /// Only scenarios of these SPEC sections (comma-separated: 0,1,2,3,4,4A,6; any case).
    #[arg(long, value_delimiter = ',')]
    section: Vec<String>,
    /// Only scenarios whose name contains one of these texts (like `cargo test NAME`).
    #[arg(value_name = "NAME")]
    names: Vec<String>,
    /// Same as a NAME argument (repeatable).
    #[arg(long = "filter", value_name = "TEXT")]
    name_filter: Vec<String>,
    /// Only scenarios that hold for this SPEC version X.Y.Z: within their `@since-`/`@until-`
    /// bounds, the `@pin-` version being the lower bound when there is no `@since-`.
    #[arg(long)]
    spec: Option<String>,
    /// Also the `@preview` scenarios (the SPEC's §10 relay and durable-resume addenda, not
    /// yet a porting obligation); left out by default.
    #[arg(long)]
    include_preview: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Run the scenarios against the reference (default) or a port.
    Run {
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
        /// Count failed `@beyond-spec` scenarios (behaviour the SPEC does not state) as
        /// failures: in the exit code, the expected-failures comparison and JUnit.
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
        /// Write every request and answer exchanged with the port to FILE as JSON lines
        /// (secrets redacted, capped at 256 MiB); check it with `validate-trace`.
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// Run N scenarios at a time, each worker with its own driver process (default: four
        /// per core, at most 32). Output and reports are those of `--jobs 1`; `@serial`
        /// scenarios run alone.
        #[arg(long, value_name = "N", value_parser = jobs_count)]
        jobs: Option<usize>,
        #[command(flatten)]
        filter: Filter,
    },
    /// Check a `run --trace` file against conformance/protocol.schema.json and the
    /// protocol's rules: exit 0 when valid, 1 with one line per problem, 2 when unreadable.
    ValidateTrace {
        /// The trace file (JSON lines).
        file: PathBuf,
    },
    /// List the scenarios with their sections and tags.
    List {
        #[command(flatten)]
        filter: Filter,
    },
    /// Prepare registered ports (create venvs, build drivers); `--list` shows them.
    Setup {
        /// Port names from conformance/ports.json, or releases `python@VERSION`,
        /// `rust-crate@VERSION`.
        ports: Vec<String>,
        /// List the registered ports instead.
        #[arg(long)]
        list: bool,
    },
    /// Combine several ports' `run --format json` results into one self-contained HTML page.
    Report {
        /// JSON result files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Where to write the page.
        #[arg(short, long)]
        output: PathBuf,
        /// A `coverage --format json` file: adds the SPEC clause coverage section.
        #[arg(long)]
        coverage: Option<PathBuf>,
    },
    /// Per SPEC section, how many clauses of the clause index the scenarios' `@clause-` tags
    /// cover, and the uncovered observable clauses; `--port` also runs the tagged scenarios.
    Coverage {
        /// Run the scenarios tagging clauses against this port (a name from
        /// conformance/ports.json or a driver command) and show each clause's verdict.
        #[arg(long)]
        port: Option<String>,
        /// Output format (text or json).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Also write the report as a self-contained HTML page.
        #[arg(short, long, value_name = "FILE.html")]
        output: Option<PathBuf>,
        /// Per-request timeout for the `--port` driver, in milliseconds.
        #[arg(long, default_value_t = 5_000, value_parser = timeout_ms)]
        timeout_ms: u64,
        /// The clause index (default: conformance/clauses/<pinned SPEC>.json).
        #[arg(long)]
        index: Option<PathBuf>,
    },
    /// Compare two SPEC texts clause by clause: changed, removed and new normative text,
    /// with the scenarios and snapshots to review. Exits 1 when there is something to review.
    SpecDiff {
        /// The SPEC.md the clause index quotes.
        old: PathBuf,
        /// The new SPEC.md.
        new: PathBuf,
        /// Output format (text or json).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// The clause index (default: conformance/clauses/<pinned SPEC>.json).
        #[arg(long)]
        index: Option<PathBuf>,
    },
    /// Time the same operations on several ports through their drivers, side by side with
    /// the reference's own driver, and print medians and ratios.
    Bench {
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
        /// mcp_build, agent_loop, serve_call, suite; all when absent.
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
        /// Per-request timeout for drivers, in milliseconds.
        #[arg(long, default_value_t = 120_000, value_parser = timeout_ms)]
        timeout_ms: u64,
        /// Output format (text or json).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
    /// Run the whole suite on each published release of a port and print, per scenario whose
    /// outcome changed, its outcome per release and the first release where it changed.
    History {
        /// The port family: python or rust-crate (each release runs as `FAMILY@VERSION`).
        #[arg(long)]
        port: String,
        /// Releases: an inclusive range `0.16.0..0.21.0` (the published ones inside it; python
        /// asks pip) or a comma list `0.16.0,0.18.0`.
        #[arg(long)]
        versions: String,
        /// Output format (text or json).
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Also write the HTML report (the releases as ports, plus the history section).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Per-request timeout for a driver (and the in-process reference), in milliseconds.
        #[arg(long, default_value_t = 5_000, value_parser = timeout_ms)]
        timeout_ms: u64,
        #[command(flatten)]
        filter: Filter,
    },
    /// Serve the reference implementation over the port protocol on stdin/stdout.
    Driver,
    /// Run a mock server for tests (any port's): see mock-servers/README.md.
    Mock {
        /// Exit when stdin closes (its writer, the process that started it, is gone): how
        /// the harness makes its mocks die with it, SIGKILL included.
        #[arg(long)]
        until_stdin_closes: bool,
        #[command(subcommand)]
        server: MockServer,
    },
}

#[derive(Subcommand)]
enum MockServer {
    /// A scripted MCP server over stdio or streamable HTTP.
    Mcp {
        /// stdio, or http (prints `http://127.0.0.1:<port>/mcp` as its first line).
        #[arg(long, value_enum)]
        transport: toolnexus_mock_servers::mcp::Transport,
        /// The scenario JSON file.
        #[arg(long)]
        scenario: PathBuf,
    },
    /// A scripted A2A agent over JSON-RPC/HTTP (prints `http://127.0.0.1:<port>` first).
    A2a {
        /// The scenario JSON file.
        #[arg(long)]
        scenario: PathBuf,
    },
    /// A scripted LLM, OpenAI and Anthropic wires over HTTP (prints `http://127.0.0.1:<port>` first).
    Llm {
        /// The scenario JSON file.
        #[arg(long, required_unless_present = "fixture", conflicts_with = "fixture")]
        scenario: Option<PathBuf>,
        /// A shared agent fixture (`examples/subagent-*/fixture.json`, ...): its `mockLLM`
        /// block, `$ref`s resolved, converted to a scenario (mock-servers/README.md).
        #[arg(long)]
        fixture: Option<PathBuf>,
    },
}

/// A `--timeout-ms` value: a positive number of milliseconds (0 would time out every request).
fn timeout_ms(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("0 would time out every request; give at least 1 (milliseconds)".into()),
        Ok(ms) => Ok(ms),
        Err(e) => Err(format!("not a number of milliseconds: {e}")),
    }
}

fn root(cli_root: Option<PathBuf>) -> PathBuf {
    cli_root.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// The selected scenarios (a selection matching none is an error) and the port registry: what
/// every command that runs the suite needs before it starts a port.
fn selection_and_registry(
    root: &Path,
    filter: &Filter,
) -> Result<(Vec<ScenarioSpec>, Registry), String> {
    let scenarios = selected(root, filter)?;
    if scenarios.is_empty() {
        return Err("no scenario matches the selection".to_string());
    }
    Ok((scenarios, Registry::load(root)?))
}

fn selected(root: &Path, filter: &Filter) -> Result<Vec<ScenarioSpec>, String> {
    let dir = root.join("features");
    if !dir.is_dir() {
        return Err(format!(
            "{}: no features/ directory; --root (or TOOLNEXUS_CONFORMANCE_ROOT) must be a \
             checkout holding features/, conformance/ and snapshots/",
            root.display()
        ));
    }
    let (scenarios, errors) = features::load(&dir);
    if !errors.is_empty() {
        return Err(format!(
            "feature files that do not parse:\n{}",
            errors.join("\n")
        ));
    }
    let mut sel = Selection {
        tags: filter.tags.clone(),
        sections: filter.section.clone(),
        spec: filter.spec.clone(),
        include_preview: filter.include_preview,
        names: [filter.names.clone(), filter.name_filter.clone()].concat(),
    };
    sel.check()?;
    sel.resolve_sections(&known_sections(&scenarios))?;
    Ok(scenarios.into_iter().filter(|s| sel.keeps(s)).collect())
}

/// The sections the scenarios have, in SPEC order (`2` before `10`, `4` before `4A`).
fn known_sections(scenarios: &[ScenarioSpec]) -> Vec<String> {
    let mut known: Vec<String> = scenarios.iter().map(|s| s.section.clone()).collect();
    let key = |s: &String| {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        (digits.parse::<u32>().unwrap_or(u32::MAX), s.clone())
    };
    known.sort_by_key(key);
    known.dedup();
    known
}

fn this_binary() -> String {
    std::env::current_exe()
        .map(|p| p.to_string_lossy().to_string())
        .unwrap_or_else(|_| "toolnexus-conformance".to_string())
}

/// Resolves `--port` into a port to drive (and the registered details, if any).
fn open_port(
    root: &Path,
    registry: &Registry,
    port: Option<&str>,
    timeout: Duration,
) -> (Box<dyn Port>, Option<ResolvedPort>) {
    open_port_with_startup(root, registry, port, timeout, None)
}

/// [`open_port`], with a `hello` bound other than the driver port's default.
fn open_port_with_startup(
    root: &Path,
    registry: &Registry,
    port: Option<&str>,
    timeout: Duration,
    startup: Option<Duration>,
) -> (Box<dyn Port>, Option<ResolvedPort>) {
    match port {
        None => (
            Box::new(
                InProcessPort::new(toolnexus_driver::ReferenceSession::new()).with_timeout(timeout),
            ),
            None,
        ),
        Some(name) => {
            let resolved = registry.resolve(name, root, &this_binary());
            let mut driver = SubprocessPort::new(resolved.command.clone(), timeout).in_dir(root);
            if let Some(startup) = startup {
                driver = driver.with_startup_timeout(startup);
            }
            (Box::new(driver), Some(resolved))
        }
    }
}

/// Runs a release port's setup on its first use (it has none otherwise); `python@X` with a
/// malformed version is an error, not a driver command.
fn ensure_set_up(root: &Path, name: &str, resolved: Option<&ResolvedPort>) -> Result<(), String> {
    let family = name.split_once('@').map(|(f, _)| f);
    if family.is_some_and(|f| registry::RELEASE_FAMILIES.contains(&f))
        && registry::release_spec(name).is_none()
    {
        return Err(format!(
            "\"{name}\": not a release port (expected FAMILY@VERSION with a version like 0.16.0)"
        ));
    }
    match resolved {
        Some(r) if r.needs_setup() => {
            let setup = r.setup.as_deref().unwrap_or_default();
            eprintln!("{name}: not set up yet; setting it up: {setup}");
            registry::run_setup(root, name, setup)
        }
        _ => Ok(()),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(2)
}

/// What decides a run's exit code besides its failures, and whether a failure ends it.
struct Verdict {
    expected_failures: Option<PathBuf>,
    no_expected_failures: bool,
    strict: bool,
    min_executed: Option<f64>,
    fail_fast: bool,
}

/// `--jobs` when absent: four workers per core, at most 32. A scenario mostly waits (on
/// timeouts, mock servers and driver processes): the reference suite takes 22 s of wall time
/// for 6 s of CPU on one worker, so one worker per core would leave the machine mostly idle
/// (README "Running in parallel" has the measurements).
fn default_jobs() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    (4 * cores).min(32)
}

/// A `--jobs` value: a whole number of workers from 1.
fn jobs_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "{text}: expected a whole number of workers, 1 or more"
        )),
    }
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

/// The one message for a port whose `hello` failed: the reason (with the driver's stderr
/// tail, which the port error carries) and, when `--port` looks like a name rather than a
/// command and is not registered, the names that are.
fn handshake_failure(name: &str, registry: &Registry, reason: &str) -> String {
    let mut message = format!("port {name:?}: the handshake (hello) failed: {reason}");
    let looks_like_a_name = !name.contains(|c: char| c.is_whitespace() || c == '/');
    if looks_like_a_name && registry.get(name).is_none() && registry::release_spec(name).is_none() {
        message.push_str(&format!(
            "\n{name:?} is not a registered port, so it was run as a driver command; \
             registered ports (conformance/ports.json): {}; or a release: {}",
            registry.names().join(", "),
            registry::RELEASE_FAMILIES
                .map(|f| format!("{f}@VERSION"))
                .join(", ")
        ));
    }
    message.push_str("\nno scenario was run");
    message
}

/// How `run` drives the port: which one, its request timeout, the trace and the workers.
struct Driving {
    port: Option<String>,
    timeout_ms: u64,
    startup_timeout_ms: Option<u64>,
    trace: Option<PathBuf>,
    jobs: usize,
}

async fn run_command(
    root: &Path,
    driving: Driving,
    format: Format,
    verdict: Verdict,
    filter: &Filter,
) -> ExitCode {
    let Driving {
        port,
        timeout_ms,
        startup_timeout_ms,
        trace,
        jobs,
    } = driving;
    let Verdict {
        expected_failures,
        no_expected_failures,
        strict,
        min_executed,
        fail_fast,
    } = verdict;
    let (scenarios, registry) = match selection_and_registry(root, filter) {
        Ok(both) => both,
        Err(e) => return fail(&e),
    };
    let env = Env::from_root(root);
    let timeout = Duration::from_millis(timeout_ms);
    let startup = startup_timeout_ms.map(Duration::from_millis);
    let open = || open_port_with_startup(root, &registry, port.as_deref(), timeout, startup);
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
    let outcome = runner::run_pool_or_refuse(ports, &env, &scenarios, &fallback, |r| {
        let known = expected
            .as_ref()
            .is_some_and(|e| baseline::is_known(r, e, strict));
        if show_progress {
            println!("{}", report::progress_line_known(r, known));
        } else {
            eprintln!("{}", report::progress_line_known(r, known));
        }
        let fails_the_run =
            r.status == Status::Failed && (r.preview || !r.beyond_spec || strict) && !known;
        stopped = fail_fast && fails_the_run;
        !stopped
    })
    .await;
    let mut report: RunReport = match outcome {
        Ok(r) => r,
        Err(e) => return fail(&handshake_failure(&fallback, &registry, &e)),
    };
    if stopped {
        eprintln!(
            "--fail-fast: stopped at the first failure; {} of {} scenarios not run",
            scenarios.len() - report.scenarios.len(),
            scenarios.len()
        );
    }
    report.strict = strict;
    if let (Some(expected), Some(file)) = (expected, baseline_file) {
        let shown = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .to_string();
        // Stale entries are judged against the whole suite, not the selection.
        let suite = features::load(&root.join("features"))
            .0
            .into_iter()
            .map(|s| s.id)
            .collect();
        baseline::apply(&mut report, &expected, &shown, &suite);
    }
    match format {
        Format::Text => print!("{}", report::text(&report)),
        Format::Json => println!("{}", report::json(&report)),
        Format::Junit => print!("{}", junit::render(&report)),
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

async fn differential_command(
    root: &Path,
    port: Option<&str>,
    format: Format,
    timeout_ms: u64,
    cases: usize,
    seed: u64,
) -> ExitCode {
    let registry = match Registry::load(root) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let (mut other, resolved) = open_port(root, &registry, port, Duration::from_millis(timeout_ms));
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
        seed,
        |i, differs| {
            eprintln!(
                "case {:>4}: {}",
                i + 1,
                if differs { "DIFFERS" } else { "same" }
            );
        },
    )
    .await;
    other.shutdown().await;
    match format {
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

async fn bench_command(
    root: &Path,
    ports: &[String],
    opts: bench::BenchOptions,
    timeout_ms: u64,
    format: Format,
) -> ExitCode {
    let registry = match Registry::load(root) {
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
        let (port, resolved) = open_port(root, &registry, Some(n), timeout);
        if let Err(e) = ensure_set_up(root, n, resolved.as_ref()) {
            return fail(&e);
        }
        drivers.push((resolved.map_or(n.clone(), |r| r.name), port));
    }
    let report = bench::run(&mut drivers, &opts, |line| eprintln!("{line}")).await;
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

fn report_command(files: &[PathBuf], output: &Path, coverage: Option<&Path>) -> ExitCode {
    let coverage = match coverage
        .map(|f| {
            std::fs::read_to_string(f)
                .map_err(|e| e.to_string())
                .and_then(|t| {
                    serde_json::from_str::<clauses::CoverageReport>(&t).map_err(|e| e.to_string())
                })
                .map_err(|e| format!("{}: not a coverage report: {e}", f.display()))
        })
        .transpose()
    {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let mut reports = Vec::new();
    for file in files {
        let parsed = std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str::<RunReport>(&t).map_err(|e| e.to_string()));
        match parsed {
            Ok(r) => reports.push(r),
            Err(e) => return fail(&format!("{}: not a run report: {e}", file.display())),
        }
    }
    match std::fs::write(
        output,
        html::render_with_coverage(&reports, coverage.as_ref()),
    ) {
        Ok(()) => {
            println!("wrote {} ({} ports)", output.display(), reports.len());
            ExitCode::SUCCESS
        }
        Err(e) => fail(&format!("cannot write {}: {e}", output.display())),
    }
}

/// The clause index, its features and the tags tying them, or every load error (a malformed
/// index, a feature that does not parse, a tag naming no clause) as one message.
fn load_clauses(
    root: &Path,
    index: Option<PathBuf>,
) -> Result<(ClauseIndex, Vec<ScenarioSpec>, Ties, String), String> {
    let file = index.unwrap_or_else(|| clauses::index_path(root));
    let shown = file
        .strip_prefix(root)
        .unwrap_or(&file)
        .to_string_lossy()
        .to_string();
    let index = ClauseIndex::load(&file, &shown).map_err(|e| e.join("\n"))?;
    let (scenarios, errors) = features::load(&root.join("features"));
    if !errors.is_empty() {
        return Err(format!(
            "feature files that do not parse:\n{}",
            errors.join("\n")
        ));
    }
    let ties = clauses::tie(&index, &scenarios, &shown);
    if !ties.errors.is_empty() {
        return Err(format!(
            "clause tags naming no clause:\n{}",
            ties.errors.join("\n")
        ));
    }
    Ok((index, scenarios, ties, shown))
}

/// Options of `coverage` besides the root.
struct CoverageArgs {
    port: Option<String>,
    format: Format,
    output: Option<PathBuf>,
    timeout_ms: u64,
    index: Option<PathBuf>,
}

async fn coverage_command(root: &Path, args: CoverageArgs) -> ExitCode {
    if matches!(args.format, Format::Junit) {
        return fail("coverage: --format is text or json");
    }
    let (index, scenarios, ties, shown) = match load_clauses(root, args.index) {
        Ok(loaded) => loaded,
        Err(e) => return fail(&e),
    };
    let mut report = clauses::coverage(&index, &ties, &shown);
    if let Some(name) = &args.port {
        let registry = match Registry::load(root) {
            Ok(r) => r,
            Err(e) => return fail(&e),
        };
        let tagged = clauses::tagged_scenarios(&scenarios, &ties);
        let env = Env::from_root(root);
        let (mut driver, resolved) = open_port(
            root,
            &registry,
            Some(name),
            Duration::from_millis(args.timeout_ms),
        );
        let fallback = resolved.map_or(name.clone(), |r| r.name);
        let run = runner::run_or_refuse(driver.as_mut(), &env, &tagged, &fallback, |r| {
            eprintln!("{}", report::progress_line(r));
            true
        })
        .await;
        match run {
            Ok(run) => clauses::apply_run(&mut report, &run),
            // One clear message, as `run` gives, not one failure per clause.
            Err(e) => return fail(&handshake_failure(&fallback, &registry, &e)),
        }
    }
    match args.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ),
        _ => print!("{}", clauses::text(&report)),
    }
    if let Some(out) = &args.output {
        if let Err(e) = std::fs::write(out, html::render_coverage(&report)) {
            return fail(&format!("cannot write {}: {e}", out.display()));
        }
        eprintln!("wrote {}", out.display());
    }
    if report.total.port.is_some_and(|p| p.failed > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn spec_diff_command(
    root: &Path,
    old: &Path,
    new: &Path,
    format: Format,
    index: Option<PathBuf>,
) -> ExitCode {
    if matches!(format, Format::Junit) {
        return fail("spec-diff: --format is text or json");
    }
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
    };
    let (old_text, new_text) = match (read(old), read(new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return fail(&e),
    };
    let (index, scenarios, ties, shown) = match load_clauses(root, index) {
        Ok(loaded) => loaded,
        Err(e) => return fail(&e),
    };
    let old_name = old.to_string_lossy();
    let new_name = new.to_string_lossy();
    let diff = spec_diff::diff(
        &index,
        &old_text,
        &new_text,
        &scenarios,
        &ties,
        spec_diff::Names {
            old: &old_name,
            new: &new_name,
            index: &shown,
        },
    );
    match format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&diff).unwrap_or_default()
        ),
        _ => print!("{}", spec_diff::text(&diff)),
    }
    if diff.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Watches stdin on a plain thread and exits the process at its EOF (or read error). A
/// thread rather than a task: a blocked tokio stdin read would hold the runtime's shutdown.
fn exit_when_stdin_closes() {
    std::thread::spawn(|| {
        let mut buf = [0u8; 512];
        let mut stdin = std::io::stdin();
        loop {
            match std::io::Read::read(&mut stdin, &mut buf) {
                Ok(0) => std::process::exit(0),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => std::process::exit(0),
            }
        }
    });
}

/// Errors go to stderr with the `mock-mcp:` / `mock-a2a:` / `mock-llm:` prefix: in stdio mode stdout is
/// the protocol, and over HTTP its first line is the URL.
async fn mock_command(server: MockServer) -> ExitCode {
    use toolnexus_mock_servers::{a2a, llm, mcp};
    let (prefix, outcome) = match server {
        MockServer::Mcp {
            transport,
            scenario,
        } => match mcp::load_scenario(&scenario) {
            Ok(s) => ("mock-mcp", mcp::run(transport, s).await),
            Err(e) => ("mock-mcp", Err(e)),
        },
        MockServer::A2a { scenario } => match a2a::load_scenario(&scenario) {
            Ok(s) => ("mock-a2a", a2a::run(s).await),
            Err(e) => ("mock-a2a", Err(e)),
        },
        MockServer::Llm { scenario, fixture } => {
            let loaded = match (scenario, fixture) {
                (Some(path), _) => llm::load_scenario(&path),
                (None, Some(path)) => {
                    llm::from_fixture(&path).and_then(|v| llm::parse_scenario(&v.to_string()))
                }
                (None, None) => Err("give --scenario or --fixture".to_string()),
            };
            match loaded {
                Ok(s) => ("mock-llm", llm::run(s).await),
                Err(e) => ("mock-llm", Err(e)),
            }
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&format!("{prefix}: {e}")),
    }
}

fn setup_command(root: &Path, ports: &[String], list: bool) -> ExitCode {
    let registry = match Registry::load(root) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    if list || ports.is_empty() {
        for name in registry.names() {
            if let Some(entry) = registry.get(&name) {
                println!("{name:<12} {:<8} {}", entry.language, entry.description);
            }
        }
        println!("python@VERSION    any PyPI release of toolnexus (venv under target/ports/)");
        println!(
            "rust-crate@VERSION any crates.io release of toolnexus (built under target/ports/)"
        );
        return ExitCode::SUCCESS;
    }
    for name in ports {
        if let Err(e) = ensure_set_up(root, name, None) {
            return fail(&e);
        }
        let resolved = registry.resolve(name, root, &this_binary());
        if registry.get(name).is_none() && registry::release_spec(name).is_none() {
            return fail(&format!(
                "no port \"{name}\" in conformance/ports.json (known: {}; or a release: {})",
                registry.names().join(", "),
                registry::RELEASE_FAMILIES
                    .map(|f| format!("{f}@VERSION"))
                    .join(", ")
            ));
        }
        let Some(setup) = &resolved.setup else {
            println!("{name}: nothing to set up");
            continue;
        };
        println!("{name}: {setup}");
        if let Err(e) = registry::run_setup(root, name, setup) {
            return fail(&e);
        }
    }
    ExitCode::SUCCESS
}

/// The published releases of a port family, from its registry's ordinary client.
fn published_releases(family: &str) -> Result<Vec<String>, String> {
    if family != "python" {
        return Err(format!(
            "{family}: releases are not looked up; give them as a list (--versions 0.22.0,0.23.0)"
        ));
    }
    let out = std::process::Command::new("python3")
        .args([
            "-m",
            "pip",
            "index",
            "versions",
            "toolnexus",
            "--disable-pip-version-check",
        ])
        .output()
        .map_err(|e| format!("cannot run `python3 -m pip index versions toolnexus`: {e}"))?;
    let found = history::pip_versions(&String::from_utf8_lossy(&out.stdout));
    if found.is_empty() {
        return Err(format!(
            "`python3 -m pip index versions toolnexus` listed no release: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(found)
}

/// The suite on each release of `family`, then the release matrix. A release whose setup
/// fails is a column saying so, not the end of the run.
async fn history_command(
    root: &Path,
    family: &str,
    versions: &str,
    format: Format,
    output: Option<&Path>,
    timeout_ms: u64,
    filter: &Filter,
) -> ExitCode {
    if !registry::RELEASE_FAMILIES.contains(&family) {
        return fail(&format!(
            "history: --port must be one of {}",
            registry::RELEASE_FAMILIES.join(", ")
        ));
    }
    if matches!(format, Format::Junit) {
        return fail("history: --format is text or json");
    }
    let wanted = match history::parse_versions(versions) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    let published = match &wanted {
        history::Versions::Range(..) => match published_releases(family) {
            Ok(p) => p,
            Err(e) => return fail(&e),
        },
        history::Versions::List(_) => Vec::new(),
    };
    let releases = match history::expand(&wanted, &published) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let (scenarios, registry) = match selection_and_registry(root, filter) {
        Ok(both) => both,
        Err(e) => return fail(&e),
    };
    let env = Env::from_root(root);
    let mut runs: Vec<(String, Result<RunReport, String>)> = Vec::new();
    for version in &releases {
        let name = format!("{family}@{version}");
        eprintln!("{name}: running {} scenarios", scenarios.len());
        let (mut driver, resolved) = open_port(
            root,
            &registry,
            Some(&name),
            Duration::from_millis(timeout_ms),
        );
        if let Err(e) = ensure_set_up(root, &name, resolved.as_ref()) {
            eprintln!("{e}");
            runs.push((version.clone(), Err(e)));
            continue;
        }
        let report = runner::run(driver.as_mut(), &env, &scenarios, &name, |_| {}).await;
        let s = report.summary;
        eprintln!(
            "{name}: {} passed, {} failed, {} skipped",
            s.passed, s.failed, s.skipped
        );
        runs.push((version.clone(), Ok(report)));
    }
    let h = history::build(family, &runs);
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&h).unwrap_or_default()),
        _ => print!("{}", history::text(&h)),
    }
    if let Some(file) = output {
        let reports: Vec<RunReport> = runs.into_iter().filter_map(|(_, r)| r.ok()).collect();
        if let Err(e) = std::fs::write(file, html::render_with_history(&reports, Some(&h))) {
            return fail(&format!("cannot write {}: {e}", file.display()));
        }
        eprintln!("wrote {}", file.display());
    }
    if h.releases.iter().all(|r| r.summary.is_none()) {
        return fail("history: no release could be set up");
    }
    ExitCode::SUCCESS
}

/// How long an interrupted command waits for its drivers and mocks to exit after SIGTERM
/// before it SIGKILLs them (the reference's bash grace, NOTES #160).
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Runs a command that starts drivers or mocks so that nothing it started outlives it: on
/// SIGINT, SIGTERM or SIGHUP it stops them all and exits 128+signal (the shell's convention);
/// on every other exit path it sweeps whatever is left among its descendants.
async fn supervised(work: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    use tokio::signal::unix::{signal, SignalKind};
    children::become_subreaper();
    let mut work = Box::pin(work);
    let watched = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    );
    let code = match watched {
        (Ok(mut int), Ok(mut term), Ok(mut hup)) => {
            let (name, code) = tokio::select! {
                code = &mut work => {
                    children::kill_descendants();
                    return code;
                }
                _ = int.recv() => ("SIGINT", 130),
                _ = term.recv() => ("SIGTERM", 143),
                _ = hup.recv() => ("SIGHUP", 129),
            };
            eprintln!(
                "interrupted by {name}: stopping the drivers and mock servers this run started"
            );
            let stopped = children::stop_all(STOP_GRACE).await;
            // Whatever the command still held (an in-process MCP server, a bash call) goes
            // with it, then the sweep below takes any straggler.
            drop(work);
            eprintln!("interrupted by {name}: stopped {stopped} driver(s) or mock server(s); no report written");
            ExitCode::from(code)
        }
        _ => {
            eprintln!("warning: cannot watch SIGINT/SIGTERM/SIGHUP; an interrupted run may leave processes behind");
            work.await
        }
    };
    children::kill_descendants();
    code
}

/// The text of a panic payload (`panic!` with a literal or with formatting).
fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("")
}

/// A panic the reference's tool boundary catches (the `{"panic": M}` behaviour) is data, not
/// a crash: one line instead of the default "thread … panicked at … RUST_BACKTRACE". Output
/// cut by a closed pipe (`run | head -1`) ends the process quietly, as `cat` would, with the
/// shell's SIGPIPE status. Every other panic keeps the default report.
fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = panic_text(info.payload());
        if toolnexus_driver::inside_tool_boundary() {
            eprintln!("tool panicked (caught): {text}");
        } else if text.starts_with("failed printing to stdout") && text.contains("Broken pipe") {
            children::kill_descendants();
            std::process::exit(141);
        } else {
            default(info);
        }
    }));
}

/// `validate-trace`: one line per problem on stdout; 2 when the trace or schema is unreadable.
fn validate_trace_command(root: &Path, file: &Path) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return fail(&format!("cannot read {}: {e}", file.display())),
    };
    let schema = root.join("conformance").join("protocol.schema.json");
    match validate_trace::problems(&schema, &text) {
        Err(e) => fail(&e),
        Ok(problems) if problems.is_empty() => {
            println!("{}: valid", file.display());
            ExitCode::SUCCESS
        }
        Ok(problems) => {
            for p in &problems {
                println!("{p}");
            }
            println!("{} problem(s)", problems.len());
            ExitCode::from(1)
        }
    }
}

fn main() -> ExitCode {
    // Before any thread exists: the canary secret scenarios expand into MCP headers.
    secret::ensure();
    install_panic_hook();
    let cli = Cli::parse();
    // The mock LLM answers one request at a time, the driver's client loop awaits one
    // model call at a time, a stdio MCP server has one client, and the benchmark times one
    // request at a time: on one thread their round trips skip the cross-thread wake-ups a
    // worker pool adds to each of them (on an idle machine, a parked worker's wake-up costs
    // more than the round trip being timed).
    let mut builder = if matches!(
        cli.command,
        Command::Driver
            | Command::Bench { .. }
            | Command::Mock {
                server: MockServer::Llm { .. }
                    | MockServer::Mcp {
                        transport: toolnexus_mock_servers::mcp::Transport::Stdio,
                        ..
                    },
                ..
            }
    ) {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    match builder.enable_all().build() {
        Ok(runtime) => runtime.block_on(async_main(cli)),
        Err(e) => fail(&format!("cannot start the async runtime: {e}")),
    }
}

async fn async_main(cli: Cli) -> ExitCode {
    let root = root(cli.root);
    match cli.command {
        Command::Mock {
            server,
            until_stdin_closes,
        } => {
            if until_stdin_closes {
                exit_when_stdin_closes();
            }
            mock_command(server).await
        }
        Command::Driver => match driver::serve_stdio().await {
            Ok(None) => ExitCode::SUCCESS,
            Ok(Some(signal)) => {
                eprintln!("driver: stopped by {signal}; closed its MCP servers");
                ExitCode::from(match signal {
                    "SIGINT" => 130,
                    "SIGHUP" => 129,
                    _ => 143,
                })
            }
            Err(e) => fail(&format!("driver: {e}")),
        },
        Command::List { filter } => match selected(&root, &filter) {
            Ok(list) => {
                for s in &list {
                    println!(
                        "[{}] {}  ({})  @{}",
                        s.section,
                        s.id,
                        s.bounds.describe(),
                        s.tags.join(" @")
                    );
                }
                println!("{} scenarios", list.len());
                ExitCode::SUCCESS
            }
            Err(e) => fail(&e),
        },
        Command::Setup { ports, list } => setup_command(&root, &ports, list),
        Command::ValidateTrace { file } => validate_trace_command(&root, &file),
        Command::History {
            port,
            versions,
            format,
            output,
            timeout_ms,
            filter,
        } => {
            history_command(
                &root,
                &port,
                &versions,
                format,
                output.as_deref(),
                timeout_ms,
                &filter,
            )
            .await
        }
        Command::Report {
            files,
            output,
            coverage,
        } => report_command(&files, &output, coverage.as_deref()),
        Command::Coverage {
            port,
            format,
            output,
            timeout_ms,
            index,
        } => {
            coverage_command(
                &root,
                CoverageArgs {
                    port,
                    format,
                    output,
                    timeout_ms,
                    index,
                },
            )
            .await
        }
        Command::SpecDiff {
            old,
            new,
            format,
            index,
        } => spec_diff_command(&root, &old, &new, format, index),
        Command::Bench {
            port,
            skills,
            grep_files,
            round_trips,
            runs,
            ops,
            loop_turns,
            loop_runs,
            serve_calls,
            suite_runs,
            suite_jobs,
            suite_timeout_ms,
            suite_section,
            timeout_ms,
            format,
        } => {
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
                suite_runs,
                suite: bench::SuiteOptions {
                    root: Some(root.clone()),
                    jobs: suite_jobs,
                    timeout_ms: suite_timeout_ms,
                    sections: suite_section,
                    ..bench::SuiteOptions::default()
                },
                ..bench::BenchOptions::default()
            };
            supervised(bench_command(&root, &port, opts, timeout_ms, format)).await
        }
        Command::Run {
            port,
            format,
            timeout_ms,
            differential: Some(cases),
            seed,
            ..
        } => {
            supervised(differential_command(
                &root,
                port.as_deref(),
                format,
                timeout_ms,
                cases,
                seed,
            ))
            .await
        }
        Command::Run {
            port,
            format,
            timeout_ms,
            startup_timeout_ms,
            expected_failures,
            no_expected_failures,
            strict,
            min_executed,
            fail_fast,
            trace,
            jobs,
            filter,
            ..
        } => {
            let jobs = jobs.unwrap_or_else(default_jobs);
            supervised(run_command(
                &root,
                Driving {
                    port,
                    timeout_ms,
                    startup_timeout_ms,
                    trace,
                    jobs,
                },
                format,
                Verdict {
                    expected_failures,
                    no_expected_failures,
                    strict,
                    min_executed,
                    fail_fast,
                },
                &filter,
            ))
            .await
        }
    }
}
