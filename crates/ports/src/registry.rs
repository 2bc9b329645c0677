//! `conformance/ports.json`: known ports by name, with their setup and driver commands; and
//! release ports `python@VERSION` / `rust-crate@VERSION`, each set up in its own directory
//! under `target/ports/` (a `NAME@VERSION` entry in ports.json adds to, e.g. its
//! expected-failures file, but keeps the versioned setup and driver).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One registered port.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PortEntry {
    /// What the port is.
    #[serde(default)]
    pub description: String,
    /// Implementation language.
    #[serde(default)]
    pub language: String,
    /// A command that prepares the port once per machine (venv, build).
    #[serde(default)]
    pub setup: Option<String>,
    /// The driver command (run in the repository root; `{{BIN}}` is this harness); empty
    /// for a `NAME@VERSION` entry, whose driver is the release port's.
    #[serde(default)]
    pub driver: String,
    /// The port's expected-failures file, relative to the repository root.
    #[serde(default)]
    pub expected_failures: Option<String>,
    /// A file, relative to the repository root, whose existence means the setup has
    /// finished: `run` runs the setup first when it is missing.
    #[serde(default)]
    pub ready: Option<String>,
}

/// A port to drive: a registered name or a raw driver command.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedPort {
    /// The registered name, or the command itself.
    pub name: String,
    /// The command to start the driver.
    pub command: String,
    /// The setup command, for registered ports.
    pub setup: Option<String>,
    /// The expected-failures file, for registered ports that have one.
    pub expected_failures: Option<PathBuf>,
    /// For a release port, or an entry naming one: the file whose existence means its
    /// setup has finished.
    pub ready_when: Option<PathBuf>,
}

impl ResolvedPort {
    /// Whether the port needs its setup before it can run: one with a readiness file that
    /// is not there yet.
    pub fn needs_setup(&self) -> bool {
        self.ready_when.as_ref().is_some_and(|p| !p.exists())
    }
}

/// The families of release ports (`FAMILY@VERSION`).
pub const RELEASE_FAMILIES: [&str; 2] = ["python", "rust-crate"];

/// A release port spec split into its family and version, e.g. `python@0.16.0`; `None` when
/// `name` is not one (unknown family, or a version with characters a shell would interpret).
pub fn release_spec(name: &str) -> Option<(&str, &str)> {
    let (family, version) = name.split_once('@')?;
    let version_ok = !version.is_empty()
        && version.starts_with(|c: char| c.is_ascii_digit())
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'));
    (RELEASE_FAMILIES.contains(&family) && version_ok).then_some((family, version))
}

/// The setup command, driver command and readiness file of release `version` of `family`,
/// relative to the repository root (the conventions: `target/ports/python-VERSION/venv`,
/// `target/ports/rust-crate-VERSION/`).
fn release_commands(family: &str, version: &str) -> (String, String, PathBuf) {
    let dir = format!("target/ports/{family}-{version}");
    if family == "python" {
        (
            format!("bash conformance/ports/python/setup.sh {version} {dir}/venv"),
            format!("{dir}/venv/bin/python conformance/ports/python/driver.py"),
            // setup.sh writes this last: a venv cut short mid-install is not "set up".
            PathBuf::from(format!("{dir}/venv/.toolnexus-ready")),
        )
    } else {
        let bin = format!("{dir}/target/release/toolnexus-driver-rust-crate");
        (
            format!("bash conformance/ports/rust-crate/setup.sh {version} {dir}"),
            bin.clone(),
            PathBuf::from(bin),
        )
    }
}

/// The registry file's contents.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    entries: BTreeMap<String, PortEntry>,
}

impl Registry {
    /// Reads `conformance/ports.json` under `root`; a missing file is an empty registry.
    pub fn load(root: &Path) -> Result<Registry, String> {
        let path = root.join("conformance").join("ports.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Registry::default()),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        let raw: BTreeMap<String, serde_json::Value> = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not valid: {e}", path.display()))?;
        let mut entries = BTreeMap::new();
        for (name, value) in raw.into_iter().filter(|(k, _)| !k.starts_with('$')) {
            let entry: PortEntry = serde_json::from_value(value)
                .map_err(|e| format!("{}: port \"{name}\": {e}", path.display()))?;
            entries.insert(name, entry);
        }
        Ok(Registry { entries })
    }

    /// The registered names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.entries.keys().cloned().collect()
    }

    /// One entry.
    pub fn get(&self, name: &str) -> Option<&PortEntry> {
        self.entries.get(name)
    }

    /// Whether `name` names a port rather than a driver command: registered in ports.json, or
    /// a release (`FAMILY@VERSION`).
    pub fn knows(&self, name: &str) -> bool {
        self.entries.contains_key(name) || release_spec(name).is_some()
    }

    /// A registered name becomes its driver command (with `{{BIN}}` = `bin`); a release spec
    /// `python@VERSION` / `rust-crate@VERSION` becomes that release's driver (with the
    /// expected-failures file of its own ports.json entry, if it has one, and none otherwise);
    /// anything else is taken as a driver command as given.
    pub fn resolve(&self, name_or_command: &str, root: &Path, bin: &str) -> ResolvedPort {
        let entry = self.entries.get(name_or_command);
        let expected_failures = entry
            .and_then(|e| e.expected_failures.as_ref())
            .map(|f| root.join(f));
        if let Some((family, version)) = release_spec(name_or_command) {
            let (setup, command, ready) = release_commands(family, version);
            return ResolvedPort {
                name: name_or_command.to_string(),
                command,
                setup: Some(setup),
                expected_failures,
                ready_when: Some(root.join(ready)),
            };
        }
        match entry {
            Some(entry) => ResolvedPort {
                name: name_or_command.to_string(),
                command: entry.driver.replace("{{BIN}}", bin),
                setup: entry.setup.clone(),
                expected_failures,
                ready_when: entry.ready.as_ref().map(|r| root.join(r)),
            },
            None => ResolvedPort {
                name: name_or_command.to_string(),
                command: name_or_command.to_string(),
                setup: None,
                expected_failures: None,
                ready_when: None,
            },
        }
    }
}

/// Runs a port's setup command in `root`, one setup at a time per state folder
/// ([`crate::setup_lock`]); with `unless_ready`, not when that file exists once the lock is
/// held (another run set the port up meanwhile). Its stderr is passed through as it comes and
/// its last line (the scripts end with their reason) goes into the error when it fails.
pub fn run_setup(
    root: &Path,
    name: &str,
    setup: &str,
    unless_ready: Option<&Path>,
) -> Result<(), String> {
    use std::io::BufRead;
    let _one_at_a_time = crate::setup_lock::acquire(root, name)?;
    if unless_ready.is_some_and(Path::exists) {
        eprintln!("{name}: set up meanwhile by another run");
        return Ok(());
    }
    let child = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(setup)
        .current_dir(root)
        .stdout(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Err(format!("{name}: cannot run setup `{setup}`: {e}")),
    };
    let mut reason = String::new();
    if let Some(stderr) = child.stderr.take() {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            eprintln!("{line}");
            if line.starts_with("setup.sh") {
                reason = line;
            }
        }
    }
    match child.wait() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) if reason.is_empty() => Err(format!("{name}: setup failed ({s}): `{setup}`")),
        Ok(_) => Err(format!("{name}: {reason}")),
        Err(e) => Err(format!("{name}: setup did not finish: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_registry_resolves_its_ports() {
        let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let reg = match Registry::load(root) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        assert!(reg.names().contains(&"python".to_string()));
        let r = reg.resolve("reference", root, "/x/bin");
        assert_eq!(r.command, "/x/bin driver");
        let raw = reg.resolve("python3 my_driver.py", root, "/x/bin");
        assert_eq!(raw.command, "python3 my_driver.py");
        assert!(raw.expected_failures.is_none());
    }

    #[test]
    fn a_registered_port_with_a_ready_file_is_set_up_until_it_exists() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let conformance = dir.path().join("conformance");
        std::fs::create_dir(&conformance).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            conformance.join("ports.json"),
            r#"{"p": {"setup": "sh setup.sh", "ready": "target/p/.ready", "driver": "target/p/bin"},
                "q": {"setup": "sh setup.sh", "driver": "q"}}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let reg = Registry::load(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let p = reg.resolve("p", dir.path(), "/x/bin");
        assert_eq!(p.ready_when, Some(dir.path().join("target/p/.ready")));
        assert!(p.needs_setup());
        std::fs::create_dir_all(dir.path().join("target/p")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("target/p/.ready"), "").unwrap_or_else(|e| panic!("{e}"));
        assert!(!p.needs_setup());
        // Without `ready`, only `setup` runs it.
        assert!(!reg.resolve("q", dir.path(), "/x/bin").needs_setup());
    }

    #[test]
    fn release_specs_name_a_family_and_a_plain_version() {
        assert_eq!(release_spec("python@0.16.0"), Some(("python", "0.16.0")));
        assert_eq!(
            release_spec("rust-crate@0.23.0"),
            Some(("rust-crate", "0.23.0"))
        );
        assert_eq!(release_spec("python"), None);
        assert_eq!(release_spec("ruby@1.0.0"), None);
        assert_eq!(release_spec("python@"), None);
        assert_eq!(release_spec("python@0.16.0;rm -rf x"), None);
        assert_eq!(release_spec("python@$(id)"), None);
    }

    #[test]
    fn a_python_release_gets_its_own_venv_setup_and_driver() {
        let root = Path::new("/repo");
        let r = Registry::default().resolve("python@0.18.1", root, "/x/bin");
        assert_eq!(
            r.setup.as_deref(),
            Some("bash conformance/ports/python/setup.sh 0.18.1 target/ports/python-0.18.1/venv")
        );
        assert_eq!(
            r.command,
            "target/ports/python-0.18.1/venv/bin/python conformance/ports/python/driver.py"
        );
        assert_eq!(
            r.ready_when,
            Some(root.join("target/ports/python-0.18.1/venv/.toolnexus-ready"))
        );
        assert!(r.needs_setup());
        assert!(r.expected_failures.is_none());
    }

    #[test]
    fn a_rust_crate_release_is_a_copy_built_in_its_own_directory() {
        let r = Registry::default().resolve("rust-crate@0.22.0", Path::new("/repo"), "/x/bin");
        assert_eq!(
            r.setup.as_deref(),
            Some(
                "bash conformance/ports/rust-crate/setup.sh 0.22.0 target/ports/rust-crate-0.22.0"
            )
        );
        assert_eq!(
            r.command,
            "target/ports/rust-crate-0.22.0/target/release/toolnexus-driver-rust-crate"
        );
    }

    #[test]
    fn a_release_entry_in_ports_json_adds_its_expected_failures_but_keeps_the_release_setup() {
        let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let reg = match Registry::load(root) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let r = reg.resolve("python@0.16.0", root, "/x/bin");
        assert_eq!(
            r.expected_failures,
            Some(root.join("conformance/ports/python/expected-failures-0.16.0.txt"))
        );
        assert!(r
            .command
            .starts_with("target/ports/python-0.16.0/venv/bin/python "));
        assert!(r.setup.is_some_and(|s| s.contains("setup.sh 0.16.0 ")));
        let other = reg.resolve("python@0.17.0", root, "/x/bin");
        assert!(other.expected_failures.is_none());
    }

    #[test]
    fn two_runs_finding_a_port_not_set_up_set_it_up_once() {
        // Both start together and find no ready file; the setup takes a while. Without the
        // lock and the look again under it, both would run it (two lines in `count`).
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let setup = "echo run >> count && sleep 0.5 && mkdir -p target/p && touch target/p/.ready";
        let start = std::sync::Arc::new(std::sync::Barrier::new(2));
        let both: Vec<_> = (0..2)
            .map(|_| {
                let (root, start) = (dir.path().to_path_buf(), start.clone());
                std::thread::spawn(move || {
                    let ready = root.join("target/p/.ready");
                    start.wait();
                    run_setup(&root, "p", setup, Some(&ready))
                })
            })
            .collect();
        for run in both {
            let outcome = run.join().unwrap_or_else(|_| panic!("a setup panicked"));
            assert_eq!(outcome, Ok(()));
        }
        let count =
            std::fs::read_to_string(dir.path().join("count")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(count, "run\n");
    }
}
