//! `toolnexus-conformance`: run the conformance scenarios against a port, list them, or act
//! as the reference's own protocol driver.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use toolnexus_conformance::harness::features::{self, ScenarioSpec};
use toolnexus_conformance::harness::inprocess::InProcessPort;
use toolnexus_conformance::harness::port::Port;
use toolnexus_conformance::harness::report;
use toolnexus_conformance::harness::runner::{self, Selection};
use toolnexus_conformance::harness::scenario::Env;
use toolnexus_conformance::harness::subprocess::SubprocessPort;
use toolnexus_conformance::protocol::driver;

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
}

#[derive(clap::Args)]
struct Filter {
    /// Only scenarios carrying one of these tags (comma-separated, `@` optional).
    #[arg(long, value_delimiter = ',')]
    tags: Vec<String>,
    /// Only scenarios of these SPEC sections (comma-separated: 0,1,3,4,4A,6).
    #[arg(long, value_delimiter = ',')]
    section: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the scenarios against the reference (default) or a driver command.
    Run {
        /// A driver command speaking conformance/PROTOCOL.md; absent ⇒ the in-process reference.
        #[arg(long)]
        port: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// Per-request timeout for a driver, in milliseconds.
        #[arg(long, default_value_t = 10_000)]
        timeout_ms: u64,
        #[command(flatten)]
        filter: Filter,
    },
    /// List the scenarios with their sections and tags.
    List {
        #[command(flatten)]
        filter: Filter,
    },
    /// Serve the reference implementation over the port protocol on stdin/stdout.
    Driver,
}

fn root(cli_root: Option<PathBuf>) -> PathBuf {
    cli_root.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

fn selected(root: &std::path::Path, filter: &Filter) -> Result<Vec<ScenarioSpec>, String> {
    let (scenarios, errors) = features::load(&root.join("features"));
    if !errors.is_empty() {
        return Err(format!(
            "feature files that do not parse:\n{}",
            errors.join("\n")
        ));
    }
    let sel = Selection {
        tags: filter.tags.clone(),
        sections: filter.section.clone(),
    };
    Ok(scenarios.into_iter().filter(|s| sel.keeps(s)).collect())
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = root(cli.root);
    match cli.command {
        Command::Driver => match driver::serve_stdio().await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("driver: {e}");
                ExitCode::from(2)
            }
        },
        Command::List { filter } => match selected(&root, &filter) {
            Ok(list) => {
                for s in &list {
                    println!("[{}] {}  @{}", s.section, s.id, s.tags.join(" @"));
                }
                println!("{} scenarios", list.len());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(2)
            }
        },
        Command::Run {
            port,
            format,
            timeout_ms,
            filter,
        } => {
            let scenarios = match selected(&root, &filter) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("{e}");
                    return ExitCode::from(2);
                }
            };
            let env = Env::from_root(&root);
            let (mut port, name): (Box<dyn Port>, String) = match port {
                None => (Box::new(InProcessPort::new()), "reference".into()),
                Some(cmd) => (
                    Box::new(SubprocessPort::new(
                        cmd.clone(),
                        Duration::from_millis(timeout_ms),
                    )),
                    cmd,
                ),
            };
            let show_progress = matches!(format, Format::Text);
            let report = runner::run(port.as_mut(), &env, &scenarios, &name, |r| {
                if show_progress {
                    println!("{}", report::progress_line(r));
                } else {
                    eprintln!("{}", report::progress_line(r));
                }
            })
            .await;
            match format {
                Format::Text => print!("{}", report::text(&report)),
                Format::Json => println!("{}", report::json(&report)),
            }
            if report.has_failures() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}
