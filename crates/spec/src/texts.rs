//! Where the SPEC texts are and how they are read: the pinned SPEC.md beside a checkout, and
//! the SPEC history (`SPEC-<version>.md`, one text per upstream release), oldest first.

use std::path::{Path, PathBuf};

use crate::version::{cmp_versions, version_key};

/// The pinned SPEC.md beside a checkout (`../shared/spec/SPEC.md`).
pub fn pinned_spec_file(root: &Path) -> PathBuf {
    root.join("../shared/spec/SPEC.md")
}

/// The SPEC history beside a checkout (`../shared/spec/history`, one `SPEC-<version>.md`
/// per release).
pub fn history_dir(root: &Path) -> PathBuf {
    root.join("../shared/spec/history")
}

/// One SPEC text of the history directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecText {
    /// The release, `0.9.5`.
    pub version: String,
    /// The whole SPEC.md.
    pub text: String,
}

/// Reads every `SPEC-<version>.md` of `dir`, oldest first. Other files are ignored; an
/// unreadable directory or file is an error naming it.
pub fn load_history(dir: &Path) -> Result<Vec<SpecText>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the SPEC history {}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read the SPEC history {}: {e}", dir.display()))?
            .path();
        let Some(version) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("SPEC-"))
            .and_then(|n| n.strip_suffix(".md"))
            .filter(|v| version_key(v).is_some())
            .map(str::to_string)
        else {
            continue;
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        out.push(SpecText { version, text });
    }
    if out.is_empty() {
        return Err(format!("{} holds no SPEC-<version>.md text", dir.display()));
    }
    out.sort_by(|a, b| cmp_versions(&a.version, &b.version));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_history_is_read_oldest_first_and_other_files_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [
            ("SPEC-0.10.0.md", "ten"),
            ("SPEC-0.9.5.md", "nine"),
            ("SPEC-0.17.0rc1.md", "a pre-release"),
            ("notes.md", "not a SPEC"),
        ] {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let read = load_history(dir.path()).unwrap();
        let shown: Vec<(&str, &str)> = read
            .iter()
            .map(|t| (t.version.as_str(), t.text.as_str()))
            .collect();
        assert_eq!(shown, vec![("0.9.5", "nine"), ("0.10.0", "ten")]);
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        let empty = load_history(&dir.path().join("empty")).unwrap_err();
        assert!(
            empty.ends_with("holds no SPEC-<version>.md text"),
            "{empty}"
        );
        assert_eq!(
            history_dir(Path::new("/r")),
            Path::new("/r/../shared/spec/history")
        );
    }
}
