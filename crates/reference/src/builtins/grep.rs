//! §4A `grep`: regex search of file contents, `file:line:text` per match.

use std::sync::Arc;

use async_trait::async_trait;
use regex::Regex;
use serde_json::{json, Value};

use super::glob::{root_arg, walk_files, Glob};
use super::write::{args_object, blocking, limit_arg, opt_str, req_str};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub(super) const NAME: &str = "grep";

struct Grep;

#[async_trait]
impl ToolExec for Grep {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let args = match args_object("grep", args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        blocking("grep", move || {
            let pattern = req_str("grep", &args, "pattern")?;
            let regex = Regex::new(pattern)
                .map_err(|e| ToolResult::error(format!("grep: invalid regex: {e}")))?;
            let root = root_arg("grep", &args)?;
            let include = match opt_str("grep", &args, "include")? {
                Some(g) if !g.is_empty() => Some(Glob::new("grep", g)?),
                _ => None,
            };
            let limit = limit_arg("grep", &args)?;
            let mut matches: Vec<String> = Vec::new();
            for (rel, full) in walk_files(&root) {
                if matches.len() >= limit {
                    break;
                }
                if include.as_ref().is_some_and(|g| !g.matches(&rel)) {
                    continue;
                }
                // Unreadable and non-UTF-8 (binary) files are skipped: they have no text lines.
                let Ok(bytes) = std::fs::read(&full) else {
                    continue;
                };
                let Ok(text) = String::from_utf8(bytes) else {
                    continue;
                };
                for (i, line) in lines(&text).enumerate() {
                    if matches.len() >= limit {
                        break;
                    }
                    if regex.is_match(line) {
                        matches.push(format!("{rel}:{}:{line}", i + 1));
                    }
                }
            }
            Ok(ToolResult::ok(matches.join("\n")).with_meta("count", json!(matches.len())))
        })
        .await
    }
}

/// A file's lines: a `\n` ends a line (it does not start an empty one after the last), and a
/// `\r` before it belongs to the line end, so `foo$` matches `foo\r\n` (NOTES #130).
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive('\n').map(|l| {
        let l = l.strip_suffix('\n').unwrap_or(l);
        l.strip_suffix('\r').unwrap_or(l)
    })
}

/// The §4A `grep` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "Search file contents by regex under a directory. Output is file:line:text matches.",
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression to search for"},
                "path": {"type": "string", "description": "Directory to search (default: process cwd)"},
                "include": {"type": "string", "description": "Glob filter for file names"},
                "limit": {"type": "number", "description": "Maximum number of matches (default 100)"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(Grep),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::glob::tests::tree;

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
                json!({"pattern": "print", "path": gs}),
                "a.py:2:print('hi')\nh/b.py:2:print(x)\nh/c.txt:1:print nothing",
            ),
            (
                json!({"pattern": "print", "path": gs, "include": "*.py"}),
                "a.py:2:print('hi')\nh/b.py:2:print(x)",
            ),
            (
                json!({"pattern": "print", "path": gs, "limit": 1}),
                "a.py:2:print('hi')",
            ),
            (json!({"pattern": "zzzz", "path": gs}), ""),
            (json!({"pattern": "x =", "path": gs}), "h/b.py:1:x = 1"),
            // The binary file at the root is skipped, not an error; ignored dirs stay ignored.
            (
                json!({"pattern": "print", "path": root}),
                "g/a.py:2:print('hi')\ng/h/b.py:2:print(x)\ng/h/c.txt:1:print nothing",
            ),
        ];
        for (args, want) in cases {
            let r = run(args.clone()).await;
            assert!(!r.is_error, "{args}: {r:?}");
            assert_eq!(r.output, want, "{args}");
        }
    }

    #[test]
    fn lines_end_at_newlines() {
        fn all(t: &str) -> Vec<&str> {
            lines(t).collect()
        }
        assert_eq!(all("foo\n\nbar\n"), ["foo", "", "bar"]);
        assert_eq!(all("one\ntwo"), ["one", "two"]);
        assert_eq!(all("a\r\nb\r\n\r\n"), ["a", "b", ""]);
        assert_eq!(all("a\r\r\n"), ["a\r"]);
        assert_eq!(all("lone\rcr"), ["lone\rcr"]);
        assert_eq!(all("\n"), [""]);
        assert!(all("").is_empty());
    }

    #[tokio::test]
    async fn bad_input() {
        let r = run(json!({"pattern": "("})).await;
        assert!(
            r.is_error && r.output.starts_with("grep: invalid regex: "),
            "{r:?}"
        );
        assert_eq!(
            run(json!({"pattern": ""})).await.output,
            "grep: pattern is required"
        );
        let r = run(json!({"pattern": "x", "include": 3})).await;
        assert!(r.is_error && r.output.contains("include must be a string"));
    }
}
