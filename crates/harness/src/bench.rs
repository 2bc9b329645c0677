//! The cross-port benchmark: times a few heavy operations on each chosen port, through the
//! protocol only, and compares every port with the reference measured in the same run.
//!
//! Three operations, each with warm-up runs that are not counted and several counted runs
//! (median, min, max):
//!
//! 1. **skills build + prompt** — `build {"builtins": false, "skillsDir": <tree>}` over a
//!    generated tree of skills (5,000 by default, three files each), then `skills_prompt`,
//!    then `close`; the whole sequence is timed.
//! 2. **grep** — one `build {}`, then per run one `execute grep` over a generated tree of
//!    small files (20,000 by default); the result must not be an error and must have the
//!    known number of matching lines (a difference is a note, not a failure).
//! 3. **execute round trip** — a toolkit with one cheap extra tool (`{"text": "ok"}`), then
//!    `round_trips` sequential `execute` calls per run; statistics are per call.
//! 4. **MCP call round trip (stdio)** — one `build {"builtins": false, "mcpConfig": …}` with
//!    the `basic.json` mock MCP server over stdio, warm-up calls, then `mcp_calls` sequential
//!    `execute mock_echo` calls; statistics (median = p50, p90) are per call.
//! 5. **toolkit build, one stdio MCP server** — `build` with that config, then `close`
//!    (which stops the server), timed together, `mcp_builds` counted runs.
//!
//! The fixtures are generated once per [`run`] (plain `std::fs` writes, deterministic
//! content) into a temporary directory that is removed afterwards, and shared by all ports.
//! The MCP server is this crate's own `mock mcp` subcommand, started by the port from the
//! config (absolute path of [`BenchOptions::mock_exe`], else of the running binary, and of
//! a copy of `mock-servers/scenarios/basic.json` in the fixture directory).
//! A port that fails gets a note on its row; the benchmark never panics on port behaviour.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;
use serde_json::{json, Value};

use super::port::{truncate, Port, PortError};

/// The name of the port every other port is compared with.
pub const REFERENCE: &str = "reference";

/// The token the grep fixture plants in some files (one matching line per such file).
pub const GREP_TOKEN: &str = "benchneedle_7f3a";

/// Every how many grep fixture files carries one matching line.
const GREP_MATCH_EVERY: usize = 10;

/// Skills (or grep files) per generated folder.
const PER_FOLDER: usize = 100;

/// Toolkit ids the benchmark builds.
const TK_SKILLS: &str = "bench-skills";
const TK_GREP: &str = "bench-grep";
const TK_NOOP: &str = "bench-noop";
const TK_MCP_CALL: &str = "bench-mcp-call";
const TK_MCP_BUILD: &str = "bench-mcp-build";

/// The mock MCP scenario the MCP operations serve (`mock-servers/scenarios/basic.json`).
const MCP_SCENARIO: &str = include_str!("../../../mock-servers/scenarios/basic.json");
/// The server's key in `mcpServers`; its `echo` tool is exposed as [`MCP_TOOL`].
const MCP_SERVER: &str = "mock";
/// The exposed name of the mock's echo tool.
pub const MCP_TOOL: &str = "mock_echo";
/// The text every MCP call sends and expects back.
const MCP_TEXT: &str = "bench";
/// Uncounted `execute` calls per warm-up run of the MCP call operation.
const MCP_WARMUP_CALLS: usize = 100;

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
    /// The binary that serves `mock mcp` (the running binary when absent).
    pub mock_exe: Option<PathBuf>,
    /// The operations to run, in this order ([`Op::ALL`] by default).
    pub ops: Vec<Op>,
    /// Where the temporary fixture directory is created (the system temp dir when absent).
    pub work_dir: Option<PathBuf>,
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
            mock_exe: None,
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
}

impl Op {
    /// All operations, in the order they run and are reported.
    pub const ALL: [Op; 5] = [
        Op::SkillsBuild,
        Op::Grep,
        Op::RoundTrip,
        Op::McpCall,
        Op::McpBuild,
    ];

    /// A short human label including the size it runs at.
    pub fn label(self, opts: &BenchOptions) -> String {
        match self {
            Op::SkillsBuild => format!("skills build + prompt ({} skills)", opts.skills),
            Op::Grep => format!("grep ({} files)", opts.grep_files),
            Op::RoundTrip => "execute round trip (per call)".to_string(),
            Op::McpCall => format!("MCP call round trip, stdio ({} calls)", opts.mcp_calls),
            Op::McpBuild => "toolkit build, one stdio MCP server".to_string(),
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
    /// Counted runs that completed.
    pub runs: usize,
    /// Timings the statistics are over: `runs`, `runs × round_trips` for the round trip,
    /// `mcp_calls` for the MCP call.
    pub samples: usize,
    /// This port's median divided by the reference's median for the same operation.
    pub ratio_to_reference: Option<f64>,
    /// Failures and output differences observed (never fatal).
    pub notes: Vec<String>,
}

/// A target from the issue: the reference's median over another port's median, at most
/// `target`.
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
    /// The fixtures, when they could be generated.
    pub fixtures: Option<FixtureInfo>,
    /// One row per (operation, port), operations outermost.
    pub rows: Vec<BenchRow>,
    /// The targets whose other port took part in the run.
    pub targets: Vec<TargetCheck>,
    /// Problems of the run as a whole (e.g. fixtures that could not be written).
    pub notes: Vec<String>,
}

/// The generated trees, removed when dropped.
pub struct Fixtures {
    _dir: tempfile::TempDir,
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
        Ok(Self {
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
fn skill_name(i: usize) -> String {
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

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Summary statistics of a sample set, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stats {
    median: f64,
    p90: f64,
    min: f64,
    max: f64,
}

/// Median, 90th percentile (nearest rank), min and max of `samples` (absent when empty).
fn stats(samples: &[f64]) -> Option<Stats> {
    let mut s: Vec<f64> = samples.iter().copied().filter(|v| v.is_finite()).collect();
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    let n = s.len();
    let median = if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    };
    let p90 = s[(n * 9).div_ceil(10).saturating_sub(1)];
    Some(Stats {
        median,
        p90,
        min: s[0],
        max: s[n - 1],
    })
}

fn note(notes: &mut Vec<String>, text: String) {
    if !notes.contains(&text) {
        notes.push(text);
    }
}

/// What one (operation, port) measurement collected.
#[derive(Default)]
struct Measured {
    samples: Vec<f64>,
    runs: usize,
    notes: Vec<String>,
}

/// Runs the benchmark over `ports` (name, port) with `opts`, reporting progress lines to
/// `progress`.
///
/// Every port gets every operation of `opts.ops`; a port that fails gets notes on its rows
/// instead of numbers. Ratios are against the port named [`REFERENCE`], when one is. The
/// ports are left running: shutting them down is the caller's business. Drivers need a
/// per-request timeout long enough for one skills build at the chosen size.
pub async fn run(
    ports: &mut [(String, Box<dyn Port>)],
    opts: &BenchOptions,
    mut progress: impl FnMut(&str),
) -> BenchReport {
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
        fixtures: None,
        rows: Vec::new(),
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
        for (name, port) in ports.iter_mut() {
            let label = op.label(opts);
            progress(&format!("{label} on {name}…"));
            let measured = measure(op, port.as_mut(), opts, &fixtures, name, &mut progress).await;
            let r = row(op, opts, name, measured);
            progress(&format!(
                "{label} on {name}: median {}{}",
                fmt_ms(r.median_ms),
                if r.notes.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", r.notes.join("; "))
                }
            ));
            report.rows.push(r);
        }
    }
    report.fixtures = Some(fixtures.info.clone());
    fill_ratios(&mut report.rows);
    report.targets = targets(&report.rows, ports);
    report
}

fn row(op: Op, opts: &BenchOptions, port: &str, m: Measured) -> BenchRow {
    let st = stats(&m.samples);
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

fn fill_ratios(rows: &mut [BenchRow]) {
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
        r.ratio_to_reference = match (r.median_ms, base) {
            (Some(m), Some(b)) if b > 0.0 => Some(m / b),
            _ => None,
        };
    }
}

fn targets(rows: &[BenchRow], ports: &[(String, Box<dyn Port>)]) -> Vec<TargetCheck> {
    let median = |op: Op, port: &str| {
        rows.iter()
            .find(|r| r.op == op && r.port == port)
            .and_then(|r| r.median_ms)
    };
    TARGETS
        .iter()
        .filter(|(op, other, _)| {
            ports.iter().any(|(n, _)| n == other) && rows.iter().any(|r| r.op == *op)
        })
        .map(|&(op, other, target)| {
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
        })
        .collect()
}

/// Measures one operation on one port; failures end the measurement with a note.
async fn measure(
    op: Op,
    port: &mut dyn Port,
    opts: &BenchOptions,
    fx: &Fixtures,
    name: &str,
    progress: &mut impl FnMut(&str),
) -> Measured {
    let mut m = Measured::default();
    if let Err(e) = port.ensure_ready().await {
        note(&mut m.notes, format!("port not ready: {e}"));
        return m;
    }
    let outcome = match op {
        Op::SkillsBuild => skills_build(port, opts, fx, name, &mut m, progress).await,
        Op::Grep => grep(port, opts, fx, name, &mut m, progress).await,
        Op::RoundTrip => round_trip(port, opts, name, &mut m, progress).await,
        Op::McpCall => mcp_call(port, opts, fx, name, &mut m, progress).await,
        Op::McpBuild => mcp_build(port, opts, fx, name, &mut m, progress).await,
    };
    if let Err(e) = outcome {
        note(
            &mut m.notes,
            format!("failed: {}", truncate(&e.to_string(), 300)),
        );
    }
    m
}

/// Warm-up runs, then counted runs, of one operation.
#[derive(Debug, Clone, Copy)]
struct Schedule {
    warmup: usize,
    counted: usize,
}

impl Schedule {
    /// The common schedule: `opts.warmup` then `opts.runs`.
    fn of(opts: &BenchOptions) -> Self {
        Self {
            warmup: opts.warmup,
            counted: opts.runs,
        }
    }

    fn total(self) -> usize {
        self.warmup + self.counted
    }

    fn is_counted(self, i: usize) -> bool {
        i >= self.warmup
    }

    fn label(self, i: usize) -> String {
        if i < self.warmup {
            format!("warm-up {}/{}", i + 1, self.warmup)
        } else {
            format!("run {}/{}", i + 1 - self.warmup, self.counted)
        }
    }
}

async fn skills_build(
    port: &mut dyn Port,
    opts: &BenchOptions,
    fx: &Fixtures,
    name: &str,
    m: &mut Measured,
    progress: &mut impl FnMut(&str),
) -> Result<(), PortError> {
    let options = json!({
        "builtins": false,
        "skillsDir": fx.skills_dir.to_string_lossy(),
    });
    let expected = [skill_name(0), skill_name(opts.skills.saturating_sub(1))];
    let sched = Schedule::of(opts);
    for i in 0..sched.total() {
        let started = Instant::now();
        let built = port.build(TK_SKILLS, &options).await;
        let prompt = match built {
            Ok(b) => port.skills_prompt(TK_SKILLS).await.map(|p| (b, p)),
            Err(e) => Err(e),
        };
        let closed = port.close(TK_SKILLS).await;
        let elapsed = ms(started);
        let (built, prompt) = prompt?;
        closed?;
        let found = built.get("skills").and_then(Value::as_array).map(Vec::len);
        if found != Some(opts.skills) {
            note(
                &mut m.notes,
                format!(
                    "build listed {} skills, expected {}",
                    found.map_or_else(|| "no".to_string(), |n| n.to_string()),
                    opts.skills
                ),
            );
        }
        if opts.skills > 0 && expected.iter().any(|s| !prompt.contains(s.as_str())) {
            note(
                &mut m.notes,
                format!(
                    "skills prompt does not mention {} or {}",
                    expected[0], expected[1]
                ),
            );
        }
        record(i, elapsed, sched, m, name, progress);
    }
    Ok(())
}

async fn grep(
    port: &mut dyn Port,
    opts: &BenchOptions,
    fx: &Fixtures,
    name: &str,
    m: &mut Measured,
    progress: &mut impl FnMut(&str),
) -> Result<(), PortError> {
    port.build(TK_GREP, &json!({})).await?;
    let args = json!({
        "pattern": GREP_TOKEN,
        "path": fx.grep_dir.to_string_lossy(),
        "limit": 1_000_000,
    });
    let sched = Schedule::of(opts);
    let outcome = async {
        for i in 0..sched.total() {
            let started = Instant::now();
            let result = port.execute(TK_GREP, "grep", &args, None).await?;
            let elapsed = ms(started);
            check_grep(&result, fx.info.grep_matches, &mut m.notes);
            record(i, elapsed, sched, m, name, progress);
        }
        Ok(())
    }
    .await;
    let closed = port.close(TK_GREP).await;
    outcome.and(closed)
}

/// Notes a grep result that is an error or has another number of matching lines.
fn check_grep(result: &Value, expected: usize, notes: &mut Vec<String>) {
    let output = result.get("output").and_then(Value::as_str).unwrap_or("");
    if result.get("isError") != Some(&Value::Bool(false)) {
        note(
            notes,
            format!("grep returned an error: {}", truncate(output, 200)),
        );
        return;
    }
    let lines = output.lines().filter(|l| l.contains(GREP_TOKEN)).count();
    if lines != expected {
        note(
            notes,
            format!("grep found {lines} matching lines, expected {expected}"),
        );
    }
}

async fn round_trip(
    port: &mut dyn Port,
    opts: &BenchOptions,
    name: &str,
    m: &mut Measured,
    progress: &mut impl FnMut(&str),
) -> Result<(), PortError> {
    let options = json!({"extraTools": [{"name": "noop", "behaviour": {"text": "ok"}}]});
    port.build(TK_NOOP, &options).await?;
    let calls = Calls {
        toolkit: TK_NOOP,
        tool: "noop",
        args: json!({}),
        expected: "ok",
        per_warmup: opts.round_trips,
        per_run: opts.round_trips,
    };
    let outcome = call_runs(port, &calls, Schedule::of(opts), m, name, progress).await;
    let closed = port.close(TK_NOOP).await;
    outcome.and(closed)
}

/// One toolkit with the stdio mock MCP server, warm-up calls, then `mcp_calls` counted
/// `execute mock_echo` calls in one run.
async fn mcp_call(
    port: &mut dyn Port,
    opts: &BenchOptions,
    fx: &Fixtures,
    name: &str,
    m: &mut Measured,
    progress: &mut impl FnMut(&str),
) -> Result<(), PortError> {
    let built = port.build(TK_MCP_CALL, &fx.mcp_options).await?;
    if let Some(why) = missing_mcp_tool(&built) {
        note(&mut m.notes, why);
        return port.close(TK_MCP_CALL).await;
    }
    let calls = Calls {
        toolkit: TK_MCP_CALL,
        tool: MCP_TOOL,
        args: json!({ "text": MCP_TEXT }),
        expected: MCP_TEXT,
        per_warmup: opts.mcp_calls.min(MCP_WARMUP_CALLS),
        per_run: opts.mcp_calls,
    };
    let sched = Schedule {
        warmup: opts.warmup,
        counted: 1,
    };
    let outcome = call_runs(port, &calls, sched, m, name, progress).await;
    let closed = port.close(TK_MCP_CALL).await;
    outcome.and(closed)
}

/// `build` with the stdio mock MCP server then `close`, timed together, `mcp_builds` times;
/// a build without the server's tool ends the measurement with a note.
async fn mcp_build(
    port: &mut dyn Port,
    opts: &BenchOptions,
    fx: &Fixtures,
    name: &str,
    m: &mut Measured,
    progress: &mut impl FnMut(&str),
) -> Result<(), PortError> {
    let sched = Schedule {
        warmup: opts.warmup,
        counted: opts.mcp_builds,
    };
    for i in 0..sched.total() {
        let started = Instant::now();
        let built = port.build(TK_MCP_BUILD, &fx.mcp_options).await;
        let closed = port.close(TK_MCP_BUILD).await;
        let elapsed = ms(started);
        let built = built?;
        closed?;
        if let Some(why) = missing_mcp_tool(&built) {
            // A server that did not start is not a build time worth reporting.
            note(&mut m.notes, why);
            return Ok(());
        }
        record(i, elapsed, sched, m, name, progress);
    }
    Ok(())
}

/// Why a build answer lacks [`MCP_TOOL`] (with its statuses and errors), or `None`.
fn missing_mcp_tool(built: &Value) -> Option<String> {
    let names = built.get("names").and_then(Value::as_array);
    if names.is_some_and(|n| n.iter().any(|v| v.as_str() == Some(MCP_TOOL))) {
        return None;
    }
    let field = |k: &str| truncate(&built.get(k).cloned().unwrap_or_default().to_string(), 200);
    Some(format!(
        "build does not expose {MCP_TOOL} (statuses {}, errors {})",
        field("statuses"),
        field("errors")
    ))
}

/// Sequential `execute` calls of one tool whose output is known, and how many per run.
struct Calls<'a> {
    toolkit: &'a str,
    tool: &'a str,
    args: Value,
    expected: &'a str,
    per_warmup: usize,
    per_run: usize,
}

/// Runs `sched` of call batches; counted batches add one sample per call. A result that is
/// an error or has another output is a note.
async fn call_runs(
    port: &mut dyn Port,
    calls: &Calls<'_>,
    sched: Schedule,
    m: &mut Measured,
    name: &str,
    progress: &mut impl FnMut(&str),
) -> Result<(), PortError> {
    for i in 0..sched.total() {
        let counted = sched.is_counted(i);
        let count = if counted {
            calls.per_run
        } else {
            calls.per_warmup
        };
        let started = Instant::now();
        for _ in 0..count {
            let call = Instant::now();
            let result = port
                .execute(calls.toolkit, calls.tool, &calls.args, None)
                .await?;
            let elapsed = ms(call);
            check_output(&result, calls, &mut m.notes);
            if counted {
                m.samples.push(elapsed);
            }
        }
        if counted {
            m.runs += 1;
        }
        progress(&format!(
            "  {name}: {} {count} calls in {:.1} ms",
            sched.label(i),
            ms(started)
        ));
    }
    Ok(())
}

/// Notes a call result that is an error or whose output is not the expected one.
fn check_output(result: &Value, calls: &Calls<'_>, notes: &mut Vec<String>) {
    if result.get("output").and_then(Value::as_str) != Some(calls.expected)
        || result.get("isError") != Some(&Value::Bool(false))
    {
        note(
            notes,
            format!(
                "{} returned {}, expected output {:?}",
                calls.tool,
                truncate(&result.to_string(), 200),
                calls.expected
            ),
        );
    }
}

fn record(
    i: usize,
    elapsed: f64,
    sched: Schedule,
    m: &mut Measured,
    name: &str,
    progress: &mut impl FnMut(&str),
) {
    if sched.is_counted(i) {
        m.samples.push(elapsed);
        m.runs += 1;
    }
    progress(&format!("  {name}: {} {elapsed:.1} ms", sched.label(i)));
}

/// A duration for the table: fewer decimals as it grows.
fn fmt_ms(v: Option<f64>) -> String {
    match v {
        None => "—".to_string(),
        Some(v) if v >= 100.0 => format!("{v:.0} ms"),
        Some(v) if v >= 10.0 => format!("{v:.1} ms"),
        Some(v) if v >= 1.0 => format!("{v:.2} ms"),
        Some(v) => format!("{v:.3} ms"),
    }
}

fn fmt_ratio(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_string(), |r| format!("{r:.2}×"))
}

/// Pads `s` to `width` characters (by `char`, so `×` and `—` count as one).
fn pad(s: &str, width: usize, right: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(s.chars().count()));
    if right {
        format!("{fill}{s}")
    } else {
        format!("{s}{fill}")
    }
}

/// Renders the report as a fixed-width text table (op | port | median | p90 | min | max |
/// ratio vs reference), then one line per target, then the notes.
pub fn table(report: &BenchReport) -> String {
    let mut out = grid(&report.rows);
    let _ = writeln!(out, "({})", footer(report).join("; "));
    let targets = target_lines(&report.targets);
    if !targets.is_empty() {
        out.push('\n');
    }
    for t in targets {
        let _ = writeln!(out, "{t}");
    }
    let notes: Vec<String> = report
        .notes
        .iter()
        .cloned()
        .chain(report.rows.iter().flat_map(|r| {
            r.notes
                .iter()
                .map(move |n| format!("{} on {}: {n}", r.label, r.port))
        }))
        .collect();
    if !notes.is_empty() {
        out.push('\n');
    }
    for n in notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// How often the operations in the report ran, one part per kind of schedule.
fn footer(report: &BenchReport) -> Vec<String> {
    let ran = |ops: &[Op]| report.rows.iter().any(|r| ops.contains(&r.op));
    let w = report.warmup;
    let mut parts = Vec::new();
    if ran(&[Op::SkillsBuild, Op::Grep, Op::RoundTrip]) {
        parts.push(format!(
            "{} counted run(s) after {w} warm-up run(s)",
            report.runs
        ));
    }
    if ran(&[Op::RoundTrip]) {
        parts.push(format!(
            "round trip: {} calls per run, per call",
            report.round_trips
        ));
    }
    if ran(&[Op::McpCall]) {
        parts.push(format!(
            "MCP call: {} calls after {w} × {} warm-up calls, per call",
            report.mcp_calls,
            report.mcp_calls.min(MCP_WARMUP_CALLS)
        ));
    }
    if ran(&[Op::McpBuild]) {
        parts.push(format!(
            "MCP build: {} counted build + close runs after {w} warm-up run(s)",
            report.mcp_builds
        ));
    }
    parts
}

/// The rows as aligned columns under a header and a rule.
fn grid(rows: &[BenchRow]) -> String {
    const COLUMNS: usize = 7;
    let header = ["op", "port", "median", "p90", "min", "max", "vs reference"];
    let cells: Vec<[String; COLUMNS]> = rows
        .iter()
        .map(|r| {
            [
                r.label.clone(),
                r.port.clone(),
                fmt_ms(r.median_ms),
                fmt_ms(r.p90_ms),
                fmt_ms(r.min_ms),
                fmt_ms(r.max_ms),
                fmt_ratio(r.ratio_to_reference),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for c in &cells {
        for (w, s) in widths.iter_mut().zip(c) {
            *w = (*w).max(s.chars().count());
        }
    }
    let line = |c: &[String; COLUMNS]| {
        let parts: Vec<String> = c
            .iter()
            .enumerate()
            .map(|(i, s)| pad(s, widths[i], i >= 2))
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    let mut out = String::new();
    let _ = writeln!(out, "{}", line(&header.map(str::to_string)));
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let _ = writeln!(out, "{}", rule.join("  "));
    for c in &cells {
        let _ = writeln!(out, "{}", line(c));
    }
    out
}

/// One line per target: the ratio, the target and the verdict.
fn target_lines(targets: &[TargetCheck]) -> Vec<String> {
    targets
        .iter()
        .map(|t| {
            let verdict = match t.met {
                Some(true) => "ok",
                Some(false) => "MISSED",
                None => "not measured",
            };
            format!(
                "{}: {REFERENCE}/{} = {} (target ≤ {}×) {verdict}",
                t.op.short(),
                t.port,
                fmt_ratio(t.ratio),
                t.target
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> BenchOptions {
        BenchOptions {
            skills: 20,
            grep_files: 50,
            round_trips: 5,
            runs: 1,
            warmup: 1,
            mcp_calls: 5,
            mcp_builds: 1,
            // Unit tests have no mock server binary; `tests/bench_smoke.rs` runs the real one.
            mock_exe: Some(PathBuf::from("/nonexistent/tnx-mock-server")),
            ops: Op::ALL.to_vec(),
            work_dir: None,
        }
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

    #[test]
    fn stats_and_formatting() {
        let st = |median, p90, min, max| {
            Some(Stats {
                median,
                p90,
                min,
                max,
            })
        };
        assert_eq!(stats(&[3.0, 1.0, 2.0]), st(2.0, 3.0, 1.0, 3.0));
        assert_eq!(stats(&[4.0, 1.0, 2.0, 3.0]), st(2.5, 4.0, 1.0, 4.0));
        let hundred: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(stats(&hundred), st(50.5, 90.0, 1.0, 100.0));
        let thousand: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(stats(&thousand).map(|s| s.p90), Some(900.0));
        assert_eq!(stats(&[7.0]), st(7.0, 7.0, 7.0, 7.0));
        assert_eq!(stats(&[]), None);
        assert_eq!(fmt_ms(Some(1234.4)), "1234 ms");
        assert_eq!(fmt_ms(Some(0.01234)), "0.012 ms");
        assert_eq!(fmt_ratio(Some(0.314)), "0.31×");
    }

    #[test]
    fn grep_differences_are_notes() {
        let mut notes = Vec::new();
        check_grep(&json!({"output": "x", "isError": true}), 3, &mut notes);
        check_grep(
            &json!({"output": format!("a:1:{GREP_TOKEN}"), "isError": false}),
            3,
            &mut notes,
        );
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[1].contains("found 1 matching lines, expected 3"));
    }
}
