//! The subcommands, one module each: its clap arguments beside the function that runs it.
//! What several of them share (the output format, the scenario filter, value parsers, opening
//! a port, the exit code of an error) lives here.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::ValueEnum;

use toolnexus_harness::reporting::coverage::{tie, Ties};
use toolnexus_harness::run::runner::Selection;
use toolnexus_harness::scenario::features::ScenarioSpec;
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::Port;
use toolnexus_ports::registry::{self, Registry, ResolvedPort};
use toolnexus_ports::subprocess::SubprocessPort;
use toolnexus_spec::clauses::ClauseIndex;
use toolnexus_spec::sections::cmp_sections;

pub mod bench;
pub mod clauses;
pub mod coverage;
pub mod driver;
pub mod floor;
pub mod history;
pub mod list;
pub mod mock;
pub mod porting;
pub mod report;
pub mod run;
pub mod schema;
pub mod setup;
pub mod spec_diff;
pub mod suite;
pub mod supervise;
pub mod validate_trace;
pub mod workspace;

use workspace::Workspace;

/// How a subcommand prints its result.
#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Junit,
}

/// Which scenarios a command runs or lists.
#[derive(clap::Args)]
pub struct Filter {
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

/// A `--timeout-ms` value: a positive number of milliseconds (0 would time out every request).
pub fn timeout_ms(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("0 would time out every request; give at least 1 (milliseconds)".into()),
        Ok(ms) => Ok(ms),
        Err(e) => Err(format!("not a number of milliseconds: {e}")),
    }
}

/// A `--jobs` value: a whole number of workers from 1.
pub fn jobs_count(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "{text}: expected a whole number of workers, 1 or more"
        )),
    }
}

/// Prints `message` on stderr; exit code 2 (the command could not do its work).
pub fn fail(message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(2)
}

/// The selected scenarios (a selection matching none is an error) and the port registry: what
/// every command that runs the suite needs before it starts a port.
fn selection_and_registry<'w>(
    ws: &'w Workspace,
    filter: &Filter,
) -> Result<(Vec<ScenarioSpec>, &'w Registry), String> {
    let scenarios = selected(ws, filter)?;
    if scenarios.is_empty() {
        return Err("no scenario matches the selection".to_string());
    }
    Ok((scenarios, ws.registry()?))
}

/// The scenarios of the checkout's features/ that `filter` keeps; an error when features/ is
/// missing, a feature file does not parse or the filter names what does not exist.
fn selected(ws: &Workspace, filter: &Filter) -> Result<Vec<ScenarioSpec>, String> {
    let scenarios = ws.features()?;
    let mut sel = Selection {
        tags: filter.tags.clone(),
        sections: filter.section.clone(),
        spec: filter.spec.clone(),
        include_preview: filter.include_preview,
        names: [filter.names.clone(), filter.name_filter.clone()].concat(),
    };
    sel.check()?;
    sel.resolve_sections(&known_sections(scenarios))?;
    Ok(scenarios.iter().filter(|s| sel.keeps(s)).cloned().collect())
}

/// The sections the scenarios have, in SPEC order (`2` before `10`, `4` before `4A`).
fn known_sections(scenarios: &[ScenarioSpec]) -> Vec<String> {
    let mut known: Vec<String> = scenarios.iter().map(|s| s.section.clone()).collect();
    known.sort_by(|a, b| cmp_sections(a, b));
    known.dedup();
    known
}

/// This binary's path, for ports whose driver is this binary (`driver`).
fn this_binary() -> String {
    std::env::current_exe()
        .map(|p| p.to_string_lossy().to_string())
        .unwrap_or_else(|_| "toolnexus-conformance".to_string())
}

/// Resolves `--port` into a port to drive (and the registered details, if any).
fn open_port(
    ws: &Workspace,
    registry: &Registry,
    port: Option<&str>,
    timeout: Duration,
) -> (Box<dyn Port>, Option<ResolvedPort>) {
    open_port_with_startup(ws, registry, port, timeout, None, None)
}

/// [`open_port`], with a `hello` bound other than the driver port's default; the in-process
/// reference declares `reference_spec` when given (`run --spec`: the same implementation
/// judged by an earlier text).
fn open_port_with_startup(
    ws: &Workspace,
    registry: &Registry,
    port: Option<&str>,
    timeout: Duration,
    startup: Option<Duration>,
    reference_spec: Option<&str>,
) -> (Box<dyn Port>, Option<ResolvedPort>) {
    match port {
        None => {
            let session = match reference_spec {
                Some(spec) => toolnexus_driver::ReferenceSession::declaring(spec),
                None => toolnexus_driver::ReferenceSession::new(),
            };
            (
                Box::new(InProcessPort::new(session).with_timeout(timeout)),
                None,
            )
        }
        Some(name) => {
            let resolved = registry.resolve(name, ws.root(), &this_binary());
            let registered = registry.knows(name);
            // The suite's folder and this binary's path in a driver's stderr are named by
            // placeholders: the report is then the same wherever the suite was unpacked.
            let mut driver = SubprocessPort::new(resolved.command.clone(), timeout);
            if let Ok(exe) = std::env::current_exe() {
                driver = driver.naming(&exe, "{{BIN}}");
            }
            // The SPEC's examples sit beside the suite's folder, not in it.
            let root = ws.root();
            driver = driver.naming(&ws.env().examples, "{{EXAMPLES}}").naming(
                &root.canonicalize().unwrap_or_else(|_| root.into()),
                "{{ROOT}}",
            );
            if let Some(dir) = ws.driver_dir(registered) {
                driver = driver.in_dir(dir);
            }
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
            registry::run_setup(root, name, setup, r.ready_when.as_deref())
        }
        _ => Ok(()),
    }
}

/// The one message for a port whose `hello` failed: the reason (with the driver's stderr
/// tail, which the port error carries) and, when `--port` looks like a name rather than a
/// command and is not registered, the names that are.
fn handshake_failure(name: &str, registry: &Registry, reason: &str) -> String {
    let mut message = format!("port {name:?}: the handshake (hello) failed: {reason}");
    let looks_like_a_name = !name.contains(|c: char| c.is_whitespace() || c == '/');
    if looks_like_a_name && !registry.knows(name) {
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

/// The clause index, its features and the tags tying them, or every load error (a malformed
/// index, a feature that does not parse, a tag naming no clause) as one message.
fn load_clauses(
    ws: &Workspace,
    index: Option<PathBuf>,
) -> Result<(ClauseIndex, Vec<ScenarioSpec>, Ties, String), String> {
    let (index, scenarios, shown) = ws.clauses_at(index)?;
    let ties = tie(&index, &scenarios, &shown);
    if !ties.errors.is_empty() {
        return Err(format!(
            "clause tags naming no clause:\n{}",
            ties.errors.join("\n")
        ));
    }
    Ok((index, scenarios, ties, shown))
}
