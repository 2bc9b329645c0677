//! §4A `write`: create/overwrite a file, creating parent directories.
//!
//! This file also hosts the argument and filesystem helpers the sibling builtins share,
//! because `builtins/mod.rs` is owned elsewhere and declares exactly one file per tool.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub(super) const NAME: &str = "write";

/// Outcome of a builtin step: an `Err` is already the `isError` result to hand back.
pub(super) type Step<T> = Result<T, ToolResult>;

/// The call's arguments as an object; `null` means "no arguments" (as in Python's `args or {}`).
pub(super) fn args_object(tool: &str, args: Value) -> Step<Map<String, Value>> {
    match args {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(ToolResult::error(format!(
            "{tool}: arguments must be a JSON object, got {}",
            type_name(&other)
        ))),
    }
}

/// A JSON type name for error messages.
pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// An optional string argument; absent or `null` is `None`, any other non-string is an error.
pub(super) fn opt_str<'a>(
    tool: &str,
    args: &'a Map<String, Value>,
    key: &str,
) -> Step<Option<&'a str>> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(other) => Err(ToolResult::error(format!(
            "{tool}: {key} must be a string, got {}",
            type_name(other)
        ))),
    }
}

/// A required, non-empty string argument (Python treats `""` as missing: `args.get(k) or ""`).
pub(super) fn req_str<'a>(tool: &str, args: &'a Map<String, Value>, key: &str) -> Step<&'a str> {
    match opt_str(tool, args, key)? {
        Some(s) if !s.is_empty() => Ok(s),
        _ => Err(ToolResult::error(format!("{tool}: {key} is required"))),
    }
}

/// An optional number argument; booleans are not numbers (mirrors Python's `_num`).
pub(super) fn opt_num(tool: &str, args: &Map<String, Value>, key: &str) -> Step<Option<f64>> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(other) => Err(ToolResult::error(format!(
            "{tool}: {key} must be a number, got {}",
            type_name(other)
        ))),
    }
}

/// An optional boolean argument.
pub(super) fn opt_bool(tool: &str, args: &Map<String, Value>, key: &str) -> Step<Option<bool>> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(ToolResult::error(format!(
            "{tool}: {key} must be a boolean, got {}",
            type_name(other)
        ))),
    }
}

/// A `limit` argument as Python computes it (`int(lim)`, default 100); negatives behave as 0.
pub(super) fn limit_arg(tool: &str, args: &Map<String, Value>) -> Step<usize> {
    Ok(match opt_num(tool, args, "limit")? {
        None => 100,
        Some(n) if n <= 0.0 => 0,
        Some(n) => n.trunc() as usize,
    })
}

/// Python's `repr()` of a path string, so error text matches the Python port's `[Errno]` form.
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// An OS error in Python's `OSError.__str__` shape: `[Errno 2] No such file or directory: 'p'`.
pub(super) fn io_msg(e: &io::Error, path: &str) -> String {
    match e.raw_os_error() {
        Some(code) => {
            let text = io::Error::from_raw_os_error(code).to_string();
            let suffix = format!(" (os error {code})");
            let text = text.strip_suffix(&suffix).unwrap_or(&text);
            format!("[Errno {code}] {text}: {}", py_repr(path))
        }
        None => e.to_string(),
    }
}

/// Reads a UTF-8 text file, reporting failures as the tool's `isError` result.
pub(super) fn read_text(tool: &str, path: &str) -> Step<String> {
    use std::io::Read;
    let fail = |e: std::io::Error| ToolResult::error(format!("{tool}: {}", io_msg(&e, path)));
    let mut file = open_regular(tool, path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(fail)?;
    String::from_utf8(bytes)
        .map_err(|_| ToolResult::error(format!("{tool}: {path} is not valid UTF-8 text")))
}

/// Opens `path` for reading if it is a regular file; a directory, FIFO or device is an error.
pub(super) fn open_regular(tool: &str, path: &str) -> Step<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let fail = |e: std::io::Error| ToolResult::error(format!("{tool}: {}", io_msg(&e, path)));
    // A FIFO would block forever and a device such as /dev/zero never ends: only regular
    // files are read. Opening non-blocking and checking the opened handle leaves no window
    // for the path to be swapped in between (and opening a FIFO cannot block).
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
        .map_err(fail)?;
    let meta = file.metadata().map_err(fail)?;
    if meta.is_dir() {
        // Reading a directory fails with the platform's own message, as the ports report it.
        return Err(fail(std::io::Error::from(nix::errno::Errno::EISDIR)));
    }
    if !meta.is_file() {
        return Err(ToolResult::error(format!(
            "{tool}: {path} is not a regular file"
        )));
    }
    Ok(file)
}

/// Runs blocking filesystem work off the async runtime; a panic there becomes an `isError`.
pub(super) async fn blocking<F>(tool: &'static str, f: F) -> ToolResult
where
    F: FnOnce() -> Step<ToolResult> + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(Ok(r)) | Ok(Err(r)) => r,
        Err(e) => ToolResult::error(format!("{tool}: {e}")),
    }
}

/// A fully written temp file next to its destination, waiting to be renamed into place.
pub(super) struct Staged {
    tmp: tempfile::NamedTempFile,
    dest: PathBuf,
}

impl Staged {
    /// Where the file will land.
    pub(super) fn dest(&self) -> &Path {
        &self.dest
    }

    /// Renames the temp file over the destination; a rename is what makes the write atomic.
    pub(super) fn commit(self) -> io::Result<()> {
        self.tmp
            .persist(&self.dest)
            .map(|_| ())
            .map_err(|e| e.error)
    }
}

/// Writes `content` to a temp file in `path`'s directory (creating it), without touching `path`.
pub(super) fn stage(path: &Path, content: &[u8]) -> io::Result<Staged> {
    // Writing through a symlink must update its target, not replace the link with a file.
    let dest = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    };
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)?;
    if dest.is_dir() {
        return Err(io::Error::from(nix::errno::Errno::EISDIR));
    }
    // A new file gets 0666 minus the umask (what a plain create would give it), an overwritten
    // one keeps its mode, instead of the temp file's 0600 leaking through the rename.
    use std::os::unix::fs::PermissionsExt as _;
    let mut tmp = tempfile::Builder::new()
        .prefix(".toolnexus-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(&parent)?;
    tmp.write_all(content)?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(&dest) {
        std::fs::set_permissions(tmp.path(), meta.permissions())?;
    }
    Ok(Staged { tmp, dest })
}

/// Atomically replaces `path` with `content` (temp file in the same directory + rename).
pub(super) fn atomic_write(path: &Path, content: &[u8]) -> io::Result<()> {
    stage(path, content)?.commit()
}

struct Write;

#[async_trait]
impl ToolExec for Write {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let args = match args_object("write", args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        blocking("write", move || {
            let path = req_str("write", &args, "path")?.to_string();
            let content = opt_str("write", &args, "content")?
                .ok_or_else(|| ToolResult::error("write: content is required"))?;
            atomic_write(Path::new(&path), content.as_bytes())
                .map_err(|e| ToolResult::error(format!("write: {}", io_msg(&e, &path))))?;
            let n = content.len();
            Ok(ToolResult::ok(format!("Wrote {n} bytes to {path}")).with_meta("bytes", json!(n)))
        })
        .await
    }
}

/// The §4A `write` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "Write content to a file (create/overwrite), creating parent directories.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to write to"},
                "content": {"type": "string", "description": "Content to write"}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(Write),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(args: Value) -> ToolResult {
        tool().execute(args, &Context::default()).await
    }

    #[tokio::test]
    async fn writes_creating_parents_and_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/dir/new.txt");
        let ps = p.to_str().unwrap();
        let r = run(json!({"path": ps, "content": "h\u{e9}llo\n"})).await;
        assert!(!r.is_error, "{r:?}");
        assert_eq!(r.output, format!("Wrote 7 bytes to {ps}"));
        assert_eq!(r.metadata.unwrap()["bytes"], json!(7));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "h\u{e9}llo\n");
        let r = run(json!({"path": ps, "content": ""})).await;
        assert_eq!(r.output, format!("Wrote 0 bytes to {ps}"));
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "");
        // No temp files are left behind.
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
    }

    #[tokio::test]
    async fn bad_input_is_error() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            run(json!({"content": "x"})).await.output,
            "write: path is required"
        );
        let ps = dir.path().join("a").to_str().unwrap().to_string();
        assert_eq!(
            run(json!({"path": ps})).await.output,
            "write: content is required"
        );
        let r = run(json!({"path": ps, "content": 5})).await;
        assert!(r.is_error && r.output.contains("content must be a string"));
        let r = run(json!([1])).await;
        assert!(r.is_error && r.output.contains("must be a JSON object"));
        let d = dir.path().to_str().unwrap();
        let r = run(json!({"path": d, "content": "x"})).await;
        assert!(
            r.is_error && r.output.contains("[Errno 21] Is a directory"),
            "{r:?}"
        );
    }
}
