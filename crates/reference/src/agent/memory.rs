//! SPEC §7E "The `memory` builtin (file-backed, opt-in)": the tool a persona edits its own
//! durable notes with.
//!
//! Pinned by the SPEC (SPEC.md lines 900-915, 895-896): one tool named `memory`, three
//! actions — `add` appends an entry, `replace` swaps an existing substring for `with`,
//! `remove` deletes an existing substring; `target` is `self` (`MEMORY.md`, the default) or
//! `user` (`USER.md`); every action writes to disk; a `replace`/`remove` whose substring is
//! absent is a loud `isError`; success is a plain string; the tool never touches the live
//! prompt — what it saves loads at the next session's start, and its description says so.
//!
//! Choices where the SPEC is silent:
//! - source is `native`, not `builtin`: §4A (line 453) gives `source:"builtin"` to its ten
//!   default tools only, and line 459 puts `memory` outside that set (the Python port
//!   agrees). It is not `agent` either: it is a tool an agent uses, not an agent as a tool.
//! - the argument carrying the substring is `text` (the fixture's `m-remember` call), the
//!   replacement `with` (line 908); `replace` without `with` is an error, not a removal.
//! - an entry is one `- <text>` line (the fixture's `MEMORY.md` style), `text` trimmed;
//!   `add` trims the file's trailing whitespace, then appends `\n- <text>\n` (a new or
//!   blank file gets just `- <text>\n`) — the Python port's format.
//! - `replace`/`remove` act on the FIRST occurrence only ("an existing substring", singular;
//!   least destructive). The Python port replaces every occurrence.
//! - `remove` of text that is a whole entry (`- <text>` on its own line) drops the line,
//!   so no empty `- ` bullet is left behind; otherwise only the substring goes.
//! - a memory file over [`MAX_FILE_BYTES`] is refused rather than edited, and so is an
//!   edit that would grow it past the cap (the next session would truncate it); a file that
//!   is not UTF-8 is refused rather than rewritten lossily; a missing home dir is created on
//!   `add`.
//! - edits through one tool value (and its clones) are serialised, so two concurrent calls
//!   cannot lose each other's write.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{json, Value};

use super::home::MAX_FILE_BYTES;
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// What the model is told: the actions, the targets, and the frozen-snapshot rule.
pub const MEMORY_DESCRIPTION: &str = "Persist durable memory to disk. action=add appends an \
entry (`text`); action=replace swaps the first occurrence of an existing substring (`text`) \
for `with`; action=remove deletes the first occurrence of an existing substring (`text`). \
target=self (MEMORY.md, the default) or user (USER.md, your model of the user). Saved memory \
loads at the START of your NEXT session; it does NOT change your current prompt or context.";

/// The opt-in `memory` tool over the agent home `home` (`MEMORY.md` / `USER.md`).
pub fn memory_tool(home: PathBuf) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["add", "replace", "remove"]},
            "target": {
                "type": "string",
                "enum": ["self", "user"],
                "default": "self",
                "description": "self = MEMORY.md (your notes), user = USER.md (the user)."
            },
            "text": {
                "type": "string",
                "description": "add: the entry. replace/remove: the existing text to change."
            },
            "with": {"type": "string", "description": "replace: the replacement text."}
        },
        "required": ["action", "text"]
    });
    let exec = MemoryExec {
        home,
        lock: Arc::new(Mutex::new(())),
    };
    Tool::new(
        "memory",
        MEMORY_DESCRIPTION,
        schema,
        Source::Native,
        Arc::new(exec),
    )
}

/// The tool's state: where the home is, and the lock that serialises its edits.
struct MemoryExec {
    home: PathBuf,
    lock: Arc<Mutex<()>>,
}

/// One validated call.
#[derive(Debug)]
enum Op {
    Add(String),
    Replace(String, String),
    Remove(String),
}

#[async_trait]
impl ToolExec for MemoryExec {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let (op, file) = match parse(&args) {
            Ok(parsed) => parsed,
            Err(msg) => return ToolResult::error(msg),
        };
        let home = self.home.clone();
        let lock = Arc::clone(&self.lock);
        let edit = tokio::task::spawn_blocking(move || {
            // A poisoned lock only means an earlier edit panicked; the file is still whole.
            let _held = lock.lock().unwrap_or_else(|p| p.into_inner());
            apply(&home, file, &op)
        });
        match edit.await {
            Ok(Ok(msg)) => ToolResult::ok(msg),
            Ok(Err(msg)) => ToolResult::error(msg),
            Err(e) => ToolResult::error(format!("memory: the edit did not finish: {e}")),
        }
    }
}

/// Validates the arguments into an operation and the file it edits.
fn parse(args: &Value) -> Result<(Op, &'static str), String> {
    let field = |name: &str| -> Result<Option<&str>, String> {
        match args.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(format!("memory: `{name}` must be a string, got {other}")),
        }
    };
    let file = match field("target")? {
        None | Some("self") => "MEMORY.md",
        Some("user") => "USER.md",
        Some(other) => {
            return Err(format!(
                "memory: unknown target \"{other}\" (expected \"self\" or \"user\")"
            ))
        }
    };
    let text = field("text")?.unwrap_or_default();
    if text.trim().is_empty() {
        return Err("memory: `text` is required and must not be empty".to_string());
    }
    let op = match field("action")? {
        Some("add") => Op::Add(text.trim().to_string()),
        Some("replace") => match field("with")? {
            Some(with) => Op::Replace(text.to_string(), with.to_string()),
            None => return Err("memory: replace needs `with` (the replacement text)".to_string()),
        },
        Some("remove") => Op::Remove(text.to_string()),
        Some(other) => {
            return Err(format!(
                "memory: unknown action \"{other}\" (expected add, replace or remove)"
            ))
        }
        None => return Err("memory: `action` is required (add, replace or remove)".to_string()),
    };
    Ok((op, file))
}

/// Reads, edits and writes back one memory file; the `Ok` text is the tool's output.
fn apply(home: &Path, file: &str, op: &Op) -> Result<String, String> {
    let path = home.join(file);
    let current = read_bounded(&path, file)?;
    let (next, done) = match op {
        Op::Add(entry) => {
            let kept = current.trim_end();
            let next = if kept.is_empty() {
                format!("- {entry}\n")
            } else {
                format!("{kept}\n- {entry}\n")
            };
            (next, format!("added to {file}"))
        }
        Op::Replace(text, with) => {
            let at = find(&current, text, file)?;
            let next = format!("{}{with}{}", &current[..at], &current[at + text.len()..]);
            (next, format!("replaced in {file}"))
        }
        Op::Remove(text) => {
            let at = find(&current, text, file)?;
            let (from, to) = removal_span(&current, at, text.len());
            let next = format!("{}{}", &current[..from], &current[to..]);
            (next, format!("removed from {file}"))
        }
    };
    if next.len() > MAX_FILE_BYTES {
        return Err(format!(
            "memory: not saved: {file} would grow to {} bytes, over the {MAX_FILE_BYTES}-byte cap",
            next.len()
        ));
    }
    if let Err(e) = std::fs::create_dir_all(home) {
        return Err(format!("memory: cannot create {}: {e}", home.display()));
    }
    if let Err(e) = std::fs::write(&path, next) {
        return Err(format!("memory: cannot write {}: {e}", path.display()));
    }
    Ok(format!(
        "Memory saved: {done}. It loads at the start of your next session."
    ))
}

/// The file's text; empty when it does not exist yet; refused over the cap or not UTF-8.
fn read_bounded(path: &Path, file: &str) -> Result<String, String> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(format!("memory: cannot read {}: {e}", path.display())),
    };
    if !meta.is_file() {
        return Err(format!("memory: {} is not a regular file", path.display()));
    }
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(format!(
            "memory: {file} is {} bytes, over the {MAX_FILE_BYTES}-byte cap; not edited",
            meta.len()
        ));
    }
    let bytes =
        std::fs::read(path).map_err(|e| format!("memory: cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|_| format!("memory: {file} is not valid UTF-8; not edited"))
}

/// The byte offset of the first `text` in `current`, or the loud miss the SPEC asks for.
fn find(current: &str, text: &str, file: &str) -> Result<usize, String> {
    current
        .find(text)
        .ok_or_else(|| format!("memory: not found in {file}: \"{text}\""))
}

/// What `remove` deletes: the whole line when `text` is a whole `- <text>` entry, else `text`.
fn removal_span(current: &str, at: usize, len: usize) -> (usize, usize) {
    let end = at + len;
    let line_start = current[..at].rfind('\n').map_or(0, |i| i + 1);
    let rest = &current[end..];
    let line_end = if rest.is_empty() {
        Some(end)
    } else if rest.starts_with("\r\n") {
        Some(end + 2)
    } else if rest.starts_with('\n') {
        Some(end + 1)
    } else {
        None
    };
    match line_end {
        Some(line_end) if current[line_start..at].trim_end() == "-" => (line_start, line_end),
        _ => (at, end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn call(tool: &Tool, args: Value) -> ToolResult {
        tool.execute(args, &Context::default()).await
    }

    fn read(dir: &Path, file: &str) -> String {
        std::fs::read_to_string(dir.join(file)).unwrap()
    }

    #[test]
    fn it_is_an_opt_in_native_tool_named_memory_whose_description_states_the_snapshot_rule() {
        let dir = tempfile::tempdir().unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        assert_eq!(tool.name, "memory");
        assert_eq!(tool.source, Source::Native);
        let d = &tool.description;
        assert!(d.contains("NEXT session"), "{d}");
        assert!(d.contains("does NOT change your current prompt"), "{d}");
        let props = &tool.input_schema["properties"];
        assert_eq!(props["action"]["enum"], json!(["add", "replace", "remove"]));
        assert_eq!(props["target"]["enum"], json!(["self", "user"]));
        assert!(props["text"].is_object() && props["with"].is_object());
        assert_eq!(tool.input_schema["required"], json!(["action", "text"]));
    }

    #[tokio::test]
    async fn add_appends_entries_to_memory_md_by_default() {
        let dir = tempfile::tempdir().unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        let r = call(&tool, json!({"action": "add", "text": "Likes tea"})).await;
        assert!(!r.is_error, "{}", r.output);
        assert!(r.output.contains("MEMORY.md") && r.output.contains("next session"));
        assert_eq!(read(dir.path(), "MEMORY.md"), "- Likes tea\n");
        let r = call(
            &tool,
            json!({"action": "add", "target": "self", "text": " Has a cat "}),
        )
        .await;
        assert!(!r.is_error, "{}", r.output);
        assert_eq!(read(dir.path(), "MEMORY.md"), "- Likes tea\n- Has a cat\n");
        assert!(!dir.path().join("USER.md").exists());
    }

    #[tokio::test]
    async fn add_to_an_existing_file_keeps_it_and_appends_after_its_text() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("MEMORY.md"),
            "# Notes\n\n- Onboarded 2026-07.",
        )
        .unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        let r = call(&tool, json!({"action": "add", "text": "Ships on Fridays"})).await;
        assert!(!r.is_error, "{}", r.output);
        assert_eq!(
            read(dir.path(), "MEMORY.md"),
            "# Notes\n\n- Onboarded 2026-07.\n- Ships on Fridays\n"
        );
    }

    #[tokio::test]
    async fn target_user_writes_user_md_like_the_fixture_call() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("USER.md"),
            "The user is Muthu; timezone IST.",
        )
        .unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        let r = call(
            &tool,
            json!({"action": "add", "target": "user", "text": "Prefers dark roast"}),
        )
        .await;
        assert!(!r.is_error, "{}", r.output);
        assert!(r.output.contains("USER.md"), "{}", r.output);
        assert_eq!(
            read(dir.path(), "USER.md"),
            "The user is Muthu; timezone IST.\n- Prefers dark roast\n"
        );
        assert!(!dir.path().join("MEMORY.md").exists());
    }

    #[tokio::test]
    async fn replace_swaps_the_first_occurrence_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("USER.md"), "- tea\n- more tea\n").unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        let r = call(
            &tool,
            json!({"action": "replace", "target": "user", "text": "tea", "with": "dark roast"}),
        )
        .await;
        assert!(!r.is_error, "{}", r.output);
        assert_eq!(read(dir.path(), "USER.md"), "- dark roast\n- more tea\n");
    }

    #[tokio::test]
    async fn remove_drops_a_whole_entry_line_or_just_a_substring() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("MEMORY.md"),
            "- Likes tea\n- Has a very old cat\n- Lives in Chennai",
        )
        .unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        let r = call(&tool, json!({"action": "remove", "text": "Likes tea"})).await;
        assert!(!r.is_error, "{}", r.output);
        assert_eq!(
            read(dir.path(), "MEMORY.md"),
            "- Has a very old cat\n- Lives in Chennai"
        );
        let r = call(&tool, json!({"action": "remove", "text": "very old "})).await;
        assert!(!r.is_error, "{}", r.output);
        assert_eq!(
            read(dir.path(), "MEMORY.md"),
            "- Has a cat\n- Lives in Chennai"
        );
        let r = call(
            &tool,
            json!({"action": "remove", "text": "Lives in Chennai"}),
        )
        .await;
        assert!(!r.is_error, "{}", r.output);
        assert_eq!(read(dir.path(), "MEMORY.md"), "- Has a cat\n");
    }

    #[tokio::test]
    async fn a_missing_substring_is_a_loud_error_naming_it_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("MEMORY.md"), "- Likes tea\n").unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        for args in [
            json!({"action": "replace", "text": "coffee", "with": "cocoa"}),
            json!({"action": "remove", "text": "coffee"}),
        ] {
            let r = call(&tool, args).await;
            assert!(r.is_error);
            assert!(
                r.output.contains("\"coffee\"") && r.output.contains("MEMORY.md"),
                "{}",
                r.output
            );
        }
        assert_eq!(read(dir.path(), "MEMORY.md"), "- Likes tea\n");
        // An absent USER.md has nothing to replace, and is not created by the miss.
        let r = call(
            &tool,
            json!({"action": "remove", "target": "user", "text": "x"}),
        )
        .await;
        assert!(r.is_error, "{}", r.output);
        assert!(!dir.path().join("USER.md").exists());
    }

    #[tokio::test]
    async fn bad_arguments_are_error_results() {
        let dir = tempfile::tempdir().unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        for (args, needle) in [
            (json!({"action": "forget", "text": "x"}), "unknown action"),
            (json!({"text": "x"}), "`action` is required"),
            (
                json!({"action": "add", "target": "boss", "text": "x"}),
                "unknown target",
            ),
            (json!({"action": "add"}), "`text` is required"),
            (json!({"action": "add", "text": "  "}), "`text` is required"),
            (json!({"action": "add", "text": 7}), "must be a string"),
            (json!({"action": "replace", "text": "x"}), "needs `with`"),
        ] {
            let r = call(&tool, args.clone()).await;
            assert!(r.is_error, "{args}");
            assert!(r.output.contains(needle), "{args}: {}", r.output);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[tokio::test]
    async fn a_memory_file_over_the_cap_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let big = "a".repeat(MAX_FILE_BYTES + 1);
        std::fs::write(dir.path().join("MEMORY.md"), &big).unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        let r = call(&tool, json!({"action": "remove", "text": "a"})).await;
        assert!(r.is_error);
        assert!(
            r.output.contains("over the 2097152-byte cap"),
            "{}",
            r.output
        );
        assert_eq!(read(dir.path(), "MEMORY.md").len(), big.len());
        // At the cap exactly it is editable, but an add that would pass the cap is refused.
        std::fs::write(dir.path().join("MEMORY.md"), &big[1..]).unwrap();
        let r = call(&tool, json!({"action": "add", "text": "x"})).await;
        assert!(r.is_error);
        assert!(r.output.contains("would grow"), "{}", r.output);
        assert_eq!(read(dir.path(), "MEMORY.md").len(), MAX_FILE_BYTES);
    }

    #[tokio::test]
    async fn concurrent_adds_through_one_tool_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let tool = memory_tool(dir.path().to_path_buf());
        let calls = (0..16).map(|i| {
            let tool = tool.clone();
            async move { call(&tool, json!({"action": "add", "text": format!("n{i}")})).await }
        });
        for r in futures::future::join_all(calls).await {
            assert!(!r.is_error, "{}", r.output);
        }
        assert_eq!(read(dir.path(), "MEMORY.md").lines().count(), 16);
    }
}
