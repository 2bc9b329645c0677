//! §3 the single `skill` loader tool and its byte-exact §0.6 progressive-disclosure block.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{json, Value};

use super::{discover, SkillInfo, SkillOrigin};
use crate::percent;
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// skill.txt, the loader description (verbatim from opencode, no trailing newline).
pub const LOADER_DESCRIPTION: &str = "Load a specialized skill when the task at hand matches one of the skills listed in the system prompt.

Use this tool to inject the skill's instructions and resources into current conversation. The output may contain detailed workflow guidance as well as references to scripts, files, etc in the same directory as the skill.

The skill name must match one of the skills listed in your system prompt.";

/// The sibling sample size when `sample_limit` is 0 (S5).
const DEFAULT_SAMPLE: usize = 10;

/// The fixed line telling the model how relative paths resolve.
const RELATIVE_NOTE: &str =
    "Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.";

/// §3 builds the `skill` tool over the (already filtered) catalog with the S5 sample cap.
pub fn skill_tool(skills: impl Into<Arc<Vec<SkillInfo>>>, sample_limit: i64) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The name of the skill to load"}
        },
        "required": ["name"]
    });
    Tool::new(
        "skill",
        LOADER_DESCRIPTION,
        schema,
        Source::Skill,
        Arc::new(SkillExec {
            skills: skills.into(),
            sample_limit,
        }),
    )
}

/// The loader behind the `skill` tool.
struct SkillExec {
    skills: Arc<Vec<SkillInfo>>,
    sample_limit: i64,
}

/// How many `<skill_files>` entries to emit: `None` ⇒ omit the block, `Some(None)` ⇒ all.
///
/// `0` ⇒ 10, `n > 0` ⇒ n, `-1` ⇒ omit. Any other negative is uncapped, as the Python port does
/// (it only tests `== -1` for omission and `> 0` for a cap).
fn effective_limit(sample_limit: i64) -> Option<Option<usize>> {
    match sample_limit {
        0 => Some(Some(DEFAULT_SAMPLE)),
        -1 => None,
        n if n > 0 => Some(Some(usize::try_from(n).unwrap_or(usize::MAX))),
        _ => Some(None),
    }
}

/// `file://` + the absolute path, percent-encoded like Python's `Path.as_uri()` (bytes outside
/// `A-Za-z0-9_.-~/` become `%XX`).
fn file_uri(dir: &Path) -> String {
    #[cfg(unix)]
    let bytes: Vec<u8> = {
        use std::os::unix::ffi::OsStrExt;
        dir.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes: Vec<u8> = dir.to_string_lossy().replace('\\', "/").into_bytes();
    format!("file://{}", percent::path(&bytes))
}

/// The tool input's `name`, coerced like the Python port's `str(args.get("name", ""))`
/// (a number or bool still looks a skill up, as frontmatter coerces them the same way);
/// missing or null is `""`.
fn requested_name(args: &Value) -> String {
    match args.get("name") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(true)) => "True".to_string(),
        Some(Value::Bool(false)) => "False".to_string(),
        Some(other) => other.to_string(),
    }
}

/// Renders the §0.6 block for one skill, and the directory (or base) for the metadata.
fn render(info: &SkillInfo, sample_limit: i64) -> (String, String) {
    let limit = effective_limit(sample_limit);
    let (base, files, meta_dir): (String, Option<Vec<String>>, String) = match &info.origin {
        SkillOrigin::Directory { dir } => {
            let files = limit.map(|cap| {
                discover::sample_files(dir, cap)
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect()
            });
            (file_uri(dir), files, dir.to_string_lossy().into_owned())
        }
        SkillOrigin::Data { base, resources } => {
            // An instruction-only data skill (no resources) omits the block (S4).
            let files = limit.filter(|_| !resources.is_empty()).map(|cap| {
                let take = cap.unwrap_or(resources.len());
                resources.iter().take(take).cloned().collect()
            });
            (base.clone(), files, base.clone())
        }
    };
    let mut lines: Vec<String> = vec![
        format!("<skill_content name=\"{}\">", info.name),
        format!("# Skill: {}", info.name),
        String::new(),
        info.content.trim().to_string(),
        String::new(),
        format!("Base directory for this skill: {base}"),
        RELATIVE_NOTE.to_string(),
    ];
    if let Some(files) = files {
        // An empty listing still emits the block, with one empty line inside (Python's
        // `"\n".join([])` line).
        let listing: Vec<String> = files.iter().map(|f| format!("<file>{f}</file>")).collect();
        lines.push("Note: file list is sampled.".to_string());
        lines.push(String::new());
        lines.push("<skill_files>".to_string());
        lines.push(listing.join("\n"));
        lines.push("</skill_files>".to_string());
    }
    lines.push("</skill_content>".to_string());
    (lines.join("\n"), meta_dir)
}

#[async_trait]
impl ToolExec for SkillExec {
    async fn execute(&self, args: Value, _ctx: &Context) -> ToolResult {
        let name = requested_name(&args);
        let Some(info) = self.skills.iter().find(|s| s.name == name) else {
            let mut available: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
            available.sort_unstable();
            available.dedup();
            let available = if available.is_empty() {
                "none".to_string()
            } else {
                available.join(", ")
            };
            return ToolResult::error(format!(
                "Skill \"{name}\" not found. Available: {available}"
            ));
        };
        let (output, dir) = render(info, self.sample_limit);
        ToolResult::ok(output)
            .with_meta("name", Value::String(info.name.clone()))
            .with_meta("dir", Value::String(dir))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::PathBuf;

    const HELLO_SKILL_MD: &str = "---
name: hello-world
description: A tiny example skill. Use when you want to see how skill loading (progressive disclosure) works end to end.
---

# Hello World Skill

This is the skill body. When the model calls the `skill` tool with
`{ \"name\": \"hello-world\" }`, everything below the frontmatter is injected into the
conversation, along with a sampled list of files in this directory.

## Steps

1. Read `scripts/greet.sh` in this skill's base directory.
2. Run it with the user's name.
3. Report the greeting back.

Relative paths (like `scripts/greet.sh`) are resolved against the base directory
printed in the tool output.
";

    fn run(tool: &Tool, args: Value) -> ToolResult {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(tool.execute(args, &Context::default()))
    }

    fn dir_skill(dir: &Path, name: &str, body: &str) -> SkillInfo {
        SkillInfo {
            name: name.to_string(),
            description: None,
            location: Some(dir.join("SKILL.md")),
            content: body.to_string(),
            origin: SkillOrigin::Directory {
                dir: dir.to_path_buf(),
            },
        }
    }

    fn data_skill(name: &str, resources: &[&str]) -> SkillInfo {
        SkillInfo {
            name: name.to_string(),
            description: Some("d".to_string()),
            location: None,
            content: "\n  Do the thing.  \n".to_string(),
            origin: SkillOrigin::Data {
                base: format!("skill://{name}/"),
                resources: resources.iter().map(|r| r.to_string()).collect(),
            },
        }
    }

    /// A temp dir whose real path has no symlinks (so expected paths are stable).
    fn tempdir() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let real = fs::canonicalize(tmp.path()).unwrap();
        (tmp, real)
    }

    #[test]
    fn tool_shape() {
        let tool = skill_tool(vec![], 0);
        assert_eq!(tool.name, "skill");
        assert_eq!(tool.source, Source::Skill);
        assert!(tool.description.starts_with("Load a specialized skill"));
        assert!(tool.description.ends_with("listed in your system prompt."));
        assert_eq!(tool.description.matches("\n\n").count(), 2);
        assert_eq!(
            serde_json::to_string(&tool.input_schema).unwrap(),
            r#"{"type":"object","properties":{"name":{"type":"string","description":"The name of the skill to load"}},"required":["name"]}"#
        );
    }

    #[test]
    fn hello_world_block_is_byte_exact() {
        let (_tmp, root) = tempdir();
        let dir = root.join("hello-world");
        fs::create_dir_all(dir.join("scripts")).unwrap();
        fs::write(dir.join("SKILL.md"), HELLO_SKILL_MD).unwrap();
        fs::write(dir.join("scripts/greet.sh"), "#!/usr/bin/env bash\n").unwrap();
        let inv = super::super::load(&super::super::SkillSources {
            dirs: vec![root.clone()],
            ..Default::default()
        });
        let tool = skill_tool(inv.skills, 0);
        let result = run(&tool, json!({"name": "hello-world"}));
        let d = dir.display();
        let expected = format!(
            "<skill_content name=\"hello-world\">\n\
# Skill: hello-world\n\
\n\
# Hello World Skill\n\
\n\
This is the skill body. When the model calls the `skill` tool with\n\
`{{ \"name\": \"hello-world\" }}`, everything below the frontmatter is injected into the\n\
conversation, along with a sampled list of files in this directory.\n\
\n\
## Steps\n\
\n\
1. Read `scripts/greet.sh` in this skill's base directory.\n\
2. Run it with the user's name.\n\
3. Report the greeting back.\n\
\n\
Relative paths (like `scripts/greet.sh`) are resolved against the base directory\n\
printed in the tool output.\n\
\n\
Base directory for this skill: file://{d}\n\
Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n\
Note: file list is sampled.\n\
\n\
<skill_files>\n\
<file>{d}/scripts/greet.sh</file>\n\
</skill_files>\n\
</skill_content>"
        );
        assert!(!result.is_error);
        assert_eq!(result.output, expected);
        let meta = result.metadata.unwrap();
        assert_eq!(meta["name"], json!("hello-world"));
        assert_eq!(meta["dir"], json!(dir.to_string_lossy()));
    }

    #[test]
    fn sample_limits() {
        let (_tmp, dir) = tempdir();
        for i in 0..12 {
            fs::write(dir.join(format!("f{i:02}.txt")), "x").unwrap();
        }
        fs::write(dir.join("SKILL.md"), "x").unwrap();
        let info = dir_skill(&dir, "s", "  body  ");
        let files = |out: &str| out.matches("<file>").count();
        let out = run(&skill_tool(vec![info.clone()], 0), json!({"name": "s"})).output;
        assert_eq!(files(&out), 10);
        assert!(out.contains(&format!(
            "<file>{}/f09.txt</file>\n</skill_files>",
            dir.display()
        )));
        let out = run(&skill_tool(vec![info.clone()], 2), json!({"name": "s"})).output;
        let d = dir.display();
        assert!(out.ends_with(&format!(
            "Note: file list is sampled.\n\n<skill_files>\n<file>{d}/f00.txt</file>\n<file>{d}/f01.txt</file>\n</skill_files>\n</skill_content>"
        )));
        let out = run(&skill_tool(vec![info.clone()], -1), json!({"name": "s"})).output;
        assert_eq!(
            out,
            format!("<skill_content name=\"s\">\n# Skill: s\n\nbody\n\nBase directory for this skill: file://{d}\n{RELATIVE_NOTE}\n</skill_content>")
        );
        let out = run(&skill_tool(vec![info], 100), json!({"name": "s"})).output;
        assert_eq!(files(&out), 12);
    }

    #[test]
    fn empty_sibling_list_keeps_an_empty_block() {
        let (_tmp, dir) = tempdir();
        fs::write(dir.join("SKILL.md"), "x").unwrap();
        let out = run(
            &skill_tool(vec![dir_skill(&dir, "s", "b")], 0),
            json!({"name": "s"}),
        )
        .output;
        assert!(out.ends_with(
            "Note: file list is sampled.\n\n<skill_files>\n\n</skill_files>\n</skill_content>"
        ));
    }

    #[test]
    fn data_skills() {
        let tool = skill_tool(
            vec![
                data_skill("d", &["a.md", "b/c.md"]),
                data_skill("bare", &[]),
            ],
            0,
        );
        let r = run(&tool, json!({"name": "d"}));
        assert_eq!(
            r.output,
            "<skill_content name=\"d\">\n# Skill: d\n\nDo the thing.\n\n\
Base directory for this skill: skill://d/\n\
Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n\
Note: file list is sampled.\n\n<skill_files>\n<file>a.md</file>\n<file>b/c.md</file>\n</skill_files>\n</skill_content>"
        );
        assert_eq!(r.metadata.unwrap()["dir"], json!("skill://d/"));
        let r = run(&tool, json!({"name": "bare"}));
        assert_eq!(
            r.output,
            "<skill_content name=\"bare\">\n# Skill: bare\n\nDo the thing.\n\n\
Base directory for this skill: skill://bare/\n\
Relative paths in this skill (e.g., scripts/, reference/) are relative to this base directory.\n\
</skill_content>"
        );
        let capped = skill_tool(vec![data_skill("d", &["a", "b", "c"])], 2);
        assert_eq!(
            run(&capped, json!({"name": "d"}))
                .output
                .matches("<file>")
                .count(),
            2
        );
        let omitted = skill_tool(vec![data_skill("d", &["a"])], -1);
        assert!(!run(&omitted, json!({"name": "d"}))
            .output
            .contains("<skill_files>"));
    }

    #[test]
    fn not_found() {
        let tool = skill_tool(vec![data_skill("zeta", &[]), data_skill("alpha", &[])], 0);
        let r = run(&tool, json!({"name": "nope"}));
        assert!(r.is_error);
        assert_eq!(r.output, "Skill \"nope\" not found. Available: alpha, zeta");
        assert_eq!(r.metadata, None);
        let r = run(&tool, json!({}));
        assert_eq!(r.output, "Skill \"\" not found. Available: alpha, zeta");
        let r = run(&skill_tool(vec![], 0), json!({"name": 5}));
        assert!(r.is_error);
        assert_eq!(r.output, "Skill \"5\" not found. Available: none");
        let numeric = skill_tool(vec![data_skill("123", &[]), data_skill("True", &[])], 0);
        assert!(!run(&numeric, json!({"name": 123})).is_error);
        assert!(!run(&numeric, json!({"name": true})).is_error);
    }

    #[test]
    fn file_uri_encodes_like_python() {
        assert_eq!(
            file_uri(Path::new("/a b/é~x!@(")),
            "file:///a%20b/%C3%A9~x%21%40%28"
        );
        assert_eq!(file_uri(Path::new("/tmp/x-y_z.1")), "file:///tmp/x-y_z.1");
    }
}
