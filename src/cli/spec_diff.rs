//! `spec-diff OLD NEW`: two SPEC texts compared clause by clause, with the scenarios and
//! snapshots to review.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use toolnexus_harness::reporting::spec_diff;

use super::workspace::Workspace;
use super::{fail, load_clauses, Format};

/// The arguments of `spec-diff`.
#[derive(clap::Args)]
pub struct SpecDiffArgs {
    /// The SPEC.md the clause index quotes.
    old: PathBuf,
    /// The new SPEC.md.
    new: PathBuf,
    /// Output format (text or json).
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The clause index (default: the newest text's, conformance/clauses/main-after-0.17.0.json,
    /// which keeps the clauses it changed until their last release).
    #[arg(long)]
    index: Option<PathBuf>,
}

/// Prints the diff; exit 1 when there is something to review.
pub fn run(ws: &Workspace, args: SpecDiffArgs) -> ExitCode {
    let SpecDiffArgs {
        old,
        new,
        format,
        index,
    } = args;
    if matches!(format, Format::Junit) {
        return fail("spec-diff: --format is text or json");
    }
    let read = |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
    };
    let (old_text, new_text) = match (read(&old), read(&new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return fail(&e),
    };
    let (index, scenarios, ties, shown) = match load_clauses(ws, index) {
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
