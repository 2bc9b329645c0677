//! Where the SPEC texts are and how they are read: the pinned SPEC.md beside a checkout, and
//! the SPEC history (`SPEC-<version>.md`, one text per upstream release), oldest first.

use std::path::{Path, PathBuf};

use crate::version::{cmp_versions, version_key, SpecVersion, NEWEST_TEXT};

/// The pinned SPEC.md beside a checkout (`../shared/spec/SPEC.md`).
pub fn pinned_spec_file(root: &Path) -> PathBuf {
    root.join("../shared/spec/SPEC.md")
}

/// The SPEC history beside a checkout (`../shared/spec/history`, one `SPEC-<version>.md`
/// per release).
pub fn history_dir(root: &Path) -> PathBuf {
    root.join("../shared/spec/history")
}

/// The label of the newest SPEC text in reach ([`NEWEST_TEXT`]).
pub const NEWEST: &str = NEWEST_TEXT;

/// Where the [`NEWEST`] text lives beside a checkout (`../shared/spec/upstream-main/SPEC.md`).
pub fn newest_spec_file(root: &Path) -> PathBuf {
    root.join("../shared/spec/upstream-main/SPEC.md")
}

/// The [`NEWEST`] text beside a checkout, labelled; an error naming the file when it cannot
/// be read.
pub fn load_newest(root: &Path) -> Result<SpecText, String> {
    let file = newest_spec_file(root);
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read the newest SPEC text {}: {e}", file.display()))?;
    Ok(SpecText {
        version: NEWEST.to_string(),
        text,
    })
}

/// Where the text labelled `label` is beside a checkout: the [`NEWEST`] text's file, else
/// the history's `SPEC-<label>.md` when there is one, else the pinned SPEC.md.
pub fn text_file(root: &Path, label: &str) -> PathBuf {
    if label == NEWEST {
        return newest_spec_file(root);
    }
    let in_history = history_dir(root).join(format!("SPEC-{label}.md"));
    if in_history.is_file() {
        in_history
    } else {
        pinned_spec_file(root)
    }
}

/// Every text a port can be judged by, oldest first: the history in `dir`, then the
/// [`NEWEST`] text when it is beside the checkout at `root` (a checkout without it judges by
/// the history alone).
pub fn load_all(root: &Path, dir: &Path) -> Result<Vec<SpecText>, String> {
    let mut texts = load_history(dir)?;
    if newest_spec_file(root).is_file() {
        texts.push(load_newest(root)?);
    }
    Ok(texts)
}

/// Which of the `indexed` texts (labels of the texts that have a clause index, in any order)
/// judges a port implementing SPEC `version`: the first that does not come before it, else
/// the newest. A release after the pinned text and before the next indexed one is judged by
/// that next one, which holds its changes; `None` when nothing is indexed.
pub fn judged_by(indexed: &[String], version: SpecVersion) -> Option<&str> {
    let mut sorted: Vec<&str> = indexed.iter().map(String::as_str).collect();
    sorted.sort_by(|a, b| cmp_versions(a, b));
    let shown = version.to_string();
    sorted
        .iter()
        .find(|t| cmp_versions(t, &shown) != std::cmp::Ordering::Less)
        .or(sorted.last())
        .copied()
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
    use crate::version::after_release;

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
            newest_spec_file(Path::new("/r")),
            Path::new("/r/../shared/spec/upstream-main/SPEC.md")
        );
        assert_eq!(
            history_dir(Path::new("/r")),
            Path::new("/r/../shared/spec/history")
        );
    }

    #[test]
    fn a_port_is_judged_by_the_first_indexed_text_not_before_its_version() {
        let indexed = vec![NEWEST.to_string(), "0.16.0".to_string()];
        let v = |t: &str| SpecVersion::parse(t).unwrap();
        assert_eq!(judged_by(&indexed, v("0.9.0")), Some("0.16.0"));
        assert_eq!(judged_by(&indexed, v("0.16.0")), Some("0.16.0"));
        assert_eq!(judged_by(&indexed, v("0.17.0")), Some(NEWEST));
        assert_eq!(judged_by(&indexed, v("0.21.0")), Some(NEWEST));
        assert_eq!(judged_by(&indexed, SpecVersion::NEWEST), Some(NEWEST));
        assert_eq!(judged_by(&["0.16.0".into()], v("0.21.0")), Some("0.16.0"));
        assert_eq!(judged_by(&[], v("0.21.0")), None);
    }

    #[test]
    fn the_newest_text_is_labelled_after_its_release_and_read_beside_the_checkout() {
        assert_eq!(after_release(NEWEST), Some("0.17.0"));
        assert_eq!(version_key(NEWEST), None, "not a release");
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("checkout");
        std::fs::create_dir_all(&root).unwrap();
        let missing = load_newest(&root).unwrap_err();
        assert!(missing.contains("upstream-main/SPEC.md"), "{missing}");
        std::fs::create_dir_all(dir.path().join("shared/spec/upstream-main")).unwrap();
        std::fs::write(
            dir.path().join("shared/spec/upstream-main/SPEC.md"),
            "newest",
        )
        .unwrap();
        let newest = load_newest(&root).unwrap();
        assert_eq!(
            (newest.version.as_str(), newest.text.as_str()),
            (NEWEST, "newest")
        );
    }
}
