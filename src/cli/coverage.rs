//! `coverage`: per SPEC section, the clauses the scenarios' `@clause-` tags cover; with
//! `--port`, each clause's verdict on that port.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use toolnexus_harness::reporting::coverage;
use toolnexus_harness::{reporting::html, reporting::report, run::runner};

use super::workspace::Workspace;
use super::{fail, handshake_failure, load_clauses, open_port, timeout_ms, Format};

/// The arguments of `coverage`.
#[derive(clap::Args)]
pub struct CoverageArgs {
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
    /// The clause index (default: the newest text's, conformance/clauses/main-after-0.17.0.json,
    /// which keeps the clauses it changed until their last release).
    #[arg(long)]
    index: Option<PathBuf>,
    /// Instead of the per-section table: per SPEC release of the history, how many clauses
    /// of the index its text has and how many the scenarios cover.
    #[arg(long, conflicts_with_all = ["port", "output"])]
    by_version: bool,
    /// The SPEC history for `--by-version` (default: ../shared/spec/history).
    #[arg(long, requires = "by_version")]
    history: Option<PathBuf>,
}

/// Prints the coverage report (and writes the page); exit 1 when a clause fails on the port.
pub async fn run(ws: &Workspace, args: CoverageArgs) -> ExitCode {
    if matches!(args.format, Format::Junit) {
        return fail("coverage: --format is text or json");
    }
    let (index, scenarios, ties, shown) = match load_clauses(ws, args.index) {
        Ok(loaded) => loaded,
        Err(e) => return fail(&e),
    };
    let mut report = coverage::coverage(&index, &ties, &shown);
    if args.by_version {
        let versions: Vec<String> = match ws.history_at(args.history.as_deref()) {
            Ok(h) => h.into_iter().map(|t| t.version).collect(),
            Err(e) => return fail(&e),
        };
        let rows = coverage::by_version(&index, &report, &versions);
        match args.format {
            Format::Json => println!(
                "{}",
                serde_json::to_string_pretty(&rows).unwrap_or_default()
            ),
            _ => print!("{}", coverage::by_version_text(&rows)),
        }
        return ExitCode::SUCCESS;
    }
    if let Some(name) = &args.port {
        let registry = match ws.registry() {
            Ok(r) => r,
            Err(e) => return fail(&e),
        };
        let tagged = coverage::tagged_scenarios(&scenarios, &ties);
        let env = ws.env();
        let (mut driver, resolved) = open_port(
            ws,
            registry,
            Some(name),
            Duration::from_millis(args.timeout_ms),
        );
        let fallback = resolved.map_or(name.clone(), |r| r.name);
        let run = runner::run_or_refuse(driver.as_mut(), &env, &tagged, &fallback, &mut |r| {
            eprintln!("{}", report::progress_line(r));
            true
        })
        .await;
        match run {
            Ok(run) => coverage::apply_run(&mut report, &run),
            // One clear message, as `run` gives, not one failure per clause.
            Err(e) => return fail(&handshake_failure(&fallback, registry, &e)),
        }
    }
    match args.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ),
        _ => print!("{}", coverage::text(&report)),
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
