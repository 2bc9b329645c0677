//! `toolnexus-conformance`: run the conformance scenarios against a port, list them, prepare
//! registered ports, combine reports, benchmark ports, run the suite across a port's published
//! releases (`history`), report SPEC clause coverage, diff two SPEC texts clause by clause, or
//! act as the reference's own driver.
//!
//! This file parses the command line and dispatches; each subcommand, its arguments beside
//! the function that runs it, is a module of `cli`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use toolnexus_ports::{children, secret};

mod cli;
mod validate_trace;

use cli::supervise::supervised;
use cli::{
    bench, clauses, coverage, driver, fail, floor, history, list, mock, porting, report, run,
    schema, setup, spec_diff,
};

#[derive(Parser)]
#[command(
    name = "toolnexus-conformance",
    version = version_text(),
    about = "Conformance harness for the toolnexus contract (SPEC 0.16.0)"
)]
struct Cli {
    /// The checkout holding features/, conformance/ and snapshots/ (default: for a
    /// development build, the checkout it was built from; else the suite embedded in the
    /// binary).
    #[arg(long, global = true, env = "TOOLNEXUS_CONFORMANCE_ROOT")]
    root: Option<PathBuf>,
    /// Read the suite embedded in the binary even where the checkout it was built from is
    /// (how the tests see what a port's CI sees); `--root` still wins (a command this one
    /// starts with `--root`, as `bench` does, inherits the variable).
    #[arg(
        long,
        global = true,
        hide = true,
        env = "TOOLNEXUS_CONFORMANCE_EMBEDDED",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    embedded: bool,
    /// The SPEC's shared examples (`{{EXAMPLES}}`; default: `../shared/spec/examples` beside
    /// the checkout, or the copy embedded in the binary when it was built with them).
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        env = "TOOLNEXUS_SPEC_EXAMPLES"
    )]
    examples: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// The subcommands: those that read the suite, then those that need none.
#[derive(Subcommand)]
enum Command {
    #[command(flatten)]
    Suite(Box<SuiteCommand>),
    /// Combine several ports' `run --format json` results into one self-contained HTML page.
    Report(report::ReportArgs),
    /// Serve the reference implementation over the port protocol on stdin/stdout.
    Driver,
    /// Run a mock server for tests (any port's): see mock-servers/README.md.
    Mock(mock::MockArgs),
    /// The bench's floor processes (started by `bench`).
    #[command(hide = true)]
    Floor(floor::FloorArgs),
}

/// The subcommands that read the suite (a checkout, or the copy embedded in the binary).
#[derive(Subcommand)]
enum SuiteCommand {
    /// Run the scenarios against the reference (default) or a port.
    Run(run::RunArgs),
    /// Check a `run --trace` file against conformance/protocol.schema.json and the
    /// protocol's rules: exit 0 when valid, 1 with one line per problem, 2 when unreadable.
    ValidateTrace(cli::validate_trace::ValidateTraceArgs),
    /// Print the protocol's JSON Schema, generated from the protocol crate's types
    /// (`schema > conformance/protocol.schema.json` regenerates the checked-in file);
    /// `--check`: exit 1 when the checked-in file is stale.
    Schema(schema::SchemaArgs),
    /// List the scenarios with their sections and tags.
    List(list::ListArgs),
    /// Per SPEC section, the protocol commands, option keys and behaviours its scenarios
    /// send, how many scenarios use each, and the order of implementing them that unlocks the
    /// most scenarios soonest: where a new port starts (`--format json` too).
    ///
    /// The scenarios build their requests as they run, so `porting` runs the selected ones
    /// against the in-process reference and records what each scenario's steps send (not its
    /// clean-up). The reference is only listened to here: no verdict of `run` comes from it.
    /// `hello` and `shutdown`, which every session sends, are listed once and not counted. A
    /// scenario is unlocked when every command, option and behaviour it sends is implemented;
    /// each step of the order is the set still missing for some scenario that unlocks the
    /// most scenarios per item implemented. It takes about as long as `run` on the reference
    /// (the whole suite, release build, on a 2-core machine busy with other builds: 15 s,
    /// against 14 s for `run`; `--jobs` as for `run`).
    Porting(porting::PortingArgs),
    /// Prepare registered ports (create venvs, build drivers); `--list` shows them.
    Setup(setup::SetupArgs),
    /// Per SPEC section, how many clauses of the clause index the scenarios' `@clause-` tags
    /// cover, and the uncovered observable clauses; `--port` also runs the tagged scenarios.
    Coverage(coverage::CoverageArgs),
    /// Compare two SPEC texts clause by clause: changed, removed and new normative text,
    /// with the scenarios and snapshots to review. Exits 1 when there is something to review.
    SpecDiff(spec_diff::SpecDiffArgs),
    /// The clause index against the SPEC texts: `lint` (every normative sentence tracked
    /// whole, version bounds honest) and `arrivals` (when each clause arrived, from the SPEC
    /// history).
    Clauses(clauses::ClausesArgs),
    /// Time the same operations on several ports through their drivers, side by side with
    /// the reference's own driver, and print medians and ratios.
    Bench(bench::BenchArgs),
    /// Run the whole suite on each published release of a port and print, per scenario whose
    /// outcome changed, its outcome per release and the first release where it changed.
    History(history::HistoryArgs),
}

/// What `--version` prints after the name: the harness's version, the port protocol and the
/// SPEC texts it carries (the JSON report's `harness` says the same).
fn version_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| toolnexus_harness::outcome::model::HarnessInfo::this().line())
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
            cli::suite::remove_unpacked();
            std::process::exit(141);
        } else {
            default(info);
        }
    }));
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
    let one_thread = match &cli.command {
        Command::Driver | Command::Floor(_) => true,
        Command::Suite(suite) => matches!(**suite, SuiteCommand::Bench(_)),
        Command::Mock(args) => args.serves_one_at_a_time(),
        Command::Report(_) => false,
    };
    let mut builder = if one_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    match builder.enable_all().build() {
        Ok(runtime) => runtime.block_on(async_main(cli)),
        Err(e) => fail(&format!("cannot start the async runtime: {e}")),
    }
}

/// Runs the parsed subcommand. The ones that read the suite run supervised (whatever ends
/// them, the drivers and mocks they started stop, and the embedded suite's unpacked copy goes
/// with the workspace); the others need no suite.
async fn async_main(cli: Cli) -> ExitCode {
    // A folder named on purpose that is not there is a mistake to say, not ~35 quiet skips.
    if let Some(dir) = cli.examples.as_ref().filter(|dir| !dir.is_dir()) {
        return fail(&format!(
            "--examples {}: no such folder (the SPEC's spec/examples)",
            dir.display()
        ));
    }
    let command = match cli.command {
        Command::Mock(args) => {
            let suite = mock::SuiteAt {
                root: cli.root,
                embedded: cli.embedded,
                examples: cli.examples,
            };
            return mock::run(args, suite).await;
        }
        Command::Floor(args) => return floor::run(args).await,
        Command::Driver => return driver::run().await,
        Command::Report(args) => return report::run(args),
        Command::Suite(command) => *command,
    };
    match cli::workspace::Workspace::open(cli.root, cli.embedded)
        .map(|ws| ws.with_examples(cli.examples))
    {
        Ok(ws) => supervised(on_suite(&ws, command)).await,
        Err(e) => fail(&e),
    }
}

/// Runs a subcommand that reads the suite.
async fn on_suite(ws: &cli::workspace::Workspace, command: SuiteCommand) -> ExitCode {
    match command {
        SuiteCommand::List(args) => list::run(ws, args),
        SuiteCommand::Setup(args) => setup::run(ws, args),
        SuiteCommand::ValidateTrace(args) => cli::validate_trace::run(ws, args),
        SuiteCommand::Schema(args) => schema::run(ws, args),
        SuiteCommand::History(args) => history::run(ws, args).await,
        SuiteCommand::Coverage(args) => coverage::run(ws, args).await,
        SuiteCommand::SpecDiff(args) => spec_diff::run(ws, args),
        SuiteCommand::Clauses(args) => clauses::run(ws, args),
        SuiteCommand::Bench(args) => bench::run(ws, args).await,
        SuiteCommand::Run(args) => run::run(ws, args).await,
        SuiteCommand::Porting(args) => porting::run(ws, args).await,
    }
}
