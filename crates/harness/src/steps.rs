//! The step vocabulary: a registry whose items each declare a step's pattern, its doc line and
//! its handler (protocol requests and comparisons). features/STEPS.md is rendered from it.
//! Both the CLI runner and the cucumber test drive scenarios through `run_step`.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::{json, Value};

use super::expect::{expect_json as json_eq, expect_text as text_eq, snapshot_json as snapshot_eq};
use super::expectation::Kind;
use super::features::StepSpec;
use super::port::{Port, PortError};
use super::scenario::{fail, fail_as, Env, ScenarioState, StepFailure, StepResult};
use super::snapshots;
use super::surroundings;
use super::{mock_launch, secret};
use toolnexus_protocol::ErrorKind;

fn held(st: &ScenarioState, outcome: Result<String, super::failure::Failure>) -> StepResult {
    outcome
        .map(|kind| st.record(kind))
        .map_err(StepFailure::failed)
}

fn expect_json(st: &ScenarioState, expected: &Value, actual: &Value) -> StepResult {
    held(st, json_eq(expected, actual))
}

fn expect_text(st: &ScenarioState, expected: &str, actual: &str) -> StepResult {
    held(st, text_eq(expected, actual))
}

fn snapshot_json(
    st: &ScenarioState,
    env: &Env,
    name: &str,
    actual: &Value,
    lenient: bool,
    drop_tool: Option<&str>,
) -> StepResult {
    held(
        st,
        snapshot_eq(&env.snapshots, name, actual, lenient, drop_tool),
    )
}

/// Where a step belongs in a scenario; STEPS.md lists the steps under these headings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// `Given` steps: files, servers, options and builds.
    Setup,
    /// `When` steps: one request to the port.
    Actions,
    /// `Then` steps: comparisons with what the port answered.
    Expectations,
}

impl Group {
    /// Every group, in the order STEPS.md lists them.
    pub const ALL: [Group; 3] = [Group::Setup, Group::Actions, Group::Expectations];

    /// The group's heading on STEPS.md.
    pub fn heading(self) -> &'static str {
        match self {
            Group::Setup => "Setup",
            Group::Actions => "Actions",
            Group::Expectations => "Expectations",
        }
    }

    /// What the second column of the group's table says about each step.
    fn column(self) -> &'static str {
        match self {
            Group::Setup => "does",
            Group::Actions => "sends",
            Group::Expectations => "checks",
        }
    }

    /// Prose shown above the group's table, if any.
    fn intro(self) -> &'static str {
        match self {
            Group::Expectations => {
                "Steps about the tool list ask the port afresh (`tools`) and fail if that listing differs\nfrom what `build` answered."
            }
            Group::Setup | Group::Actions => "",
        }
    }
}

/// The capture groups of a matched step text (group 0 is the whole text).
pub struct Args(Vec<Option<String>>);

impl Args {
    /// Group `i`, or `""` when it took no part in the match.
    pub fn at(&self, i: usize) -> String {
        self.opt(i).unwrap_or_default().to_string()
    }

    /// Group `i`, when it took part in the match.
    pub fn opt(&self, i: usize) -> Option<&str> {
        self.0.get(i).and_then(Option::as_deref)
    }
}

/// What a step's handler works with.
pub struct StepCtx<'a> {
    /// The port under test.
    pub port: &'a mut dyn Port,
    /// Where inputs and snapshots live.
    pub env: &'a Env,
    /// The scenario's accumulated state.
    pub st: &'a mut ScenarioState,
    /// The step as written (its doc string included).
    pub step: &'a StepSpec,
    /// The pattern's capture groups.
    pub arg: Args,
}

/// A running step handler. Not `Send`: the runners drive steps on their own task.
pub type StepFuture<'a> = Pin<Box<dyn Future<Output = StepResult> + 'a>>;

/// What a step does once its pattern matched.
pub type Handler = for<'a> fn(StepCtx<'a>) -> StepFuture<'a>;

/// One step of the vocabulary: its pattern, its documentation and its handler, declared
/// together so that adding a step is one edit (STEPS.md is rendered from these).
pub struct StepDef {
    /// The heading STEPS.md lists the step under.
    pub group: Group,
    /// The regex a step text must match, whole; named groups name the placeholders STEPS.md shows.
    pub pattern: &'static str,
    /// What the step's doc string holds (`text`, `JSON`, ...); empty when it takes none.
    pub takes: &'static str,
    /// One line for STEPS.md: what the step does, sends or checks.
    pub doc: &'static str,
    /// The expectation kind a passing step records when it compares without the helpers.
    pub records: Option<Kind>,
    /// Runs the step.
    pub handler: Handler,
    re: Regex,
}

impl StepDef {
    /// Whether `text` is a step this item handles.
    pub fn matches(&self, text: &str) -> bool {
        self.re.is_match(text)
    }
}

fn boxed<'a>(body: impl Future<Output = StepResult> + 'a) -> StepFuture<'a> {
    Box::pin(body)
}

fn compile(pattern: &str) -> Regex {
    // The patterns are this file's constants, not input: a bad one is a build defect.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad step regex {pattern}: {e}"))
}

/// `step!(Group, pattern [+ "what the doc string holds"], "doc line", [records Kind::…,]
/// |StepCtx { .. }| { body })`: one registry item, its handler body an async block.
macro_rules! step {
    ($group:ident, $pattern:literal $(+ $takes:literal)?, $doc:literal, $(records $records:expr,)? |$cx:pat_param| $body:block) => {
        StepDef {
            group: Group::$group,
            pattern: $pattern,
            takes: concat!("" $(, $takes)?),
            doc: $doc,
            records: None $(.or(Some($records)))?,
            handler: |$cx| boxed(async move $body),
            re: compile($pattern),
        }
    };
}

// After the macro: the client steps use it too.
pub(crate) mod client;
mod compact;
mod relay;

/// The step vocabulary, in the order STEPS.md lists it.
pub fn registry() -> &'static [StepDef] {
    static REGISTRY: OnceLock<Vec<StepDef>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut all = vec![
            // ---- Setup
            step!(Setup, r#"^a file "(?P<PATH>[^"]+)" containing:$"# + "text",
                "writes the file (parents created)",
                |StepCtx { st, step, arg, .. }| {
                    let path = st.path(&arg.at(1))?;
                    let body = st.expand(&st.raw_doc(step)?)?;
                    write_file(&path, body.as_bytes())
                }),
            step!(Setup, r#"^a file "(?P<PATH>[^"]+)" containing invalid UTF-8$"#,
                "writes a SKILL.md-shaped file with invalid bytes",
                |StepCtx { st, arg, .. }| {
                    let path = st.path(&arg.at(1))?;
                    write_file(&path, b"---\nname: bad\xff\xfe\n---\nbody \xc3\x28\n")
                }),
            step!(Setup, r#"^a file "(?P<PATH>[^"]+)" containing a UTF-8 byte-order mark and:$"# + "text",
                "writes the bytes EF BB BF, then the text (parents created)",
                |StepCtx { st, step, arg, .. }| {
                    // An invisible U+FEFF in a feature file would be unreviewable: the step adds it.
                    let path = st.path(&arg.at(1))?;
                    let body = st.expand(&st.raw_doc(step)?)?;
                    let mut bytes = b"\xEF\xBB\xBF".to_vec();
                    bytes.extend_from_slice(body.as_bytes());
                    write_file(&path, &bytes)
                }),
            step!(Setup, r#"^a file "(?P<PATH>[^"]+)" containing "(?P<TEXT>.*)"$"#,
                "writes the file, `\\n`, `\\t` and `\\\"` unescaped (for a tab a doc string would hide)",
                |StepCtx { st, arg, .. }| {
                    let path = st.path(&arg.at(1))?;
                    let body = st.expand(&unescape(&arg.at(2)))?;
                    write_file(&path, body.as_bytes())
                }),
            step!(Setup, r#"^(?P<N>\d+) files "(?P<PATH>[^"]+)" containing "(?P<TEXT>.*)"$"#,
                "writes N files; `{n}` in PATH becomes 001, 002, …",
                |StepCtx { st, arg, .. }| {
                    // `{n}` in the name becomes 001, 002, … so the files sort in creation order.
                    let count = arg.at(1).parse::<usize>().unwrap_or(0);
                    let text = unescape(&arg.at(3));
                    for n in 1..=count {
                        let path = st.path(&arg.at(2).replace("{n}", &format!("{n:03}")))?;
                        write_file(&path, text.as_bytes())?;
                    }
                    Ok(())
                }),
            step!(Setup, r#"^a directory "(?P<PATH>[^"]+)"$"#,
                "creates it",
                |StepCtx { st, arg, .. }| {
                    let path = st.path(&arg.at(1))?;
                    std::fs::create_dir_all(&path)
                        .or_else(|e| fail(format!("cannot create {}: {e}", path.display())))
                }),
            step!(Setup, r#"^a symlink "(?P<LINK>[^"]+)" pointing to "(?P<TARGET>[^"]+)"$"#,
                "creates a symlink",
                |StepCtx { st, arg, .. }| {
                    let link = st.path(&arg.at(1))?;
                    let target = st.path(&arg.at(2))?;
                    if let Some(parent) = link.parent() {
                        let _ = std::fs::create_dir_all(parent);
                    }
                    std::os::unix::fs::symlink(&target, &link)
                        .or_else(|e| fail(format!("cannot symlink {}: {e}", link.display())))
                }),
            step!(Setup, r#"^the files under "(?P<DIR>[^"]+)" are recorded$"#,
                "keeps every file's bytes under DIR, to compare later",
                |StepCtx { st, arg, .. }| {
                    let dir = st.path(&arg.at(1))?;
                    let tree = surroundings::record_tree(&dir).map_err(StepFailure::failed)?;
                    st.recorded = Some((dir, tree));
                    Ok(())
                }),
            step!(Setup, r#"^a mock MCP server over HTTP runs "(?P<FILE>[^"]+)"$"#,
                "starts `{{BIN}} mock mcp --transport http --scenario {{MOCKS}}/FILE` (expecting `Bearer <secret>` where the file asks); `{{MCP_URL}}` is its endpoint; stopped when the scenario ends",
                |StepCtx { env, st, arg, .. }| {
                    let scenario = env.mocks.join(arg.at(1));
                    let mock = mock_launch::mcp_http(&env.mock_bin, &scenario)
                        .await
                        .map_err(StepFailure::failed)?;
                    st.placeholders.add_text("{{MCP_URL}}", &mock.url);
                    st.mocks.push(mock);
                    Ok(())
                }),
            step!(Setup, r#"^a mock A2A agent(?: "(?P<NAME>[^"]+)")? runs "(?P<FILE>[^"]+)"$"#,
                "starts `{{BIN}} mock a2a --scenario {{MOCKS}}/a2a/FILE`; `{{A2A}}` (or `{{A2A:NAME}}`) is its base URL, its card at `…/.well-known/agent-card.json`; stopped when the scenario ends",
                |StepCtx { env, st, arg, .. }| {
                    let scenario = env.mocks.join("a2a").join(arg.at(2));
                    let agent = mock_launch::a2a(&env.mock_bin, &scenario)
                        .await
                        .map_err(StepFailure::failed)?;
                    let placeholder = match arg.opt(1) {
                        Some(name) => format!("{{{{A2A:{}}}}}", name),
                        None => "{{A2A}}".to_string(),
                    };
                    st.placeholders.add_text(&placeholder, &agent.url);
                    st.mocks.push(agent);
                    Ok(())
                }),
            step!(Setup, r#"^an HTTP server answers:$"# + r#"JSON `{"GET /path": {status?, body?, contentType?, headers?, delayMs?}}`"#,
                "starts a local server (127.0.0.1, ephemeral port); `{{HTTP}}` is its base URL",
                |StepCtx { st, step, .. }| {
                    let routes = st.json_doc(step)?;
                    let server = surroundings::http_server(&routes)
                        .await
                        .map_err(StepFailure::failed)?;
                    st.placeholders.add_text("{{HTTP}}", &server.uri());
                    st.http = Some(server);
                    Ok(())
                }),
            step!(Setup, r#"^the toolkit options:$"# + "JSON",
                "stores `build` options (see PROTOCOL.md)",
                |StepCtx { st, step, .. }| {
                    st.options = Some(st.json_doc(step)?);
                    Ok(())
                }),
            step!(Setup, r#"^a toolkit built with:$"# + "JSON",
                "stores the options and builds",
                |StepCtx { port, st, step, .. }| {
                    st.options = Some(st.json_doc(step)?);
                    build(port, st).await
                }),
            step!(Setup, r#"^a toolkit built with no options$"#,
                "builds with `{}`",
                |StepCtx { port, st, .. }| {
                    st.options = Some(json!({}));
                    build(port, st).await
                }),
            step!(Setup, r#"^the toolkit is built$"#,
                "builds with the stored options",
                |StepCtx { port, st, .. }| { build(port, st).await }),
            // ---- Actions
            step!(Actions, r#"^"(?P<NAME>[^"]+)" is executed$"#,
                "`execute` with no arguments (`{}`)",
                |StepCtx { port, st, arg, .. }| {
                    execute(port, st, arg.at(1), json!({}), None).await
                }),
            step!(Actions, r#"^"(?P<NAME>[^"]+)" is executed with:$"# + "JSON args",
                "`execute`",
                |StepCtx { port, st, step, arg, .. }| {
                    let args = st.json_doc(step)?;
                    execute(port, st, arg.at(1), args, None).await
                }),
            step!(Actions, r#"^the same call is executed again with the answer:$"# + "JSON Answer",
                "`execute` again with `context.answer` (the `id` defaults to the last `metadata.pending.id`)",
                |StepCtx { port, st, step, .. }| {
                    let mut answer = st.json_doc(step)?;
                    let Some((name, args)) = st.last_call.clone() else {
                        return fail("no earlier call to repeat");
                    };
                    if answer.get("id").is_none() {
                        let id = st
                            .result()?
                            .pointer("/metadata/pending/id")
                            .cloned()
                            .ok_or_else(|| {
                                StepFailure::Failed(
                                    "the earlier result carries no metadata.pending.id".into(),
                                )
                            })?;
                        answer["id"] = id;
                    }
                    execute(port, st, name, args, Some(answer)).await
                }),
            step!(Actions, r#"^the builtins are selected with:$"# + "JSON config",
                "`select_builtins`",
                |StepCtx { port, st, step, .. }| {
                    let config = st.json_doc(step)?;
                    st.selection = Some(port.select_builtins(&config).await?);
                    Ok(())
                }),
            step!(Actions, r#"^the skills are listed with:$"# + "JSON options",
                "`list_skills`",
                |StepCtx { port, st, step, .. }| {
                    let options = st.json_doc(step)?;
                    let inventory = port.list_skills(&options).await?;
                    st.inventory = Some(st.norm(&inventory));
                    Ok(())
                }),
            step!(Actions, r#"^this value is sanitized:$"# + "text",
                "`sanitize`",
                |StepCtx { port, st, step, .. }| {
                    let value = st.raw_doc(step)?;
                    st.sanitized = Some(port.sanitize(&value).await?);
                    Ok(())
                }),
            step!(Actions, r#"^the toolkit is closed$"#,
                "`close`",
                |StepCtx { port, st, .. }| {
                    let id = st.toolkit_id()?;
                    port.close(&id).await?;
                    Ok(())
                }),
            step!(Actions, r#"^the MCP tools are listed with:$"# + "JSON MCP config",
                "`list_mcp_tools`",
                |StepCtx { port, st, step, .. }| {
                    let config = st.json_doc(step)?;
                    let inventory = port.list_mcp_tools(&config).await?;
                    st.mcp_inventory = Some(inventory);
                    Ok(())
                }),
            // ---- Expectations
            step!(Expectations, r#"^the toolkit is no longer known to the port$"#,
                "`tools` answers `unknown_toolkit` (after `close`)",
                records Kind::Pinned,
                |StepCtx { port, st, .. }| {
                    let id = st.toolkit_id()?;
                    match port.tools(&id).await {
                        Err(PortError::Driver { kind: ErrorKind::UnknownToolkit, .. }) => {
                            Ok(())
                        }
                        Err(PortError::Transport(m)) => fail(m),
                        other => fail(format!(
                            "after close, `tools` for \"{id}\" should answer unknown_toolkit, got {other:?}"
                        )),
                    }
                }),
            step!(Expectations, r#"^the tool names are:$"# + "JSON array",
                "`tools()` order, pinned",
                |StepCtx { port, st, step, .. }| {
                    let listed = live_tools(port, st).await?;
                    expect_json(st, &st.expect_doc(step)?, &names(&listed))
                }),
            step!(Expectations, r#"^the tool names match:$"# + "JSON",
                "`tools()` order against matchers",
                |StepCtx { port, st, step, .. }| {
                    let listed = live_tools(port, st).await?;
                    expect_json(st, &st.expect_doc(step)?, &names(&listed))
                }),
            step!(Expectations, r#"^the sorted tool names are:$"# + "JSON array",
                "the port's sorted `names`",
                |StepCtx { st, step, .. }| {
                    let actual = st.built()?.get("names").cloned().unwrap_or(Value::Null);
                    expect_json(st, &st.expect_doc(step)?, &actual)
                }),
            step!(Expectations, r#"^the toolkit has (?P<N>\d+) tools$"#,
                "count",
                records Kind::Pinned,
                |StepCtx { port, st, arg, .. }| {
                    let listed = live_tools(port, st).await?;
                    let n = arg.at(1).parse::<usize>().unwrap_or(0);
                    let got = names(&listed).as_array().map_or(0, Vec::len);
                    if got == n {
                        Ok(())
                    } else {
                        fail(format!("expected {n} tools, got {got}: {}", names(&listed)))
                    }
                }),
            step!(Expectations, r#"^the toolkit has the tool "(?P<X>[^"]+)"$"#,
                "presence",
                records Kind::Pinned,
                |StepCtx { port, st, arg, .. }| {
                    let listed = live_tools(port, st).await?;
                    let name = arg.at(1);
                    if tool(&listed, &name).is_some() {
                        Ok(())
                    } else {
                        fail(format!("no tool \"{name}\"; tools: {}", names(&listed)))
                    }
                }),
            step!(Expectations, r#"^the toolkit has no tool "(?P<X>[^"]+)"$"#,
                "absence",
                records Kind::Pinned,
                |StepCtx { port, st, arg, .. }| {
                    let listed = live_tools(port, st).await?;
                    let name = arg.at(1);
                    if tool(&listed, &name).is_some() {
                        fail(format!("tool \"{name}\" is present but should not be"))
                    } else {
                        Ok(())
                    }
                }),
            step!(Expectations, r#"^the tool "(?P<X>[^"]+)" has source "(?P<S>[^"]+)"$"#,
                "source",
                |StepCtx { port, st, arg, .. }| {
                    let listed = live_tools(port, st).await?;
                    let name = arg.at(1);
                    let t = tool(&listed, &name)
                        .ok_or_else(|| StepFailure::failed(format!("no tool \"{name}\"")))?;
                    expect_json(st, &json!(arg.at(2)), t.get("source").unwrap_or(&Value::Null))
                }),
            step!(Expectations, r#"^the tool "(?P<X>[^"]+)" matches:$"# + "JSON",
                "the tool's `{name, description, inputSchema, source}`",
                |StepCtx { port, st, step, arg, .. }| {
                    let listed = live_tools(port, st).await?;
                    let name = arg.at(1);
                    let t = tool(&listed, &name)
                        .ok_or_else(|| StepFailure::failed(format!("no tool \"{name}\"")))?;
                    let actual = st.norm(t);
                    expect_json(st, &st.expect_doc(step)?, &actual)
                }),
            step!(Expectations, r#"^the result is an error$"#,
                "`isError` is true",
                records Kind::Pinned,
                |StepCtx { st, .. }| { is_error(st, true) }),
            step!(Expectations, r#"^the result is not an error$"#,
                "`isError` is false",
                records Kind::Pinned,
                |StepCtx { st, .. }| { is_error(st, false) }),
            step!(Expectations, r#"^the output is:$"# + "text",
                "output, pinned",
                |StepCtx { st, step, .. }| { expect_text(st, &st.raw_doc(step)?, &st.output()?) }),
            step!(Expectations, r#"^the output is "(?P<TEXT>.*)"$"#,
                "output, pinned (`\\n`, `\\\"`, `\\t` escapes inline)",
                |StepCtx { st, arg, .. }| { expect_text(st, &unescape(&arg.at(1)), &st.output()?) }),
            step!(Expectations, r#"^the output contains "(?P<TEXT>.*)"$"#,
                "output, lenient",
                |StepCtx { st, arg, .. }| {
                    expect_json(
                        st,
                        &json!({"$contains": unescape(&arg.at(1))}),
                        &json!(st.output()?),
                    )
                }),
            step!(Expectations, r#"^the output does not contain "(?P<TEXT>.*)"$"#,
                "absence in the output",
                records Kind::Pinned,
                |StepCtx { st, arg, .. }| {
                    let out = st.output()?;
                    if out.contains(&unescape(&arg.at(1))) {
                        fail_as(Kind::Pinned, format!(
                            "the output contains {:?}: {out:?}",
                            arg.at(1)
                        ))
                    } else {
                        Ok(())
                    }
                }),
            step!(Expectations, r#"^the output matches:$"# + "regex",
                "output, lenient",
                |StepCtx { st, step, .. }| {
                    expect_json(
                        st,
                        &json!({"$regex": st.raw_doc(step)?.trim()}),
                        &json!(st.output()?),
                    )
                }),
            step!(Expectations, r#"^the output matches snapshot "(?P<NAME>[^"]+)"$"#,
                "output equals `snapshots/NAME.snap`'s body",
                |StepCtx { env, st, arg, .. }| {
                    let body = snapshots::body(&env.snapshots, &arg.at(1)).map_err(StepFailure::failed)?;
                    expect_text(st, &body, &st.output()?)
                }),
            step!(Expectations, r#"^the output parses as JSON matching:$"# + "JSON",
                "output parsed as JSON (spacing-insensitive)",
                |StepCtx { st, step, .. }| {
                    let out = st.output()?;
                    let parsed: Value = serde_json::from_str(&out)
                        .map_err(|e| StepFailure::failed(format!("output is not JSON ({e}): {out:?}")))?;
                    expect_json(st, &st.expect_doc(step)?, &parsed)
                }),
            step!(Expectations, r#"^the result matches:$"# + "JSON",
                "the whole `{output, isError, metadata?}`",
                |StepCtx { st, step, .. }| {
                    let actual = st.norm(st.result()?);
                    expect_json(st, &st.expect_doc(step)?, &actual)
                }),
            step!(Expectations, r#"^the result suspends with a "(?P<KIND>[^"]+)" request$"#,
                "`metadata.pending` is a Request of that kind with a string id",
                records Kind::Pinned,
                |StepCtx { st, arg, .. }| {
                    let r = st.result()?;
                    let pending = r.pointer("/metadata/pending");
                    let kind_of = pending.and_then(|p| p.get("kind")).and_then(Value::as_str);
                    match (pending, kind_of) {
                        (Some(p), Some(k)) if k == arg.at(1) && p.get("id").is_some_and(Value::is_string) => Ok(()),
                        _ => fail(format!("expected a suspension with metadata.pending.kind \"{}\" and a string id, got {}", arg.at(1), st.norm(r))),
                    }
                }),
            step!(Expectations, r#"^the skills prompt is:$"# + "text",
                "`skills_prompt`, pinned",
                |StepCtx { port, st, step, .. }| {
                    let prompt = skills_prompt(port, st).await?;
                    expect_text(st, &st.raw_doc(step)?, &prompt)
                }),
            step!(Expectations, r#"^the skills prompt matches:$"# + "JSON",
                "`skills_prompt` (a JSON string expectation, usually a matcher)",
                |StepCtx { port, st, step, .. }| {
                    let prompt = skills_prompt(port, st).await?;
                    expect_json(st, &st.expect_doc(step)?, &json!(prompt))
                }),
            step!(Expectations, r#"^the skills prompt matches snapshot "(?P<NAME>[^"]+)"$"#,
                "`skills_prompt` against a snapshot body",
                |StepCtx { port, env, st, arg, .. }| {
                    let prompt = skills_prompt(port, st).await?;
                    expect_text(
                        st,
                        &snapshots::body(&env.snapshots, &arg.at(1)).map_err(StepFailure::failed)?,
                        &prompt,
                    )
                }),
            step!(Expectations, r#"^the skills prompt does not mention "(?P<TEXT>[^"]+)"$"#,
                "absence",
                records Kind::Pinned,
                |StepCtx { port, st, arg, .. }| {
                    let prompt = skills_prompt(port, st).await?;
                    if prompt.contains(&arg.at(1)) {
                        fail(format!(
                            "the skills prompt mentions \"{}\": {prompt:?}",
                            arg.at(1)
                        ))
                    } else {
                        Ok(())
                    }
                }),
            step!(Expectations, r#"^the "(?P<FORMAT>openai|anthropic|gemini)" adapter output matches:$"# + "JSON",
                "`adapter` for openai, anthropic or gemini",
                |StepCtx { port, st, step, arg, .. }| {
                    let actual = adapter(port, st, &arg.at(1)).await?;
                    expect_json(st, &st.expect_doc(step)?, &actual)
                }),
            step!(Expectations, r#"^the "(?P<FORMAT>openai|anthropic|gemini)" adapter output matches snapshot "(?P<NAME>[^"]+)"( without the skill tool)?( ignoring builtin descriptions)?$"#,
                "against a snapshot; `without the skill tool` drops the snapshot's `skill` entry (a toolkit built without skills), `ignoring builtin descriptions` blanks builtin tool/property descriptions and `additionalProperties`",
                |StepCtx { port, env, st, arg, .. }| {
                    let actual = adapter(port, st, &arg.at(1)).await?;
                    let drop = (!arg.at(3).is_empty()).then_some("skill");
                    snapshot_json(st, env, &arg.at(2), &actual, !arg.at(4).is_empty(), drop)
                }),
            step!(Expectations, r#"^the three adapters list the tools in the toolkit's order$"#,
                "openai, anthropic and gemini names equal `tools()` order; gemini is one element",
                |StepCtx { port, st, .. }| {
                    let order = names(&live_tools(port, st).await?);
                    let openai = adapter(port, st, "openai").await?;
                    let anthropic = adapter(port, st, "anthropic").await?;
                    let gemini = adapter(port, st, "gemini").await?;
                    let pick = |v: &Value, ptr: &str| -> Value {
                        Value::Array(
                            v.as_array()
                                .map(|a| {
                                    a.iter()
                                        .map(|e| e.pointer(ptr).cloned().unwrap_or(Value::Null))
                                        .collect()
                                })
                                .unwrap_or_default(),
                        )
                    };
                    expect_json(st, &order, &pick(&openai, "/function/name"))?;
                    expect_json(st, &order, &pick(&anthropic, "/name"))?;
                    let decls = gemini
                        .pointer("/0/functionDeclarations")
                        .cloned()
                        .unwrap_or(Value::Null);
                    if gemini.as_array().map(Vec::len) != Some(1) {
                        return fail(format!(
                            "gemini output must be one element wrapping all declarations, got {gemini}"
                        ));
                    }
                    expect_json(st, &order, &pick(&decls, "/name"))
                }),
            step!(Expectations, r#"^the status of "(?P<SOURCE>[^"]+)" is "(?P<S>[^"]+)"$"#,
                "`statuses`",
                |StepCtx { st, arg, .. }| {
                    let actual = st
                        .built()?
                        .pointer(&format!("/statuses/{}", escape_ptr(&arg.at(1))))
                        .cloned()
                        .unwrap_or(Value::Null);
                    expect_json(st, &json!(arg.at(2)), &actual).map_err(|e| {
                        with_context(
                            e,
                            &format!(
                                "statuses: {}",
                                st.built()
                                    .map(|b| b["statuses"].to_string())
                                    .unwrap_or_default()
                            ),
                        )
                    })
                }),
            step!(Expectations, r#"^there is no status for "(?P<SOURCE>[^"]+)"$"#,
                "`statuses` has no entry for SOURCE",
                records Kind::Pinned,
                |StepCtx { st, arg, .. }| {
                    match st
                        .built()?
                        .pointer(&format!("/statuses/{}", escape_ptr(&arg.at(1))))
                    {
                        Some(v) => fail(format!("expected no status for \"{}\", got {v}", arg.at(1))),
                        None => Ok(()),
                    }
                }),
            step!(Expectations, r#"^there are no errors$"#,
                "`errors` is empty",
                records Kind::Pinned,
                |StepCtx { st, .. }| {
                    let errors = st.built()?.get("errors").cloned().unwrap_or(json!({}));
                    if errors.as_object().is_some_and(|m| m.is_empty()) {
                        Ok(())
                    } else {
                        fail(format!("expected no errors, got {}", st.norm(&errors)))
                    }
                }),
            step!(Expectations, r#"^an error mentions "(?P<TEXT>[^"]+)"$"#,
                "some entry of `errors` contains TEXT (lenient)",
                records Kind::Lenient("contains"),
                |StepCtx { st, arg, .. }| { mentioned(st, "errors", "error", &arg.at(1)) }),
            step!(Expectations, r#"^the error for "(?P<KEY>[^"]+)" mentions "(?P<TEXT>[^"]+)"$"#,
                "`errors`'s entry for KEY contains TEXT (lenient)",
                records Kind::Lenient("contains"),
                |StepCtx { st, arg, .. }| {
                    let errors = st.norm(&st.built()?.get("errors").cloned().unwrap_or(json!({})));
                    match errors.get(arg.at(1)).and_then(Value::as_str) {
                        Some(text) if text.contains(&arg.at(2)) => Ok(()),
                        _ => fail_as(Kind::Lenient("contains"), format!("expected an error for \"{}\" mentioning \"{}\"; errors: {errors}", arg.at(1), arg.at(2))),
                    }
                }),
            step!(Expectations, r#"^there is an error for "(?P<KEY>[^"]+)"$"#,
                "`errors` has a non-empty entry for KEY (its wording is the port's)",
                records Kind::Lenient("non-empty"),
                |StepCtx { st, arg, .. }| {
                    let errors = st.norm(&st.built()?.get("errors").cloned().unwrap_or(json!({})));
                    match errors.get(arg.at(1)).and_then(Value::as_str) {
                        Some(text) if !text.trim().is_empty() => Ok(()),
                        _ => fail_as(Kind::Lenient("non-empty"), format!("expected a non-empty error for \"{}\"; errors: {errors}", arg.at(1))),
                    }
                }),
            step!(Expectations, r#"^a warning mentions "(?P<TEXT>[^"]+)"$"#,
                "the build's `warnings` (free-form strings; lenient)",
                records Kind::Lenient("contains"),
                |StepCtx { st, arg, .. }| { mentioned(st, "warnings", "warning", &arg.at(1)) }),
            step!(Expectations, r#"^there is a warning$"#,
                "the build's `warnings` has a non-empty entry (where the SPEC says \"warn\" but gives no words)",
                records Kind::Lenient("non-empty"),
                |StepCtx { st, .. }| {
                    let warnings = st.norm(&st.built()?.get("warnings").cloned().unwrap_or(Value::Null));
                    let some = warnings
                        .as_array()
                        .is_some_and(|a| a.iter().any(|w| w.as_str().is_some_and(|s| !s.trim().is_empty())));
                    if some {
                        Ok(())
                    } else {
                        fail_as(Kind::Lenient("non-empty"), format!("expected a warning; warnings: {warnings}"))
                    }
                }),
            step!(Expectations, r#"^the skill catalog names are:$"# + "JSON array",
                "the build's `skills` (the filtered catalog), in any order",
                |StepCtx { st, step, .. }| {
                    // §3 fixes which skills win, not the order a catalog is listed in (the prompt,
                    // which is sorted, is checked by its own steps): compare as sorted name lists.
                    let sorted = |v: &Value| {
                        let mut names: Vec<String> = v
                            .as_array()
                            .map(|a| {
                                a.iter()
                                    .map(|s| {
                                        s.get("name")
                                            .unwrap_or(s)
                                            .as_str()
                                            .unwrap_or("")
                                            .to_string()
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        names.sort();
                        json!(names)
                    };
                    let actual = sorted(st.built()?.get("skills").unwrap_or(&Value::Null));
                    let expected = sorted(&st.expect_doc(step)?);
                    expect_json(st, &expected, &actual)
                }),
            step!(Expectations, r#"^the selected builtin names are:$"# + "JSON array",
                "`select_builtins` names",
                |StepCtx { st, step, .. }| {
                    let sel = selection(st)?;
                    let names: Value = sel
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .map(|t| t.get("name").cloned().unwrap_or(Value::Null))
                                .collect()
                        })
                        .unwrap_or_default();
                    expect_json(st, &st.expect_doc(step)?, &names)
                }),
            step!(Expectations, r#"^the selected builtins match:$"# + "JSON",
                "`select_builtins` tools",
                |StepCtx { st, step, .. }| {
                    let sel = selection(st)?;
                    expect_json(st, &st.expect_doc(step)?, &sel)
                }),
            step!(Expectations, r#"^the selected builtins match snapshot "(?P<NAME>[^"]+)" ignoring builtin descriptions$"#,
                "against a snapshot",
                |StepCtx { env, st, arg, .. }| {
                    let sel = selection(st)?;
                    snapshot_json(st, env, &arg.at(1), &sel, true, None)
                }),
            step!(Expectations, r#"^the skill inventory matches:$"# + "JSON",
                "`list_skills` `{skills, skipped}`",
                |StepCtx { st, step, .. }| {
                    let inv = st.inventory.clone().ok_or_else(|| {
                        StepFailure::Failed("no skills were listed in this scenario".into())
                    })?;
                    expect_json(st, &st.expect_doc(step)?, &inv)
                }),
            // An escaped quote may stand inside X, a bare one may not: the either-or step below
            // must not match this pattern too.
            step!(Expectations, r#"^the sanitized value is "(?P<X>(?:[^"\\]|\\.)*)"$"#,
                "`sanitize`, pinned",
                records Kind::Pinned,
                |StepCtx { st, arg, .. }| {
                    match &st.sanitized {
                        Some(v) if *v == unescape(&arg.at(1)) => Ok(()),
                        other => fail_as(Kind::Pinned, format!(
                            "expected sanitized value {:?}, got {other:?}",
                            unescape(&arg.at(1))
                        )),
                    }
                }),
            step!(Expectations, r#"^the sanitized value is "(?P<X>[^"]*)" or "(?P<Y>[^"]*)"$"#,
                "`sanitize`, either reading of SPEC-quoted code (NOTES #27)",
                records Kind::Lenient("one of"),
                |StepCtx { st, arg, .. }| {
                    let readings = [unescape(&arg.at(1)), unescape(&arg.at(2))];
                    match &st.sanitized {
                        Some(v) if readings.contains(v) => Ok(()),
                        other => fail_as(Kind::Lenient("one of"), format!(
                            "expected sanitized value {:?} or {:?}, got {other:?}",
                            readings[0], readings[1]
                        )),
                    }
                }),
            step!(Expectations, r#"^the file "(?P<PATH>[^"]+)" now contains:$"# + "text",
                "the file's bytes, pinned",
                |StepCtx { st, step, arg, .. }| {
                    let path = st.path(&arg.at(1))?;
                    let bytes = std::fs::read(&path)
                        .map_err(|e| StepFailure::failed(format!("cannot read {}: {e}", path.display())))?;
                    expect_text(st, &st.raw_doc(step)?, &String::from_utf8_lossy(&bytes))
                }),
            step!(Expectations, r#"^the file "(?P<PATH>[^"]+)" does not exist$"#,
                "absence on disk",
                records Kind::Pinned,
                |StepCtx { st, arg, .. }| {
                    let path = st.path(&arg.at(1))?;
                    if path.symlink_metadata().is_ok() {
                        fail(format!(
                            "{} exists",
                            st.placeholders.normalise_text(&path.to_string_lossy())
                        ))
                    } else {
                        Ok(())
                    }
                }),
            step!(Expectations, r#"^the files under "(?P<DIR>[^"]+)" are unchanged$"#,
                "byte-identical to when they were recorded (nothing created, removed or changed)",
                records Kind::Pinned,
                |StepCtx { st, arg, .. }| {
                    let dir = st.path(&arg.at(1))?;
                    let Some((recorded_dir, before)) = st.recorded.as_ref() else {
                        return fail("no files were recorded in this scenario");
                    };
                    if *recorded_dir != dir {
                        return fail(format!(
                            "the files recorded were under {}",
                            recorded_dir.display()
                        ));
                    }
                    let after = surroundings::record_tree(&dir).map_err(StepFailure::failed)?;
                    match surroundings::tree_difference(before, &after) {
                        None => Ok(()),
                        Some(d) => fail_as(Kind::Pinned, format!("files changed: {d}")),
                    }
                }),
            step!(Expectations, r#"^the call took less than (?P<N>\d+) ms$"#,
                "the last `execute` request's round trip (a bound: a timeout ends in time)",
                records Kind::UpperBound,
                |StepCtx { st, arg, .. }| {
                    let bound: u128 = arg.at(1).parse().unwrap_or(0);
                    match st.call_ms {
                        Some(ms) if ms < bound => Ok(()),
                        Some(ms) => fail_as(Kind::UpperBound, format!(
                            "the call took {ms} ms, more than {bound} ms"
                        )),
                        None => fail("no tool has been executed in this scenario"),
                    }
                }),
            step!(Expectations, r#"^the HTTP server's last request matches:$"# + "JSON",
                "the last request the local HTTP server got, as `{method, path, query, headers, body, json?}` (query decoded, header names lower case, `json` when the body parses); the canary secret reads `{{SECRET}}`",
                |StepCtx { st, step, .. }| {
                    let expected = st.expect_doc(step)?;
                    let server = st.http.as_ref().ok_or_else(|| {
                        StepFailure::Failed("no HTTP server runs in this scenario".into())
                    })?;
                    let last = surroundings::last_request(server)
                        .await
                        .ok_or_else(|| StepFailure::Failed("the HTTP server received no request".into()))?;
                    expect_json(st, &expected, &st.norm(&last))
                }),
            step!(Expectations, r#"^the build took less than (?P<N>\d+) ms$"#,
                "the last `build` request's round trip (a bound, not a benchmark: it tells a bounded failure from a hang)",
                records Kind::UpperBound,
                |StepCtx { st, arg, .. }| {
                    let bound: u128 = arg.at(1).parse().unwrap_or(0);
                    match st.build_ms {
                        Some(ms) if ms < bound => Ok(()),
                        Some(ms) => fail_as(Kind::UpperBound, format!(
                            "the build took {ms} ms, more than {bound} ms"
                        )),
                        None => fail("no toolkit has been built in this scenario"),
                    }
                }),
            step!(Expectations, r#"^the MCP inventory matches:$"# + "JSON",
                "`list_mcp_tools` `{statuses, tools, errors}`",
                |StepCtx { st, step, .. }| {
                    let expected = st.expect_doc(step)?;
                    let actual = st
                        .mcp_inventory
                        .clone()
                        .ok_or_else(|| StepFailure::Failed("no MCP tools have been listed".into()))?;
                    expect_json(st, &expected, &st.norm(&actual))
                }),
            step!(Expectations, r#"^nothing the port reported mentions the secret$"#,
                "the build answer, every tool result and the MCP inventory do not contain the canary secret",
                records Kind::Pinned,
                |StepCtx { st, .. }| {
                    let Some(secret) = secret::current() else {
                        return fail(format!(
                            "{} is not set, so there is nothing to look for",
                            secret::SECRET_VAR
                        ));
                    };
                    let answers = [
                        ("the build answer", st.built.clone()),
                        ("the MCP inventory", st.mcp_inventory.clone()),
                    ];
                    let mut leaks: Vec<&str> = answers
                        .iter()
                        .filter(|(_, v)| v.as_ref().is_some_and(|v| v.to_string().contains(&secret)))
                        .map(|(what, _)| *what)
                        .collect();
                    if st.answers.iter().any(|v| v.to_string().contains(&secret)) {
                        leaks.push("a tool result");
                    }
                    if leaks.is_empty() {
                        Ok(())
                    } else {
                        // Never print the secret itself: the report would then leak it.
                        fail_as(Kind::Pinned, format!(
                            "the secret appears in {}",
                            leaks.join(", ")
                        ))
                    }
                }),
            step!(Expectations, r#"^the process whose pid is in "(?P<PATH>[^"]+)" is gone$"#,
                "the process (e.g. a backgrounded grandchild) has exited, waiting up to 3 s",
                records Kind::Pinned,
                |StepCtx { st, arg, .. }| {
                    let path = st.path(&arg.at(1))?;
                    // Polling sleeps; on a blocking thread it cannot stall other scenarios' timers.
                    let within = std::time::Duration::from_secs(3);
                    tokio::task::spawn_blocking(move || surroundings::process_gone(&path, within))
                        .await
                        .unwrap_or_else(|e| Err(format!("the process check failed: {e}")))
                        .map_err(StepFailure::failed)
                }),
        ];
        all.extend(client::steps());
        all.extend(client::order::steps());
        all.extend(client::translate::steps());
        all.extend(client::resume::steps());
        all.extend(client::agents::steps());
        all.extend(relay::steps());
        all.extend(client::serve::steps());
        all.extend(compact::steps());
        all
    })
}

/// Every step pattern, in registry order (for listings and STEPS.md).
pub fn patterns() -> Vec<&'static str> {
    registry().iter().map(|d| d.pattern).collect()
}

/// The registry items whose pattern matches `text`; more than one is an ambiguity.
pub fn matching(text: &str) -> Vec<&'static StepDef> {
    registry().iter().filter(|d| d.matches(text)).collect()
}

/// Runs one step against `port`: the single registry item matching its text handles it; no
/// match or several (cucumber's rule: ambiguity is an error) fail the step.
pub async fn run_step(
    port: &mut dyn Port,
    env: &Env,
    st: &mut ScenarioState,
    step: &StepSpec,
) -> StepResult {
    let (def, arg) = select(registry(), &step.text)?;
    (def.handler)(StepCtx {
        port,
        env,
        st: &mut *st,
        step,
        arg,
    })
    .await?;
    // Checks that compare without the expectation helpers still say what kind they were.
    if let Some(kind) = def.records {
        st.record(kind.label());
    }
    Ok(())
}

/// The single item of `defs` matching `text`, with its capture groups.
fn select<'r>(defs: &'r [StepDef], text: &str) -> Result<(&'r StepDef, Args), StepFailure> {
    let mut found = defs
        .iter()
        .filter_map(|d| d.re.captures(text).map(|c| (d, c)));
    let Some((def, caps)) = found.next() else {
        return fail(format!("unknown step `{text}` (see features/STEPS.md)"));
    };
    let others: Vec<&str> = found.map(|(d, _)| d.pattern).collect();
    if !others.is_empty() {
        return fail(format!(
            "ambiguous step `{text}`: it matches `{}` and `{}` (see features/STEPS.md)",
            def.pattern,
            others.join("` and `")
        ));
    }
    let arg = caps
        .iter()
        .map(|m| m.map(|m| m.as_str().to_string()))
        .collect();
    Ok((def, Args(arg)))
}

/// The text of features/STEPS.md: `head` (the hand-written conventions) followed by one
/// table per group, rendered from the registry.
pub fn steps_markdown(head: &str) -> String {
    let mut out = head.trim_end().to_string();
    out.push('\n');
    for group in Group::ALL {
        out.push_str(&format!("\n## {}\n\n", group.heading()));
        if !group.intro().is_empty() {
            out.push_str(group.intro());
            out.push_str("\n\n");
        }
        out.push_str(&format!("| step | {} |\n|---|---|\n", group.column()));
        for def in registry().iter().filter(|d| d.group == group) {
            let mut shown = format!("`{}`", readable(def.pattern));
            if !def.takes.is_empty() {
                shown.push_str(&format!(" + {}", def.takes));
            }
            out.push_str(&format!(
                "| {} | {} |\n",
                shown.replace('|', "\\|"),
                def.doc.replace('|', "\\|")
            ));
        }
    }
    out
}

/// A step pattern as a reader writes the step: a named group shows its name, an optional
/// part is bracketed, escapes and anchors go.
pub fn readable(pattern: &str) -> String {
    let p = pattern.strip_prefix('^').unwrap_or(pattern);
    let p = p.strip_suffix('$').unwrap_or(p);
    render(p)
}

fn render(p: &str) -> String {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                out.extend(chars.get(i + 1));
                i += 2;
            }
            '(' => {
                let Some(close) = group_end(&chars, i) else {
                    out.extend(&chars[i..]);
                    break;
                };
                let inner: String = chars[i + 1..close].iter().collect();
                let shown = if let Some(named) = inner
                    .strip_prefix("?P<")
                    .or_else(|| inner.strip_prefix("?<"))
                {
                    named.split('>').next().unwrap_or(named).to_string()
                } else {
                    render(inner.strip_prefix("?:").unwrap_or(&inner))
                };
                if chars.get(close + 1) == Some(&'?') {
                    out.push_str(&format!("[{shown}]"));
                    i = close + 2;
                } else {
                    out.push_str(&shown);
                    i = close + 1;
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The index of the `)` closing the group opened at `open` (escapes and classes skipped).
fn group_end(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut in_class = false;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Ends a scenario: closes its toolkits so nothing is left running in the port.
pub async fn finish(port: &mut dyn Port, st: &mut ScenarioState) {
    client::agents::finish(port, st).await;
    if let Some(id) = st.toolkit.take() {
        let _ = port.close(&id).await;
    }
    // wiremock's MockServer blocks in its Drop (it verifies expectations with a nested
    // executor). Dropped on an async thread, that stalls every other task there — a bash
    // timeout in a concurrent scenario would never fire — so it is dropped on a blocking
    // thread instead.
    st.mocks.clear();
    if let Some(server) = st.http.take() {
        let _ = tokio::task::spawn_blocking(move || drop(server)).await;
    }
}

async fn build(port: &mut dyn Port, st: &mut ScenarioState) -> StepResult {
    if let Some(old) = st.toolkit.take() {
        let _ = port.close(&old).await;
    }
    st.counter += 1;
    let id = format!("tk{}", st.counter);
    let options = st.options.clone().unwrap_or_else(|| json!({}));
    let started = std::time::Instant::now();
    let r = match port.build(&id, &options).await {
        Err(PortError::Raised(message)) => return fail(raised_build(st, &message)),
        other => other?,
    };
    st.build_ms = Some(started.elapsed().as_millis());
    for key in ["tools", "names", "statuses", "errors", "skills"] {
        if r.get(key).is_none() {
            return fail(format!("build response lacks \"{key}\""));
        }
    }
    st.toolkit = Some(id);
    st.built = Some(r);
    Ok(())
}

/// The failure of a build that answered `raised` (PROTOCOL.md §5.2) where the scenario wants a
/// toolkit: the port's `createToolkit` threw. In a scenario about a failing source (its clause
/// tags end in `isolated`, or it is `@seed-only`, a seed's `:errors` promise) the message names
/// the promise the throw broke: the build survives a failing source.
pub(crate) fn raised_build(st: &ScenarioState, message: &str) -> String {
    let clauses: Vec<&str> = st
        .tags
        .iter()
        .filter_map(|t| {
            t.strip_prefix("partial-clause-")
                .or_else(|| t.strip_prefix("clause-"))
        })
        .filter(|id| id.ends_with("isolated"))
        .collect();
    let seeds: Vec<&str> = if crate::features::is_seed_only(&st.tags) {
        crate::features::seed_pages(&st.tags)
    } else {
        Vec::new()
    };
    let mut promise = Vec::new();
    if !clauses.is_empty() {
        promise.push(format!(
            "a failing source is isolated, never fatal (SPEC clause {})",
            clauses.join(", ")
        ));
    }
    if !seeds.is_empty() {
        promise.push(format!(
            "a source that fails is an `errors` entry (seed {} `:errors`)",
            seeds.join(", ")
        ));
    }
    let message = crate::port::truncate(message, 300);
    if promise.is_empty() {
        format!("the port raised: {message} (its createToolkit threw where the scenario builds a toolkit)")
    } else {
        format!(
            "the port raised: {message} (its createToolkit threw, but the build must survive here: {})",
            promise.join("; ")
        )
    }
}

#[cfg(test)]
mod raised_build_tests {
    use super::*;

    fn state(tags: &[&str]) -> ScenarioState {
        let tags: Vec<String> = tags.iter().map(|t| t.to_string()).collect();
        ScenarioState::default().with_tags(&tags)
    }

    #[test]
    fn a_raised_build_names_the_promise_of_its_scenario() {
        let plain = raised_build(&state(&["spec-6"]), "boom");
        assert_eq!(
            plain,
            "the port raised: boom (its createToolkit threw where the scenario builds a toolkit)"
        );
        let isolated = raised_build(
            &state(&[
                "@spec-2",
                "@clause-2.behaviour.failure-isolated",
                "@partial-clause-2.load-bound.bounded-isolated",
                "@clause-2.x.other",
            ]),
            "boom",
        );
        assert!(isolated.ends_with("a failing source is isolated, never fatal (SPEC clause 2.behaviour.failure-isolated, 2.load-bound.bounded-isolated))"), "{isolated}");
        let seed = raised_build(&state(&["spec-4", "seed-001", "seed-only"]), "bad json");
        assert!(seed.contains("(seed 001 `:errors`)"), "{seed}");
        // A seed tag alone (not `@seed-only`) promises nothing here.
        assert!(!raised_build(&state(&["seed-001"]), "x").contains("seed"));
    }
}

async fn execute(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    name: String,
    args: Value,
    answer: Option<Value>,
) -> StepResult {
    let id = st.toolkit_id()?;
    let started = std::time::Instant::now();
    let result = port.execute(&id, &name, &args, answer.as_ref()).await?;
    st.call_ms = Some(started.elapsed().as_millis());
    st.last_call = Some((name, args));
    st.answers.push(result.clone());
    st.result = Some(result);
    Ok(())
}

async fn adapter(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    format: &str,
) -> Result<Value, StepFailure> {
    let id = st.toolkit_id()?;
    let output = port.adapter(&id, format).await?;
    Ok(st.norm(&output))
}

/// Whether some string in the build answer's `key` (an object's values or an array's
/// items) contains `needle`; lenient by design, the wording is the port's.
fn mentioned(st: &ScenarioState, key: &str, what: &str, needle: &str) -> StepResult {
    let found_in = st.norm(&st.built()?.get(key).cloned().unwrap_or(Value::Null));
    let texts: Vec<&Value> = match &found_in {
        Value::Object(m) => m.values().collect(),
        Value::Array(a) => a.iter().collect(),
        _ => Vec::new(),
    };
    if texts
        .iter()
        .any(|v| v.as_str().is_some_and(|s| s.contains(needle)))
    {
        Ok(())
    } else {
        fail_as(
            Kind::Lenient("contains"),
            format!("no {what} mentions \"{needle}\"; {key}: {found_in}"),
        )
    }
}

/// The toolkit's tools as the port lists them now (`tools`), shaped like a build answer; a
/// listing that differs from the build answer is itself a failure.
async fn live_tools(port: &mut dyn Port, st: &ScenarioState) -> Result<Value, StepFailure> {
    let id = st.toolkit_id()?;
    let tools = port.tools(&id).await?;
    let built = st.built()?.get("tools").cloned().unwrap_or(Value::Null);
    if built != tools {
        return fail(format!(
            "`tools` lists {} but `build` answered {}",
            names(&json!({ "tools": tools })),
            names(&json!({ "tools": built }))
        ));
    }
    Ok(json!({ "tools": tools }))
}

fn names(built: &Value) -> Value {
    Value::Array(
        built
            .get("tools")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|t| t.get("name").cloned().unwrap_or(Value::Null))
                    .collect()
            })
            .unwrap_or_default(),
    )
}

fn tool<'a>(built: &'a Value, name: &str) -> Option<&'a Value> {
    built
        .get("tools")
        .and_then(Value::as_array)?
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
}

fn write_file(path: &Path, bytes: &[u8]) -> StepResult {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .or_else(|e| fail(format!("cannot create {}: {e}", parent.display())))?;
    }
    std::fs::write(path, bytes).or_else(|e| fail(format!("cannot write {}: {e}", path.display())))
}

fn escape_ptr(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn unescape(s: &str) -> String {
    s.replace("\\n", "\n")
        .replace("\\\"", "\"")
        .replace("\\t", "\t")
}

fn with_context(e: StepFailure, ctx: &str) -> StepFailure {
    match e {
        StepFailure::Failed(m) => StepFailure::Failed(m.with_note(ctx)),
        other => other,
    }
}

async fn skills_prompt(port: &mut dyn Port, st: &ScenarioState) -> Result<String, StepFailure> {
    let id = st.toolkit_id()?;
    Ok(st
        .placeholders
        .normalise_text(&port.skills_prompt(&id).await?))
}

fn selection(st: &ScenarioState) -> Result<Value, StepFailure> {
    st.selection
        .clone()
        .ok_or_else(|| StepFailure::Failed("no builtins were selected in this scenario".into()))
}

fn is_error(st: &ScenarioState, want: bool) -> StepResult {
    let is_error = st.result()?.get("isError").and_then(Value::as_bool);
    if is_error == Some(want) {
        Ok(())
    } else {
        fail(format!(
            "expected isError={want}, got result {}",
            st.norm(st.result()?)
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use super::*;
    use crate::features;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    const REGENERATE: &str = "UPDATE_STEPS=1 cargo test -p toolnexus-harness --lib steps_md";

    /// STEPS.md is the contract other runners implement: it must be what the registry says.
    #[test]
    fn steps_md_is_current() {
        let head = std::fs::read_to_string(repo().join("features/STEPS.head.md")).unwrap();
        let generated = steps_markdown(&head);
        let path = repo().join("features/STEPS.md");
        if std::env::var_os("UPDATE_STEPS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "features/STEPS.md differs from what the step registry generates; regenerate it with \
             `{REGENERATE}`\n{}",
            similar::TextDiff::from_lines(&checked_in, &generated)
                .unified_diff()
                .header("features/STEPS.md", "generated")
        );
    }

    /// cucumber's rule: a step text matching several patterns is an error, as is one
    /// matching none; every step of every feature (outlines expanded) is checked.
    #[test]
    fn every_feature_step_matches_exactly_one_pattern() {
        let (scenarios, errors) = features::load(&repo().join("features"));
        assert!(errors.is_empty(), "{errors:?}");
        let mut seen = BTreeSet::new();
        let mut problems = Vec::new();
        for scenario in &scenarios {
            for step in &scenario.steps {
                if !seen.insert((scenario.file.clone(), step.text.clone())) {
                    continue;
                }
                let patterns: Vec<&str> = matching(&step.text).iter().map(|d| d.pattern).collect();
                match patterns.as_slice() {
                    [_] => {}
                    [] => problems.push(format!(
                        "{}: step `{}` matches no pattern",
                        scenario.file, step.text
                    )),
                    several => problems.push(format!(
                        "{}: step `{}` is ambiguous, it matches `{}`",
                        scenario.file,
                        step.text,
                        several.join("` and `")
                    )),
                }
            }
        }
        assert!(seen.len() > 300, "only {} step texts found", seen.len());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn run_time_selection_refuses_unknown_and_ambiguous_steps() {
        let defs = vec![
            step!(
                Setup,
                r#"^a file "(?P<PATH>[^"]+)"$"#,
                "one",
                |StepCtx { .. }| { Ok(()) }
            ),
            step!(
                Setup,
                r#"^a (?P<WHAT>\w+) "x"$"#,
                "two",
                |StepCtx { .. }| { Ok(()) }
            ),
        ];
        let (def, arg) = select(&defs, r#"a file "y""#).unwrap();
        assert_eq!((def.doc, arg.at(1), arg.opt(2)), ("one", "y".into(), None));
        let Err(StepFailure::Failed(m)) = select(&defs, r#"a file "x""#) else {
            panic!("an ambiguous step was accepted");
        };
        let m = m.to_string();
        assert!(m.contains("ambiguous step `a file \"x\"`"), "{m}");
        assert!(
            m.contains(defs[0].pattern) && m.contains(defs[1].pattern),
            "{m}"
        );
        let Err(StepFailure::Failed(m)) = select(&defs, "no such step") else {
            panic!("an unknown step was accepted");
        };
        let m = m.to_string();
        assert!(m.contains("unknown step `no such step`"), "{m}");
    }

    #[test]
    fn patterns_are_anchored_unique_documented_and_readable() {
        let mut unique = BTreeSet::new();
        for def in registry() {
            assert!(unique.insert(def.pattern), "`{}` twice", def.pattern);
            assert!(
                def.pattern.starts_with('^') && def.pattern.ends_with('$'),
                "`{}` must match whole step texts",
                def.pattern
            );
            assert!(!def.doc.trim().is_empty(), "`{}` has no doc", def.pattern);
            let shown = readable(def.pattern);
            assert!(
                !shown.contains(['\\', '^', '$', '*', '+', '(', ')', '|']),
                "`{}` reads as `{shown}`: name its capture groups",
                def.pattern
            );
        }
        assert_eq!(patterns().len(), registry().len());
        let shown: Vec<String> = registry().iter().map(|d| readable(d.pattern)).collect();
        for expected in [
            r#"N files "PATH" containing "TEXT""#,
            r#"a mock A2A agent[ "NAME"] runs "FILE""#,
            r#"the "FORMAT" adapter output matches snapshot "NAME"[ without the skill tool][ ignoring builtin descriptions]"#,
            "the HTTP server's last request matches:",
        ] {
            assert!(
                shown.iter().any(|s| s == expected),
                "{expected} not in {shown:#?}"
            );
        }
        assert_eq!(readable(r"^a \(b\) (c"), "a (b) (c");
    }
}
