//! `porting`: per SPEC section, the protocol commands, option keys and behaviours its
//! scenarios send, with counts, and the implementation order that unlocks the most scenarios.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use toolnexus_harness::reporting;
use toolnexus_harness::run::porting::{self, PortingMap};
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::Port;

use super::workspace::Workspace;
use super::{fail, jobs_count, run::default_jobs, selected, timeout_ms, Filter, Format};

/// The arguments of `porting`.
#[derive(clap::Args)]
pub struct PortingArgs {
    /// Output format (text or json).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Record N scenarios at a time (default: as `run`).
    #[arg(long, value_name = "N", value_parser = jobs_count)]
    jobs: Option<usize>,
    /// Per-request timeout for the in-process reference, in milliseconds.
    #[arg(long, default_value_t = 5_000, value_parser = timeout_ms)]
    timeout_ms: u64,
    #[command(flatten)]
    filter: Filter,
}

/// Records the selected scenarios' requests against the in-process reference and prints
/// the map; exit 2 when the selection is empty or the run cannot start.
pub async fn run(ws: &Workspace, args: PortingArgs) -> ExitCode {
    if matches!(args.format, Format::Junit) {
        return fail("porting: --format is text or json");
    }
    let scenarios = match selected(ws, &args.filter) {
        Ok(s) if s.is_empty() => return fail("no scenario matches the selection"),
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    let env = ws.env();
    let timeout = Duration::from_millis(args.timeout_ms);
    let workers = args
        .jobs
        .unwrap_or_else(default_jobs)
        .clamp(1, scenarios.len());
    let ports: Vec<Box<dyn Port>> = (0..workers)
        .map(|_| {
            Box::new(
                InProcessPort::new(toolnexus_driver::ReferenceSession::new()).with_timeout(timeout),
            ) as Box<dyn Port>
        })
        .collect();
    eprintln!(
        "recording the requests of {} scenarios against the in-process reference…",
        scenarios.len()
    );
    let clock = Instant::now();
    let recorded = match porting::record(ports, &env, &scenarios).await {
        Ok(r) => r,
        Err(e) => return fail(&format!("the in-process reference failed hello: {e}")),
    };
    eprintln!("recorded in {:.1} s", clock.elapsed().as_secs_f64());
    let map = PortingMap::of(&recorded);
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&map).unwrap_or_default()),
        _ => print!("{}", reporting::porting::text(&map)),
    }
    ExitCode::SUCCESS
}
