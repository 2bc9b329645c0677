//! §4A `read`: a media file (the §4A media table) as a description and one part carrying its
//! bytes; any other file as UTF-8 text, whole or as a 1-based line window. Bytes that are not
//! UTF-8 are an error naming the file.

use std::io::{BufRead as _, BufReader, Read as _};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::cap::{Capped, Utf8Check};
use super::write::{args_object, blocking, io_msg, open_regular, opt_num, req_str, Step};
use crate::content::{media_type_of_path, read_description, ContentPart, MediaKind};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub(super) const NAME: &str = "read";

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
            if let Some((mime, kind)) = media_type_of_path(std::path::Path::new(path)) {
                return read_media(path, mime, kind);
            }
            // No window is the whole file: every segment, joined back as it was.
            let (start, take) = bounds(offset, limit);
            Ok(ToolResult::ok(read_window(path, start, take)?))
        })
        .await
    }
}

/// A media file: `<path> (<mimeType>, <bytes> bytes)` and one part with its bytes. A window
/// (`offset`/`limit`) has no meaning for bytes and is not applied (NOTES records it).
fn read_media(path: &str, mime: &str, kind: MediaKind) -> Step<ToolResult> {
    let mut file = open_regular("read", path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| ToolResult::error(format!("read: {}", io_msg(&e, path))))?;
    let part = ContentPart::from_bytes(&bytes, mime, Some(kind))
        .map_err(|e| ToolResult::error(format!("read: {path}: {e}")))?;
    let output = read_description(path, mime, bytes.len());
    Ok(ToolResult::ok(output).with_parts(vec![part]))
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
/// with `\n` (or is empty). Every byte read (skipped or kept) must be UTF-8; what lies after
/// the window is not read, so it is not checked. What is kept is bounded ([`Capped`]): the
/// file is read in buffer-sized pieces, so neither a huge file nor a huge single line is ever
/// held whole.
fn read_window(path: &str, start: usize, take: usize) -> Step<String> {
    let io_err = |e: std::io::Error| ToolResult::error(format!("read: {}", io_msg(&e, path)));
    let not_utf8 = || ToolResult::error(format!("read: {path} is not valid UTF-8 text"));
    let file = open_regular("read", path)?;
    let end = start.saturating_add(take);
    let mut reader = BufReader::new(file);
    let mut out = Capped::new();
    let mut check = Utf8Check::default();
    // The segment being read; each `\n` ends one and starts the next (possibly empty) one.
    let mut segment = 0usize;
    while segment < end {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io_err(e)),
        };
        if buf.is_empty() {
            break;
        }
        let newline = buf.iter().position(|b| *b == b'\n');
        let piece = &buf[..newline.unwrap_or(buf.len())];
        if !check.feed(piece) {
            return Err(not_utf8());
        }
        if segment >= start {
            out.push(piece);
        }
        let used = match newline {
            Some(at) => {
                // A `\n` never occurs inside a multi-byte sequence: one cut there is invalid.
                if !check.complete() {
                    return Err(not_utf8());
                }
                // Joining with `\n` puts one between two kept segments, never after the last.
                if segment >= start && segment + 1 < end {
                    out.push(b"\n");
                }
                segment += 1;
                at + 1
            }
            None => piece.len(),
        };
        reader.consume(used);
    }
    if !check.complete() {
        return Err(not_utf8());
    }
    Ok(out.into_text())
}

/// The §4A `read` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "Read a file. An image, PDF or audio file (png, jpg, jpeg, gif, webp, pdf, mp3, wav) is returned as a description and one content part with its bytes; any other file is read as UTF-8 text, and with offset/limit only that line window is returned.",
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

    /// A file larger than what is kept: its head and tail come back, with the note between.
    #[tokio::test]
    async fn a_huge_file_or_line_keeps_its_head_and_tail() {
        use crate::builtins::cap::{KEEP_HEAD, KEEP_TAIL};
        let dir = tempfile::tempdir().unwrap();
        let many = dir.path().join("many.txt");
        let text: String = (1..=200_000).map(|n| format!("{n}\n")).collect();
        std::fs::write(&many, &text).unwrap();
        let one = dir.path().join("one.txt");
        std::fs::write(&one, "x".repeat(1_000_000) + "\nsecond\n").unwrap();
        let (m, o) = (many.to_str().unwrap(), one.to_str().unwrap());
        let cases = [
            (
                json!({"path": m}),
                "1\n2\n3\n",
                "199999\n200000\n",
                1_288_895,
            ),
            (
                json!({"path": m, "offset": 2}),
                "2\n3\n",
                "199999\n200000\n",
                1_288_893,
            ),
            (json!({"path": o, "limit": 1}), "xxx", "xxx", 1_000_000),
            (json!({"path": o}), "xxx", "xxx\nsecond\n", 1_000_008),
        ];
        for (args, head, tail, total) in cases {
            let r = run(args.clone()).await;
            assert!(!r.is_error, "{args}: {:.200}", r.output);
            assert!(
                r.output.len() < KEEP_HEAD + KEEP_TAIL + 200,
                "{args}: {}",
                r.output.len()
            );
            assert!(r.output.starts_with(head), "{args}");
            assert!(r.output.ends_with(tail), "{args}");
            let note = format!("bytes of output omitted ({total} bytes in all;");
            assert!(r.output.contains(&note), "{args}");
        }
        // Within the bound nothing changes: the second line of the one-line file.
        let r = run(json!({"path": o, "offset": 2, "limit": 1})).await;
        assert_eq!(r.output, "second");
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
