//! `conformance/ports.json`: known ports by name, with their setup and driver commands.

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
    /// The driver command (run in the repository root; `{{BIN}}` is this harness).
    pub driver: String,
    /// The port's expected-failures file, relative to the repository root.
    #[serde(default)]
    pub expected_failures: Option<String>,
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

    /// A registered name becomes its driver command (with `{{BIN}}` = `bin`); anything else
    /// is taken as a driver command as given.
    pub fn resolve(&self, name_or_command: &str, root: &Path, bin: &str) -> ResolvedPort {
        match self.entries.get(name_or_command) {
            Some(entry) => ResolvedPort {
                name: name_or_command.to_string(),
                command: entry.driver.replace("{{BIN}}", bin),
                setup: entry.setup.clone(),
                expected_failures: entry.expected_failures.as_ref().map(|f| root.join(f)),
            },
            None => ResolvedPort {
                name: name_or_command.to_string(),
                command: name_or_command.to_string(),
                setup: None,
                expected_failures: None,
            },
        }
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
}
