//! S1/S3: loading every source into one first-wins inventory, and the S2 catalog filter.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use super::{
    discover, frontmatter, Inventory, SkillDef, SkillInfo, SkillOrigin, SkillSources, SkipReason,
    Skipped,
};
use crate::filter::NameFilter;
use crate::tool::panic_message;

/// One candidate before first-wins dedupe: a skill or a skip.
enum Candidate {
    Skill(SkillInfo),
    Skip(Skipped),
}

fn skip(location: String, reason: SkipReason, name: Option<String>) -> Candidate {
    Candidate::Skip(Skipped {
        location,
        reason,
        name,
    })
}

/// Appends the skill candidates under one root, in discovery order. Each file is read and
/// parsed by the worker that found it: reading thousands of SKILL.md files is the bulk of
/// loading a large tree.
fn from_dir(root: &Path, into: &mut Vec<Candidate>) {
    // Absolute against the process cwd, but never resolved: paths stay as reached.
    let root: PathBuf = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    // from_file has no panicking path; should a worker die anyway, its files are reported
    // unreadable rather than silently lost.
    let found = discover::find_skill_files(&root, from_file, unreadable);
    into.extend(found.map(|(file, mut candidate)| {
        // The path as walked is the skill's location: moved in here, not copied by the worker.
        if let Candidate::Skill(info) = &mut candidate {
            info.location = Some(file);
        }
        candidate
    }));
}

/// A file that could not be read.
fn unreadable(file: &Path) -> Candidate {
    skip(
        file.to_string_lossy().into_owned(),
        SkipReason::Unreadable,
        None,
    )
}

thread_local! {
    /// Each walker's read buffer, reused from file to file (see [`read_all`]): only the body
    /// is kept.
    static READ_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Reads and parses one SKILL.md.
fn from_file(file: &Path) -> Candidate {
    READ_BUF.with(|buf| match buf.try_borrow_mut() {
        Ok(mut buf) => parse_file(file, &mut buf),
        // Not reentrant, but should it ever be: a buffer of its own.
        Err(_) => parse_file(file, &mut Vec::new()),
    })
}

/// Reads `file` to its end into `buf`, returning how many bytes it holds. `buf`'s whole
/// length is room to read into, grown by doubling and never zeroed again. Unlike
/// `File::read_to_end`, it does not ask the file its size and position first (`statx` and
/// `lseek`): two system calls per SKILL.md that a buffer reused from file to file does not need.
fn read_all(mut file: std::fs::File, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    use std::io::Read;
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            buf.resize((2 * buf.len()).max(8 * 1024), 0);
        }
        match file.read(&mut buf[filled..]) {
            Ok(0) => return Ok(filled),
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Reads `file` into `buf` (no `stat` first, unlike `fs::read`) and parses it.
fn parse_file(file: &Path, buf: &mut Vec<u8>) -> Candidate {
    let read = std::fs::File::open(file).and_then(|f| read_all(f, buf));
    let text = match read
        .ok()
        .and_then(|n| buf.get(..n))
        .map(std::str::from_utf8)
    {
        Some(Ok(text)) => text,
        _ => return unreadable(file),
    };
    // Universal newlines, as the Python port's text-mode read: CRLF and lone CR ⇒ LF.
    let normalised;
    let text = if text.contains('\r') {
        normalised = text.replace("\r\n", "\n").replace('\r', "\n");
        normalised.as_str()
    } else {
        text
    };
    let fm = match frontmatter::parse(text) {
        Ok(fm) => fm,
        Err(frontmatter::Malformed) => {
            return skip(
                file.to_string_lossy().into_owned(),
                SkipReason::MalformedFrontmatter,
                None,
            )
        }
    };
    let Some(name) = fm.name else {
        return skip(
            file.to_string_lossy().into_owned(),
            SkipReason::MissingName,
            None,
        );
    };
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    Candidate::Skill(SkillInfo {
        name,
        description: fm.description,
        // Set by `from_dir`, which owns the path.
        location: None,
        content: fm.content,
        origin: SkillOrigin::Directory { dir },
    })
}

/// The candidates for skills supplied as data.
fn from_defs(defs: &[SkillDef]) -> Vec<Candidate> {
    defs.iter()
        .map(|d| {
            let base = d.base.clone().filter(|b| !b.is_empty());
            if d.name.is_empty() {
                let location = base.unwrap_or_else(|| "skill://".to_string());
                return skip(location, SkipReason::MissingName, None);
            }
            Candidate::Skill(SkillInfo {
                name: d.name.clone(),
                description: d.description.clone(),
                location: None,
                content: d.content.clone(),
                origin: SkillOrigin::Data {
                    base: base.unwrap_or_else(|| format!("skill://{}/", d.name)),
                    resources: d.resources.clone(),
                },
            })
        })
        .collect()
}

/// Where a skill lives, as a string: its SKILL.md path, or its logical base.
fn location_of(info: &SkillInfo) -> String {
    match (&info.location, &info.origin) {
        (Some(p), _) => p.to_string_lossy().into_owned(),
        (None, SkillOrigin::Data { base, .. }) => base.clone(),
        (None, SkillOrigin::Directory { dir }) => dir.to_string_lossy().into_owned(),
    }
}

/// Calls the provider once, isolating an error or a panic.
fn resolve_provider(sources: &SkillSources) -> (Vec<SkillDef>, Option<String>) {
    let Some(provider) = &sources.provider else {
        return (Vec::new(), None);
    };
    match catch_unwind(AssertUnwindSafe(|| provider())) {
        Ok(Ok(defs)) => (defs, None),
        Ok(Err(msg)) => (Vec::new(), Some(msg)),
        Err(panic) => {
            let msg = panic_message(panic.as_ref());
            (Vec::new(), Some(format!("skill provider panicked: {msg}")))
        }
    }
}

/// S3: discovers and validates every source (dirs, then defs, then provider), first wins.
pub fn load(sources: &SkillSources) -> Inventory {
    let mut candidates: Vec<Candidate> = Vec::new();
    for root in &sources.dirs {
        from_dir(root, &mut candidates);
    }
    candidates.extend(from_defs(&sources.defs));
    let (provided, provider_error) = resolve_provider(sources);
    candidates.extend(from_defs(&provided));

    let mut inv = Inventory {
        provider_error,
        skills: Vec::with_capacity(candidates.len()),
        ..Inventory::default()
    };
    // First wins, decided over borrowed names before anything moves: for each candidate, the
    // index in `inv.skills` of the skill its name duplicates, if any.
    let duplicate_of: Vec<Option<usize>> = {
        let mut first: HashMap<&str, usize, _> = HashMap::with_capacity_and_hasher(
            candidates.len(),
            foldhash::fast::RandomState::default(),
        );
        candidates
            .iter()
            .map(|c| match c {
                Candidate::Skip(_) => None,
                Candidate::Skill(info) => {
                    let next = first.len();
                    match first.entry(info.name.as_str()) {
                        Entry::Occupied(kept) => Some(*kept.get()),
                        Entry::Vacant(slot) => {
                            slot.insert(next);
                            None
                        }
                    }
                }
            })
            .collect()
    };
    for (candidate, duplicate_of) in candidates.into_iter().zip(duplicate_of) {
        match candidate {
            Candidate::Skip(s) => inv.skipped.push(s),
            Candidate::Skill(info) => match duplicate_of.and_then(|i| inv.skills.get(i)) {
                Some(kept) => {
                    let location = location_of(&info);
                    inv.warnings.push(format!(
                        "duplicate skill name \"{}\" at {location}; keeping {}",
                        info.name,
                        location_of(kept)
                    ));
                    inv.skipped.push(Skipped {
                        location,
                        reason: SkipReason::DuplicateName,
                        name: Some(info.name),
                    });
                }
                None => inv.skills.push(info),
            },
        }
    }
    inv
}

/// S2: the skills the filter exposes (taken from an inventory's `skills`), plus a warning
/// naming unknown filter entries.
pub fn catalog(
    skills: Vec<SkillInfo>,
    filter: &BTreeMap<String, bool>,
) -> (Vec<SkillInfo>, Option<String>) {
    NameFilter::apply(filter, skills, |s| s.name.as_str(), "skill")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::{symlink, PermissionsExt};
    use std::sync::Arc;

    fn w(path: &Path, text: &[u8]) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn names(inv: &Inventory) -> Vec<&str> {
        inv.skills.iter().map(|s| s.name.as_str()).collect()
    }

    fn dirs(d: &[&Path]) -> SkillSources {
        SkillSources {
            dirs: d.iter().map(|p| p.to_path_buf()).collect(),
            ..SkillSources::default()
        }
    }

    #[test]
    fn skip_reasons_and_first_wins() {
        let tmp = tempfile::tempdir().unwrap();
        let r = tmp.path();
        w(
            &r.join("dup1/SKILL.md"),
            b"---\nname: dupname\ndescription: first\n---\nBody first\n",
        );
        w(
            &r.join("zdup2/SKILL.md"),
            b"---\nname: dupname\ndescription: second\n---\nBody second\n",
        );
        w(
            &r.join("malformed/SKILL.md"),
            b"---\nname: [unclosed\ndescription: x\n---\nBody\n",
        );
        w(
            &r.join("missing/SKILL.md"),
            b"---\ndescription: no name here\n---\nBody\n",
        );
        w(&r.join("nofm/SKILL.md"), b"# No frontmatter\n");
        w(
            &r.join("badutf/SKILL.md"),
            b"---\nname: x\n---\n\xff\xfe bad\n",
        );
        w(
            &r.join("ok/SKILL.md"),
            b"---\nname: ok\ndescription: fine\n---\nBody\n",
        );
        let inv = load(&dirs(&[r]));
        assert_eq!(names(&inv), vec!["dupname", "ok"]);
        assert_eq!(inv.skills[0].description.as_deref(), Some("first"));
        let dup = r.join("zdup2/SKILL.md").to_string_lossy().into_owned();
        let first = r.join("dup1/SKILL.md").to_string_lossy().into_owned();
        let reasons: Vec<(String, SkipReason)> = inv
            .skipped
            .iter()
            .map(|s| (relpath(&s.location, r), s.reason))
            .collect();
        assert_eq!(
            reasons,
            vec![
                ("badutf/SKILL.md".to_string(), SkipReason::Unreadable),
                (
                    "malformed/SKILL.md".to_string(),
                    SkipReason::MalformedFrontmatter
                ),
                ("missing/SKILL.md".to_string(), SkipReason::MissingName),
                ("nofm/SKILL.md".to_string(), SkipReason::MissingName),
                ("zdup2/SKILL.md".to_string(), SkipReason::DuplicateName),
            ]
        );
        assert_eq!(
            inv.warnings,
            vec![format!(
                "duplicate skill name \"dupname\" at {dup}; keeping {first}"
            )]
        );
        assert_eq!(inv.skipped[4].name.as_deref(), Some("dupname"));
        match &inv.skills[1].origin {
            SkillOrigin::Directory { dir } => assert_eq!(dir, &r.join("ok")),
            other => panic!("{other:?}"),
        }
        assert_eq!(inv.skills[1].location, Some(r.join("ok/SKILL.md")));
    }

    fn relpath(loc: &str, root: &Path) -> String {
        Path::new(loc)
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn crlf_files_read_with_universal_newlines() {
        let tmp = tempfile::tempdir().unwrap();
        w(
            &tmp.path().join("crlf/SKILL.md"),
            b"---\r\nname: crlf\r\ndescription: CRLF desc\r\n---\r\nBody\r\nmore\rend\r\n",
        );
        let inv = load(&dirs(&[tmp.path()]));
        assert_eq!(inv.skills[0].description.as_deref(), Some("CRLF desc"));
        assert_eq!(inv.skills[0].content, "Body\nmore\nend\n");
    }

    #[test]
    fn permission_denied_is_unreadable() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("locked/SKILL.md");
        w(&f, b"---\nname: locked\n---\n");
        fs::set_permissions(&f, fs::Permissions::from_mode(0o000)).unwrap();
        if fs::read(&f).is_ok() {
            return; // running as root: permissions are not enforced
        }
        let inv = load(&dirs(&[tmp.path()]));
        assert_eq!(inv.skipped[0].reason, SkipReason::Unreadable);
    }

    #[test]
    fn symlinked_dirs_roots_order_and_cycles() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        w(
            &d.join("ext/linked/SKILL.md"),
            b"---\nname: linked\ndescription: L\n---\nL\n",
        );
        w(
            &d.join("root/same/SKILL.md"),
            b"---\nname: same\ndescription: root\n---\nx\n",
        );
        w(
            &d.join("r2/same/SKILL.md"),
            b"---\nname: same\ndescription: r2\n---\nx\n",
        );
        symlink(d.join("ext/linked"), d.join("root/linked")).unwrap();
        symlink(d.join("root"), d.join("root/same/loop")).unwrap();
        let inv = load(&dirs(&[&d.join("r2"), &d.join("missing"), &d.join("root")]));
        assert_eq!(names(&inv), vec!["same", "linked"]);
        assert_eq!(inv.skills[0].description.as_deref(), Some("r2"));
        assert_eq!(inv.skills[1].location, Some(d.join("root/linked/SKILL.md")));
        assert!(inv
            .skipped
            .iter()
            .all(|s| s.reason == SkipReason::DuplicateName));
    }

    #[test]
    fn data_defs_and_provider() {
        let tmp = tempfile::tempdir().unwrap();
        w(
            &tmp.path().join("d1/SKILL.md"),
            b"---\nname: d1\n---\nfrom dir\n",
        );
        let def = |name: &str| SkillDef {
            name: name.to_string(),
            content: "c".to_string(),
            ..SkillDef::default()
        };
        let sources = SkillSources {
            dirs: vec![tmp.path().to_path_buf()],
            defs: vec![
                def("d1"),
                def(""),
                SkillDef {
                    base: Some("mem://b".to_string()),
                    ..def("")
                },
                SkillDef {
                    resources: vec!["r".to_string()],
                    ..def("d2")
                },
            ],
            provider: Some(Arc::new(|| {
                Ok(vec![SkillDef {
                    base: Some("mem://p/".to_string()),
                    ..SkillDef {
                        name: "p".to_string(),
                        ..SkillDef::default()
                    }
                }])
            })),
        };
        let inv = load(&sources);
        assert_eq!(names(&inv), vec!["d1", "d2", "p"]);
        assert_eq!(inv.skills[0].content, "from dir\n");
        assert_eq!(
            inv.skills[1].origin,
            SkillOrigin::Data {
                base: "skill://d2/".to_string(),
                resources: vec!["r".to_string()]
            }
        );
        assert_eq!(inv.skills[1].location, None);
        assert_eq!(
            inv.skills[2].origin,
            SkillOrigin::Data {
                base: "mem://p/".to_string(),
                resources: vec![]
            }
        );
        let skipped: Vec<(&str, SkipReason)> = inv
            .skipped
            .iter()
            .map(|s| (s.location.as_str(), s.reason))
            .collect();
        assert_eq!(
            skipped,
            vec![
                ("skill://d1/", SkipReason::DuplicateName),
                ("skill://", SkipReason::MissingName),
                ("mem://b", SkipReason::MissingName),
            ]
        );
        assert_eq!(inv.provider_error, None);
    }

    #[test]
    fn failing_or_panicking_provider_is_isolated() {
        let def = SkillDef {
            name: "kept".to_string(),
            ..SkillDef::default()
        };
        let mut sources = SkillSources {
            defs: vec![def],
            provider: Some(Arc::new(|| Err("boom".to_string()))),
            ..SkillSources::default()
        };
        let inv = load(&sources);
        assert_eq!(names(&inv), vec!["kept"]);
        assert_eq!(inv.provider_error.as_deref(), Some("boom"));
        sources.provider = Some(Arc::new(|| panic!("kaboom")));
        let inv = load(&sources);
        assert_eq!(names(&inv), vec!["kept"]);
        assert_eq!(
            inv.provider_error.as_deref(),
            Some("skill provider panicked: kaboom")
        );
    }

    #[test]
    fn catalog_filters_and_warns() {
        let defs = ["a", "b", "c"]
            .iter()
            .map(|n| SkillDef {
                name: n.to_string(),
                ..SkillDef::default()
            })
            .collect();
        let inv = load(&SkillSources {
            defs,
            ..SkillSources::default()
        });
        let m = |pairs: &[(&str, bool)]| -> BTreeMap<String, bool> {
            pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        let (all, warn) = catalog(inv.skills.clone(), &m(&[]));
        assert_eq!(all.len(), 3);
        assert!(warn.is_none());
        let (some, warn) = catalog(inv.skills.clone(), &m(&[("a", true), ("zz", true)]));
        assert_eq!(
            some.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            vec!["a"]
        );
        assert!(warn.unwrap().contains("zz"));
        let (dropped, _) = catalog(inv.skills.clone(), &m(&[("b", false)]));
        assert_eq!(
            dropped.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            vec!["a", "c"]
        );
    }
}
