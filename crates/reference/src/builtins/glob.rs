//! §4A `glob`: files under a directory whose relative path matches a glob.
//!
//! Also hosts the directory walk and glob matcher `grep` shares, written to reproduce the
//! Python port's hand-rolled glob (not a glob crate), so both ports select the same files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use regex::Regex;
use serde_json::{json, Value};

use super::write::{args_object, blocking, limit_arg, opt_str, req_str, Step};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub(super) const NAME: &str = "glob";

/// Directory names never descended into.
const IGNORE_DIRS: [&str; 2] = ["node_modules", ".git"];

/// A compiled glob with Python's semantics: `**` spans directories (a following `/` is
/// optional), `*` and `?` stay within one segment, and a slash-less glob tests the basename.
pub(super) struct Glob {
    re: Regex,
    basename_only: bool,
}

impl Glob {
    /// Compiles `glob`; only a pathologically large glob can fail.
    pub(super) fn new(tool: &str, glob: &str) -> Step<Self> {
        let chars: Vec<char> = glob.chars().collect();
        let mut out = String::from("^");
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '*' if chars.get(i + 1) == Some(&'*') => {
                    out.push_str(".*");
                    i += 1;
                    if chars.get(i + 1) == Some(&'/') {
                        i += 1;
                    }
                }
                '*' => out.push_str("[^/]*"),
                '?' => out.push_str("[^/]"),
                c => out.push_str(&regex::escape(&c.to_string())),
            }
            i += 1;
        }
        out.push('$');
        let re = Regex::new(&out)
            .map_err(|e| ToolResult::error(format!("{tool}: invalid glob {glob:?}: {e}")))?;
        Ok(Self {
            re,
            basename_only: !glob.contains('/'),
        })
    }

    /// Whether a `/`-separated relative path matches.
    pub(super) fn matches(&self, rel: &str) -> bool {
        if self.basename_only {
            let base = rel.rsplit('/').next().unwrap_or(rel);
            self.re.is_match(base)
        } else {
            self.re.is_match(rel)
        }
    }
}

/// Every regular file under `root` as `(relative path with '/', full path)`, sorted by the
/// relative path in code-point order (Python's A24/A28 rule), so `limit` picks the same files
/// on every machine. Symlinks are not followed or listed; unreadable directories are skipped.
pub(super) fn walk_files(root: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), root.to_path_buf())];
    while let Some((prefix, dir)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(ft) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            if ft.is_dir() {
                if !IGNORE_DIRS.contains(&name.as_str()) {
                    stack.push((rel, entry.path()));
                }
            } else if ft.is_file() {
                out.push((rel, entry.path()));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The search root: `path` when given and non-empty (Python's `args.get("path") or cwd`).
pub(super) fn root_arg(tool: &str, args: &serde_json::Map<String, Value>) -> Step<PathBuf> {
    match opt_str(tool, args, "path")? {
        Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
        _ => std::env::current_dir().map_err(|e| ToolResult::error(format!("{tool}: {e}"))),
    }
}

struct GlobTool;

#[async_trait]
impl ToolExec for GlobTool {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let args = match args_object("glob", args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        blocking("glob", move || {
            let pattern = req_str("glob", &args, "pattern")?;
            let root = root_arg("glob", &args)?;
            let limit = limit_arg("glob", &args)?;
            let glob = Glob::new("glob", pattern)?;
            let found: Vec<String> = walk_files(&root)
                .into_iter()
                .map(|(rel, _)| rel)
                .filter(|rel| glob.matches(rel))
                .take(limit)
                .collect();
            Ok(ToolResult::ok(found.join("\n")).with_meta("count", json!(found.len())))
        })
        .await
    }
}

/// The §4A `glob` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "List files matching a glob under a directory. Output is newline-joined relative paths.",
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern to match"},
                "path": {"type": "string", "description": "Directory to search (default: process cwd)"},
                "limit": {"type": "number", "description": "Maximum number of results (default 100)"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(GlobTool),
    )
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The Python observation tree: `g/a.py`, `g/h/b.py`, `g/h/c.txt`, plus ignored dirs.
    pub(in crate::builtins) fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("g/h")).unwrap();
        std::fs::create_dir_all(d.join("g/node_modules")).unwrap();
        std::fs::create_dir_all(d.join(".git")).unwrap();
        std::fs::write(d.join("g/a.py"), "import os\nprint('hi')\n").unwrap();
        std::fs::write(d.join("g/h/b.py"), "x = 1\nprint(x)\n").unwrap();
        std::fs::write(d.join("g/h/c.txt"), "print nothing\n").unwrap();
        std::fs::write(d.join("g/node_modules/z.py"), "print(1)\n").unwrap();
        std::fs::write(d.join(".git/y.py"), "print(1)\n").unwrap();
        std::fs::write(d.join("bin.dat"), [0xffu8, 0x00, b'p']).unwrap();
        dir
    }

    async fn run(args: Value) -> ToolResult {
        tool().execute(args, &Context::default()).await
    }

    #[tokio::test]
    async fn matches_like_python() {
        let dir = tree();
        let root = dir.path().to_str().unwrap();
        let g = dir.path().join("g");
        let gs = g.to_str().unwrap();
        let cases = [
            (
                json!({"pattern": "**/*.py", "path": root}),
                "g/a.py\ng/h/b.py",
            ),
            (json!({"pattern": "*.py", "path": root}), "g/a.py\ng/h/b.py"),
            (json!({"pattern": "*.py", "path": gs}), "a.py\nh/b.py"),
            (json!({"pattern": "h/*", "path": gs}), "h/b.py\nh/c.txt"),
            (json!({"pattern": "?.py", "path": gs}), "a.py\nh/b.py"),
            (json!({"pattern": "*.nomatch", "path": root}), ""),
            (json!({"pattern": "*", "path": root, "limit": 1}), "bin.dat"),
            (json!({"pattern": "*", "path": root, "limit": 0}), ""),
        ];
        for (args, want) in cases {
            let r = run(args.clone()).await;
            assert!(!r.is_error, "{args}");
            assert_eq!(r.output, want, "{args}");
            let n = if want.is_empty() {
                0
            } else {
                want.lines().count()
            };
            assert_eq!(r.metadata.unwrap()["count"], json!(n));
        }
    }

    #[tokio::test]
    async fn bad_input() {
        assert_eq!(run(json!({})).await.output, "glob: pattern is required");
        let r = run(json!({"pattern": "*", "limit": "x"})).await;
        assert!(r.is_error && r.output.contains("limit must be a number"));
        let r = run(json!({"pattern": "*", "path": "/nonexistent-dir-xyz"})).await;
        assert!(!r.is_error && r.output.is_empty());
    }
}
