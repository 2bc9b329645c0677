//! What a bench run reports: a row per port and operation, the floors, the targets.

use serde::Serialize;

use crate::options::Op;

/// The measurements of one operation on one port.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchRow {
    /// Which operation.
    pub op: Op,
    /// Its human label (with the size).
    pub label: String,
    /// The port's name as the caller gave it.
    pub port: String,
    /// Median (p50) of the samples, in milliseconds; absent when nothing was measured.
    pub median_ms: Option<f64>,
    /// 90th percentile of the samples (nearest rank), in milliseconds.
    pub p90_ms: Option<f64>,
    /// Fastest sample, in milliseconds.
    pub min_ms: Option<f64>,
    /// Slowest sample, in milliseconds.
    pub max_ms: Option<f64>,
    /// Counted rounds that completed: runs, or for the per-call operations (round trip,
    /// MCP call, served call) blocks of calls.
    pub runs: usize,
    /// Timings the statistics are over: `runs`, `runs × round_trips` for the round trip,
    /// `mcp_calls` / `serve_calls` for the MCP / served call, `loop_runs` (per-turn means)
    /// for the agent loop.
    pub samples: usize,
    /// This port's median divided by the reference's median for the same operation.
    pub ratio_to_reference: Option<f64>,
    /// Failures and output differences observed (never fatal).
    pub notes: Vec<String>,
}

/// The floor of one operation: the same work measured by the harness itself, no port
/// involved, in the same rounds as the ports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FloorRow {
    /// Which operation.
    pub op: Op,
    /// What was measured (`rg -j1`, `cat pipe`, …).
    pub what: String,
    /// Median (p50) of the samples, in milliseconds; absent when nothing was measured.
    pub median_ms: Option<f64>,
    /// 90th percentile of the samples (nearest rank), in milliseconds.
    pub p90_ms: Option<f64>,
    /// Fastest sample, in milliseconds.
    pub min_ms: Option<f64>,
    /// Slowest sample, in milliseconds.
    pub max_ms: Option<f64>,
    /// Timings the statistics are over (counted the same way as the ports').
    pub samples: usize,
    /// The floor's median divided by the reference's median for the same operation.
    pub ratio_to_reference: Option<f64>,
    /// Why the floor is absent or differs (e.g. `rg not installed`).
    pub notes: Vec<String>,
}

/// A target from the issue: the reference's median over another port's median, at most
/// `target` (for the agent loop the other port is the fastest one measured in the run).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetCheck {
    /// The operation the target is about.
    pub op: Op,
    /// The port the reference is compared with.
    pub port: String,
    /// Reference median / port median; absent when either was not measured.
    pub ratio: Option<f64>,
    /// The largest acceptable ratio.
    pub target: f64,
    /// Whether the target is met; absent when the ratio is.
    pub met: Option<bool>,
}

/// The targets of the issues: (operation, other port, largest reference/other ratio). The
/// classifier operations' (issue 47): the reference's median the lowest, so at most 1×.
pub const TARGETS: [(Op, &str, f64); 6] = [
    (Op::SkillsBuild, "rust-crate", 0.5),
    (Op::SkillsBuild, "python", 0.1),
    (Op::ClassifierStatic, "rust-crate", 1.0),
    (Op::ClassifierStatic, "python", 1.0),
    (Op::ClassifierCanonical255, "rust-crate", 1.0),
    (Op::ClassifierCanonical255, "python", 1.0),
];

/// The agent-loop target of the issue: the reference's p50 at most this times the fastest
/// other port's p50, in the same run.
pub const LOOP_TARGET: f64 = 0.5;

/// What the generated fixtures hold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FixtureInfo {
    /// Skills in the skills tree.
    pub skills: usize,
    /// Files in the skills tree (`SKILL.md` and siblings).
    pub skill_files: usize,
    /// Files in the grep tree.
    pub grep_files: usize,
    /// Lines of the grep tree that contain [`GREP_TOKEN`].
    pub grep_matches: usize,
    /// The command the MCP config starts the mock server with.
    pub mcp_command: Vec<String>,
    /// How long generating took, in milliseconds.
    pub generation_ms: f64,
}

/// The whole benchmark result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchReport {
    /// The reference port's name, when one of the ports is named [`REFERENCE`].
    pub reference: Option<String>,
    /// Counted runs per operation.
    pub runs: usize,
    /// Warm-up runs per operation.
    pub warmup: usize,
    /// `execute` calls per round-trip run.
    pub round_trips: usize,
    /// Counted calls of the MCP call operation.
    pub mcp_calls: usize,
    /// Counted runs of the MCP build operation.
    pub mcp_builds: usize,
    /// LLM round trips per agent-loop run.
    pub loop_turns: usize,
    /// Counted agent-loop runs.
    pub loop_runs: usize,
    /// Counted calls of the served-call operation.
    pub serve_calls: usize,
    /// The image loops' image, in bytes (before base64).
    pub image_bytes: usize,
    /// Counted runs of each image loop.
    pub image_runs: usize,
    /// Counted `evaluate` calls of each classifier operation.
    pub classifier_runs: usize,
    /// Counted suite runs per port.
    pub suite_runs: usize,
    /// The SPEC sections the suite ran (every port implements them); absent when it did not.
    pub suite_sections: Option<Vec<String>>,
    /// The fixtures, when they could be generated.
    pub fixtures: Option<FixtureInfo>,
    /// One row per (operation, port), operations outermost.
    pub rows: Vec<BenchRow>,
    /// The floors of each operation that has any, in operation order (its own floor first,
    /// then the fairer ones beside it).
    pub floors: Vec<FloorRow>,
    /// The targets whose other port took part in the run.
    pub targets: Vec<TargetCheck>,
    /// Problems of the run as a whole (e.g. fixtures that could not be written).
    pub notes: Vec<String>,
}
