//! `clauses`: the clause index against the SPEC texts — `lint` (every normative sentence
//! tracked whole, every scenario's version bounds honest) and `arrivals` (when each clause
//! arrived, from the SPEC history; `--write` stores it in the index).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use toolnexus_harness::reporting::bounds;
use toolnexus_spec::clauses::ClauseIndex;
use toolnexus_spec::{arrival, texts, wholeness};

use super::workspace::Workspace;
use super::{fail, load_clauses};

/// The arguments of `clauses`.
#[derive(clap::Args)]
pub struct ClausesArgs {
    #[command(subcommand)]
    action: Action,
}

/// What `clauses` does.
#[derive(clap::Subcommand)]
enum Action {
    /// Check the index against the pinned SPEC (a quote cut from a sentence whose rest no
    /// clause quotes, a normative sentence in no clause) and the scenarios' version bounds
    /// against the clauses' arrivals. Exits 1 on any finding.
    Lint(Paths),
    /// Compute each clause's arrival from the SPEC history and compare it with the stored
    /// one; `--write` stores it. Exits 1 when a stored value is stale (without `--write`).
    Arrivals {
        #[command(flatten)]
        paths: Paths,
        /// Store the computed arrivals in the index.
        #[arg(long)]
        write: bool,
    },
}

/// Where the index and the SPEC texts are.
#[derive(clap::Args)]
struct Paths {
    /// The clause index (default: conformance/clauses/<pinned SPEC>.json).
    #[arg(long)]
    index: Option<PathBuf>,
    /// The SPEC text the index quotes (default: ../shared/spec/SPEC.md beside the checkout).
    #[arg(long)]
    spec: Option<PathBuf>,
    /// The SPEC history, one SPEC-<version>.md per release (default: ../shared/spec/history).
    #[arg(long)]
    history: Option<PathBuf>,
}

impl Paths {
    fn spec(&self, root: &Path) -> PathBuf {
        self.spec
            .clone()
            .unwrap_or_else(|| texts::pinned_spec_file(root))
    }
}

/// Runs `clauses lint` or `clauses arrivals`.
pub fn run(ws: &Workspace, args: ClausesArgs) -> ExitCode {
    match args.action {
        Action::Lint(paths) => lint(ws, &paths),
        Action::Arrivals { paths, write } => arrivals(ws, &paths, write),
    }
}

fn lint(ws: &Workspace, paths: &Paths) -> ExitCode {
    let root = ws.root();
    let (index, scenarios, _, shown) = match load_clauses(ws, paths.index.clone()) {
        Ok(loaded) => loaded,
        Err(e) => return fail(&e),
    };
    let spec_file = paths.spec(root);
    let spec = match std::fs::read_to_string(&spec_file) {
        Ok(t) => t,
        Err(e) => return fail(&format!("cannot read {}: {e}", spec_file.display())),
    };
    let findings = wholeness::check(&index, &spec);
    let history = ws
        .history_at(paths.history.as_deref())
        .map(|h| h.into_iter().map(|t| t.version).collect::<Vec<_>>())
        .unwrap_or_default();
    let bounds = bounds::bounds_lint(&index, &scenarios, &history);
    for f in &findings {
        println!("{f}");
    }
    for b in &bounds {
        println!("{b}");
    }
    println!(
        "{shown}: {} wholeness finding(s), {} version-bound finding(s)",
        findings.len(),
        bounds.len()
    );
    if findings.is_empty() && bounds.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn arrivals(ws: &Workspace, paths: &Paths, write: bool) -> ExitCode {
    // Read afresh, not from the workspace: this index may be rewritten below.
    let file = paths.index.clone().unwrap_or_else(|| ws.index_path());
    let shown = ws.shown(&file);
    let mut index = match ClauseIndex::load(&file, &shown) {
        Ok(i) => i,
        Err(e) => return fail(&e.join("\n")),
    };
    let history = match ws.history_at(paths.history.as_deref()) {
        Ok(h) => h,
        Err(e) => return fail(&e),
    };
    let computed = arrival::compute(&index, &history);
    let versions: Vec<String> = history.iter().map(|h| h.version.clone()).collect();
    let mut stale = Vec::new();
    if write {
        let changed = arrival::apply(&mut index, &computed);
        let text = match serde_json::to_string_pretty(&index) {
            Ok(t) => t + "\n",
            Err(e) => return fail(&format!("cannot write the index: {e}")),
        };
        if let Err(e) = std::fs::write(&file, text) {
            return fail(&format!("cannot write {}: {e}", file.display()));
        }
        println!("{shown}: {changed} clause arrival(s) written");
    } else {
        stale = arrival::stale(&index, &computed);
        for s in &stale {
            println!("stale: {s}");
        }
    }
    let mut per: Vec<(String, usize)> = versions.iter().map(|v| (v.clone(), 0)).collect();
    for a in &computed {
        if let Some(row) = per
            .iter_mut()
            .find(|(v, _)| Some(v.as_str()) == a.arrived.as_deref())
        {
            row.1 += 1;
        }
    }
    println!("clauses arriving per release ({} clauses):", computed.len());
    for (v, n) in &per {
        println!("  {v:<8} {n:>4}");
    }
    let never = computed.iter().filter(|a| a.arrived.is_none()).count();
    if never > 0 {
        println!("  {never} clause(s) in no history text");
    }
    if !stale.is_empty() {
        println!(
            "{} stale; `clauses arrivals --write` stores them",
            stale.len()
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
