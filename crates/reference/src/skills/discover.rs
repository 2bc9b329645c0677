//! §3 filesystem walks: `**/SKILL.md` discovery and the sibling-file sampler, both following
//! symlinked directories and files with a cycle guard on resolved real paths.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};

use super::in_order;

/// Directory names neither walk descends into (as the published ports do).
const SKIPPED_DIRS: [&str; 2] = ["node_modules", ".git"];

/// The skill file's name.
pub(super) const SKILL_FILE: &str = "SKILL.md";

/// A subdirectory found while listing, to be claimed before it is entered.
struct Subdir {
    /// The path as reached (never resolved).
    path: PathBuf,
    /// Its real path: the parent's real path joined with its name, or for a symlinked
    /// directory the link resolved.
    real: PathBuf,
}

/// One directory's listing: its subdirectories, and what `visit` made of each wanted
/// regular file, both in name order.
struct Listing<R> {
    dirs: Vec<Subdir>,
    files: Vec<(PathBuf, R)>,
}

impl<R> Default for Listing<R> {
    fn default() -> Self {
        Listing {
            dirs: Vec::new(),
            files: Vec::new(),
        }
    }
}

/// The last component of a path built by `read_dir` (always present).
fn name_of(path: &Path) -> &OsStr {
    path.file_name().unwrap_or_default()
}

/// A path from `read_dir` with its name's length, so sorting by name compares bytes instead
/// of parsing the path's components at each comparison.
struct Named<T> {
    name_len: usize,
    item: T,
}

/// Sorts by name in code-point order (`OsStr` orders by its encoded bytes).
fn sort_by_name<T>(items: &mut [Named<T>], path: impl Fn(&T) -> &Path) {
    fn tail(path: &Path, len: usize) -> &[u8] {
        let bytes = path.as_os_str().as_encoded_bytes();
        &bytes[bytes.len().saturating_sub(len)..]
    }
    items.sort_by(|a, b| tail(path(&a.item), a.name_len).cmp(tail(path(&b.item), b.name_len)));
}

/// Lists and classifies one directory (`real` is its real path) in name order, then hands each
/// wanted regular file to `visit`. Only symlinks cost a `stat` (and a `canonicalize` when they
/// lead to a directory); the entry type says the rest.
fn list<R>(
    (dir, real): &(PathBuf, PathBuf),
    want: &impl Fn(&OsStr) -> bool,
    visit: &impl Fn(&Path) -> R,
) -> Listing<R> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Listing::default();
    };
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for entry in entries.filter_map(Result::ok) {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        // One allocation per entry: the name is borrowed from the path.
        let path = entry.path();
        let (is_dir, is_file, link_real) = if kind.is_symlink() {
            // Follow the link; a dangling one is neither file nor directory.
            let Ok(meta) = fs::metadata(&path) else {
                continue;
            };
            let link_real = meta
                .is_dir()
                .then(|| fs::canonicalize(&path).unwrap_or_else(|_| path.clone()));
            (meta.is_dir(), meta.is_file(), link_real)
        } else {
            (kind.is_dir(), kind.is_file(), None)
        };
        let name = name_of(&path);
        let name_len = name.len();
        if is_dir {
            if !SKIPPED_DIRS.iter().any(|d| name == *d) {
                let real = link_real.unwrap_or_else(|| real.join(name));
                let item = Subdir { path, real };
                dirs.push(Named { name_len, item });
            }
        } else if is_file && want(name) {
            files.push(Named {
                name_len,
                item: path,
            });
        }
    }
    sort_by_name(&mut dirs, |d| &d.path);
    sort_by_name(&mut files, |p| p);
    let files = files
        .into_iter()
        .map(|n| {
            let made = visit(&n.item);
            (n.item, made)
        })
        .collect();
    let dirs = dirs.into_iter().map(|n| n.item).collect();
    Listing { dirs, files }
}

/// Walks `root`, following symlinks, and returns every regular file (as reached, not
/// resolved) whose name satisfies `want`, with what `visit` made of it.
///
/// Level by level: the directories of one depth are listed in parallel, each worker visiting
/// the wanted files of the directories it lists (reading thousands of SKILL.md files is the
/// bulk of loading a large tree, so it happens beside the listing, not after it). Then their
/// subdirectories are taken in a fixed order (directory order, then name), so the outcome is
/// deterministic and a directory reachable along several paths is reached along the
/// shallowest. Each directory is claimed by its real path before it is entered, the root
/// included, so a symlink cycle terminates without listing anything twice (SPEC §3:
/// "tracking resolved real paths already visited"). A plain subdirectory's real path is its
/// parent's plus its name, so only symlinks are resolved. The Python port 0.21 does not claim
/// the root and re-enters a link back to it; see conformance/NOTES.md.
///
/// Should a worker die, its directories are listed again inline with `on_panic` standing in
/// for `visit`, so no file is silently lost.
fn walk<R: Send>(
    root: &Path,
    want: impl Fn(&OsStr) -> bool + Sync,
    visit: impl Fn(&Path) -> R + Sync,
    on_panic: impl Fn(&Path) -> R,
) -> Vec<(PathBuf, R)> {
    let mut out = Vec::new();
    let root_real = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    // Claimed by the real path's bytes: hashing a `Path` walks its components.
    let mut seen: HashSet<OsString> = HashSet::new();
    seen.insert(root_real.clone().into_os_string());
    let mut level = vec![(root.to_path_buf(), root_real)];
    while !level.is_empty() {
        let listings = in_order::map_in_order(
            &level,
            32,
            |dir| list(dir, &want, &visit),
            |dir| list(dir, &want, &on_panic),
        );
        let mut next = Vec::new();
        for listing in listings {
            for d in listing.dirs {
                if seen.insert(d.real.as_os_str().to_owned()) {
                    next.push((d.path, d.real));
                }
            }
            out.extend(listing.files);
        }
        level = next;
    }
    out
}

/// The `/`-joined path of `path` relative to `root` (the sort key of both listings).
fn relative_key(path: &Path, root: &Path) -> String {
    // A walked path is `root` joined with names, so its bytes begin with the root's and go on
    // `/`-separated: read on as bytes, instead of matching component by component.
    let bytes = path.as_os_str().as_encoded_bytes();
    let root_bytes = root.as_os_str().as_encoded_bytes();
    if cfg!(unix) {
        if let Some(rest) = bytes.strip_prefix(root_bytes) {
            let rest = rest.strip_prefix(b"/").unwrap_or(rest);
            if !rest.starts_with(b"/") && !rest.ends_with(b"/") {
                return String::from_utf8_lossy(rest).into_owned();
            }
        }
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Every `SKILL.md` under `root` with what `visit` made of it (on every core, beside the
/// walk), in discovery order: depth (segment count) ascending, then code-point order of the
/// relative path, so a top-level skill beats a nested copy. A missing or non-directory root
/// yields nothing. Should a worker die, `on_panic` stands in for `visit` on its files.
pub(super) fn find_skill_files<R: Send>(
    root: &Path,
    visit: impl Fn(&Path) -> R + Sync,
    on_panic: impl Fn(&Path) -> R,
) -> Vec<(PathBuf, R)> {
    if !root.is_dir() {
        return Vec::new();
    }
    // Each worker keys the files it finds: the serial part after the walk is only the order.
    let keyed = |p: &Path| {
        let key = relative_key(p, root);
        let depth = key.bytes().filter(|&b| b == b'/').count();
        (depth, key)
    };
    let mut found = walk(
        root,
        |name| name == SKILL_FILE,
        |p| (keyed(p), visit(p)),
        |p| (keyed(p), on_panic(p)),
    );
    // Stable, so keys alike once made lossy keep the walk's order. The level-by-level walk
    // already finds a tree in order whenever no name sorts before `/` (`-`, `.`, a space),
    // and the sort takes such a run in one pass.
    found.sort_by(|(_, (a, _)), (_, (b, _))| a.cmp(b));
    found.into_iter().map(|(p, (_, made))| (p, made)).collect()
}

/// Every regular file under `dir` except `SKILL.md` files, sorted by relative path in
/// code-point order, then capped at `limit` (`None` ⇒ no cap).
pub(super) fn sample_files(dir: &Path, limit: Option<usize>) -> Vec<PathBuf> {
    let mut files: Vec<(String, PathBuf)> = walk(dir, |name| name != SKILL_FILE, |_| (), |_| ())
        .into_iter()
        .map(|(p, ())| (relative_key(&p, dir), p))
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
        let found: Vec<PathBuf> = find_skill_files(&root, |_| (), |_| ())
            .into_iter()
            .map(|(p, ())| p)
            .collect();
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

    /// The walk meets `a/` before `a-b/` (name order), but the relative paths sort `a-b/…`
    /// first (`-` before `/`): the order is the paths', not the walk's.
    #[test]
    fn the_order_is_the_relative_paths_not_the_walks() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for dir in ["a/x", "a-b/x", "a.c/x", "ab/x"] {
            w(&root.join(dir).join(SKILL_FILE), "x");
        }
        let found: Vec<PathBuf> = find_skill_files(root, |_| (), |_| ())
            .into_iter()
            .map(|(p, ())| p)
            .collect();
        assert_eq!(
            rels(&found, root),
            vec![
                "a-b/x/SKILL.md",
                "a.c/x/SKILL.md",
                "a/x/SKILL.md",
                "ab/x/SKILL.md"
            ]
        );
    }

    /// The byte-wise reading of a walked path gives the key the component-wise one does,
    /// whatever form the root is written in.
    #[test]
    fn relative_keys_match_the_components_reading() {
        let by_components = |path: &Path, root: &Path| {
            let rel = path.strip_prefix(root).unwrap_or(path);
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        };
        for root in ["/a/b", "/a/b/", "/a/./b", "/a/../b", "/", "a/b", "."] {
            let root = Path::new(root);
            for rest in ["SKILL.md", "x/SKILL.md", "x y/é/SKILL.md", "x/y/z/f.txt"] {
                let path = rest.split('/').fold(root.to_path_buf(), |p, n| p.join(n));
                assert_eq!(
                    relative_key(&path, root),
                    by_components(&path, root),
                    "{}",
                    path.display()
                );
                assert_eq!(relative_key(&path, root), rest);
            }
        }
    }

    #[test]
    fn missing_root_is_empty() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(find_skill_files(&tmp.path().join("nope"), |_| (), |_| ()).is_empty());
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
