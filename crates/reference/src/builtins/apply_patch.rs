//! §4A `apply_patch`: opencode's `*** Begin Patch` grammar, applied all-or-nothing.
//!
//! Every operation is computed in memory first (later operations see earlier ones), then
//! each new file content is written to a temp file beside its target, and only when all of
//! that succeeded are the temp files renamed into place and deletions made.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::write::{args_object, blocking, io_msg, read_text, req_str, stage, Staged, Step};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub const NAME: &str = "apply_patch";

/// One file operation of a patch, as [`parse_patch`] reads it (paths as written).
#[derive(Debug, Clone, PartialEq)]
pub enum PatchOp {
    /// `*** Add File: path`: the new file's content (its `+` lines joined by `\n`).
    Add {
        /// The path as written.
        path: String,
        /// The file's content.
        content: String,
    },
    /// `*** Delete File: path`.
    Delete {
        /// The path as written.
        path: String,
    },
    /// `*** Update File: path` (with an optional `*** Move to: dest`) and its hunk lines.
    Update {
        /// The path as written.
        path: String,
        /// The `*** Move to:` destination, when given.
        move_to: Option<String>,
        /// The hunk lines, markers included.
        body: Vec<String>,
    },
}

/// `*** Add File: p` / `*** Update File: p` / `*** Delete File: p` (Python's `_FILE_MARKER`).
fn file_marker(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("*** ")?;
    for kind in ["Add", "Update", "Delete"] {
        if let Some(p) = rest
            .strip_prefix(kind)
            .and_then(|r| r.strip_prefix(" File: "))
        {
            if !p.is_empty() {
                return Some((kind, p.trim()));
            }
        }
    }
    None
}

/// Parses a patch in opencode's grammar without touching the filesystem. Never panics: any
/// malformed text is an `Err` with the reason (the public entry point of the fuzz target).
pub fn parse_patch(text: &str) -> Result<Vec<PatchOp>, String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut i = 0;
    while i < lines.len() && lines[i].trim().is_empty() {
        i += 1;
    }
    if i >= lines.len() || lines[i].trim() != "*** Begin Patch" {
        return Err("missing '*** Begin Patch'".into());
    }
    i += 1;
    let mut ops = Vec::new();
    while i < lines.len() {
        let line = lines[i];
        if line.trim() == "*** End Patch" {
            return Ok(ops);
        }
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        let (kind, path) = file_marker(line).ok_or_else(|| format!("unexpected line: {line}"))?;
        let path = path.to_string();
        i += 1;
        let mut body: Vec<String> = Vec::new();
        while i < lines.len()
            && lines[i].trim() != "*** End Patch"
            && file_marker(lines[i]).is_none()
        {
            body.push(lines[i].to_string());
            i += 1;
        }
        ops.push(match kind {
            "Add" => PatchOp::Add {
                content: body
                    .iter()
                    .map(|l| l.strip_prefix('+').unwrap_or(l))
                    .collect::<Vec<_>>()
                    .join("\n"),
                path,
            },
            "Delete" => PatchOp::Delete { path },
            _ => {
                // opencode's optional rename, which must come straight after the Update marker.
                let move_to = match body.first().and_then(|l| l.strip_prefix("*** Move to: ")) {
                    Some(dest) if !dest.trim().is_empty() => Some(dest.trim().to_string()),
                    _ => None,
                };
                if move_to.is_some() {
                    body.remove(0);
                }
                PatchOp::Update {
                    path,
                    move_to,
                    body,
                }
            }
        });
    }
    Err("missing '*** End Patch'".into())
}

/// An Update hunk whose old lines are not a run of the file's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HunkMismatch;

impl std::fmt::Display for HunkMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("hunk does not match file contents")
    }
}

impl std::error::Error for HunkMismatch {}

/// Applies an Update body (Python's `_apply_update`, on whole lines): each `@@`-separated
/// hunk's old lines (context + `-` lines) must equal consecutive lines of the content, and
/// their first such run is replaced by the new lines (context + `+` lines); a hunk with no
/// old lines appends. Pure and total: a
/// hunk that does not match is an `Err`, never a panic.
pub fn apply_update(content: &str, body: &[String]) -> Result<String, HunkMismatch> {
    let mut hunks: Vec<Vec<&str>> = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    for l in body {
        if l.starts_with("@@") {
            if !cur.is_empty() {
                hunks.push(std::mem::take(&mut cur));
            }
        } else if l.trim_end() != "*** End of File" {
            cur.push(l);
        }
    }
    if !cur.is_empty() {
        hunks.push(cur);
    }
    let mut result = content.to_string();
    for hunk in hunks {
        let mut old_lines = Vec::new();
        let mut new_lines = Vec::new();
        for l in hunk {
            if let Some(rest) = l.strip_prefix('-') {
                old_lines.push(rest);
            } else if let Some(rest) = l.strip_prefix('+') {
                new_lines.push(rest);
            } else {
                // A context line; one without the leading space is taken whole (as Python does).
                let rest = l.strip_prefix(' ').unwrap_or(l);
                old_lines.push(rest);
                new_lines.push(rest);
            }
        }
        let new_block = new_lines.join("\n");
        // No old text at all (no lines, or one empty line) appends, as in Python.
        if !old_lines.concat().is_empty() || old_lines.len() > 1 {
            // §4A's hunk lines are whole lines: the old block must equal a run of the file's
            // lines, never a part of one (Python matched substrings: `-b` hit `abc`).
            let lines: Vec<&str> = result.split('\n').collect();
            let at = lines
                .windows(old_lines.len())
                .position(|w| w == old_lines.as_slice())
                .ok_or(HunkMismatch)?;
            let mut next: Vec<&str> = Vec::with_capacity(lines.len() + new_lines.len());
            next.extend_from_slice(&lines[..at]);
            next.extend_from_slice(&new_lines);
            next.extend_from_slice(&lines[at + old_lines.len()..]);
            result = next.join("\n");
        } else {
            let sep = if result.is_empty() || result.ends_with('\n') {
                ""
            } else {
                "\n"
            };
            result = format!("{result}{sep}{new_block}");
        }
    }
    Ok(result)
}

/// The planned end state: each touched path's new content, or `None` for deletion, in the
/// order first touched.
#[derive(Default)]
struct Plan {
    order: Vec<String>,
    state: HashMap<String, Option<String>>,
}

impl Plan {
    fn set(&mut self, path: &str, content: Option<String>) {
        if self.state.insert(path.to_string(), content).is_none() {
            self.order.push(path.to_string());
        }
    }

    fn exists(&self, path: &str) -> bool {
        match self.state.get(path) {
            Some(state) => state.is_some(),
            None => Path::new(path).exists(),
        }
    }

    fn current(&self, path: &str) -> Step<String> {
        match self.state.get(path) {
            Some(Some(content)) => Ok(content.clone()),
            Some(None) => Err(ToolResult::error(format!(
                "apply_patch: file not found: {path}"
            ))),
            None => read_text("apply_patch", path),
        }
    }
}

fn apply(patch_text: &str) -> Step<ToolResult> {
    let err = |m: String| ToolResult::error(format!("apply_patch: {m}"));
    let ops = parse_patch(patch_text).map_err(err)?;
    let mut plan = Plan::default();
    let (mut added, mut updated, mut deleted) = (0, 0, 0);
    for op in &ops {
        match op {
            PatchOp::Add { path, content } => {
                if plan.exists(path) {
                    return Err(err(format!("file already exists: {path}")));
                }
                plan.set(path, Some(content.clone()));
                added += 1;
            }
            PatchOp::Delete { path } => {
                if !plan.exists(path) {
                    return Err(err(format!("file not found: {path}")));
                }
                if !plan.state.contains_key(path) && Path::new(path).is_dir() {
                    return Err(err(format!("not a file: {path}")));
                }
                plan.set(path, None);
                deleted += 1;
            }
            PatchOp::Update {
                path,
                move_to,
                body,
            } => {
                let next =
                    apply_update(&plan.current(path)?, body).map_err(|e| err(e.to_string()))?;
                match move_to {
                    Some(dest) if dest != path => {
                        plan.set(dest, Some(next));
                        plan.set(path, None);
                    }
                    _ => plan.set(path, Some(next)),
                }
                updated += 1;
            }
        }
    }

    // Stage every write before touching any target; a failure drops (deletes) the temp files.
    let mut staged = Vec::new();
    let mut removals = Vec::new();
    for path in &plan.order {
        match plan.state.get(path) {
            Some(Some(content)) => {
                let s = stage(Path::new(path), content.as_bytes())
                    .map_err(|e| err(io_msg(&e, path)))?;
                staged.push(s);
            }
            _ => removals.push(path.clone()),
        }
    }
    commit_all(staged, &removals).map_err(err)?;
    let n = ops.len();
    let plural = if n == 1 { "" } else { "s" };
    Ok(
        ToolResult::ok(format!("Applied patch: {n} file operation{plural}"))
            .with_meta("added", json!(added))
            .with_meta("updated", json!(updated))
            .with_meta("deleted", json!(deleted)),
    )
}

/// Puts a patch's files in place all-or-nothing.
///
/// First every existing target gets a hard-linked backup under a fresh name in its own
/// directory (`link` never overwrites, so concurrent patches cannot clobber each other's
/// backups), and every file to delete is unlinked (its backup keeps the data). Then the staged
/// files are renamed into place, each an atomic replace, so a reader never sees an updated file
/// missing. Only then are the backups removed. A failure at any point removes what was placed
/// and renames the backups back; a rollback step that fails is named in the error.
fn commit_all(staged: Vec<Staged>, removals: &[String]) -> Result<(), String> {
    let overwrite: Vec<PathBuf> = staged.iter().map(|s| s.dest().to_path_buf()).collect();
    let delete: Vec<PathBuf> = removals.iter().map(PathBuf::from).collect();
    let mut backups: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut placed: Vec<PathBuf> = Vec::new();
    let result = (|| {
        for (target, deleting) in overwrite
            .iter()
            .map(|t| (t, false))
            .chain(delete.iter().map(|t| (t, true)))
        {
            if target.symlink_metadata().is_err() {
                continue;
            }
            let backup = link_aside(target).map_err(|e| io_msg(&e, &target.to_string_lossy()))?;
            backups.push((target.clone(), backup));
            if deleting {
                std::fs::remove_file(target).map_err(|e| io_msg(&e, &target.to_string_lossy()))?;
            }
        }
        for s in staged {
            let dest = s.dest().to_path_buf();
            s.commit()
                .map_err(|e| io_msg(&e, &dest.to_string_lossy()))?;
            placed.push(dest);
        }
        Ok(())
    })();
    match result {
        Ok(()) => {
            for (_, backup) in backups {
                let _ = std::fs::remove_file(backup);
            }
            Ok(())
        }
        Err(message) => {
            let mut problems = Vec::new();
            for p in placed
                .iter()
                .filter(|p| !backups.iter().any(|(t, _)| t == *p))
            {
                if let Err(e) = std::fs::remove_file(p) {
                    problems.push(format!("could not remove {}: {e}", p.display()));
                }
            }
            for (original, backup) in backups.iter().rev() {
                if let Err(e) = std::fs::rename(backup, original) {
                    problems.push(format!(
                        "could not restore {} from {}: {e}",
                        original.display(),
                        backup.display()
                    ));
                }
            }
            if problems.is_empty() {
                Err(message)
            } else {
                Err(format!(
                    "{message}; rollback incomplete: {}",
                    problems.join("; ")
                ))
            }
        }
    }
}

/// A hard link to `target` under a fresh hidden name beside it.
fn link_aside(target: &Path) -> std::io::Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut last = std::io::Error::other("no backup name tried");
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let backup = target.with_file_name(format!(
            ".{name}.tnx-aside-{}-{n}-{nanos:x}",
            std::process::id()
        ));
        match std::fs::hard_link(target, &backup) {
            Ok(()) => return Ok(backup),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

struct ApplyPatch;

#[async_trait]
impl ToolExec for ApplyPatch {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let args = match args_object("apply_patch", args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        blocking("apply_patch", move || {
            apply(req_str("apply_patch", &args, "patchText")?)
        })
        .await
    }
}

/// The §4A `apply_patch` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "Apply a patch (Begin/End Patch grammar: Add/Update/Delete File). Atomic \u{2014} a non-matching hunk aborts with no writes.",
        json!({
            "type": "object",
            "properties": {
                "patchText": {"type": "string", "description": "The patch text in Begin/End Patch format"}
            },
            "required": ["patchText"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(ApplyPatch),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A commit that fails half-way must leave every file as it was and no backup behind.
    #[test]
    fn a_failing_commit_rolls_everything_back() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let d = dir.path();
        std::fs::write(d.join("a.txt"), "old a").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(d.join("gone.txt"), "keep me").unwrap_or_else(|e| panic!("{e}"));
        let staged = vec![
            stage(&d.join("a.txt"), b"new a").unwrap_or_else(|e| panic!("{e}")),
            stage(&d.join("new.txt"), b"fresh").unwrap_or_else(|e| panic!("{e}")),
            stage(&d.join("sub/late.txt"), b"cannot land").unwrap_or_else(|e| panic!("{e}")),
        ];
        // The last staged file's temp file vanishes with its directory, so its rename fails
        // after the first two files are already in place.
        std::fs::remove_dir_all(d.join("sub")).unwrap_or_else(|e| panic!("{e}"));
        let removals = vec![d.join("gone.txt").to_string_lossy().into_owned()];
        assert!(commit_all(staged, &removals).is_err());
        assert_eq!(
            std::fs::read_to_string(d.join("a.txt")).unwrap_or_default(),
            "old a"
        );
        assert_eq!(
            std::fs::read_to_string(d.join("gone.txt")).unwrap_or_default(),
            "keep me"
        );
        assert!(!d.join("new.txt").exists());
        let mut names: Vec<String> = std::fs::read_dir(d)
            .unwrap_or_else(|e| panic!("{e}"))
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            vec!["a.txt", "gone.txt"],
            "no backup or temp file may remain"
        );
    }

    async fn run(patch: String) -> ToolResult {
        tool()
            .execute(json!({"patchText": patch}), &Context::default())
            .await
    }

    #[tokio::test]
    async fn add_update_delete_move() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
        let (pa, old, gone, moved) = (p("pa.txt"), p("old.txt"), p("gone.txt"), p("sub/new.txt"));
        std::fs::write(&old, "keep\nchange me\n").unwrap();
        std::fs::write(&gone, "bye").unwrap();

        let r = run(format!(
            "*** Begin Patch\n*** Add File: {pa}\n+one\n+two\n*** End Patch"
        ))
        .await;
        assert!(!r.is_error, "{r:?}");
        assert_eq!(r.output, "Applied patch: 1 file operation");
        assert_eq!(std::fs::read_to_string(&pa).unwrap(), "one\ntwo");

        let r = run(format!(
            "*** Begin Patch\n*** Update File: {pa}\n@@\n one\n-two\n+TWO\n*** End Patch"
        ))
        .await;
        assert_eq!(r.output, "Applied patch: 1 file operation");
        assert_eq!(
            r.metadata.unwrap(),
            json!({"added": 0, "updated": 1, "deleted": 0})
                .as_object()
                .unwrap()
                .clone()
        );
        assert_eq!(std::fs::read_to_string(&pa).unwrap(), "one\nTWO");

        let patch = format!(
            "\n*** Begin Patch\n*** Update File: {old}\n*** Move to: {moved}\n@@ keep\n-change me\n+changed\n*** Delete File: {gone}\n*** End Patch\n"
        );
        let r = run(patch).await;
        assert!(!r.is_error, "{r:?}");
        assert_eq!(r.output, "Applied patch: 2 file operations");
        assert_eq!(std::fs::read_to_string(&moved).unwrap(), "keep\nchanged\n");
        assert!(!Path::new(&old).exists() && !Path::new(&gone).exists());
    }

    #[tokio::test]
    async fn all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
        let (a, b, c, d) = (p("a.txt"), p("b.txt"), p("new/c.txt"), p("d.txt"));
        std::fs::write(&a, "alpha\n").unwrap();
        std::fs::write(&b, "beta\n").unwrap();
        std::fs::write(&d, "delta\n").unwrap();
        let patch = format!(
            "*** Begin Patch\n*** Add File: {c}\n+new\n*** Update File: {a}\n-alpha\n+ALPHA\n*** Delete File: {d}\n*** Update File: {b}\n-nothere\n+x\n*** End Patch"
        );
        let r = run(patch).await;
        assert!(r.is_error);
        assert_eq!(r.output, "apply_patch: hunk does not match file contents");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "alpha\n");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "beta\n");
        assert_eq!(std::fs::read_to_string(&d).unwrap(), "delta\n");
        assert!(!Path::new(&c).exists());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            3,
            "no temp files left"
        );
    }

    #[tokio::test]
    async fn bad_patches() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x.txt");
        std::fs::write(&f, "x").unwrap();
        let fs = f.to_str().unwrap();
        let missing = dir.path().join("missing.txt");
        let ms = missing.to_str().unwrap();
        let cases = [
            (
                "hello".to_string(),
                "apply_patch: missing '*** Begin Patch'".to_string(),
            ),
            (
                "*** Begin Patch\n*** Add File: z\n+1".into(),
                "apply_patch: missing '*** End Patch'".into(),
            ),
            (
                "*** Begin Patch\nbogus\n*** End Patch".into(),
                "apply_patch: unexpected line: bogus".into(),
            ),
            (
                format!("*** Begin Patch\n*** Add File: {fs}\n+1\n*** End Patch"),
                format!("apply_patch: file already exists: {fs}"),
            ),
            (
                format!("*** Begin Patch\n*** Delete File: {ms}\n*** End Patch"),
                format!("apply_patch: file not found: {ms}"),
            ),
            (
                format!("*** Begin Patch\n*** Update File: {ms}\n-a\n+b\n*** End Patch"),
                format!("apply_patch: [Errno 2] No such file or directory: '{ms}'"),
            ),
        ];
        for (patch, want) in cases {
            let r = run(patch).await;
            assert!(r.is_error);
            assert_eq!(r.output, want);
        }
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "x");
        let r = tool().execute(json!({}), &Context::default()).await;
        assert_eq!(r.output, "apply_patch: patchText is required");
        let r = tool()
            .execute(json!({"patchText": 1}), &Context::default())
            .await;
        assert!(r.is_error && r.output.contains("patchText must be a string"));
    }

    #[test]
    fn update_semantics() {
        let body = |s: &str| s.split('\n').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            apply_update("a\nb\nc", &body("@@\n a\n-b\n+B\n@@\n-c\n+C")).unwrap(),
            "a\nB\nC"
        );
        assert_eq!(apply_update("a", &body("+z")).unwrap(), "a\nz");
        assert_eq!(apply_update("a\n", &body("+z")).unwrap(), "a\nz");
        assert!(apply_update("a", &body("-q")).is_err());
        // Whole lines only: a part of a line, or lines that run across a line end, never match.
        assert!(apply_update("abc\n", &body("-b\n+B")).is_err());
        assert!(apply_update("prefix-one\ntwo\n", &body(" one\n-two\n+TWO")).is_err());
        assert!(apply_update("one\ntwo-suffix\n", &body(" one\n-two\n+TWO")).is_err());
        assert_eq!(
            apply_update("x\none\ntwo\n", &body(" one\n-two\n+TWO")).unwrap(),
            "x\none\nTWO\n"
        );
        // The first run of matching lines is the one replaced.
        assert_eq!(
            apply_update("b\nab\nb\n", &body("-b\n+B")).unwrap(),
            "B\nab\nb\n"
        );
        assert_eq!(apply_update("ab\nb", &body("-b\n+B")).unwrap(), "ab\nB");
    }
}
