//! The timed operations on a port: how each is set up, what one round sends to the port,
//! what it checks in the answers, which timings it keeps, and how it is torn down.

use std::time::Instant;

use serde_json::{json, Value};

use crate::agent_loop::{self, LoopState};
use crate::classifier::{self, ClassifierState};
use crate::fixtures::{noop_options, skill_name};
use crate::image_loop::{self, ImageState};
use crate::measure::{error_note, note, Ctx, Go, Measured, Unit};
use crate::options::{Op, GREP_TOKEN, MCP_TOOL};
use crate::raw::{answer, send_unparsed};
use crate::serve::{self, PortServe};
use crate::stats::ms;
use crate::suite;
use toolnexus_ports::port::{truncate, Port, PortError};
use toolnexus_protocol::options::{SkillsDir, ToolkitOptions};
use toolnexus_protocol::source_options::Builtins;
use toolnexus_protocol::Request;

/// Toolkit ids the benchmark builds.
const TK_SKILLS: &str = "bench-skills";
const TK_GREP: &str = "bench-grep";
const TK_NOOP: &str = "bench-noop";
const TK_MCP_CALL: &str = "bench-mcp-call";
const TK_MCP_BUILD: &str = "bench-mcp-build";

/// The text every MCP call sends and expects back.
pub(crate) const MCP_TEXT: &str = "bench";

/// What a set-up port holds during an operation's rounds.
pub(crate) enum State {
    /// Nothing held: each round builds over the skills tree, prompts and closes.
    SkillsBuild,
    /// Nothing held: each round builds with the stdio MCP server and closes.
    McpBuild,
    /// Nothing held: each round runs the suite as a child with this `--port` value.
    Suite(String),
    /// One built toolkit, closed at the end.
    Toolkit(&'static str),
    /// One built toolkit whose tool is called, closed at the end.
    Calls(Calls),
    /// The agent loop's client and mock LLM.
    Loop(LoopState),
    /// A served toolkit and the HTTP client calling it.
    Serve(PortServe),
    /// An image loop's client and mock LLM.
    Image(ImageState),
    /// A `static` classifier and the `evaluate` request it has recorded.
    Classifier(ClassifierState),
}

/// Readies `port` and sets it up for `op`; `None` (with a note) when it cannot take part.
pub(crate) async fn setup(
    op: Op,
    port: &mut dyn Port,
    ctx: &Ctx<'_>,
    name: &str,
    m: &mut Measured,
) -> Option<State> {
    if let Err(e) = port.ensure_ready().await {
        note(&mut m.notes, format!("port not ready: {e}"));
        return None;
    }
    let built = match op {
        Op::SkillsBuild => Ok(Some(State::SkillsBuild)),
        Op::McpBuild => Ok(Some(State::McpBuild)),
        Op::Suite => Ok(Some(State::Suite(suite::spec_of(ctx.opts, name)))),
        Op::Grep => port
            .build(TK_GREP, &json!({}))
            .await
            .map(|_| Some(State::Toolkit(TK_GREP))),
        Op::RoundTrip => match port.build(TK_NOOP, &noop_options()).await {
            Ok(_) => Ok(Some(State::Calls(Calls {
                toolkit: TK_NOOP,
                tool: "noop",
                args: json!({}),
                expected: "ok",
            }))),
            Err(e) => Err(e),
        },
        Op::McpCall => mcp_call_setup(port, ctx, m).await,
        Op::AgentLoop => agent_loop::setup(port, ctx, m)
            .await
            .map(|s| s.map(State::Loop)),
        Op::ServeCall => serve::port_setup(port).await.map(|s| s.map(State::Serve)),
        Op::ImageLoopOpenai | Op::ImageLoopAnthropic => match op.image_style() {
            Some(style) => image_loop::setup(port, ctx, style, m)
                .await
                .map(|s| s.map(State::Image)),
            None => Ok(None),
        },
        Op::ClassifierStatic | Op::ClassifierCanonical255 => match op.classifier_case() {
            Some(case) => classifier::setup(port, case, m)
                .await
                .map(|s| s.map(State::Classifier)),
            None => Ok(None),
        },
    };
    match built {
        Ok(state) => state,
        Err(e) => {
            error_note(&mut m.notes, &e);
            None
        }
    }
}

/// Takes one unit (a run, or a block of calls) on a set-up port.
pub(crate) async fn step(
    port: &mut dyn Port,
    state: &mut State,
    ctx: &Ctx<'_>,
    unit: Unit,
    m: &mut Measured,
) -> Result<Go, PortError> {
    match state {
        State::SkillsBuild => skills_build_step(port, ctx, unit, m).await,
        State::McpBuild => mcp_build_step(port, ctx, unit, m).await,
        State::Suite(spec) => Ok(suite::step(ctx, spec, unit, m).await),
        State::Toolkit(_) => grep_step(port, ctx, unit, m).await,
        State::Calls(calls) => {
            for _ in 0..unit.size {
                let call = Instant::now();
                let result = port
                    .execute(calls.toolkit, calls.tool, &calls.args, None)
                    .await?;
                let elapsed = ms(call);
                check_output(&result, calls, &mut m.notes);
                if unit.counted {
                    m.samples.push(elapsed);
                }
            }
            Ok(Go::On)
        }
        State::Loop(l) => agent_loop::step(port, l, unit, m).await,
        State::Serve(s) => Ok(s.step(unit, m).await),
        State::Image(i) => image_loop::step(port, i, unit, m).await,
        State::Classifier(c) => classifier::step(port, c, unit, m).await,
    }
}

/// Releases what the set-up port holds (its toolkit, served handle, mock).
pub(crate) async fn teardown(port: &mut dyn Port, state: State) -> Result<(), PortError> {
    match state {
        // A classifier holds nothing the port must release (the protocol has no close).
        State::SkillsBuild | State::McpBuild | State::Suite(_) | State::Classifier(_) => Ok(()),
        State::Toolkit(tk) => port.close(tk).await,
        State::Calls(calls) => port.close(calls.toolkit).await,
        State::Loop(l) => agent_loop::teardown(port, l).await,
        State::Serve(s) => s.teardown(port).await,
        State::Image(i) => image_loop::teardown(port, i).await,
    }
}

async fn skills_build_step(
    port: &mut dyn Port,
    ctx: &Ctx<'_>,
    unit: Unit,
    m: &mut Measured,
) -> Result<Go, PortError> {
    let opts = ctx.opts;
    let build = Request::Build {
        id: TK_SKILLS.to_string(),
        options: Box::new(ToolkitOptions {
            builtins: Some(Builtins::Toggle(false)),
            skills_dir: Some(SkillsDir::One(
                ctx.fx.skills_dir.to_string_lossy().into_owned(),
            )),
            ..ToolkitOptions::default()
        }),
    };
    let toolkit = || TK_SKILLS.to_string();
    let expected = [skill_name(0), skill_name(opts.skills.saturating_sub(1))];
    // Sent raw and read unparsed: what is timed is the port's work and the answers' transport
    // (the transport still checks each answer is one JSON object echoing its `seq`), not the
    // harness's parse of a 1 MB catalog, done once the clock stops.
    let started = Instant::now();
    let built = send_unparsed(port, build).await;
    let prompt = match built {
        Ok(b) => send_unparsed(port, Request::SkillsPrompt { toolkit: toolkit() })
            .await
            .map(|p| (b, p)),
        Err(e) => Err(e),
    };
    let closed = send_unparsed(port, Request::Close { toolkit: toolkit() }).await;
    let elapsed = ms(started);
    let (built, prompt) = prompt?;
    let (built, prompt) = (answer(&built)?, answer(&prompt)?);
    answer(&closed?)?;
    let prompt = prompt.get("prompt").and_then(Value::as_str).unwrap_or("");
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
    if unit.counted {
        m.samples.push(elapsed);
    }
    Ok(Go::On)
}

async fn grep_step(
    port: &mut dyn Port,
    ctx: &Ctx<'_>,
    unit: Unit,
    m: &mut Measured,
) -> Result<Go, PortError> {
    let args = json!({
        "pattern": GREP_TOKEN,
        "path": ctx.fx.grep_dir.to_string_lossy(),
        "limit": 1_000_000,
    });
    let started = Instant::now();
    let result = port.execute(TK_GREP, "grep", &args, None).await?;
    let elapsed = ms(started);
    check_grep(&result, ctx.fx.info.grep_matches, &mut m.notes);
    if unit.counted {
        m.samples.push(elapsed);
    }
    Ok(Go::On)
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

/// One toolkit with the stdio mock MCP server; a build without its tool is a note and
/// no numbers.
async fn mcp_call_setup(
    port: &mut dyn Port,
    ctx: &Ctx<'_>,
    m: &mut Measured,
) -> Result<Option<State>, PortError> {
    let built = port.build(TK_MCP_CALL, &ctx.fx.mcp_options).await?;
    if let Some(why) = missing_mcp_tool(&built) {
        note(&mut m.notes, why);
        port.close(TK_MCP_CALL).await?;
        return Ok(None);
    }
    Ok(Some(State::Calls(Calls {
        toolkit: TK_MCP_CALL,
        tool: MCP_TOOL,
        args: json!({ "text": MCP_TEXT }),
        expected: MCP_TEXT,
    })))
}

/// `build` with the stdio mock MCP server then `close`, timed together; a build without
/// the server's tool ends the measurement with a note.
async fn mcp_build_step(
    port: &mut dyn Port,
    ctx: &Ctx<'_>,
    unit: Unit,
    m: &mut Measured,
) -> Result<Go, PortError> {
    let started = Instant::now();
    let built = port.build(TK_MCP_BUILD, &ctx.fx.mcp_options).await;
    let closed = port.close(TK_MCP_BUILD).await;
    let elapsed = ms(started);
    let built = built?;
    closed?;
    if let Some(why) = missing_mcp_tool(&built) {
        // A server that did not start is not a build time worth reporting.
        note(&mut m.notes, why);
        return Ok(Go::Stop);
    }
    if unit.counted {
        m.samples.push(elapsed);
    }
    Ok(Go::On)
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

/// Sequential `execute` calls of one tool whose output is known.
pub(crate) struct Calls {
    toolkit: &'static str,
    tool: &'static str,
    args: Value,
    expected: &'static str,
}

/// Notes a call result that is an error or whose output is not the expected one.
fn check_output(result: &Value, calls: &Calls, notes: &mut Vec<String>) {
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
