//! `clauses`: the clause index against the SPEC texts — `lint` (every normative sentence
//! tracked whole, every scenario's version bounds honest) and `arrivals` (when each clause
//! arrived, from the SPEC history; `--write` stores it in the index).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use toolnexus_harness::reporting::bounds;
use toolnexus_spec::clauses::{self as clause_index, ClauseIndex};
use toolnexus_spec::version::cmp_versions;
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
    /// Check each index against its SPEC text (a quote cut from a sentence whose rest no
    /// clause quotes, a normative sentence in no clause, a clause kept `until` a release
    /// that text lacks) and the scenarios' tags and version bounds against the index that
    /// bounds them (the newest text's). With `--index`/`--spec`, that one pair only. Exits 1
    /// on any finding.
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
    /// The clause index (default: every conformance/clauses/<text>.json for `lint`, the
    /// newest text's for `arrivals`).
    #[arg(long)]
    index: Option<PathBuf>,
    /// The SPEC text the index quotes (default: the text the index is named after, beside
    /// the checkout).
    #[arg(long)]
    spec: Option<PathBuf>,
    /// The SPEC history, one SPEC-<version>.md per release (default: ../shared/spec/history).
    #[arg(long)]
    history: Option<PathBuf>,
}

impl Paths {
    /// The SPEC text to lint `index` against: `--spec`, else the text the index file is
    /// named after.
    fn spec(&self, root: &Path, index: &Path) -> PathBuf {
        self.spec.clone().unwrap_or_else(|| {
            let label = index
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            texts::text_file(root, label)
        })
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
    if paths.index.is_some() || paths.spec.is_some() {
        let file = paths.index.clone().unwrap_or_else(|| ws.index_path());
        let spec = paths.spec(ws.root(), &file);
        return lint_one(ws, paths, &file, &spec);
    }
    // Every indexed text against its own index; tags and bounds with the bounding one.
    let mut code = ExitCode::SUCCESS;
    for label in ws.indexed_texts() {
        let file = clause_index::index_path(ws.root(), &label);
        let spec = texts::text_file(ws.root(), &label);
        if lint_one(ws, paths, &file, &spec) != ExitCode::SUCCESS {
            code = ExitCode::FAILURE;
        }
    }
    code
}

/// Lints the index at `file` against the SPEC text at `spec`: wholeness and retired clauses
/// always; tag ties and version bounds when it is the index that bounds the scenarios.
fn lint_one(ws: &Workspace, paths: &Paths, file: &Path, spec_file: &Path) -> ExitCode {
    let bounding = file == ws.index_path();
    let (index, scenarios, shown) = if bounding {
        match load_clauses(ws, Some(file.to_path_buf())) {
            Ok((index, scenarios, _, shown)) => (index, scenarios, shown),
            Err(e) => return fail(&e),
        }
    } else {
        let shown = ws.shown(file);
        match ClauseIndex::load(file, &shown) {
            Ok(index) => (index, Vec::new(), shown),
            Err(e) => return fail(&e.join("\n")),
        }
    };
    let spec = match std::fs::read_to_string(spec_file) {
        Ok(t) => t,
        Err(e) => return fail(&ws.texts_note(format!("cannot read {}: {e}", spec_file.display()))),
    };
    let findings = wholeness::check(&index, &spec);
    let history = ws.history_at(paths.history.as_deref()).unwrap_or_default();
    let retired = wholeness::check_retired(&index, &history);
    let versions: Vec<String> = history.into_iter().map(|t| t.version).collect();
    let bounds = if bounding {
        bounds::bounds_lint(&index, &scenarios, &versions)
    } else {
        Vec::new()
    };
    for f in &findings {
        println!("{f}");
    }
    for line in retired.iter().chain(&bounds) {
        println!("{line}");
    }
    println!(
        "{shown}: {} wholeness finding(s), {} retired-clause finding(s), {} version-bound finding(s)",
        findings.len(),
        retired.len(),
        bounds.len()
    );
    if findings.is_empty() && retired.is_empty() && bounds.is_empty() {
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
    // An index's arrivals come from the texts up to its own: a later text is not its history.
    let history: Vec<_> = history
        .into_iter()
        .filter(|t| cmp_versions(&t.version, &index.spec) != std::cmp::Ordering::Greater)
        .collect();
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
