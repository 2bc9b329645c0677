//! The cross-port benchmark: times a few heavy operations on each chosen port, through the
//! protocol only, and compares every port with the reference measured in the same run and
//! with a floor the harness measures itself, with no port involved.
//!
//! Eight operations, each with warm-up runs that are not counted and several counted runs
//! (median, p90, min, max):
//!
//! 1. **skills build + prompt** — `build {"builtins": false, "skillsDir": <tree>}` over a
//!    generated tree of skills (5,000 by default, three files each), then `skills_prompt`,
//!    then `close`; the whole sequence is timed.
//! 2. **grep** — one `build {}`, then per run one `execute grep` over a generated tree of
//!    small files (20,000 by default); the result must not be an error and must have the
//!    known number of matching lines (a difference is a note, not a failure).
//! 3. **execute round trip** — a toolkit with one cheap extra tool (`{"text": "ok"}`), then
//!    `runs × round_trips` sequential `execute` calls; statistics are per call.
//! 4. **MCP call round trip (stdio)** — one `build {"builtins": false, "mcpConfig": …}` with
//!    the `basic.json` mock MCP server over stdio, warm-up calls, then `mcp_calls` sequential
//!    `execute mock_echo` calls; statistics (median = p50, p90) are per call.
//! 5. **toolkit build, one stdio MCP server** — `build` with that config, then `close`
//!    (which stops the server), timed together, `mcp_builds` counted runs.
//! 6. **agent loop per LLM round trip** — the port's §8 client (`client` + `run`) against
//!    the mock LLM answering one `echo` tool call per turn at once, `loop_runs` runs cut by
//!    `maxTurns` = `loop_turns`; each sample is a run's time per turn (`agent_loop.rs`). A
//!    port answering `unsupported` gets an `unsupported` note and no numbers.
//! 7. **served `tools/call`** (SPEC §7C; PROTOCOL §5.23 `serve`, §5.24 `serve_stop`) — a
//!    toolkit with the cheap extra tool served with `"mcp": {"tools": ["noop"]}`, then `serve_calls`
//!    sequential JSON-RPC `tools/call` POSTs to `<url>/mcp` over one keep-alive HTTP client
//!    (after `initialize`, with the session header when the server hands one out); per call
//!    (`serve.rs`). `unsupported` is a note, as for the loop.
//! 8. **conformance suite** — the wall time of `<this binary> run --port <port> --format
//!    json --no-expected-failures` as a child process, restricted to the SPEC sections every
//!    port of the run implements (their `hello` lists), `suite_runs` counted runs, no warm-up;
//!    the notes carry the run's passed/failed/skipped counts (`suite.rs`).
//!
//! **Interleaving.** Per operation every port is set up first (its build, its served
//! handle, …), then the warm-ups and then the counted samples are taken in rounds: round k
//! of every port (and of the floor) before round k + 1. For the per-call operations a round
//! is a block of calls (the counted calls split into at least [`CALL_BLOCKS`] blocks); for
//! the others it is one run. A burst of load on the machine so lands on every port alike.
//! Before each step of the skills build the harness pauses (see [`settle`]): what a party
//! frees after answering ends before the next party's clock starts instead of landing on it.
//!
//! **Floors.** In the same rounds the harness measures what the operation costs with no
//! port at all (`floor.rs`): a raw parallel walk reading every `SKILL.md`; `rg -j1` over the
//! grep tree; the request line through a `cat` child; a bare rmcp client calling the mock
//! MCP server (and spawning, initialising, listing, stopping it); a bare HTTP tool loop
//! against the mock LLM; the same HTTP client against a minimal loopback server answering a
//! canned JSON-RPC result. The suite has no floor. The two operations whose port is
//! necessarily another process have fairer floors beside their own, in processes of their own
//! (`floor_process.rs`, the `toolnexus-floor` crate): the canned server and a bare rmcp server
//! for the served call, a minimal driver (request line, bare rmcp call, answer line) for the
//! MCP call.
//!
//! The fixtures are generated once per [`run`] (plain `std::fs` writes, deterministic
//! content) into a temporary directory that is removed afterwards, and shared by all ports.
//! The MCP server is this crate's own `mock mcp` subcommand, started by the port from the
//! config (absolute path of [`BenchOptions::mock_exe`], else of the running binary, and of
//! a copy of `mock-servers/scenarios/basic.json` in the fixture directory).
//! A port that fails gets a note on its row; the benchmark never panics on port behaviour,
//! and one port failing does not stop the others.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures::future::{FutureExt, LocalBoxFuture};
use serde::Serialize;

use super::port::{truncate, Port, PortError};

mod agent_loop;
mod fixtures;
mod floor;
mod floor_process;
mod operations;
mod raw;
mod render;
mod serve;
pub mod stats;
mod suite;

pub use agent_loop::http_tool_loop;
pub use fixtures::Fixtures;
pub use render::table;

/// The name of the port every other port is compared with.
pub const REFERENCE: &str = "reference";

/// The token the grep fixture plants in some files (one matching line per such file).
pub const GREP_TOKEN: &str = "benchneedle_7f3a";

/// The exposed name of the mock's echo tool.
pub const MCP_TOOL: &str = "mock_echo";
/// Uncounted calls per warm-up run of the MCP and served call operations.
const MCP_WARMUP_CALLS: usize = 100;
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
    /// One run of the conformance suite through the port, as a child process.
    Suite,
}

impl Op {
    /// All operations, in the order they run and are reported.
    pub const ALL: [Op; 8] = [
        Op::SkillsBuild,
        Op::Grep,
        Op::RoundTrip,
        Op::McpCall,
        Op::McpBuild,
        Op::AgentLoop,
        Op::ServeCall,
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
            Op::Suite => format!("conformance suite ({} runs)", opts.suite_runs),
        }
    }

    /// A short name for target lines.
    fn short(self) -> &'static str {
        match self {
            Op::SkillsBuild => "skills build",
            Op::Grep => "grep",
            Op::RoundTrip => "execute round trip",
            Op::McpCall => "MCP call round trip",
            Op::McpBuild => "MCP toolkit build",
            Op::AgentLoop => "agent loop",
            Op::ServeCall => "served call",
            Op::Suite => "suite",
        }
    }
}

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

/// The targets of the issue: (operation, other port, largest reference/other ratio).
pub const TARGETS: [(Op, &str, f64); 2] = [
    (Op::SkillsBuild, "rust-crate", 0.5),
    (Op::SkillsBuild, "python", 0.1),
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

/// Milliseconds since `since`.
fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Adds `text` to `notes` unless it is there already (a repeated failure is one note).
fn note(notes: &mut Vec<String>, text: String) {
    if !notes.contains(&text) {
        notes.push(text);
    }
}

/// The note a port error leaves: `unsupported: …` (skipped) or `failed: …`.
fn error_note(notes: &mut Vec<String>, e: &PortError) {
    match e {
        PortError::Unsupported(why) => note(notes, format!("unsupported: {}", truncate(why, 300))),
        e => note(notes, format!("failed: {}", truncate(&e.to_string(), 300))),
    }
}

/// What one (operation, port) measurement collected.
#[derive(Default)]
struct Measured {
    samples: Vec<f64>,
    runs: usize,
    notes: Vec<String>,
    /// What the last step reports on its progress line instead of its wall time.
    detail: Option<String>,
}

/// Whether a lane goes on after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Go {
    /// Take the next round.
    On,
    /// Stop here (the reason is a note already); the numbers so far stay.
    Stop,
}

/// One unit of a lane's work: uncounted (warm-up) or counted, of `size` calls (1 for the
/// operations timed per run).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unit {
    size: usize,
    counted: bool,
    /// Its progress label (`warm-up 1/1`, `run 3/5`, `block 2/10`).
    index: usize,
    of: usize,
}

impl Unit {
    fn label(self) -> String {
        let kind = if self.counted { "run" } else { "warm-up" };
        let calls = if self.size > 1 {
            format!(" ({} calls)", self.size)
        } else {
            String::new()
        };
        format!("{kind} {}/{}{calls}", self.index + 1, self.of)
    }
}

/// `total` calls split into at least `min_blocks` blocks (fewer only when there are fewer
/// calls), the sizes differing by at most one.
fn blocks(total: usize, min_blocks: usize) -> Vec<usize> {
    let n = min_blocks.max(1).min(total);
    (0..n)
        .map(|i| total / n + usize::from(i < total % n))
        .collect()
}

/// The units of `op`, warm-ups first, each taken of every lane in turn.
fn plan(op: Op, opts: &BenchOptions) -> Vec<Unit> {
    let runs = |n: usize| vec![1; n];
    let (warmup, counted) = match op {
        Op::SkillsBuild | Op::Grep => (runs(opts.warmup), runs(opts.runs)),
        Op::RoundTrip => (
            vec![opts.round_trips; opts.warmup],
            blocks(opts.runs * opts.round_trips, CALL_BLOCKS.max(opts.runs)),
        ),
        Op::McpCall => (
            vec![opts.mcp_calls.min(MCP_WARMUP_CALLS); opts.warmup],
            blocks(opts.mcp_calls, CALL_BLOCKS),
        ),
        Op::ServeCall => (
            vec![opts.serve_calls.min(MCP_WARMUP_CALLS); opts.warmup],
            blocks(opts.serve_calls, CALL_BLOCKS),
        ),
        Op::McpBuild => (runs(opts.warmup), runs(opts.mcp_builds)),
        Op::AgentLoop => (runs(opts.warmup), runs(opts.loop_runs)),
        Op::Suite => (Vec::new(), runs(opts.suite_runs)),
    };
    let units = |sizes: Vec<usize>, counted: bool| {
        let of = sizes.len();
        sizes
            .into_iter()
            .enumerate()
            .map(move |(index, size)| Unit {
                size,
                counted,
                index,
                of,
            })
    };
    units(warmup, false).chain(units(counted, true)).collect()
}

/// The shared inputs of one operation's lanes.
struct Ctx<'a> {
    opts: &'a BenchOptions,
    fx: &'a Fixtures,
    /// The sections the suite runs (every port implements them).
    suite_sections: Vec<String>,
}

/// One port taking part in an operation: its state while set up, and what it measured.
struct PortLane<'a> {
    name: &'a str,
    port: &'a mut dyn Port,
    state: Option<operations::State>,
    m: Measured,
}

/// A floor taking part in an operation.
struct FloorLane {
    what: &'static str,
    state: Option<floor::State>,
    m: Measured,
}

/// Runs the benchmark over `ports` (name, port) with `opts`, reporting progress lines to
/// `progress`.
///
/// Every port gets every operation of `opts.ops`; a port that fails gets notes on its rows
/// instead of numbers. Per operation the ports are set up, then sampled in interleaved
/// rounds together with the floor (see the module doc). Ratios are against the port named
/// [`REFERENCE`], when one is. The ports are left running: shutting them down is the
/// caller's business. Drivers need a per-request timeout long enough for one skills build
/// at the chosen size.
pub fn run<'a>(
    ports: &'a mut [(String, Box<dyn Port>)],
    opts: &'a BenchOptions,
    progress: &'a mut dyn FnMut(&str),
) -> LocalBoxFuture<'a, BenchReport> {
    async move {
        let mut report = BenchReport {
            reference: ports
                .iter()
                .any(|(n, _)| n == REFERENCE)
                .then(|| REFERENCE.to_string()),
            runs: opts.runs,
            warmup: opts.warmup,
            round_trips: opts.round_trips,
            mcp_calls: opts.mcp_calls,
            mcp_builds: opts.mcp_builds,
            loop_turns: opts.loop_turns,
            loop_runs: opts.loop_runs,
            serve_calls: opts.serve_calls,
            suite_runs: opts.suite_runs,
            suite_sections: None,
            fixtures: None,
            rows: Vec::new(),
            floors: Vec::new(),
            targets: Vec::new(),
            notes: Vec::new(),
        };
        progress(&format!(
            "generating fixtures: {} skills, {} grep files",
            opts.skills, opts.grep_files
        ));
        let fixtures = match Fixtures::generate(opts) {
            Ok(f) => f,
            Err(e) => {
                let why = format!("cannot generate the fixtures: {e}");
                progress(&why);
                report.notes.push(why.clone());
                for &op in &opts.ops {
                    for (name, _) in ports.iter() {
                        report.rows.push(row(op, opts, name, Measured::default()));
                    }
                }
                report.targets = targets(&report.rows, ports);
                for r in &mut report.rows {
                    r.notes.push(why.clone());
                }
                return report;
            }
        };
        progress(&format!(
            "fixtures ready in {:.0} ms ({} skill files, {} grep files, {} expected grep matches)",
            fixtures.info.generation_ms,
            fixtures.info.skill_files,
            fixtures.info.grep_files,
            fixtures.info.grep_matches
        ));
        for &op in &opts.ops {
            let label = op.label(opts);
            progress(&format!("{label}…"));
            let mut ctx = Ctx {
                opts,
                fx: &fixtures,
                suite_sections: Vec::new(),
            };
            let mut early: Vec<Vec<String>> = vec![Vec::new(); ports.len()];
            if op == Op::Suite {
                let (sections, notes) = suite::common_sections(ports, &opts.suite.sections).await;
                progress(&format!("  suite sections: {}", sections.join(",")));
                report.suite_sections = Some(sections.clone());
                ctx.suite_sections = sections;
                early = notes;
            }
            let (lanes, floors) = measure_op(op, ports, &ctx, early, progress).await;
            for (name, m) in lanes {
                let r = row(op, opts, &name, m);
                progress(&format!(
                    "{label} on {name}: median {}{}",
                    render::fmt_ms(r.median_ms),
                    if r.notes.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", r.notes.join("; "))
                    }
                ));
                report.rows.push(r);
            }
            for (what, m) in floors {
                let f = floor_row(op, what, m);
                progress(&format!(
                    "{label}, floor ({what}): median {}{}",
                    render::fmt_ms(f.median_ms),
                    if f.notes.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", f.notes.join("; "))
                    }
                ));
                report.floors.push(f);
            }
        }
        report.fixtures = Some(fixtures.info.clone());
        fill_ratios(&mut report.rows, &mut report.floors);
        report.targets = targets(&report.rows, ports);
        report
    }
    .boxed_local()
}

/// `  <who>: <unit> <detail, or the step's wall time>`.
fn progress_line(who: &str, unit: Unit, started: Instant, m: &mut Measured) -> String {
    let detail = m
        .detail
        .take()
        .unwrap_or_else(|| format!("{:.1} ms", ms(started)));
    format!("  {who}: {} {detail}", unit.label())
}

/// The pause before each timed step of `op`, if any. Only the skills build has one: there a
/// party frees a 5,000-skill catalog after `close` answers (the reference about a millisecond
/// of work on another thread, a collector maybe more), which would land on the next party's
/// clock. Elsewhere the leftovers are small, and a pause would instead add a halted vCPU's
/// wake-up to every step: with one before every step the MCP toolkit build's floor measured
/// 6.8 ms instead of 4.1–4.4 ms.
fn settle(op: Op) -> Option<Duration> {
    (op == Op::SkillsBuild).then_some(Duration::from_millis(20))
}

/// Sleeps for `pause`, when there is one.
async fn pause(pause: Option<Duration>) {
    if let Some(pause) = pause {
        tokio::time::sleep(pause).await;
    }
}

/// Sets up every port (and the floors), then takes the plan's units round-robin, then tears
/// every lane down. Returns each port's measurement, in port order, and each floor's.
async fn measure_op(
    op: Op,
    ports: &mut [(String, Box<dyn Port>)],
    ctx: &Ctx<'_>,
    early: Vec<Vec<String>>,
    progress: &mut dyn FnMut(&str),
) -> (Vec<(String, Measured)>, Vec<(&'static str, Measured)>) {
    let mut lanes: Vec<PortLane<'_>> = Vec::new();
    for ((name, port), notes) in ports.iter_mut().zip(early) {
        let mut m = Measured {
            notes,
            ..Measured::default()
        };
        let state = if m.notes.is_empty() {
            operations::setup(op, port.as_mut(), ctx, name, &mut m).await
        } else {
            None
        };
        lanes.push(PortLane {
            name,
            port: port.as_mut(),
            state,
            m,
        });
    }
    let mut floors: Vec<FloorLane> = Vec::new();
    for &kind in floor::kinds(op) {
        let mut m = Measured::default();
        let state = floor::setup(kind, ctx, &mut m).await;
        floors.push(FloorLane {
            what: kind.what(),
            state,
            m,
        });
    }
    for unit in plan(op, ctx.opts) {
        for f in floors.iter_mut() {
            if let Some(state) = f.state.as_mut() {
                pause(settle(op)).await;
                let started = Instant::now();
                let go = floor::step(state, ctx, unit, &mut f.m).await;
                let who = format!("floor ({})", f.what);
                progress(&progress_line(&who, unit, started, &mut f.m));
                if go == Go::Stop {
                    if let Some(state) = f.state.take() {
                        floor::teardown(state).await;
                    }
                }
            }
        }
        for lane in lanes.iter_mut() {
            let Some(state) = lane.state.as_mut() else {
                continue;
            };
            pause(settle(op)).await;
            let started = Instant::now();
            let go = operations::step(lane.port, state, ctx, unit, &mut lane.m).await;
            progress(&progress_line(lane.name, unit, started, &mut lane.m));
            let go = match go {
                Ok(go) => go,
                Err(e) => {
                    error_note(&mut lane.m.notes, &e);
                    Go::Stop
                }
            };
            if unit.counted && go == Go::On {
                lane.m.runs += 1;
            }
            if go == Go::Stop {
                if let Some(state) = lane.state.take() {
                    if let Err(e) = operations::teardown(lane.port, state).await {
                        error_note(&mut lane.m.notes, &e);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for mut lane in lanes {
        if let Some(state) = lane.state.take() {
            if let Err(e) = operations::teardown(lane.port, state).await {
                error_note(&mut lane.m.notes, &e);
            }
        }
        out.push((lane.name.to_string(), lane.m));
    }
    let mut measured_floors = Vec::new();
    for mut f in floors {
        if let Some(state) = f.state.take() {
            floor::teardown(state).await;
        }
        measured_floors.push((f.what, f.m));
    }
    (out, measured_floors)
}

fn row(op: Op, opts: &BenchOptions, port: &str, m: Measured) -> BenchRow {
    let st = stats::of(&m.samples);
    BenchRow {
        op,
        label: op.label(opts),
        port: port.to_string(),
        median_ms: st.map(|s| s.median),
        p90_ms: st.map(|s| s.p90),
        min_ms: st.map(|s| s.min),
        max_ms: st.map(|s| s.max),
        runs: m.runs,
        samples: m.samples.len(),
        ratio_to_reference: None,
        notes: m.notes,
    }
}

fn floor_row(op: Op, what: &str, m: Measured) -> FloorRow {
    let st = stats::of(&m.samples);
    FloorRow {
        op,
        what: what.to_string(),
        median_ms: st.map(|s| s.median),
        p90_ms: st.map(|s| s.p90),
        min_ms: st.map(|s| s.min),
        max_ms: st.map(|s| s.max),
        samples: m.samples.len(),
        ratio_to_reference: None,
        notes: m.notes,
    }
}

fn fill_ratios(rows: &mut [BenchRow], floors: &mut [FloorRow]) {
    let reference: Vec<(Op, Option<f64>)> = rows
        .iter()
        .filter(|r| r.port == REFERENCE)
        .map(|r| (r.op, r.median_ms))
        .collect();
    for r in rows.iter_mut() {
        let base = reference
            .iter()
            .find(|(op, _)| *op == r.op)
            .and_then(|(_, m)| *m);
        r.ratio_to_reference = ratio(r.median_ms, base);
    }
    for f in floors.iter_mut() {
        let base = reference
            .iter()
            .find(|(op, _)| *op == f.op)
            .and_then(|(_, m)| *m);
        f.ratio_to_reference = ratio(f.median_ms, base);
    }
}

/// `median / base`, when both were measured.
fn ratio(median: Option<f64>, base: Option<f64>) -> Option<f64> {
    match (median, base) {
        (Some(m), Some(b)) if b > 0.0 => Some(m / b),
        _ => None,
    }
}

fn targets(rows: &[BenchRow], ports: &[(String, Box<dyn Port>)]) -> Vec<TargetCheck> {
    let median = |op: Op, port: &str| {
        rows.iter()
            .find(|r| r.op == op && r.port == port)
            .and_then(|r| r.median_ms)
    };
    let check = |op: Op, other: &str, target: f64| {
        let ratio = match (median(op, REFERENCE), median(op, other)) {
            (Some(r), Some(o)) if o > 0.0 => Some(r / o),
            _ => None,
        };
        TargetCheck {
            op,
            port: other.to_string(),
            ratio,
            target,
            met: ratio.map(|r| r <= target),
        }
    };
    let mut checks: Vec<TargetCheck> = TARGETS
        .iter()
        .filter(|(op, other, _)| {
            ports.iter().any(|(n, _)| n == other) && rows.iter().any(|r| r.op == *op)
        })
        .map(|&(op, other, target)| check(op, other, target))
        .collect();
    if let Some(fastest) = fastest_other(rows, Op::AgentLoop) {
        checks.push(check(Op::AgentLoop, &fastest, LOOP_TARGET));
    }
    checks
}

/// The non-reference port with the smallest median for `op`; when none was measured, the
/// first non-reference port that ran it (so the target shows as not measured); `None` when
/// the reference ran alone.
fn fastest_other(rows: &[BenchRow], op: Op) -> Option<String> {
    let others = || rows.iter().filter(|r| r.op == op && r.port != REFERENCE);
    others()
        .filter_map(|r| r.median_ms.map(|m| (m, r)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, r)| r.port.clone())
        .or_else(|| others().next().map(|r| r.port.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loop_row(port: &str, median: Option<f64>) -> BenchRow {
        let mut m = Measured::default();
        if let Some(v) = median {
            m.samples.push(v);
            m.runs = 1;
        }
        row(Op::AgentLoop, &BenchOptions::default(), port, m)
    }

    #[test]
    fn calls_are_split_into_even_blocks() {
        assert_eq!(blocks(12, 10), [2, 2, 1, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(blocks(1000, 10), [100; 10]);
        assert_eq!(blocks(5, 10), [1; 5]);
        assert!(blocks(0, 10).is_empty());
        let opts = BenchOptions {
            runs: 3,
            warmup: 2,
            round_trips: 200,
            ..BenchOptions::default()
        };
        let units = plan(Op::RoundTrip, &opts);
        let warm: Vec<usize> = units
            .iter()
            .filter(|u| !u.counted)
            .map(|u| u.size)
            .collect();
        let counted: Vec<usize> = units.iter().filter(|u| u.counted).map(|u| u.size).collect();
        assert_eq!(warm, [200, 200]);
        assert_eq!(counted, [60; 10]);
        assert!(plan(Op::Suite, &opts)
            .iter()
            .all(|u| u.counted && u.size == 1));
        assert_eq!(plan(Op::Suite, &opts).len(), 3);
        assert_eq!(plan(Op::McpCall, &opts)[0].size, 100);
    }

    #[test]
    fn op_names_are_the_json_names() {
        for op in Op::ALL {
            assert_eq!(serde_json::to_value(op).unwrap(), op.name());
            assert_eq!(Op::parse(op.name()), Some(op));
        }
        assert_eq!(Op::parse("agent-loop"), None);
    }

    #[test]
    fn the_loop_target_is_against_the_fastest_other_port() {
        let rows = vec![
            loop_row(REFERENCE, Some(0.2)),
            loop_row("python", Some(1.0)),
            loop_row("rust-crate", Some(0.5)),
            loop_row("broken", None),
        ];
        let checks = targets(&rows, &[]);
        assert_eq!(checks.len(), 1, "{checks:?}");
        assert_eq!(checks[0].op, Op::AgentLoop);
        assert_eq!(checks[0].port, "rust-crate");
        assert_eq!(checks[0].ratio, Some(0.4));
        assert_eq!(checks[0].target, LOOP_TARGET);
        assert_eq!(checks[0].met, Some(true));

        let slow = vec![
            loop_row(REFERENCE, Some(0.3)),
            loop_row("python", Some(0.5)),
        ];
        assert_eq!(targets(&slow, &[])[0].met, Some(false));

        let unmeasured = vec![loop_row(REFERENCE, Some(0.3)), loop_row("python", None)];
        let t = &targets(&unmeasured, &[])[0];
        assert_eq!((t.port.as_str(), t.ratio, t.met), ("python", None, None));

        assert!(targets(&[loop_row(REFERENCE, Some(0.3))], &[]).is_empty());
    }
}
