//! Where the suite a command reads comes from: a checkout on disk, or the copy embedded in
//! this binary (issue 50), so a port's CI needs the binary and nothing else.
//!
//! The embedded copy is written out once per process into a private temp folder laid out as a
//! checkout (`checkout/features`, `checkout/conformance`, … and `shared/spec/examples` beside
//! it, as `../shared` sits beside a checkout), because drivers, mock servers and fixtures are
//! given paths: a registered driver runs in the root (`python3 conformance/ports/starter/
//! driver.py`), and `{{FIXTURES}}`, `{{MOCKS}}` and `{{EXAMPLES}}` expand to folders. The
//! folder goes when the suite is dropped (every command returns through `main`, signals
//! included: `supervise`), and on the one path that exits without returning (a closed
//! stdout, `main`'s panic hook) through [`remove_unpacked`].

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rust_embed::{DynRustEmbed, RustEmbed};

/// `features/`: the scenarios (feature files only; STEPS.md is documentation).
#[derive(RustEmbed)]
#[folder = "features"]
#[include = "**/*.feature"]
struct Features;

/// `conformance/`: ports.json, the clause indexes, the protocol schema, fixtures, the
/// starters and kits; never a build output, nor the prose of NOTES.md, DIVERGENCES.md,
/// PROTOCOL.md and serve-bite-check.md (no command reads them).
#[derive(RustEmbed)]
#[folder = "conformance"]
#[exclude = "**/target/**"]
#[exclude = "**/.venv/**"]
#[exclude = "**/node_modules/**"]
#[exclude = "**/__pycache__/**"]
#[exclude = "**/*.pyc"]
#[exclude = "NOTES.md"]
#[exclude = "DIVERGENCES.md"]
#[exclude = "PROTOCOL.md"]
#[exclude = "serve-bite-check.md"]
struct Conformance;

/// `snapshots/`: the stored answers scenarios compare with.
#[derive(RustEmbed)]
#[folder = "snapshots"]
struct Snapshots;

/// `mock-servers/scenarios/`: the mock servers' scripts (`{{MOCKS}}`).
#[derive(RustEmbed)]
#[folder = "mock-servers/scenarios"]
struct MockScenarios;

/// The SPEC's examples beside the checkout (`{{EXAMPLES}}`: the shared agent fixtures);
/// empty when the binary was built where they are not.
#[derive(RustEmbed)]
#[folder = "../shared/spec/examples"]
#[allow_missing = true]
struct Examples;

/// Each embedded folder and where it goes in the unpacked layout.
fn parts() -> [(&'static str, &'static dyn DynRustEmbed); 5] {
    [
        ("checkout/features", &Features),
        ("checkout/conformance", &Conformance),
        ("checkout/snapshots", &Snapshots),
        ("checkout/mock-servers/scenarios", &MockScenarios),
        ("shared/spec/examples", &Examples),
    ]
}

/// The unpacked copy's folder while it exists, for [`remove_unpacked`].
static UNPACKED: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Where the suite comes from.
pub enum Suite {
    /// A checkout on disk: `--root`, or the one this binary was built from.
    Checkout(PathBuf),
    /// The copy embedded in this binary, written out for this process.
    Embedded(Unpacked),
}

impl Suite {
    /// `--root` when given; else the checkout this binary was built from when it is still
    /// there (and `embedded` does not ask to ignore it); else the embedded copy, unpacked.
    pub fn locate(cli_root: Option<PathBuf>, embedded: bool) -> Result<Suite, String> {
        if let Some(root) = cli_root {
            return Ok(Suite::Checkout(root));
        }
        let built_from = Path::new(env!("CARGO_MANIFEST_DIR"));
        if !embedded && is_checkout(built_from) {
            return Ok(Suite::Checkout(built_from.to_path_buf()));
        }
        Unpacked::new().map(Suite::Embedded)
    }

    /// The folder the commands read as the checkout's root.
    pub fn root(&self) -> &Path {
        match self {
            Suite::Checkout(root) => root,
            Suite::Embedded(unpacked) => &unpacked.root,
        }
    }

    /// Whether this is the embedded copy.
    pub fn is_embedded(&self) -> bool {
        matches!(self, Suite::Embedded(_))
    }
}

/// Whether `dir` holds a suite to read (what a checkout has and a binary's folder has not).
fn is_checkout(dir: &Path) -> bool {
    dir.join("features").is_dir() && dir.join("conformance").is_dir()
}

/// The embedded suite written out into a private temp folder, removed when this is dropped.
pub struct Unpacked {
    /// Removed on drop.
    dir: tempfile::TempDir,
    /// `dir/checkout`: the root the commands read.
    root: PathBuf,
}

impl Unpacked {
    /// Writes every embedded file out into a new folder under the temp directory.
    fn new() -> Result<Unpacked, String> {
        let dir = tempfile::Builder::new()
            .prefix("toolnexus-suite-")
            .tempdir()
            .map_err(|e| format!("cannot make a folder for the embedded suite: {e}"))?;
        if let Ok(mut slot) = UNPACKED.lock() {
            *slot = Some(dir.path().to_path_buf());
        }
        let unpacked = Unpacked {
            root: dir.path().join("checkout"),
            dir,
        };
        for (place, files) in parts() {
            write_out(files, &unpacked.dir.path().join(place))?;
        }
        Ok(unpacked)
    }
}

impl Drop for Unpacked {
    fn drop(&mut self) {
        if let Ok(mut slot) = UNPACKED.lock() {
            *slot = None;
        }
    }
}

/// Writes `files` under `dest`; a file that starts with `#!` is made executable, as the
/// scripts the registry and the starters run are in the checkout (the embedding keeps no
/// file modes).
fn write_out(files: &dyn DynRustEmbed, dest: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dest).map_err(|e| write_error(dest, &e))?;
    for name in files.names() {
        let Some(file) = files.get(&name) else {
            continue;
        };
        let path = dest.join(name.as_ref());
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| write_error(parent, &e))?;
        }
        std::fs::write(&path, &file.data).map_err(|e| write_error(&path, &e))?;
        if file.data.starts_with(b"#!") {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| write_error(&path, &e))?;
        }
    }
    Ok(())
}

/// The one message for a file of the embedded suite that cannot be written out.
fn write_error(path: &Path, e: &std::io::Error) -> String {
    format!(
        "cannot write the embedded suite out to {}: {e}",
        path.display()
    )
}

/// Removes the unpacked copy, if any: for the exit that skips destructors (`main`'s panic
/// hook on a closed stdout).
pub fn remove_unpacked() {
    let dir = UNPACKED.lock().ok().and_then(|mut slot| slot.take());
    if let Some(dir) = dir {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of the checkout's features/ that ends in .feature, counted on disk.
    fn features_on_disk() -> usize {
        walkdir::WalkDir::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("features"))
            .into_iter()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "feature"))
            .count()
    }

    #[test]
    fn the_embedded_copy_is_laid_out_as_a_checkout_and_goes_when_dropped() {
        let suite = Suite::locate(None, true).unwrap_or_else(|e| panic!("{e}"));
        assert!(suite.is_embedded());
        let root = suite.root().to_path_buf();
        assert!(is_checkout(&root), "{}", root.display());
        assert!(root.join("conformance/ports.json").is_file());
        assert!(root.join("conformance/protocol.schema.json").is_file());
        // The starter the registry runs relative to the root, executable as in git.
        let driver = root.join("conformance/ports/starter/driver.py");
        let mode = std::fs::metadata(&driver).map(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.permissions().mode()
        });
        assert!(mode.as_ref().is_ok_and(|m| m & 0o100 != 0), "{mode:?}");
        // Prose no command reads stays out.
        assert!(!root.join("conformance/NOTES.md").exists());
        assert_eq!(Features.names().len(), features_on_disk());
        drop(suite);
        assert!(!root.exists(), "{} was left behind", root.display());
        assert!(UNPACKED.lock().is_ok_and(|s| s.is_none()));
    }

    #[test]
    fn a_root_given_or_the_built_checkout_is_read_in_place() {
        let given = Suite::locate(Some(PathBuf::from("/nowhere")), true);
        assert!(given.is_ok_and(|s| s.root() == Path::new("/nowhere")));
        let built = Suite::locate(None, false).unwrap_or_else(|e| panic!("{e}"));
        assert!(!built.is_embedded());
        assert_eq!(built.root(), Path::new(env!("CARGO_MANIFEST_DIR")));
    }
}
