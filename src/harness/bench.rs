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
//!
//! The fixtures are generated once per [`run`] (plain `std::fs` writes, deterministic
//! content) into a temporary directory that is removed afterwards, and shared by all ports.
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
}

impl Op {
    /// All operations, in the order they run and are reported.
    pub const ALL: [Op; 3] = [Op::SkillsBuild, Op::Grep, Op::RoundTrip];

    /// A short human label including the size it runs at.
    pub fn label(self, opts: &BenchOptions) -> String {
        match self {
            Op::SkillsBuild => format!("skills build + prompt ({} skills)", opts.skills),
            Op::Grep => format!("grep ({} files)", opts.grep_files),
            Op::RoundTrip => "execute round trip (per call)".to_string(),
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
    /// Median of the samples, in milliseconds; absent when nothing was measured.
    pub median_ms: Option<f64>,
    /// Fastest sample, in milliseconds.
    pub min_ms: Option<f64>,
    /// Slowest sample, in milliseconds.
    pub max_ms: Option<f64>,
    /// Counted runs that completed.
    pub runs: usize,
    /// Timings the statistics are over: `runs`, or `runs × round_trips` for the round trip.
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
        Ok(Self {
            _dir: dir,
            skills_dir,
            grep_dir,
            info: FixtureInfo {
                skills: opts.skills,
                skill_files,
                grep_files: opts.grep_files,
                grep_matches,
                generation_ms: ms(started),
            },
        })
    }
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

/// Median, min and max of `samples` (absent when empty).
fn stats(samples: &[f64]) -> Option<(f64, f64, f64)> {
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
    Some((median, s[0], s[n - 1]))
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
/// Every port gets every operation; a port that fails gets notes on its rows instead of
/// numbers. Ratios are against the port named [`REFERENCE`], when one is. The ports are left
/// running: shutting them down is the caller's business. Drivers need a per-request timeout
/// long enough for one skills build at the chosen size.
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
            for op in Op::ALL {
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
    for op in Op::ALL {
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
        median_ms: st.map(|s| s.0),
        min_ms: st.map(|s| s.1),
        max_ms: st.map(|s| s.2),
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
        .filter(|(_, other, _)| ports.iter().any(|(n, _)| n == other))
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
    };
    if let Err(e) = outcome {
        note(
            &mut m.notes,
            format!("failed: {}", truncate(&e.to_string(), 300)),
        );
    }
    m
}

fn run_label(i: usize, opts: &BenchOptions) -> String {
    if i < opts.warmup {
        format!("warm-up {}/{}", i + 1, opts.warmup)
    } else {
        format!("run {}/{}", i + 1 - opts.warmup, opts.runs)
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
    for i in 0..opts.warmup + opts.runs {
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
        record(i, elapsed, opts, m, name, progress);
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
    let outcome = async {
        for i in 0..opts.warmup + opts.runs {
            let started = Instant::now();
            let result = port.execute(TK_GREP, "grep", &args, None).await?;
            let elapsed = ms(started);
            check_grep(&result, fx.info.grep_matches, &mut m.notes);
            record(i, elapsed, opts, m, name, progress);
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
    let args = json!({});
    let outcome = async {
        for i in 0..opts.warmup + opts.runs {
            let counted = i >= opts.warmup;
            let started = Instant::now();
            for _ in 0..opts.round_trips {
                let call = Instant::now();
                let result = port.execute(TK_NOOP, "noop", &args, None).await?;
                let elapsed = ms(call);
                if result.get("output").and_then(Value::as_str) != Some("ok")
                    || result.get("isError") != Some(&Value::Bool(false))
                {
                    note(
                        &mut m.notes,
                        format!(
                            "noop returned {}, expected output \"ok\"",
                            truncate(&result.to_string(), 200)
                        ),
                    );
                }
                if counted {
                    m.samples.push(elapsed);
                }
            }
            if counted {
                m.runs += 1;
            }
            let total = ms(started);
            progress(&format!(
                "  {name}: {} {} calls in {total:.1} ms",
                run_label(i, opts),
                opts.round_trips
            ));
        }
        Ok(())
    }
    .await;
    let closed = port.close(TK_NOOP).await;
    outcome.and(closed)
}

fn record(
    i: usize,
    elapsed: f64,
    opts: &BenchOptions,
    m: &mut Measured,
    name: &str,
    progress: &mut impl FnMut(&str),
) {
    if i >= opts.warmup {
        m.samples.push(elapsed);
        m.runs += 1;
    }
    progress(&format!("  {name}: {} {elapsed:.1} ms", run_label(i, opts)));
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

/// Renders the report as a fixed-width text table (op | port | median | min | max | ratio vs
/// reference), then one line per target, then the notes.
pub fn table(report: &BenchReport) -> String {
    let header = ["op", "port", "median", "min", "max", "vs reference"];
    let cells: Vec<[String; 6]> = report
        .rows
        .iter()
        .map(|r| {
            [
                r.label.clone(),
                r.port.clone(),
                fmt_ms(r.median_ms),
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
    let line = |c: &[String; 6]| {
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
    let _ = writeln!(
        out,
        "({} counted run(s) after {} warm-up run(s); round trip: {} calls per run, per-call figures)",
        report.runs, report.warmup, report.round_trips
    );
    if !report.targets.is_empty() {
        out.push('\n');
    }
    for t in &report.targets {
        let what = match t.op {
            Op::SkillsBuild => "skills build",
            Op::Grep => "grep",
            Op::RoundTrip => "execute round trip",
        };
        let verdict = match t.met {
            Some(true) => "ok",
            Some(false) => "MISSED",
            None => "not measured",
        };
        let ratio = t
            .ratio
            .map_or_else(|| "—".to_string(), |r| format!("{r:.2}×"));
        let _ = writeln!(
            out,
            "{what}: {REFERENCE}/{} = {ratio} (target ≤ {}×) {verdict}",
            t.port, t.target
        );
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::inprocess::InProcessPort;
    use async_trait::async_trait;

    fn tiny() -> BenchOptions {
        BenchOptions {
            skills: 20,
            grep_files: 50,
            round_trips: 5,
            runs: 1,
            warmup: 1,
            work_dir: None,
        }
    }

    /// A port whose every call fails, as a dead driver would.
    struct Broken;

    #[async_trait]
    impl Port for Broken {
        async fn call(&mut self, _request: Value) -> Result<Value, PortError> {
            Err(PortError::Transport("driver is not running".into()))
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
        assert_eq!(stats(&[3.0, 1.0, 2.0]), Some((2.0, 1.0, 3.0)));
        assert_eq!(stats(&[4.0, 1.0, 2.0, 3.0]), Some((2.5, 1.0, 4.0)));
        assert_eq!(stats(&[]), None);
        assert_eq!(fmt_ms(Some(1234.4)), "1234 ms");
        assert_eq!(fmt_ms(Some(0.01234)), "0.012 ms");
        assert_eq!(fmt_ratio(Some(0.314)), "0.31×");
    }

    #[tokio::test]
    async fn tiny_run_in_process() {
        let mut ports: Vec<(String, Box<dyn Port>)> = vec![
            (REFERENCE.into(), Box::new(InProcessPort::new())),
            // Named like the crate port only to exercise the target line.
            ("rust-crate".into(), Box::new(InProcessPort::new())),
            ("broken".into(), Box::new(Broken)),
        ];
        let mut lines = Vec::new();
        let report = run(&mut ports, &tiny(), |l| lines.push(l.to_string())).await;
        assert!(!lines.is_empty());
        assert_eq!(report.rows.len(), 9);
        assert_eq!(report.reference.as_deref(), Some(REFERENCE));
        for r in report.rows.iter().filter(|r| r.port != "broken") {
            assert!(r.median_ms.is_some(), "{r:?}");
            assert!(r.notes.is_empty(), "{r:?}");
            assert_eq!(r.runs, 1);
        }
        let rt = report
            .rows
            .iter()
            .find(|r| r.op == Op::RoundTrip && r.port == REFERENCE)
            .unwrap();
        assert_eq!(rt.samples, 5);
        for r in report.rows.iter().filter(|r| r.port == REFERENCE) {
            assert_eq!(r.ratio_to_reference, Some(1.0));
        }
        for r in report.rows.iter().filter(|r| r.port == "broken") {
            assert_eq!(r.median_ms, None);
            assert_eq!(r.ratio_to_reference, None);
            assert!(!r.notes.is_empty(), "{r:?}");
        }
        assert_eq!(report.targets.len(), 1);
        assert_eq!(report.targets[0].port, "rust-crate");
        assert!(report.targets[0].ratio.is_some());
        let text = table(&report);
        assert!(
            text.contains("skills build: reference/rust-crate = "),
            "{text}"
        );
        assert!(text.contains("(target ≤ 0.5×)"), "{text}");
        assert!(text.contains("note: grep (50 files) on broken: "), "{text}");
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["rows"][0]["op"], "skills_build");
    }

    #[tokio::test]
    async fn unwritable_work_dir_is_a_note() {
        let file = tempfile::NamedTempFile::new().unwrap();
        let opts = BenchOptions {
            work_dir: Some(file.path().join("under-a-file")),
            ..tiny()
        };
        let mut ports: Vec<(String, Box<dyn Port>)> =
            vec![(REFERENCE.into(), Box::new(InProcessPort::new()))];
        let report = run(&mut ports, &opts, |_| {}).await;
        assert_eq!(report.notes.len(), 1, "{report:?}");
        assert!(report.fixtures.is_none());
        assert_eq!(report.rows.len(), 3);
        assert!(report
            .rows
            .iter()
            .all(|r| r.median_ms.is_none() && r.notes.len() == 1));
        assert!(table(&report).contains("note: cannot generate the fixtures"));
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
