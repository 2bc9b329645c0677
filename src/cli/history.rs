//! `history`: the whole suite on each published release of a port, then per changed
//! scenario its outcome per release.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use toolnexus_harness::outcome::model::RunReport;
use toolnexus_harness::reporting::{clause_releases, coverage, history, html};
use toolnexus_harness::run::runner;
use toolnexus_harness::scenario::features::VersionBounds;
use toolnexus_ports::registry;
use toolnexus_spec::version::{cmp_versions, version_key};

use super::workspace::Workspace;
use super::{ensure_set_up, fail, open_port, selection_and_registry, timeout_ms, Filter, Format};

/// The arguments of `history`.
#[derive(clap::Args)]
pub struct HistoryArgs {
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

/// The suite on each release of `--port`, then the release matrix. A release whose setup
/// fails is a column saying so, not the end of the run.
pub async fn run(ws: &Workspace, args: HistoryArgs) -> ExitCode {
    let root = ws.root();
    let HistoryArgs {
        port: family,
        versions,
        format,
        output,
        timeout_ms,
        filter,
    } = args;
    if !registry::RELEASE_FAMILIES.contains(&family.as_str()) {
        return fail(&format!(
            "history: --port must be one of {}",
            registry::RELEASE_FAMILIES.join(", ")
        ));
    }
    if matches!(format, Format::Junit) {
        return fail("history: --format is text or json");
    }
    let wanted = match history::parse_versions(&versions) {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    let published = match &wanted {
        history::Versions::Range(..) => match published_releases(&family) {
            Ok(p) => p,
            Err(e) => return fail(&e),
        },
        history::Versions::List(_) => Vec::new(),
    };
    let releases = match history::expand(&wanted, &published) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let (scenarios, registry) = match selection_and_registry(ws, &filter) {
        Ok(both) => both,
        Err(e) => return fail(&e),
    };
    let env = ws.env();
    let mut runs: Vec<(String, Result<RunReport, String>)> = Vec::new();
    for version in &releases {
        let name = format!("{family}@{version}");
        eprintln!("{name}: running {} scenarios", scenarios.len());
        let (mut driver, resolved) =
            open_port(ws, registry, Some(&name), Duration::from_millis(timeout_ms));
        if let Err(e) = ensure_set_up(root, &name, resolved.as_ref()) {
            eprintln!("{e}");
            runs.push((version.clone(), Err(e)));
            continue;
        }
        // A release whose driver cannot even greet is a column saying so.
        let report =
            match runner::run_or_refuse(driver.as_mut(), &env, &scenarios, &name, &mut |_| true)
                .await
            {
                Ok(mut r) => {
                    r.judged_by = ws.judged_by(r.port_spec.as_deref());
                    r
                }
                Err(e) => {
                    let e = format!("hello failed: {e}");
                    eprintln!("{name}: {e}");
                    runs.push((version.clone(), Err(e)));
                    continue;
                }
            };
        let s = report.summary;
        eprintln!(
            "{name}: {} passed, {} failed, {} skipped",
            s.passed, s.failed, s.skipped
        );
        runs.push((version.clone(), Ok(report)));
    }
    // A release is judged only by the scenarios whose clauses its own SPEC text has.
    let bounds: std::collections::BTreeMap<&str, VersionBounds> = scenarios
        .iter()
        .map(|s| (s.id.as_str(), s.bounds))
        .collect();
    let in_scope = |name: &str, spec: Option<&str>| {
        let version = runner::port_spec(spec).ok();
        bounds
            .get(name)
            .is_some_and(|b| version.is_some_and(|v| b.holds_for(v)))
    };
    let mut h = history::build(&family, &runs, &in_scope);
    if let Ok(Some(index)) = ws.clause_index() {
        let in_history: Vec<String> = ws
            .history()
            .map(|h| h.iter().map(|t| t.version.clone()).collect())
            .unwrap_or_default();
        // The releases are the only witness of the rules newer than the history's last text.
        let last_text = in_history
            .iter()
            .filter(|v| version_key(v).is_some())
            .max_by(|a, b| cmp_versions(a, b));
        if let Some(last_text) = last_text {
            let ties = coverage::tie(index, &scenarios, "the clause index");
            let versions: Vec<String> = h.releases.iter().map(|r| r.version.clone()).collect();
            h.after_history = Some(clause_releases::read(
                &clause_releases::after_history(index, last_text),
                last_text,
                &ties.by_clause,
                &versions,
                &history::scoped_outcomes(&runs, &in_scope),
            ));
        }
        for r in &mut h.releases {
            // A release with a text of its own, or one the index names as an arrival (0.17.0,
            // whose changes only the newest text holds).
            let Some(spec) = r.port_spec.as_deref().filter(|s| {
                in_history.iter().any(|t| t == s)
                    || index
                        .clauses
                        .iter()
                        .any(|c| c.arrived.as_deref() == Some(*s))
            }) else {
                continue;
            };
            r.arrived = Some(
                index
                    .clauses
                    .iter()
                    .filter(|c| c.arrived.as_deref() == Some(spec))
                    .map(|c| c.id.clone())
                    .collect(),
            );
        }
    }
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&h).unwrap_or_default()),
        _ => print!("{}", history::text(&h)),
    }
    if let Some(file) = output.as_deref() {
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
