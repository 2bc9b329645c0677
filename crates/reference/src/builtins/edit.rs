//! §4A `edit`: exact-string replacement in one file.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::write::{
    args_object, atomic_write, blocking, io_msg, opt_bool, opt_str, read_text, req_str,
};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub(super) const NAME: &str = "edit";

struct Edit;

#[async_trait]
impl ToolExec for Edit {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let args = match args_object("edit", args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        blocking("edit", move || {
            let path = req_str("edit", &args, "path")?;
            let old = req_str("edit", &args, "oldString")?;
            let new = opt_str("edit", &args, "newString")?
                .ok_or_else(|| ToolResult::error("edit: newString is required"))?;
            let replace_all = opt_bool("edit", &args, "replaceAll")?.unwrap_or(false);
            let content = read_text("edit", path)?;
            let count = content.matches(old).count();
            if count == 0 {
                return Err(ToolResult::error(format!(
                    "edit: oldString not found in {path}"
                )));
            }
            let (next, n) = if replace_all {
                (content.replace(old, new), count)
            } else if count > 1 {
                return Err(ToolResult::error(format!(
                    "edit: oldString is not unique in {path} ({count} occurrences); use replaceAll"
                )));
            } else {
                (content.replacen(old, new, 1), 1)
            };
            atomic_write(Path::new(path), next.as_bytes())
                .map_err(|e| ToolResult::error(format!("edit: {}", io_msg(&e, path))))?;
            let plural = if n == 1 { "" } else { "s" };
            Ok(
                ToolResult::ok(format!("Edited {path} ({n} replacement{plural})"))
                    .with_meta("replacements", json!(n)),
            )
        })
        .await
    }
}

/// The §4A `edit` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "Exact-string replace in a file. Default replaces a single unique occurrence; replaceAll replaces all.",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to the file to edit"},
                "oldString": {"type": "string", "description": "Exact string to replace"},
                "newString": {"type": "string", "description": "Replacement string"},
                "replaceAll": {"type": "boolean", "description": "Replace all occurrences"}
            },
            "required": ["path", "oldString", "newString"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(Edit),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(args: Value) -> ToolResult {
        tool().execute(args, &Context::default()).await
    }

    #[tokio::test]
    async fn uniqueness_and_replace_all() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f2.txt");
        let p = f.to_str().unwrap();
        std::fs::write(&f, "abc abc abc").unwrap();

        let r = run(json!({"path": p, "oldString": "abc", "newString": "X"})).await;
        assert!(r.is_error);
        assert_eq!(
            r.output,
            format!("edit: oldString is not unique in {p} (3 occurrences); use replaceAll")
        );
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "abc abc abc");

        let r =
            run(json!({"path": p, "oldString": "abc", "newString": "X", "replaceAll": true})).await;
        assert!(!r.is_error);
        assert_eq!(r.output, format!("Edited {p} (3 replacements)"));
        assert_eq!(r.metadata.unwrap()["replacements"], json!(3));

        let r = run(json!({"path": p, "oldString": "X X", "newString": "Y"})).await;
        assert_eq!(r.output, format!("Edited {p} (1 replacement)"));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "Y X");

        let r = run(json!({"path": p, "oldString": "zzz", "newString": "Y"})).await;
        assert!(r.is_error);
        assert_eq!(r.output, format!("edit: oldString not found in {p}"));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "Y X");
    }

    #[tokio::test]
    async fn bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nofile.txt");
        let m = missing.to_str().unwrap();
        let r = run(json!({"path": m, "oldString": "a", "newString": "b"})).await;
        assert_eq!(
            r.output,
            format!("edit: [Errno 2] No such file or directory: '{m}'")
        );
        assert_eq!(
            run(json!({"path": m, "newString": "b"})).await.output,
            "edit: oldString is required"
        );
        assert_eq!(
            run(json!({"path": m, "oldString": "a"})).await.output,
            "edit: newString is required"
        );
        let r =
            run(json!({"path": m, "oldString": "a", "newString": "b", "replaceAll": "yes"})).await;
        assert!(r.is_error && r.output.contains("replaceAll must be a boolean"));
    }
}
