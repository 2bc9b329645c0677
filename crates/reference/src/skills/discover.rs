//! §3 filesystem walks: `**/SKILL.md` discovery and the sibling-file sampler, both following
//! symlinked directories and files with a cycle guard on resolved real paths.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::in_order;

/// Directory names neither walk descends into (as the published ports do).
const SKIPPED_DIRS: [&str; 2] = ["node_modules", ".git"];

/// The skill file's name.
pub(super) const SKILL_FILE: &str = "SKILL.md";

/// One directory entry, classified (symlinks followed).
struct Entry {
    name: String,
    /// The exact name (the real-path key must not be lossy).
    os_name: std::ffi::OsString,
    path: PathBuf,
    is_dir: bool,
    is_file: bool,
    /// For a symlinked directory, the resolved real path.
    link_real: Option<PathBuf>,
}

/// Lists and classifies one directory, sorted by name. Only symlinks cost a `stat` (and a
/// `canonicalize` when they lead to a directory); the entry type says the rest.
fn list(dir: &Path) -> Vec<Entry> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Entry> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let kind = entry.file_type().ok()?;
            let path = entry.path();
            let os_name = entry.file_name();
            let name = os_name.to_string_lossy().into_owned();
            if kind.is_symlink() {
                // Follow the link; a dangling one is neither file nor directory.
                let meta = fs::metadata(&path).ok()?;
                let link_real = meta
                    .is_dir()
                    .then(|| fs::canonicalize(&path).unwrap_or_else(|_| path.clone()));
                Some(Entry {
                    name,
                    os_name,
                    is_dir: meta.is_dir(),
                    is_file: meta.is_file(),
                    link_real,
                    path,
                })
            } else {
                Some(Entry {
                    name,
                    os_name,
                    is_dir: kind.is_dir(),
                    is_file: kind.is_file(),
                    link_real: None,
                    path,
                })
            }
        })
        .collect();
    out.sort_by(|a, b| a.os_name.cmp(&b.os_name));
    out
}

/// Lists every directory of one level, in order, on every core.
fn list_level(level: &[(PathBuf, PathBuf)]) -> Vec<Vec<Entry>> {
    in_order::map_in_order(level, 32, |(dir, _)| list(dir), |(dir, _)| list(dir))
}

/// Walks `root`, following symlinks, and returns every regular file (as reached, not
/// resolved) whose name satisfies `want`.
///
/// Level by level: the directories of one depth are listed in parallel, then their entries
/// are taken in a fixed order (directory order, then name), so the outcome is deterministic
/// and a directory reachable along several paths is reached along the shallowest. Each
/// directory is claimed by its real path before it is entered, the root included, so a
/// symlink cycle terminates without listing anything twice (SPEC §3: "tracking resolved real
/// paths already visited"). A plain subdirectory's real path is its parent's plus its name,
/// so only symlinks are resolved. The Python port 0.21 does not claim the root and re-enters
/// a link back to it; see conformance/NOTES.md.
fn walk(root: &Path, want: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let root_real = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut seen: HashSet<PathBuf> = HashSet::new();
    seen.insert(root_real.clone());
    let mut level = vec![(root.to_path_buf(), root_real)];
    while !level.is_empty() {
        let listings = list_level(&level);
        let mut next = Vec::new();
        for ((_, real), entries) in level.iter().zip(listings) {
            for e in entries {
                if e.is_dir {
                    if SKIPPED_DIRS.contains(&e.name.as_str()) {
                        continue;
                    }
                    let child_real = e.link_real.unwrap_or_else(|| real.join(&e.os_name));
                    if seen.insert(child_real.clone()) {
                        next.push((e.path, child_real));
                    }
                } else if e.is_file && want(&e.name) {
                    out.push(e.path);
                }
            }
        }
        level = next;
    }
    out
}

/// The `/`-joined path of `path` relative to `root` (the sort key of both listings).
fn relative_key(path: &Path, root: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Every `SKILL.md` under `root` in discovery order: depth (segment count) ascending, then
/// code-point order of the relative path, so a top-level skill beats a nested copy.
/// A missing or non-directory root yields nothing.
pub(super) fn find_skill_files(root: &Path) -> Vec<PathBuf> {
    if !root.is_dir() {
        return Vec::new();
    }
    let mut found: Vec<(usize, String, PathBuf)> = walk(root, |name| name == SKILL_FILE)
        .into_iter()
        .map(|p| {
            let key = relative_key(&p, root);
            (key.split('/').count(), key, p)
        })
        .collect();
    found.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    found.into_iter().map(|(_, _, p)| p).collect()
}

/// Every regular file under `dir` except `SKILL.md` files, sorted by relative path in
/// code-point order, then capped at `limit` (`None` ⇒ no cap).
pub(super) fn sample_files(dir: &Path, limit: Option<usize>) -> Vec<PathBuf> {
    let mut files: Vec<(String, PathBuf)> = walk(dir, |name| name != SKILL_FILE)
        .into_iter()
        .map(|p| (relative_key(&p, dir), p))
        .collect();
    files.sort();
    let iter = files.into_iter().map(|(_, p)| p);
    match limit {
        Some(n) => iter.take(n).collect(),
        None => iter.collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn w(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn rels(paths: &[PathBuf], root: &Path) -> Vec<String> {
        paths.iter().map(|p| relative_key(p, root)).collect()
    }

    #[test]
    fn discovery_order_follows_symlinks_and_terminates_on_cycles() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        w(&d.join("ext/linked/SKILL.md"), "x");
        w(&d.join("ext/target.md"), "x");
        let root = d.join("root");
        fs::create_dir_all(root.join("fl")).unwrap();
        symlink(d.join("ext/linked"), root.join("linked")).unwrap();
        symlink(d.join("ext/target.md"), root.join("fl/SKILL.md")).unwrap();
        w(&root.join("synced/u1/xlsx/SKILL.md"), "x");
        w(&root.join("xlsx/SKILL.md"), "x");
        w(&root.join("B/SKILL.md"), "x");
        w(&root.join("a/SKILL.md"), "x");
        w(&root.join("SKILL.md"), "x");
        w(&root.join("node_modules/n/SKILL.md"), "x");
        symlink(&root, root.join("selfcycle")).unwrap();
        symlink(root.join("a"), root.join("a/back")).unwrap();
        symlink(d.join("nowhere"), root.join("dangling")).unwrap();
        let found = find_skill_files(&root);
        assert_eq!(
            rels(&found, &root),
            vec![
                "SKILL.md",
                "B/SKILL.md",
                "a/SKILL.md",
                "fl/SKILL.md",
                "linked/SKILL.md",
                "xlsx/SKILL.md",
                "synced/u1/xlsx/SKILL.md",
            ]
        );
        // Paths are reported as reached through the root, not resolved.
        assert!(found.iter().all(|p| p.starts_with(&root)));
    }

    #[test]
    fn missing_root_is_empty() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(find_skill_files(&tmp.path().join("nope")).is_empty());
    }

    #[test]
    fn sampler_sorts_then_caps_and_follows_links() {
        let tmp = tempfile::tempdir().unwrap();
        let s = tmp.path().join("s");
        for f in [
            "SKILL.md",
            "b.txt",
            "A.txt",
            "a.txt",
            "Z/z.txt",
            "a/b/c.txt",
            "sub/SKILL.md",
            "10.txt",
            "9.txt",
            ".git/g.txt",
        ] {
            w(&s.join(f), "x");
        }
        w(&tmp.path().join("outside/o1.txt"), "x");
        symlink(tmp.path().join("outside"), s.join("linkdir")).unwrap();
        symlink(&s, s.join("a/cycle")).unwrap();
        let all = sample_files(&s, None);
        assert_eq!(
            rels(&all, &s),
            vec![
                "10.txt",
                "9.txt",
                "A.txt",
                "Z/z.txt",
                "a.txt",
                "a/b/c.txt",
                "b.txt",
                "linkdir/o1.txt",
            ]
        );
        assert_eq!(
            rels(&sample_files(&s, Some(2)), &s),
            vec!["10.txt", "9.txt"]
        );
    }
}
