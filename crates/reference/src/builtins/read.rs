//! §4A `read`: a UTF-8 text file, whole or as a 1-based line window.

use std::fs::File;
use std::io::{BufRead as _, BufReader};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::write::{args_object, blocking, io_msg, opt_num, read_text, req_str, Step};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

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
            // Python returns the file untouched unless a window was asked for.
            if offset.is_none() && limit.is_none() {
                return Ok(ToolResult::ok(read_text("read", path)?));
            }
            let (start, take) = bounds(offset, limit);
            Ok(ToolResult::ok(read_window(path, start, take)?))
        })
        .await
    }
}

/// Python's window bounds as 0-based segment index and count: start at `max(1, int(offset))`,
/// take `max(0, int(limit))` lines (default: the rest). Float casts saturate, so a huge
/// offset or limit is simply "past the end" / "everything".
fn bounds(offset: Option<f64>, limit: Option<f64>) -> (usize, usize) {
    let start = offset.map_or(0, |o| (o.trunc().max(1.0) as usize) - 1);
    let take = limit.map_or(usize::MAX, |l| l.trunc().max(0.0) as usize);
    (start, take)
}

/// Streams the window out of the file: skips `start` lines and keeps the next `take`, never
/// reading past the window. The result equals Python's `"\n".join(content.split("\n")[start:
/// start + take])`: the file is `\n`-separated segments, the last one empty when the file ends
/// with `\n` (or is empty). Every line read (skipped or kept) must be UTF-8; what lies after
/// the window is not read, so it is not checked.
fn read_window(path: &str, start: usize, take: usize) -> Step<String> {
    let io_err = |e: std::io::Error| ToolResult::error(format!("read: {}", io_msg(&e, path)));
    let not_regular = || ToolResult::error(format!("read: {path} is not a regular file"));
    // Checked before opening: opening a FIFO would block until a writer appears.
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(io_err(std::io::Error::from(nix::errno::Errno::EISDIR))),
        Ok(m) if !m.is_file() => return Err(not_regular()),
        _ => {}
    }
    let file = File::open(path).map_err(io_err)?;
    // And again on the handle itself, in case the path was swapped in between.
    if !file.metadata().map_err(io_err)?.is_file() {
        return Err(not_regular());
    }
    let end = start.saturating_add(take);
    let mut reader = BufReader::new(file);
    let mut out = Vec::new();
    let mut line = Vec::new();
    let mut index = 0usize;
    // Whether the segment after the last one read exists: an empty file has one empty segment.
    let mut more = true;
    // Whether the empty segment after a final `\n` falls inside the window.
    let mut trailing_empty = false;
    while index < end {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).map_err(io_err)?;
        if n == 0 {
            trailing_empty = more && index >= start;
            break;
        }
        // A `\n` byte never occurs inside a multi-byte UTF-8 sequence, so lines validate alone.
        if std::str::from_utf8(&line).is_err() {
            return Err(ToolResult::error(format!(
                "read: {path} is not valid UTF-8 text"
            )));
        }
        more = line.last() == Some(&b'\n');
        if index >= start {
            out.extend_from_slice(&line);
        }
        index += 1;
    }
    // Joining with `\n` puts none after the last kept segment, unless that is the empty one.
    if !trailing_empty && out.last() == Some(&b'\n') {
        out.pop();
    }
    String::from_utf8(out)
        .map_err(|_| ToolResult::error(format!("read: {path} is not valid UTF-8 text")))
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

    #[tokio::test]
    async fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let fifo = dir.path().join("pipe");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let path = fifo.to_string_lossy().to_string();
        for args in [json!({"path": path}), json!({"path": path, "limit": 1})] {
            let r = tokio::time::timeout(std::time::Duration::from_secs(5), run(args)).await;
            let r = r.unwrap_or_else(|_| panic!("read blocked on a FIFO"));
            assert!(
                r.is_error && r.output.contains("not a regular file"),
                "{r:?}"
            );
        }
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

    /// Python's window over the whole text, the model the streaming reader must equal.
    fn split_window(content: &str, start: usize, take: usize) -> String {
        let lines: Vec<&str> = content.split('\n').collect();
        let start = start.min(lines.len());
        let take = take.min(lines.len() - start);
        lines[start..start + take].join("\n")
    }

    #[test]
    fn streamed_window_equals_split_and_join() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.txt");
        let ps = p.to_str().unwrap();
        let texts = [
            "",
            "\n",
            "\n\n",
            "a",
            "a\n",
            "a\nb",
            "a\nb\n",
            "a\n\nb\n\n",
            "h\u{e9}\r\nx\u{1F600}\ny",
        ];
        for text in texts {
            std::fs::write(&p, text).unwrap();
            for start in 0..6 {
                for take in [0, 1, 2, 3, 7, usize::MAX] {
                    let got = read_window(ps, start, take).map_err(|e| e.output);
                    assert_eq!(
                        got,
                        Ok(split_window(text, start, take)),
                        "{text:?} start={start} take={take}"
                    );
                }
            }
        }
    }

    #[test]
    fn window_stops_reading_after_the_window() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tail-bad.txt");
        // Bad bytes after the window are never read; bad bytes inside it are reported.
        std::fs::write(&p, b"one\ntwo\n\xff\xfe\n").unwrap();
        let ps = p.to_str().unwrap();
        assert_eq!(
            read_window(ps, 0, 2).map_err(|e| e.output),
            Ok("one\ntwo".into())
        );
        let r = read_window(ps, 1, 5).unwrap_err();
        assert_eq!(r.output, format!("read: {ps} is not valid UTF-8 text"));
        assert!(r.is_error);
    }

    #[tokio::test]
    async fn non_regular_files_are_refused() {
        let r = run(json!({"path": "/dev/zero", "limit": 1})).await;
        assert!(r.is_error);
        assert_eq!(r.output, "read: /dev/zero is not a regular file");
        let r = run(json!({"path": "/dev/zero"})).await;
        assert!(r.is_error && r.output.contains("not a regular file"));
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let r = run(json!({"path": d, "offset": 1})).await;
        assert!(
            r.is_error && r.output.contains("[Errno 21] Is a directory"),
            "{r:?}"
        );
        let missing = dir.path().join("gone.txt");
        let m = missing.to_str().unwrap();
        let r = run(json!({"path": m, "offset": 2, "limit": 1})).await;
        assert_eq!(
            r.output,
            format!("read: [Errno 2] No such file or directory: '{m}'")
        );
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
