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
    /// The length of its name, the tail of `path` (for sorting by name).
    name_len: usize,
    /// Whether it was reached through a symlink (then `real` is the link resolved).
    linked: bool,
}

/// The real paths of the directories claimed so far (SPEC §3: "tracking resolved real paths
/// already visited").
///
/// Until a symlinked directory turns up nothing needs looking up: a plain directory's real
/// path is its parent's plus its name, so no two plain directories share one. The paths are
/// then only kept, moved in once their level is listed, in case a link turns up later; from
/// the first link on, every claim is looked up. A tree without links (the common one) costs
/// no copy and no hash per directory.
struct Claims {
    /// The real paths claimed and listed, while nothing is looked up.
    kept: Vec<PathBuf>,
    /// The listed levels' paths as reached, no longer needed: freed with the claims.
    spent: Vec<PathBuf>,
    /// Every real path claimed, by its bytes (hashing a `Path` walks its components), once a
    /// link has turned up.
    index: Option<HashSet<OsString, foldhash::fast::RandomState>>,
}

impl Claims {
    /// Whether `dir` is claimed now, false when its real path already was. `pending` are the
    /// real paths claimed but not yet kept: the level being listed and the next one so far.
    fn claim<'a>(&mut self, dir: &Subdir, pending: impl Iterator<Item = &'a PathBuf>) -> bool {
        if self.index.is_none() && !dir.linked {
            return true;
        }
        let index = self.index.get_or_insert_with(|| {
            std::mem::take(&mut self.kept)
                .into_iter()
                .map(PathBuf::into_os_string)
                .chain(pending.map(|p| p.as_os_str().to_owned()))
                .collect()
        });
        index.insert(dir.real.as_os_str().to_owned())
    }

    /// Keeps a listed level's real paths, when nothing is looked up yet, and its paths until
    /// the claims are freed.
    fn listed(&mut self, level: Vec<(PathBuf, PathBuf)>) {
        let looked_up = self.index.is_some();
        for (path, real) in level {
            self.spent.push(path);
            if !looked_up {
                self.kept.push(real);
            }
        }
    }

    /// Frees the claims once the walk is done: beside the rest of the load, on a thread of its
    /// own, when there are thousands (as many frees, from the workers' memory, each taking
    /// its arena's lock); inline when there are few or no thread can be started.
    fn free(self) {
        const ASIDE_FROM: usize = 1024;
        if self.kept.len() + self.spent.len() >= ASIDE_FROM {
            // A failed spawn drops the closure, and the claims with it, here.
            let _ = std::thread::Builder::new().spawn(move || drop(self));
        }
    }
}

/// What a block of directories' listings found: their subdirectories, and what `visit` made
/// of each wanted regular file, both in directory order, then name order within each.
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

/// `dir` joined with `name` (one component), as `Path::join` does, in one allocation of the
/// exact size: `join` copies `dir`, then grows the copy to append `name`.
fn joined(dir: &Path, name: &OsStr) -> PathBuf {
    let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + name.len());
    path.push(dir);
    path.push(name);
    path
}

/// The name of a path built by `read_dir`: its last `name_len` bytes.
fn name_bytes(path: &Path, name_len: usize) -> &[u8] {
    let bytes = path.as_os_str().as_encoded_bytes();
    &bytes[bytes.len().saturating_sub(name_len)..]
}

/// Lists and classifies one directory (`real` is its real path), appending its
/// subdirectories and wanted regular files to `into` in name order, each wanted file with what
/// `visit` made of it. Only symlinks cost a `stat` (and a `canonicalize` when they lead to a
/// directory); the entry type says the rest. Appended, not returned: a tree of thousands of
/// small directories would otherwise allocate and free a pair of vectors per directory.
/// `files` is scratch room, empty on entry and on return.
fn list_into<R>(
    into: &mut Listing<R>,
    files: &mut Vec<(usize, PathBuf)>,
    (dir, real): &(PathBuf, PathBuf),
    want: &impl Fn(&OsStr) -> bool,
    visit: &impl Fn(&Path) -> R,
) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let dirs_from = into.dirs.len();
    // The wanted files, each with its name's length, so sorting by name compares bytes
    // instead of parsing the path's components at each comparison.
    files.clear();
    for entry in entries.filter_map(Result::ok) {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        // std lends no entry's name, so it is copied (once); a plain file not wanted costs
        // nothing more.
        let name = entry.file_name();
        if !(kind.is_symlink() || kind.is_dir() || kind.is_file() && want(&name)) {
            continue;
        }
        let path = joined(dir, &name);
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
        let name_len = name.len();
        if is_dir {
            if !SKIPPED_DIRS.iter().any(|d| name == *d) {
                let real = link_real.unwrap_or_else(|| joined(real, &name));
                into.dirs.push(Subdir {
                    path,
                    real,
                    name_len,
                    linked: kind.is_symlink(),
                });
            }
        } else if is_file && want(&name) {
            files.push((name_len, path));
        }
    }
    into.dirs[dirs_from..]
        .sort_by(|a, b| name_bytes(&a.path, a.name_len).cmp(name_bytes(&b.path, b.name_len)));
    files.sort_by(|a, b| name_bytes(&a.1, a.0).cmp(name_bytes(&b.1, b.0)));
    into.files.reserve(files.len());
    for (_, path) in files.drain(..) {
        let made = visit(&path);
        into.files.push((path, made));
    }
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
/// Should a worker die, the directories of its block are listed again inline with `on_panic`
/// standing in for `visit`, so no file is silently lost.
fn walk<R: Send>(
    root: &Path,
    want: impl Fn(&OsStr) -> bool + Sync,
    visit: impl Fn(&Path) -> R + Sync,
    on_panic: impl Fn(&Path) -> R,
) -> Vec<(PathBuf, R)> {
    let mut out = Vec::new();
    let root_real = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    // The root is claimed as the first level, kept once listed.
    let mut claims = Claims {
        kept: Vec::new(),
        spent: Vec::new(),
        index: None,
    };
    let mut level = vec![(root.to_path_buf(), root_real)];
    let list_all = |dirs: &[(PathBuf, PathBuf)], visit: &dyn Fn(&Path) -> R| {
        let (mut listing, mut files) = (Listing::default(), Vec::new());
        for dir in dirs {
            list_into(&mut listing, &mut files, dir, &want, &visit);
        }
        listing
    };
    while !level.is_empty() {
        let listings = in_order::fold_blocks_in_order(
            &level,
            32,
            |dirs| list_all(dirs, &visit),
            |dirs| list_all(dirs, &on_panic),
        );
        let found: usize = listings.iter().map(|l| l.files.len()).sum();
        let below: usize = listings.iter().map(|l| l.dirs.len()).sum();
        out.reserve(found);
        let mut next: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(below);
        for listing in listings {
            for d in listing.dirs {
                let pending = level.iter().chain(&next).map(|(_, real)| real);
                if claims.claim(&d, pending) {
                    next.push((d.path, d.real));
                }
            }
            out.extend(listing.files);
        }
        claims.listed(std::mem::replace(&mut level, next));
    }
    claims.free();
    out
}

/// The bytes of `path` after `root` and its `/`, when `path` is `root` joined with names
/// (as every walked path is): read as bytes, instead of matching component by component.
fn relative_tail<'a>(path: &'a Path, root: &Path) -> Option<&'a [u8]> {
    if !cfg!(unix) {
        return None;
    }
    let rest = path
        .as_os_str()
        .as_encoded_bytes()
        .strip_prefix(root.as_os_str().as_encoded_bytes())?;
    let rest = rest.strip_prefix(b"/").unwrap_or(rest);
    (!rest.starts_with(b"/") && !rest.ends_with(b"/")).then_some(rest)
}

/// The `/`-joined path of `path` relative to `root` (the sort key of both listings).
fn relative_key(path: &Path, root: &Path) -> String {
    if let Some(rest) = relative_tail(path, root) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A found file's place in discovery order: its depth, then its [`relative_key`]. Made by the
/// worker that found the file, without allocating when the relative path is UTF-8 (then it
/// is a tail of the file's own path).
struct SortKey {
    /// Segments below the root, less one.
    depth: usize,
    /// Where the relative path is.
    rel: Rel,
}

/// Where a [`SortKey`]'s relative path is.
enum Rel {
    /// The file's path's bytes from this offset on.
    Tail(usize),
    /// Made apart (not UTF-8, so made lossy, or not a plain join of the root).
    Made(String),
}

impl SortKey {
    fn of(path: &Path, root: &Path) -> Self {
        let bytes = path.as_os_str().as_encoded_bytes();
        let depth = |rel: &[u8]| rel.iter().filter(|&&b| b == b'/').count();
        match relative_tail(path, root).filter(|rest| std::str::from_utf8(rest).is_ok()) {
            Some(rest) => SortKey {
                depth: depth(rest),
                rel: Rel::Tail(bytes.len() - rest.len()),
            },
            None => {
                let key = relative_key(path, root);
                SortKey {
                    depth: depth(key.as_bytes()),
                    rel: Rel::Made(key),
                }
            }
        }
    }

    /// The relative path's bytes (`path` is the file's, this key's own).
    fn rel<'a>(&'a self, path: &'a Path) -> &'a [u8] {
        match &self.rel {
            Rel::Tail(at) => path
                .as_os_str()
                .as_encoded_bytes()
                .get(*at..)
                .unwrap_or_default(),
            Rel::Made(key) => key.as_bytes(),
        }
    }
}

/// Every `SKILL.md` under `root` with what `visit` made of it (on every core, beside the
/// walk), in discovery order: depth (segment count) ascending, then code-point order of the
/// relative path, so a top-level skill beats a nested copy. A missing or non-directory root
/// yields nothing. Should a worker die, `on_panic` stands in for `visit` on its files.
///
/// An iterator over the sorted walk, so the caller moves each file's result once, not through
/// another vector (thousands of results are megabytes of fresh memory to fault in).
pub(super) fn find_skill_files<R: Send>(
    root: &Path,
    visit: impl Fn(&Path) -> R + Sync,
    on_panic: impl Fn(&Path) -> R,
) -> impl Iterator<Item = (PathBuf, R)> {
    if !root.is_dir() {
        return Vec::new().into_iter().map(without_key);
    }
    // Each worker keys the files it finds: the serial part after the walk is only the order.
    let mut found = walk(
        root,
        |name| name == SKILL_FILE,
        |p| (SortKey::of(p, root), visit(p)),
        |p| (SortKey::of(p, root), on_panic(p)),
    );
    // Stable, so keys alike once made lossy keep the walk's order. The level-by-level walk
    // already finds a tree in order whenever no name sorts before `/` (`-`, `.`, a space),
    // and the sort takes such a run in one pass. Bytes compare as a UTF-8 key's code points.
    found.sort_by(|(a, (ka, _)), (b, (kb, _))| (ka.depth, ka.rel(a)).cmp(&(kb.depth, kb.rel(b))));
    found.into_iter().map(without_key)
}

/// A found file with what was made of it, its sort key dropped.
fn without_key<R>((path, (_, made)): (PathBuf, (SortKey, R))) -> (PathBuf, R) {
    (path, made)
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

    /// Links turning up after plain directories were claimed without being looked up: one
    /// into a deeper directory claims it first (its files are reached through the link, the
    /// shallower path), one back to a directory two levels up is not entered again.
    #[test]
    fn links_are_claimed_against_the_plain_directories_before_them() {
        let tmp = tempfile::tempdir().unwrap();
        let root = &tmp.path().join("first");
        w(&root.join("deep/er/x/SKILL.md"), "x");
        w(&root.join("deep/SKILL.md"), "x");
        w(&root.join("plain/SKILL.md"), "x");
        symlink(root.join("deep/er"), root.join("link")).unwrap();
        symlink(root.join("deep"), root.join("deep/er/x/up")).unwrap();
        let found: Vec<PathBuf> = find_skill_files(root, |_| (), |_| ())
            .map(|(p, ())| p)
            .collect();
        assert_eq!(
            rels(&found, root),
            vec!["deep/SKILL.md", "plain/SKILL.md", "link/x/SKILL.md"]
        );
        // The first link three levels down, back to a directory listed two levels before.
        let root = &tmp.path().join("second");
        w(&root.join("a/SKILL.md"), "x");
        fs::create_dir_all(root.join("a/b/c")).unwrap();
        symlink(root.join("a"), root.join("a/b/c/up")).unwrap();
        let found: Vec<PathBuf> = find_skill_files(root, |_| (), |_| ())
            .map(|(p, ())| p)
            .collect();
        assert_eq!(rels(&found, root), vec!["a/SKILL.md"]);
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
        assert!(find_skill_files(&tmp.path().join("nope"), |_| (), |_| ())
            .next()
            .is_none());
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
