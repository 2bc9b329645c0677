//! The benchmark's fixtures: deterministic skills and grep trees and the mock MCP server's
//! config, written once per run into a temporary directory.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};

use crate::options::{BenchOptions, GREP_TOKEN};
use crate::report::FixtureInfo;
use crate::stats::ms;

/// The mock LLM scenario of the agent loop: every request is answered with one `echo`
/// tool call.
pub(crate) const LOOP_SCENARIO: &str =
    include_str!("../../../mock-servers/scenarios/llm/bench-loop.json");

/// The loop scenario's file name in the fixture directory.
pub(crate) const LOOP_SCENARIO_FILE: &str = "bench-loop.json";

/// The mock LLM scenario of the image loops: a `snap` call, then a text naming the request's
/// media blocks (`{{media}}`).
pub(crate) const IMAGE_SCENARIO: &str =
    include_str!("../../../mock-servers/scenarios/llm/bench-image.json");

/// The image scenario's file name in the fixture directory.
pub(crate) const IMAGE_SCENARIO_FILE: &str = "bench-image.json";

/// The cheap extra tool of the round trip and the served call: answers `ok`.
pub(crate) fn noop_options() -> Value {
    json!({"builtins": false, "extraTools": [{"name": "noop", "behaviour": {"text": "ok"}}]})
}

/// Every how many grep fixture files carries one matching line.
const GREP_MATCH_EVERY: usize = 10;

/// Skills (or grep files) per generated folder.
const PER_FOLDER: usize = 100;

/// The mock MCP scenario the MCP operations serve (`mock-servers/scenarios/basic.json`).
const MCP_SCENARIO: &str = include_str!("../../../mock-servers/scenarios/basic.json");
/// The server's key in `mcpServers`; its `echo` tool is exposed as [`MCP_TOOL`].
///
/// [`MCP_TOOL`]: crate::options::MCP_TOOL
const MCP_SERVER: &str = "mock";

/// The generated trees, removed when dropped.
pub struct Fixtures {
    _dir: tempfile::TempDir,
    /// The fixture directory (also holding the mock scenarios).
    pub dir: PathBuf,
    /// Root of the skills tree (the `skillsDir` option).
    pub skills_dir: PathBuf,
    /// Root of the grep tree (the grep `path` argument).
    pub grep_dir: PathBuf,
    /// The `build` options of the MCP operations (one stdio mock server, no builtins).
    pub mcp_options: Value,
    /// What was generated.
    pub info: FixtureInfo,
}

impl Fixtures {
    /// Generates both trees in a fresh temporary directory under `opts.work_dir` (or the
    /// system temp dir).
    pub fn generate(opts: &BenchOptions) -> std::io::Result<Self> {
        let started = Instant::now();
        let mut builder = tempfile::Builder::new();
        builder.prefix("tnx-bench-");
        let dir = match &opts.work_dir {
            Some(parent) => {
                std::fs::create_dir_all(parent)?;
                builder.tempdir_in(parent)?
            }
            None => builder.tempdir()?,
        };
        let skills_dir = dir.path().join("skills");
        let grep_dir = dir.path().join("grep");
        let skill_files = write_skills(&skills_dir, opts.skills)?;
        let grep_matches = write_grep_tree(&grep_dir, opts.grep_files)?;
        let mcp_command = write_mcp_scenario(dir.path(), opts.mock_exe.as_deref())?;
        std::fs::write(dir.path().join(LOOP_SCENARIO_FILE), LOOP_SCENARIO)?;
        std::fs::write(dir.path().join(IMAGE_SCENARIO_FILE), IMAGE_SCENARIO)?;
        Ok(Self {
            dir: std::path::absolute(dir.path())?,
            _dir: dir,
            skills_dir,
            grep_dir,
            mcp_options: mcp_options(&mcp_command),
            info: FixtureInfo {
                skills: opts.skills,
                skill_files,
                grep_files: opts.grep_files,
                grep_matches,
                mcp_command,
                generation_ms: ms(started),
            },
        })
    }
}

/// Writes the mock scenario into `dir` and returns the command that serves it over stdio:
/// `<exe> mock mcp --transport stdio --scenario <dir>/basic.json`, both paths absolute.
fn write_mcp_scenario(dir: &Path, exe: Option<&Path>) -> std::io::Result<Vec<String>> {
    let scenario = std::path::absolute(dir.join("basic.json"))?;
    std::fs::write(&scenario, MCP_SCENARIO)?;
    let exe = match exe {
        Some(e) => std::path::absolute(e)?,
        None => std::env::current_exe()?,
    };
    let mut command: Vec<String> = vec![exe.to_string_lossy().into_owned()];
    command.extend(["mock", "mcp", "--transport", "stdio", "--scenario"].map(String::from));
    command.push(scenario.to_string_lossy().into_owned());
    Ok(command)
}

/// `build` options with one stdio MCP server started by `command`, and no builtins.
fn mcp_options(command: &[String]) -> Value {
    json!({
        "builtins": false,
        "mcpConfig": {"mcpServers": {MCP_SERVER: {"command": command}}},
    })
}

/// The name of generated skill `i`.
pub(crate) fn skill_name(i: usize) -> String {
    format!("bench-skill-{i:05}")
}

/// `count` skills in folders of [`PER_FOLDER`]: `group-GGG/bench-skill-NNNNN/` holding
/// `SKILL.md`, `reference.md` and `example.txt`. Returns the number of files written.
fn write_skills(root: &Path, count: usize) -> std::io::Result<usize> {
    std::fs::create_dir_all(root)?;
    let mut files = 0;
    for i in 0..count {
        let name = skill_name(i);
        let dir = root
            .join(format!("group-{:03}", i / PER_FOLDER))
            .join(&name);
        std::fs::create_dir_all(&dir)?;
        let skill = format!(
            "---\nname: {name}\ndescription: Benchmark skill {i} that handles task family {} of the generated catalog.\n---\n\n# Skill {i}\n\nUse this skill when the request mentions task {i}.\n\n1. Read `reference.md` for the rules.\n2. Follow `example.txt` for the output shape.\n3. Answer briefly.\n",
            i % 97
        );
        std::fs::write(dir.join("SKILL.md"), skill)?;
        std::fs::write(
            dir.join("reference.md"),
            format!("# Reference for {name}\n\nRule {i}: keep it short.\n"),
        )?;
        std::fs::write(
            dir.join("example.txt"),
            format!("input: task {i}\noutput: done {i}\n"),
        )?;
        files += 3;
    }
    Ok(files)
}

/// `count` small text files in `dNN/eNNN/` folders of [`PER_FOLDER`]; every
/// [`GREP_MATCH_EVERY`]th file has one line containing [`GREP_TOKEN`]. Returns the number
/// of matching lines.
fn write_grep_tree(root: &Path, count: usize) -> std::io::Result<usize> {
    std::fs::create_dir_all(root)?;
    let mut matches = 0;
    for i in 0..count {
        let folder = i / PER_FOLDER;
        let dir = root
            .join(format!("d{:02}", folder / 10))
            .join(format!("e{folder:03}"));
        if i % PER_FOLDER == 0 {
            std::fs::create_dir_all(&dir)?;
        }
        let mut text = format!(
            "file {i} of the grep fixture\nalpha beta gamma {}\nthe quick brown fox jumps\n",
            i % 13
        );
        if i % GREP_MATCH_EVERY == 0 {
            let _ = writeln!(text, "found {GREP_TOKEN} in file {i}");
            matches += 1;
        }
        text.push_str("last line\n");
        std::fs::write(dir.join(format!("f{:03}.txt", i % PER_FOLDER)), text)?;
    }
    Ok(matches)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> BenchOptions {
        // Unit tests have no mock server binary; `tests/bench_smoke.rs` runs the real one.
        BenchOptions::smoke(PathBuf::from("/nonexistent/tnx-mock-server"))
    }

    #[test]
    fn fixtures_are_deterministic_and_counted() {
        let opts = BenchOptions {
            skills: 250,
            grep_files: 205,
            ..tiny()
        };
        let a = Fixtures::generate(&opts).unwrap();
        let b = Fixtures::generate(&opts).unwrap();
        assert_eq!(a.info.skill_files, 750);
        assert_eq!(a.info.grep_matches, 21);
        let command = &a.info.mcp_command;
        assert_eq!(command[0], "/nonexistent/tnx-mock-server");
        assert_eq!(
            &command[1..6],
            ["mock", "mcp", "--transport", "stdio", "--scenario"]
        );
        let scenario = Path::new(&command[6]);
        assert!(scenario.is_absolute(), "{command:?}");
        assert_eq!(std::fs::read_to_string(scenario).unwrap(), MCP_SCENARIO);
        assert_eq!(
            a.mcp_options["mcpConfig"]["mcpServers"]["mock"]["command"],
            json!(command)
        );
        assert_eq!(a.mcp_options["builtins"], json!(false));
        let files = |root: &Path| {
            let mut v: Vec<(PathBuf, Vec<u8>)> = walkdir::WalkDir::new(root)
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .map(|e| {
                    let rel = e.path().strip_prefix(root).unwrap().to_path_buf();
                    (rel, std::fs::read(e.path()).unwrap())
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(files(&a.skills_dir).len(), 750);
        assert_eq!(files(&a.grep_dir).len(), 205);
        assert_eq!(files(&a.skills_dir), files(&b.skills_dir));
        assert_eq!(files(&a.grep_dir), files(&b.grep_dir));
        let dir = a.skills_dir.clone();
        drop(a);
        assert!(!dir.exists(), "fixtures are removed on drop");
    }
}
