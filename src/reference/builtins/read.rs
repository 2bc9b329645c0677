//! §4A `read`: a UTF-8 text file, whole or as a 1-based line window.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::write::{args_object, blocking, opt_num, read_text, req_str};
use crate::reference::tool::{Context, Source, Tool, ToolExec, ToolResult};

struct Read;

#[async_trait]
impl ToolExec for Read {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let args = match args_object("read", args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        blocking("read", move || {
            let path = req_str("read", &args, "path")?;
            let offset = opt_num("read", &args, "offset")?;
            let limit = opt_num("read", &args, "limit")?;
            let content = read_text("read", path)?;
            // Python returns the file untouched unless a window was asked for.
            if offset.is_none() && limit.is_none() {
                return Ok(ToolResult::ok(content));
            }
            Ok(ToolResult::ok(window(&content, offset, limit)))
        })
        .await
    }
}

/// Python's window: split on `\n`, start at `max(1, int(offset))`, take `max(0, int(limit))`
/// lines (default: the rest), re-join with `\n`.
fn window(content: &str, offset: Option<f64>, limit: Option<f64>) -> String {
    let lines: Vec<&str> = content.split('\n').collect();
    let offset = offset.map_or(1.0, |o| o.trunc().max(1.0));
    let start = (offset as usize - 1).min(lines.len());
    let rest = lines.len() - start;
    let take = limit.map_or(rest, |l| (l.trunc().max(0.0) as usize).min(rest));
    lines[start..start + take].join("\n")
}

/// The §4A `read` builtin.
pub fn tool() -> Tool {
    Tool::new(
        "read",
        "Read a UTF-8 text file. With offset/limit only that line window is returned.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to the file to read"},
                "offset": {"type": "number", "description": "1-based line to start from"},
                "limit": {"type": "number", "description": "Maximum number of lines to read"}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(Read),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(args: Value) -> ToolResult {
        tool().execute(args, &Context::default()).await
    }

    fn fixture() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        std::fs::write(&p, "line1\nline2\nline3\nline4\n").unwrap();
        let ps = p.to_str().unwrap().to_string();
        (dir, ps)
    }

    #[tokio::test]
    async fn whole_file_and_windows() {
        let (_d, p) = fixture();
        let r = run(json!({"path": p})).await;
        assert!(!r.is_error);
        assert_eq!(r.output, "line1\nline2\nline3\nline4\n");
        assert!(r.metadata.is_none());
        let cases = [
            (json!({"path": p, "offset": 2, "limit": 2}), "line2\nline3"),
            (json!({"path": p, "offset": 3}), "line3\nline4\n"),
            (json!({"path": p, "limit": 1}), "line1"),
            (json!({"path": p, "offset": 0, "limit": 1}), "line1"),
            (json!({"path": p, "offset": 99}), ""),
            (json!({"path": p, "offset": 2, "limit": -4}), ""),
            (json!({"path": p, "offset": 1.9, "limit": 1.9}), "line1"),
        ];
        for (args, want) in cases {
            let r = run(args.clone()).await;
            assert!(!r.is_error, "{args}");
            assert_eq!(r.output, want, "{args}");
        }
    }

    #[tokio::test]
    async fn failures() {
        let (dir, p) = fixture();
        assert_eq!(run(json!({})).await.output, "read: path is required");
        assert_eq!(run(json!(null)).await.output, "read: path is required");
        let missing = dir.path().join("missing.txt");
        let ms = missing.to_str().unwrap();
        let r = run(json!({"path": ms})).await;
        assert!(r.is_error);
        assert_eq!(
            r.output,
            format!("read: [Errno 2] No such file or directory: '{ms}'")
        );
        let bin = dir.path().join("bin.dat");
        std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
        let bs = bin.to_str().unwrap();
        let r = run(json!({"path": bs})).await;
        assert!(r.is_error);
        assert_eq!(r.output, format!("read: {bs} is not valid UTF-8 text"));
        let r = run(json!({"path": p, "offset": "2"})).await;
        assert!(r.is_error && r.output.contains("offset must be a number"));
        let r = run(json!({"path": 7})).await;
        assert!(r.is_error && r.output.contains("path must be a string"));
        let r = run(json!({"path": dir.path().to_str().unwrap()})).await;
        assert!(r.is_error && r.output.contains("[Errno 21] Is a directory"));
    }
}
