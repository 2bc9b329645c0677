//! The checkout one command reads, opened once in `main` and handed to the command: its
//! root, and each part of it (the port registry, the pinned clause index, the features, the
//! SPEC history) loaded at most once, on first use. A command that needs a part twice (`run`
//! selects from the features and reads the whole suite again for stale expected-failures
//! entries; `coverage --port` ties clauses and opens a port) reads it once, and every
//! complaint about a checkout that is not one is worded here. Where the checkout comes from
//! (a folder on disk, or the suite embedded in the binary) is the [`Suite`]'s business.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use toolnexus_harness::reporting::bounds;
use toolnexus_harness::run::runner;
use toolnexus_harness::scenario::features::{self, ScenarioSpec};
use toolnexus_harness::scenario::state::Env;
use toolnexus_ports::registry::Registry;
use toolnexus_spec::clauses::{self as clause_index, ClauseIndex};
use toolnexus_spec::texts::{self, SpecText};
use toolnexus_spec::version::{after_release, cmp_versions, version_key};

use super::suite::Suite;

/// A checkout: `--root`, else the one this binary was built from, else the embedded suite.
pub struct Workspace {
    suite: Suite,
    /// `--examples`: the SPEC's shared examples somewhere else than beside the checkout.
    examples: Option<PathBuf>,
    registry: OnceCell<Result<Registry, String>>,
    index: OnceCell<Result<Option<ClauseIndex>, String>>,
    features: OnceCell<Result<Vec<ScenarioSpec>, String>>,
    history: OnceCell<Result<Vec<SpecText>, String>>,
}

impl Workspace {
    /// The checkout at `cli_root`, else the one this binary was built from, else (or with
    /// `embedded`) the suite embedded in the binary, written out (`Suite::locate`); nothing
    /// else is read until a command asks for it.
    pub fn open(cli_root: Option<PathBuf>, embedded: bool) -> Result<Workspace, String> {
        Suite::locate(cli_root, embedded).map(Workspace::of)
    }

    /// The workspace of `suite`.
    fn of(suite: Suite) -> Workspace {
        Workspace {
            suite,
            examples: None,
            registry: OnceCell::new(),
            index: OnceCell::new(),
            features: OnceCell::new(),
            history: OnceCell::new(),
        }
    }

    /// The same, reading the SPEC's shared examples (`{{EXAMPLES}}`) from `dir` when given.
    pub fn with_examples(mut self, dir: Option<PathBuf>) -> Workspace {
        self.examples = dir;
        self
    }

    /// The checkout's directory.
    pub fn root(&self) -> &Path {
        self.suite.root()
    }

    /// Whether the suite read is the copy embedded in the binary.
    pub fn is_embedded(&self) -> bool {
        self.suite.is_embedded()
    }

    /// Where a driver runs: the root for a registered port (its command names files there)
    /// and, in a checkout, for a command given on the command line too; with the embedded
    /// suite, whose root is a private temp folder, such a command runs where the harness was
    /// started (`None`: the harness's own directory), so `--port "python3 driver.py"` works
    /// from the port's repository.
    pub fn driver_dir(&self, registered: bool) -> Option<&Path> {
        (registered || !self.is_embedded()).then(|| self.root())
    }

    /// `message` (a SPEC text that cannot be read), with the reason when the suite is the
    /// embedded one: the SPEC texts are not in the binary, so a path must be given.
    pub fn texts_note(&self, message: String) -> String {
        if self.is_embedded() {
            format!(
                "{message}\nthe SPEC texts are not embedded in this binary: give their paths \
                 (--spec, --history), or --root a checkout with ../shared/spec beside it"
            )
        } else {
            message
        }
    }

    /// Where a scenario's inputs live in this checkout (fixtures, examples, mock scenarios).
    pub fn env(&self) -> Env {
        let mut env = Env::from_root(self.root());
        if let Some(dir) = &self.examples {
            env.examples = dir.canonicalize().unwrap_or_else(|_| dir.clone());
        }
        env
    }

    /// `conformance/ports.json` (none registered when the file is absent).
    pub fn registry(&self) -> Result<&Registry, String> {
        cached(&self.registry, || Registry::load(self.root()))
    }

    /// Where the clause index that bounds the scenarios lives: the newest text's
    /// (`texts::NEWEST`), which keeps the clauses it changed `until` their last release,
    /// when the checkout has it; else the pinned SPEC's.
    pub fn index_path(&self) -> PathBuf {
        let newest = clause_index::index_path(self.root(), texts::NEWEST);
        if newest.is_file() {
            newest
        } else {
            self.pinned_index_path()
        }
    }

    /// Where the pinned SPEC's clause index lives.
    pub fn pinned_index_path(&self) -> PathBuf {
        clause_index::index_path(self.root(), toolnexus_protocol::SPEC_VERSION)
    }

    /// The labels of the SPEC texts this checkout has a clause index for
    /// (`conformance/clauses/<label>.json`), oldest first.
    pub fn indexed_texts(&self) -> Vec<String> {
        let mut labels: Vec<String> = std::fs::read_dir(self.root().join("conformance/clauses"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_str()?.strip_suffix(".json")?.to_string();
                let is_text = version_key(&name).is_some() || after_release(&name).is_some();
                is_text.then_some(name)
            })
            .collect();
        labels.sort_by(|a, b| cmp_versions(a, b));
        labels
    }

    /// The SPEC text a port declaring `declared` is judged by (`texts::judged_by` over the
    /// indexed texts); `None` when the declaration is no SPEC version or nothing is indexed.
    pub fn judged_by(&self, declared: Option<&str>) -> Option<String> {
        let version = runner::port_spec(declared).ok()?;
        texts::judged_by(&self.indexed_texts(), version).map(str::to_string)
    }

    /// The clause index that bounds the scenarios ([`Self::index_path`]); `None` for a root
    /// without one (a scratch checkout of features only, whose scenarios keep their tags'
    /// bounds).
    pub fn clause_index(&self) -> Result<Option<&ClauseIndex>, String> {
        let loaded = self.index.get_or_init(|| {
            let file = self.index_path();
            file.exists()
                .then(|| ClauseIndex::load(&file, &self.shown(&file)).map_err(|e| e.join("\n")))
                .transpose()
        });
        loaded.as_ref().map(Option::as_ref).map_err(Clone::clone)
    }

    /// Every scenario of `features/`, each holding from the SPEC text that first has every
    /// clause it checks (`derive_bounds`, with the pinned clause index when there is one); an
    /// error when `features/` is missing or a feature file does not parse.
    pub fn features(&self) -> Result<&[ScenarioSpec], String> {
        let loaded = self.features.get_or_init(|| {
            let dir = self.root().join("features");
            if !dir.is_dir() {
                return Err(self.not_a_checkout("no features/ directory"));
            }
            let index = self.clause_index()?;
            load_features(&dir, index)
        });
        loaded.as_deref().map_err(Clone::clone)
    }

    /// The SPEC texts beside the checkout, oldest first: the history
    /// (`../shared/spec/history`), then the newest text when it is there (`texts::load_all`).
    pub fn history(&self) -> Result<&[SpecText], String> {
        let loaded = self.history.get_or_init(|| {
            texts::load_all(self.root(), &texts::history_dir(self.root()))
                .map_err(|e| self.texts_note(e))
        });
        loaded.as_deref().map_err(Clone::clone)
    }

    /// The history texts in `dir` when one is given (read afresh: another history than the
    /// checkout's), else the checkout's own.
    pub fn history_at(&self, dir: Option<&Path>) -> Result<Vec<SpecText>, String> {
        match dir {
            Some(dir) => texts::load_history(dir),
            None => self.history().map(<[SpecText]>::to_vec),
        }
    }

    /// The clause index at `file` (the pinned one when `None`), the scenarios bound by it,
    /// and its name as reports show it (relative to the root when inside it).
    pub fn clauses_at(
        &self,
        file: Option<PathBuf>,
    ) -> Result<(ClauseIndex, Vec<ScenarioSpec>, String), String> {
        let file = file.unwrap_or_else(|| self.index_path());
        let shown = self.shown(&file);
        if file == self.index_path() {
            // The pinned index is the one the features were bounded by: read both once.
            let index = match self.clause_index()? {
                Some(index) => index.clone(),
                None => ClauseIndex::load(&file, &shown).map_err(|e| e.join("\n"))?,
            };
            return Ok((index, self.features()?.to_vec(), shown));
        }
        let index = ClauseIndex::load(&file, &shown).map_err(|e| e.join("\n"))?;
        let dir = self.root().join("features");
        let scenarios = load_features(&dir, Some(&index))?;
        Ok((index, scenarios, shown))
    }

    /// `file` as reports name it: relative to the root when it is inside it.
    pub fn shown(&self, file: &Path) -> String {
        file.strip_prefix(self.root())
            .unwrap_or(file)
            .to_string_lossy()
            .to_string()
    }

    /// The one message for a root that lacks what a command reads.
    fn not_a_checkout(&self, what: &str) -> String {
        format!(
            "{}: {what}; --root (or TOOLNEXUS_CONFORMANCE_ROOT) must be a checkout holding \
             features/, conformance/ and snapshots/",
            self.root().display()
        )
    }
}

/// The value in `cell`, loading it with `load` on first use; an error stays the answer.
fn cached<T>(
    cell: &OnceCell<Result<T, String>>,
    load: impl FnOnce() -> Result<T, String>,
) -> Result<&T, String> {
    cell.get_or_init(load).as_ref().map_err(Clone::clone)
}

/// The scenarios of `dir`, or one message naming every file that does not parse, bounded by
/// `index` when there is one.
fn load_features(dir: &Path, index: Option<&ClauseIndex>) -> Result<Vec<ScenarioSpec>, String> {
    let (mut scenarios, errors) = features::load(dir);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_is_read_once() {
        let ws = Workspace::open(None, false).unwrap_or_else(|e| panic!("{e}"));
        let features = ws.features().map(<[ScenarioSpec]>::as_ptr);
        assert!(features.is_ok(), "{features:?}");
        assert_eq!(features, ws.features().map(<[ScenarioSpec]>::as_ptr));
        let registry = ws.registry().map(std::ptr::from_ref);
        assert_eq!(registry, ws.registry().map(std::ptr::from_ref));
        assert!(matches!(ws.clause_index(), Ok(Some(_))));
        // The pinned index's scenarios are the features read once, not read again.
        let (_, scenarios, shown) = ws.clauses_at(None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(scenarios.len(), ws.features().map_or(0, <[_]>::len));
        assert!(shown.starts_with("conformance/clauses/"), "{shown}");
    }

    #[test]
    fn a_root_without_features_is_one_message() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let ws = Workspace::open(Some(dir.path().to_path_buf()), false)
            .unwrap_or_else(|e| panic!("{e}"));
        let e = ws.features().map(<[_]>::len).unwrap_err();
        assert!(e.contains("no features/ directory"), "{e}");
        assert!(e.contains("--root (or TOOLNEXUS_CONFORMANCE_ROOT)"), "{e}");
        assert_eq!(ws.features().map(<[_]>::len).unwrap_err(), e);
        // A root with no ports.json registers none (a scratch checkout of features only).
        assert!(ws.registry().is_ok_and(|r| r.names().is_empty()));
    }
}
