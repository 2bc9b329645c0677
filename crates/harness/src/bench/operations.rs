//! The timed operations: what each one sends to a port, what it checks in the answers, and
//! which timings it keeps.

use std::time::Instant;

use serde_json::{json, Value};

use super::fixtures::{skill_name, Fixtures};
use super::{ms, note, BenchOptions, Measured, Op, GREP_TOKEN, MCP_TOOL, MCP_WARMUP_CALLS};
use crate::port::{truncate, Port, PortError};

/// Toolkit ids the benchmark builds.
const TK_SKILLS: &str = "bench-skills";
const TK_GREP: &str = "bench-grep";
const TK_NOOP: &str = "bench-noop";
const TK_MCP_CALL: &str = "bench-mcp-call";
const TK_MCP_BUILD: &str = "bench-mcp-build";

/// The text every MCP call sends and expects back.
const MCP_TEXT: &str = "bench";

/// Measures one operation on one port; failures end the measurement with a note.
pub(super) async fn measure(
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
        Op::AgentLoop => {
            super::agent_loop::agent_loop(port, opts, &fx.dir, name, &mut m, progress).await
        }
    };
    if let Err(PortError::Unsupported(why)) = &outcome {
        // A port without the operation is skipped, not failed.
        note(&mut m.notes, format!("unsupported: {}", truncate(why, 300)));
    } else if let Err(e) = outcome {
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

/// Keeps a counted run's time as a sample and reports every run.
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

#[cfg(test)]
mod tests {
    use super::*;

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
