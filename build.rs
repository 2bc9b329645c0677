//! Rebuilds the CLI when a file of the suite it embeds (src/cli/suite.rs) is added or removed:
//! `rust-embed` makes the build depend on the contents of the files it embedded, not on the
//! folders, so a new scenario file would otherwise be missing from the next build's copy.

use std::path::Path;

/// The folders the binary embeds, as src/cli/suite.rs names them (relative to this crate).
const FOLDERS: [&str; 5] = [
    "features",
    "conformance",
    "snapshots",
    "mock-servers/scenarios",
    "../shared/spec/examples",
];

/// Build outputs, never embedded and so never watched: a port's own build (the Java starter's
/// `target/`, a venv) must not rebuild the harness.
const SKIPPED: [&str; 4] = ["target", ".venv", "node_modules", "__pycache__"];

fn main() {
    for folder in FOLDERS {
        let dir = Path::new(folder);
        // A folder absent here (the SPEC examples outside a checkout) is embedded empty.
        if dir.is_dir() {
            watch(dir);
        } else if folder.ends_with("examples") {
            println!(
                "cargo::warning=no {folder} beside this checkout: the scenarios reading the \
                 SPEC's shared examples will be skipped unless a run gives --examples DIR"
            );
        }
    }
}

/// Watches `dir` whole (Cargo scans a watched folder recursively) unless it holds a build
/// output somewhere; then its other entries one by one.
fn watch(dir: &Path) {
    if !holds_skipped(dir) {
        println!("cargo::rerun-if-changed={}", dir.display());
        return;
    }
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if is_skipped(&path) {
            continue;
        }
        if path.is_dir() {
            watch(&path);
        } else {
            println!("cargo::rerun-if-changed={}", path.display());
        }
    }
}

/// Whether `path` is a build output folder.
fn is_skipped(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| SKIPPED.contains(&n))
}

/// Whether a build output lies anywhere under `dir`.
fn holds_skipped(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let path = e.path();
            is_skipped(&path) || (path.is_dir() && holds_skipped(&path))
        })
}
