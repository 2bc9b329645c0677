//! The subcommands, one module each: its clap arguments beside the function that runs it.
//! What several of them share (the output format, the scenario filter, value parsers, opening
//! a port, the exit code of an error) lives here.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::ValueEnum;

use toolnexus_harness::reporting::bounds;
use toolnexus_harness::reporting::coverage::{tie, Ties};
use toolnexus_harness::run::runner::Selection;
use toolnexus_harness::scenario::features::{self, ScenarioSpec};
use toolnexus_ports::inprocess::InProcessPort;
use toolnexus_ports::port::Port;
use toolnexus_ports::registry::{self, Registry, ResolvedPort};
use toolnexus_ports::subprocess::SubprocessPort;
use toolnexus_spec::clauses::{self as clause_index, ClauseIndex};

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
pub mod supervise;
pub mod validate_trace;

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

/// The checkout to read: `--root`, else the one this binary was built from.
pub fn root(cli_root: Option<PathBuf>) -> PathBuf {
    cli_root.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// Prints `message` on stderr; exit code 2 (the command could not do its work).
pub fn fail(message: &str) -> ExitCode {
    eprintln!("{message}");
    ExitCode::from(2)
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

/// The scenarios under `root`'s features/ that `filter` keeps; an error when features/ is
/// missing, a feature file does not parse or the filter names what does not exist.
fn selected(root: &Path, filter: &Filter) -> Result<Vec<ScenarioSpec>, String> {
    let dir = root.join("features");
    if !dir.is_dir() {
        return Err(format!(
            "{}: no features/ directory; --root (or TOOLNEXUS_CONFORMANCE_ROOT) must be a \
             checkout holding features/, conformance/ and snapshots/",
            root.display()
        ));
    }
    // A root with no clause index (a scratch checkout of features only) keeps the tags' bounds.
    let index_file = clause_index::index_path(root, toolnexus_protocol::SPEC_VERSION);
    let index = index_file
        .exists()
        .then(|| {
            ClauseIndex::load(&index_file, &index_file.display().to_string())
                .map_err(|e| e.join("\n"))
        })
        .transpose()?;
    let scenarios = load_features(root, index.as_ref())?;
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

/// This binary's path, for ports whose driver is this binary (`driver`).
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

/// The scenarios of `root`'s features/, or one message naming every file that does not
/// parse. With the clause index, each scenario holds from the SPEC text that first has every
/// clause it checks (`derive_bounds`), for every command that runs them.
fn load_features(root: &Path, index: Option<&ClauseIndex>) -> Result<Vec<ScenarioSpec>, String> {
    let (mut scenarios, errors) = features::load(&root.join("features"));
    if !errors.is_empty() {
        return Err(format!(
            "feature files that do not parse:\n{}",
            errors.join("\n")
        ));
    }
    if let Some(index) = index {
        bounds::derive_bounds(index, &mut scenarios);
    }
    Ok(scenarios)
}

/// The clause index, its features and the tags tying them, or every load error (a malformed
/// index, a feature that does not parse, a tag naming no clause) as one message.
fn load_clauses(
    root: &Path,
    index: Option<PathBuf>,
) -> Result<(ClauseIndex, Vec<ScenarioSpec>, Ties, String), String> {
    let file =
        index.unwrap_or_else(|| clause_index::index_path(root, toolnexus_protocol::SPEC_VERSION));
    let shown = file
        .strip_prefix(root)
        .unwrap_or(&file)
        .to_string_lossy()
        .to_string();
    let index = ClauseIndex::load(&file, &shown).map_err(|e| e.join("\n"))?;
    let scenarios = load_features(root, Some(&index))?;
    let ties = tie(&index, &scenarios, &shown);
    if !ties.errors.is_empty() {
        return Err(format!(
            "clause tags naming no clause:\n{}",
            ties.errors.join("\n")
        ));
    }
    Ok((index, scenarios, ties, shown))
}
