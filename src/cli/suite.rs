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
    /// `--root` when given; else the checkout this binary was built from, when the binary is
    /// a development build of it (it runs from inside the checkout, or from a cargo target
    /// folder elsewhere, and `embedded` does not ask to ignore it); else the embedded copy,
    /// unpacked. An installed binary never reads the folder it was built in: `cargo install`
    /// builds in a checkout that another install may change or remove
    /// (`~/.cargo/git/checkouts`), and what judged a port must be what `--version` names.
    pub fn locate(cli_root: Option<PathBuf>, embedded: bool) -> Result<Suite, String> {
        if let Some(root) = cli_root {
            return Ok(Suite::Checkout(root));
        }
        let built_from = Path::new(env!("CARGO_MANIFEST_DIR"));
        if !embedded && is_checkout(built_from) && is_development_build(built_from) {
            return Ok(Suite::Checkout(built_from.to_path_buf()));
        }
        Unpacked::new(state_dir().as_deref()).map(Suite::Embedded)
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

/// Whether the running executable is a development build of the checkout `dir`: it lies
/// under `dir` (its `target/`), or in a cargo target folder elsewhere (`CARGO_TARGET_DIR`),
/// which cargo marks with a `CACHEDIR.TAG` at its top. An installed binary (`~/.cargo/bin`,
/// or copied anywhere) is neither.
fn is_development_build(dir: &Path) -> bool {
    let Ok(exe) = std::env::current_exe().and_then(|e| e.canonicalize()) else {
        return false;
    };
    let inside = dir.canonicalize().is_ok_and(|dir| exe.starts_with(dir));
    // target/debug/deps/NAME is the deepest a cargo build puts a binary.
    inside
        || exe
            .ancestors()
            .skip(1)
            .take(3)
            .any(|d| d.join("CACHEDIR.TAG").is_file())
}

/// Where the embedded suite keeps what outlives one run: the `target/` of its layout, into
/// which port setups write (venvs, driver builds; ports.json keeps them all under
/// `target/`). `$TOOLNEXUS_CONFORMANCE_CACHE` (a relative one taken from the current
/// directory), else `$XDG_CACHE_HOME/toolnexus-conformance`, else
/// `~/.cache/toolnexus-conformance`; a CI job caches this folder. `None` without any of them
/// (nor an absolute `XDG_CACHE_HOME`, which the XDG spec says to ignore when relative): then
/// setups last only as long as the copy, never in a folder others can predict.
pub fn state_dir() -> Option<PathBuf> {
    state_dir_from(&|name| std::env::var_os(name))
}

/// [`state_dir`] with the environment read through `var`.
fn state_dir_from(var: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let non_empty = |name: &str| var(name).filter(|v| !v.is_empty());
    if let Some(dir) = non_empty("TOOLNEXUS_CONFORMANCE_CACHE") {
        return std::path::absolute(PathBuf::from(dir)).ok();
    }
    let cache = non_empty("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .or_else(|| {
            non_empty("HOME")
                .map(PathBuf::from)
                .filter(|home| home.is_absolute())
                .map(|home| home.join(".cache"))
        })?;
    Some(cache.join("toolnexus-conformance"))
}

/// The embedded suite written out into a private temp folder, removed when this is dropped.
pub struct Unpacked {
    /// Removed on drop.
    dir: tempfile::TempDir,
    /// `dir/checkout`: the root the commands read.
    root: PathBuf,
}

impl Unpacked {
    /// Writes every embedded file out into a new folder under the temp directory, with its
    /// `target/` a link to `state` (made when missing) so port setups last between runs; a
    /// plain folder of the copy without one.
    fn new(state: Option<&Path>) -> Result<Unpacked, String> {
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
        let target = unpacked.root.join("target");
        match state.filter(|state| kept_at(state)) {
            Some(state) => {
                std::os::unix::fs::symlink(state, &target).map_err(|e| write_error(&target, &e))?
            }
            None => std::fs::create_dir_all(&target).map_err(|e| write_error(&target, &e))?,
        }
        Ok(unpacked)
    }
}

/// Whether `state` is there to keep setups in, made when missing. A home that cannot be
/// written (a locked-down CI runner) still runs the suite: a note says setups then last only
/// as long as the copy.
fn kept_at(state: &Path) -> bool {
    match std::fs::create_dir_all(state) {
        Ok(()) => true,
        Err(e) => {
            eprintln!(
                "note: port setups are not kept between runs: cannot make {} ({e}); \
                 TOOLNEXUS_CONFORMANCE_CACHE names another folder",
                state.display()
            );
            false
        }
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
    // An empty part (the SPEC's examples, built without them) stays absent, so the scenarios
    // that read it say so instead of reading an empty folder.
    let names = files.names();
    if names.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dest).map_err(|e| write_error(dest, &e))?;
    for name in names {
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

    /// One unpacked copy at a time: [`UNPACKED`] holds one process's copy, and a test checks
    /// it is cleared.
    static ONE_COPY: Mutex<()> = Mutex::new(());

    fn one_copy() -> std::sync::MutexGuard<'static, ()> {
        ONE_COPY.lock().unwrap_or_else(|e| e.into_inner())
    }

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
        let _one = one_copy();
        let state = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let kept = state.path().join("kept");
        let suite = Unpacked::new(Some(&kept))
            .map(Suite::Embedded)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(suite.is_embedded());
        let root = suite.root().to_path_buf();
        // Setups write under target/, which is the state folder: it outlives the copy.
        assert!(kept.is_dir());
        let marker = root.join("target/ports/marker");
        std::fs::create_dir_all(root.join("target/ports")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&marker, "kept").unwrap_or_else(|e| panic!("{e}"));
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
        assert!(
            kept.join("ports/marker").is_file(),
            "the state went with the copy"
        );
        assert!(UNPACKED.lock().is_ok_and(|s| s.is_none()));
    }

    #[test]
    fn a_state_folder_that_cannot_be_made_leaves_setups_in_the_copy() {
        let _one = one_copy();
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("a-file");
        std::fs::write(&file, "").unwrap_or_else(|e| panic!("{e}"));
        assert_setups_stay_in_the_copy(Some(&file.join("state")));
    }

    /// The copy unpacked with `state` has a `target/` of its own, no link.
    fn assert_setups_stay_in_the_copy(state: Option<&Path>) {
        let suite = Unpacked::new(state)
            .map(Suite::Embedded)
            .unwrap_or_else(|e| panic!("{e}"));
        let target = suite.root().join("target");
        assert!(target.is_dir() && !target.is_symlink());
    }

    #[test]
    fn the_state_folder_is_absolute_or_none() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        let cwd = std::env::current_dir().unwrap_or_else(|e| panic!("{e}"));
        let of = |pairs| state_dir_from(&env(pairs));
        assert_eq!(
            of(&[("TOOLNEXUS_CONFORMANCE_CACHE", "rel/cache"), ("HOME", "/h")]),
            Some(cwd.join("rel/cache"))
        );
        assert_eq!(
            of(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")]),
            Some(PathBuf::from("/x/toolnexus-conformance"))
        );
        // A relative XDG_CACHE_HOME is ignored (the XDG spec), an empty one too.
        assert_eq!(
            of(&[("XDG_CACHE_HOME", "x"), ("HOME", "/h")]),
            Some(PathBuf::from("/h/.cache/toolnexus-conformance"))
        );
        assert_eq!(
            of(&[("XDG_CACHE_HOME", ""), ("HOME", "/h")]),
            Some(PathBuf::from("/h/.cache/toolnexus-conformance"))
        );
        // No home at all: no state kept, never a guessable folder under the temp directory.
        assert_eq!(of(&[]), None);
        assert_eq!(of(&[("HOME", "h")]), None);
    }

    #[test]
    fn without_a_state_folder_setups_stay_in_the_copy() {
        let _one = one_copy();
        assert_setups_stay_in_the_copy(None);
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
