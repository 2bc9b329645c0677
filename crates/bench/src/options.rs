//! What a bench run is asked for: its operations ([`Op`]), sizes and run counts
//! ([`BenchOptions`]), and the names every part agrees on.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

/// The name of the port every other port is compared with.
pub const REFERENCE: &str = "reference";

/// The token the grep fixture plants in some files (one matching line per such file).
pub const GREP_TOKEN: &str = "benchneedle_7f3a";

/// The exposed name of the mock's echo tool.
pub const MCP_TOOL: &str = "mock_echo";
/// Uncounted calls per warm-up run of the MCP and served call operations.
pub(crate) const MCP_WARMUP_CALLS: usize = 100;
/// At least this many blocks the counted calls of a per-call operation are split into, each
/// block taken of every port in turn.
pub const CALL_BLOCKS: usize = 10;

/// How big the benchmark is and how often each operation runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchOptions {
    /// Skills in the generated skills tree (each has `SKILL.md` and two sibling files).
    pub skills: usize,
    /// Files in the generated grep tree.
    pub grep_files: usize,
    /// `execute` calls per run of the round-trip operation.
    pub round_trips: usize,
    /// Counted runs per operation and port.
    pub runs: usize,
    /// Uncounted warm-up runs per operation and port, before the counted ones.
    pub warmup: usize,
    /// Counted `execute mock_echo` calls of the MCP call operation.
    pub mcp_calls: usize,
    /// Counted build + close runs of the MCP build operation.
    pub mcp_builds: usize,
    /// LLM round trips per agent-loop run (its `maxTurns`).
    pub loop_turns: usize,
    /// Counted agent-loop runs (one sample each: that run's mean per turn).
    pub loop_runs: usize,
    /// Counted `tools/call` POSTs of the served-call operation.
    pub serve_calls: usize,
    /// The image loops' image, in bytes (before base64).
    pub image_bytes: usize,
    /// Counted runs of each image loop (one loop turn each).
    pub image_runs: usize,
    /// Counted `evaluate` calls of each classifier operation (one per round).
    pub classifier_runs: usize,
    /// Counted runs of the conformance suite per port.
    pub suite_runs: usize,
    /// How the suite operation runs the suite.
    pub suite: SuiteOptions,
    /// This binary: it serves `mock mcp` / `mock llm` and runs the suite (the running
    /// binary when absent).
    pub mock_exe: Option<PathBuf>,
    /// The operations to run, in this order ([`Op::ALL`] by default).
    pub ops: Vec<Op>,
    /// Where the temporary fixture directory is created (the system temp dir when absent).
    pub work_dir: Option<PathBuf>,
}

/// How the suite operation runs `<this binary> run`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuiteOptions {
    /// `--root` for the child (its own default when absent).
    pub root: Option<PathBuf>,
    /// `--jobs` for the child (`run`'s default when absent).
    pub jobs: Option<usize>,
    /// `--timeout-ms` for the child (`run`'s default when absent).
    pub timeout_ms: Option<u64>,
    /// Only these SPEC sections (further narrowing the sections every port implements).
    pub sections: Vec<String>,
    /// Only scenarios whose name contains one of these texts (`--filter`).
    pub names: Vec<String>,
    /// The `--port` value per port name, when it is not the name itself (the reference
    /// always runs as `--port reference`).
    pub specs: BTreeMap<String, String>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self {
            skills: 5000,
            grep_files: 20000,
            round_trips: 200,
            runs: 5,
            warmup: 1,
            mcp_calls: 1000,
            mcp_builds: 20,
            loop_turns: 100,
            loop_runs: 10,
            serve_calls: 1000,
            image_bytes: 1 << 20,
            image_runs: 20,
            classifier_runs: 1000,
            suite_runs: 3,
            suite: SuiteOptions::default(),
            mock_exe: None,
            ops: Op::ALL.to_vec(),
            work_dir: None,
        }
    }
}

impl BenchOptions {
    /// Smoke sizes (tiny trees, five calls, one run) for tests of the bench engine, which
    /// check the machinery and measure nothing; `mock_exe` is this binary (mock servers,
    /// suite). The suite runs one cheap section once.
    pub fn smoke(mock_exe: PathBuf) -> Self {
        Self {
            skills: 20,
            grep_files: 50,
            round_trips: 5,
            runs: 1,
            warmup: 1,
            mcp_calls: 5,
            mcp_builds: 1,
            loop_turns: 5,
            loop_runs: 2,
            serve_calls: 5,
            image_bytes: 4096,
            image_runs: 2,
            classifier_runs: 3,
            suite_runs: 1,
            suite: SuiteOptions {
                sections: vec!["1".into()],
                ..SuiteOptions::default()
            },
            mock_exe: Some(mock_exe),
            ops: Op::ALL.to_vec(),
            work_dir: None,
        }
    }
}

/// One benchmarked operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// `build` over the skills tree, `skills_prompt`, `close`, timed together.
    SkillsBuild,
    /// One `execute grep` over the grep tree.
    Grep,
    /// One `execute` of a cheap extra tool (statistics per call).
    RoundTrip,
    /// One `execute` of the stdio mock MCP server's echo tool (statistics per call).
    McpCall,
    /// `build` with one stdio MCP server, then `close`, timed together.
    McpBuild,
    /// One LLM round trip of the port's agent loop against the mock LLM (per turn).
    AgentLoop,
    /// One `tools/call` of a served toolkit's cheap tool over HTTP (per call).
    ServeCall,
    /// One loop turn on the OpenAI wire whose tool answers a large image part (per run).
    ImageLoopOpenai,
    /// The same on the Anthropic wire.
    ImageLoopAnthropic,
    /// One `evaluate` of a `static` classifier's small recorded request (a choice, a noul).
    ClassifierStatic,
    /// One `evaluate` of a `static` classifier's recorded request of 10 choices of 255
    /// options, written unsorted: the port encodes the whole request canonically to find it.
    #[serde(rename = "classifier_canonical_255")]
    ClassifierCanonical255,
    /// One run of the conformance suite through the port, as a child process.
    Suite,
}

impl Op {
    /// All operations, in the order they run and are reported.
    pub const ALL: [Op; 12] = [
        Op::SkillsBuild,
        Op::Grep,
        Op::RoundTrip,
        Op::McpCall,
        Op::McpBuild,
        Op::AgentLoop,
        Op::ServeCall,
        Op::ImageLoopOpenai,
        Op::ImageLoopAnthropic,
        Op::ClassifierStatic,
        Op::ClassifierCanonical255,
        Op::Suite,
    ];

    /// The operation named as in the JSON report (`skills_build`, …, `suite`).
    pub fn parse(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == name)
    }

    /// The name in the JSON report and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Op::SkillsBuild => "skills_build",
            Op::Grep => "grep",
            Op::RoundTrip => "round_trip",
            Op::McpCall => "mcp_call",
            Op::McpBuild => "mcp_build",
            Op::AgentLoop => "agent_loop",
            Op::ServeCall => "serve_call",
            Op::ImageLoopOpenai => "image_loop_openai",
            Op::ImageLoopAnthropic => "image_loop_anthropic",
            Op::ClassifierStatic => "classifier_static",
            Op::ClassifierCanonical255 => "classifier_canonical_255",
            Op::Suite => "suite",
        }
    }

    /// A short human label including the size it runs at.
    pub fn label(self, opts: &BenchOptions) -> String {
        match self {
            Op::SkillsBuild => format!("skills build + prompt ({} skills)", opts.skills),
            Op::Grep => format!("grep ({} files)", opts.grep_files),
            Op::RoundTrip => "execute round trip (per call)".to_string(),
            Op::McpCall => format!("MCP call round trip, stdio ({} calls)", opts.mcp_calls),
            Op::McpBuild => "toolkit build, one stdio MCP server".to_string(),
            Op::AgentLoop => format!(
                "agent loop per LLM round trip ({} × {} turns)",
                opts.loop_runs, opts.loop_turns
            ),
            Op::ServeCall => format!("served tools/call over HTTP ({} calls)", opts.serve_calls),
            Op::ImageLoopOpenai | Op::ImageLoopAnthropic => format!(
                "loop turn, tool answers a {} image, {} ({} runs)",
                size_label(opts.image_bytes),
                self.image_style().map_or("", |s| s.name()),
                opts.image_runs
            ),
            Op::ClassifierStatic => format!(
                "static classifier evaluate, 1 choice of 3 + 1 noul ({} calls)",
                opts.classifier_runs
            ),
            Op::ClassifierCanonical255 => format!(
                "static classifier evaluate, 10 choices of 255, canonical lookup ({} calls)",
                opts.classifier_runs
            ),
            Op::Suite => format!("conformance suite ({} runs)", opts.suite_runs),
        }
    }

    /// A short name for target lines.
    pub(crate) fn short(self) -> &'static str {
        match self {
            Op::SkillsBuild => "skills build",
            Op::Grep => "grep",
            Op::RoundTrip => "execute round trip",
            Op::McpCall => "MCP call round trip",
            Op::McpBuild => "MCP toolkit build",
            Op::AgentLoop => "agent loop",
            Op::ServeCall => "served call",
            Op::ImageLoopOpenai => "image loop, openai",
            Op::ImageLoopAnthropic => "image loop, anthropic",
            Op::ClassifierStatic => "classifier, static",
            Op::ClassifierCanonical255 => "classifier, canonical 255",
            Op::Suite => "suite",
        }
    }

    /// The wire of an image-loop operation.
    pub(crate) fn image_style(self) -> Option<Style> {
        match self {
            Op::ImageLoopOpenai => Some(Style::Openai),
            Op::ImageLoopAnthropic => Some(Style::Anthropic),
            _ => None,
        }
    }

    /// The recorded request of a classifier operation.
    pub(crate) fn classifier_case(self) -> Option<Case> {
        match self {
            Op::ClassifierStatic => Some(Case::Small),
            Op::ClassifierCanonical255 => Some(Case::Wide255),
            _ => None,
        }
    }
}

/// Which recorded request a classifier operation evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    /// One choice of 3 options and one noul.
    Small,
    /// Ten choices of 255 options each.
    Wide255,
}

/// `1 MiB`, `4 KiB` or `1000 bytes`: a size as the labels show it.
fn size_label(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Which wire an image-loop operation runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// Chat Completions: the image moves into a synthetic `user` message.
    Openai,
    /// Messages: the image stays a block of the `tool_result`.
    Anthropic,
}

impl Style {
    /// The `client` option's value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Style::Openai => "openai",
            Style::Anthropic => "anthropic",
        }
    }
}
