//! SPEC §7D–§7F agent steps (PROTOCOL.md §5.27): an agent runtime on the mock LLM, the
//! host verbs as `agent_*` commands, and the shared `examples/subagent-*` fixtures run as
//! scenarios: the fixture's registry and tools become an `agent_runtime`, its `mockLLM`
//! block drives the mock (`mock llm --fixture`), and each of its `expect` keys is checked by
//! a fixed checker (an unknown key fails the step, so a new fixture key is never ignored).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Map, Value};
use toolnexus_protocol::{Command, Request};

use super::helpers::{absent, at_path, contains, expect_json, inline_json, matches};
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, fail_as, ScenarioState, StepFailure, StepResult};
use crate::steps::StepCtx;
use toolnexus_ports::mock_launch;
use toolnexus_ports::port::{self, Port};

mod drive;
mod expect;
mod fixture;

use drive::{drive_run, drive_steps, leaf_of, resolve};
use expect::check_block;
use fixture::{fixture_runtime, known_keys, load_fixture};

/// What a scenario's agent steps accumulate.
#[derive(Default)]
pub(crate) struct AgentState {
    /// The runtime later commands address (`rt1`, …).
    pub(crate) runtime: Option<String>,
    counter: u32,
    /// The loaded fixture: its path and its JSON (`$ref`s resolved).
    fixture: Option<(PathBuf, Value)>,
    /// A fixture's short handle paths (`peer`, `coordinator/peer`) → the ids spawned for them.
    ids: BTreeMap<String, String>,
    /// The last `agent_*` answer.
    answer: Option<Value>,
    /// The last run / resume result and the entry handle.
    result: Option<Value>,
    entry: Option<String>,
    /// Values a fixture scenario's steps observed (`waiterStatus`, `finalState`, …).
    seen: Map<String, Value>,
    /// The base URL of the mock LLM playing the fixture.
    fixture_llm: Option<String>,
}

step! {
    shared_agent_fixture_path: Setup, r#"^the shared agent fixture "(?P<PATH>[^"]+)"$"#,
    "loads the fixture (`$ref`s resolved) and starts `{{BIN}} mock llm --fixture PATH` on its `mockLLM` block; `{{LLM}}` is the mock's base URL",
    |StepCtx { env, st, arg, .. }| {
        let path = PathBuf::from(st.expand(&arg.at(1))?);
        let fixture = load_fixture(&path)?;
        let mock = mock_launch::llm_fixture(&env.mock_bin, &path)
            .await
            .map_err(StepFailure::failed)?;
        st.placeholders.add_text("{{LLM}}", &mock.url);
        st.llms.insert(0, (None, mock.url.clone()));
        st.areas.get_mut::<AgentState>().fixture_llm = Some(mock.url.clone());
        st.mocks.push(mock);
        st.areas.get_mut::<AgentState>().fixture = Some((path, fixture));
        Ok(())
    }
}

step! {
    agent_runtime: Setup, r#"^an agent runtime with:$"# + "JSON `agent_runtime` body (`baseUrl` defaults to `{{LLM}}`, `style` to `openai`)",
    "`agent_runtime` (ids `rt1`, `rt2`, …; the newest is the one later steps use)",
    |StepCtx { port, st, step, .. }| {
        let mut body = st.json_doc(step)?;
        let Some(map) = body.as_object_mut() else {
            return fail("the runtime doc must be a JSON object");
        };
        if !map.contains_key("baseUrl") {
            let url = st.llms.first().map(|(_, u)| u.clone())
                .ok_or_else(|| StepFailure::failed("no mock LLM runs in this scenario"))?;
            map.insert("baseUrl".into(), json!(url));
        }
        map.entry("style").or_insert(json!("openai"));
        map.entry("apiKey").or_insert(json!("test-key"));
        create_runtime(port, st, body).await
    }
}

step! {
    bootstrapdir_written_dir_notdue: Setup, r#"^its bootstrapDir is written to "(?P<DIR>[^"]+)"(?P<NOTDUE> with its heartbeatNotDue HEARTBEAT\.md)?$"#,
    "writes each file of the fixture's `bootstrapDir` (and, asked, its `heartbeatNotDue` HEARTBEAT.md instead) into DIR: an agent home (§7E)",
    |StepCtx { st, arg, .. }| {
        let fixture = fixture(st)?;
        let dir = st.path(&arg.at(1))?;
        let files = fixture.get("bootstrapDir").and_then(Value::as_object).cloned()
            .ok_or_else(|| StepFailure::failed("the fixture has no `bootstrapDir`"))?;
        std::fs::create_dir_all(&dir).map_err(|e| StepFailure::failed(format!("cannot create {}: {e}", dir.display())))?;
        for (name, text) in files {
            let mut text = text.as_str().unwrap_or_default().to_string();
            if name == "HEARTBEAT.md" && arg.opt(2).is_some() {
                text = fixture.pointer("/heartbeatNotDue/HEARTBEAT.md").and_then(Value::as_str)
                    .ok_or_else(|| StepFailure::failed("the fixture has no `heartbeatNotDue`"))?.to_string();
            }
            std::fs::write(dir.join(&name), text).map_err(|e| StepFailure::failed(format!("cannot write {name}: {e}")))?;
        }
        Ok(())
    }
}

step! {
    file_path_n_bytes_c: Setup, r#"^a file "(?P<PATH>[^"]+)" of (?P<N>\d+) bytes of "(?P<C>.)"$"#,
    "writes the character C repeated to N bytes (for byte caps)",
    |StepCtx { st, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        let n: usize = arg.at(2).parse().map_err(|_| StepFailure::failed("N must be a number"))?;
        if n > 64 * 1024 * 1024 {
            return fail("at most 64 MiB");
        }
        let c = arg.at(3);
        let body = c.repeat(n / c.len().max(1));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| StepFailure::failed(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(&path, body).map_err(|e| StepFailure::failed(format!("cannot write {}: {e}", path.display())))
    }
}

step! {
    agent_store_holds_id_system_message_n: Setup, r#"^the agent store holds "(?P<ID>[^"]+)": a system message "(?P<S>[^"]*)" and (?P<N>\d+) user/assistant pairs of (?P<M>\d+) characters$"#,
    "`agent_store_save` of a generated transcript: the system message, then N pairs `q`×M / `a`×M (SPEC §7D hooks fixture H5's generator)",
    |StepCtx { port, st, arg, .. }| {
        let n: usize = arg.at(3).parse().map_err(|_| StepFailure::failed("N must be a number"))?;
        let m: usize = arg.at(4).parse().map_err(|_| StepFailure::failed("M must be a number"))?;
        let mut messages = vec![json!({"role": "system", "content": arg.at(2)})];
        for _ in 0..n.min(10_000) {
            messages.push(json!({"role": "user", "content": "q".repeat(m.min(100_000))}));
            messages.push(json!({"role": "assistant", "content": "a".repeat(m.min(100_000))}));
        }
        agent(port, st, Command::AgentStoreSave, json!({"id": arg.at(1), "messages": messages})).await.map(|_| ())
    }
}

step! {
    run_driven: Actions, r#"^its run is driven$"#,
    "creates the fixture's runtime, then `agent_run` with the fixture's `run.entry` and `run.prompt`",
    |StepCtx { port, st, .. }| {
        let fixture = fixture(st)?;
        fixture_runtime(port, st, &fixture, None).await?;
        drive_run(port, st, &fixture["run"]).await
    }
}

step! {
    steps_driven: Actions, r#"^its steps are driven$"#,
    "creates the fixture's runtime and drives its `steps` in order (`spawn`, `wakeWait`), checking each step's own `expect` as it goes",
    |StepCtx { port, st, .. }| {
        let fixture = fixture(st)?;
        fixture_runtime(port, st, &fixture, None).await?;
        let steps = fixture.get("steps").and_then(Value::as_array).cloned()
            .ok_or_else(|| StepFailure::failed("the fixture has no `steps` array"))?;
        drive_steps(port, st, &steps).await
    }
}

step! {
    scenario_name_driven: Actions, r#"^its scenario "(?P<NAME>[^"]+)" is driven$"#,
    "creates the fixture's runtime with the scenario's `runtime` options and `registryOverride`, spawns its `tree`, then drives its `steps` (or its `run`)",
    |StepCtx { port, st, arg, .. }| {
        let fixture = fixture(st)?;
        let name = arg.at(1);
        let sc = fixture.pointer(&format!("/scenarios/{name}")).cloned()
            .ok_or_else(|| StepFailure::failed(format!("the fixture has no scenario {name:?}")))?;
        fixture_runtime(port, st, &fixture, Some(&sc)).await?;
        known_keys(&sc, &["runtime", "registryOverride", "tree", "steps", "run", "expect"], &format!("scenario {name}"))?;
        if let Some(tree) = sc.get("tree").and_then(Value::as_array) {
            for path in tree {
                let path = path.as_str().ok_or_else(|| StepFailure::failed("a `tree` entry must be a string"))?;
                resolve(port, st, path).await?;
            }
        }
        if let Some(steps) = sc.get("steps").and_then(Value::as_array) {
            drive_steps(port, st, steps).await?;
        }
        if let Some(run) = sc.get("run") {
            drive_run(port, st, run).await?;
        }
        Ok(())
    }
}

step! {
    resumed_answer: Actions, r#"^it is resumed with its answer$"#,
    "`agent_resume` with the fixture's `resume.answer`, its `id` the pending Request's",
    |StepCtx { port, st, .. }| {
        let fixture = fixture(st)?;
        let mut answer = fixture.pointer("/resume/answer").cloned()
            .ok_or_else(|| StepFailure::failed("the fixture has no `resume.answer`"))?;
        let id = st.areas.get_mut::<AgentState>().result.as_ref().and_then(|r| r.pointer("/pending/id")).cloned()
            .ok_or_else(|| StepFailure::failed("the last result has no `pending.id` to answer"))?;
        answer["id"] = id;
        let entry = st.areas.get_mut::<AgentState>().entry.clone().unwrap_or_default();
        let leaf = leaf_of(port, st, &entry).await?;
        let before = inspect(port, st, &leaf).await?;
        // Optional (NOTES #427): only `leafUsageGrewNotReset` reads it, and skips without it.
        if let Some(used) = before.pointer("/usage/total_tokens") {
            st.areas.get_mut::<AgentState>().seen.insert("leafUsageBefore".into(), used.clone());
        }
        let a = agent(port, st, Command::AgentResume, json!({"answer": answer})).await?;
        match a.get("result") {
            Some(r) => st.areas.get_mut::<AgentState>().result = Some(r.clone()),
            None => return fail(format!("agent_resume answered no result: {a}")),
        }
        Ok(())
    }
}

step! {
    agent_command_cmd_sent: Actions, r#"^the agent command "(?P<CMD>agent_[a-z_]+)" is sent(?: with:)?$"# + "JSON body (optional; `runtime` is added)",
    "the command with the newest runtime; the answer is kept for the `agent answer` checks",
    |StepCtx { port, st, step, arg, .. }| {
        let body = match step.docstring {
            Some(_) => st.json_doc(step)?,
            None => json!({}),
        };
        let Some(cmd) = Command::parse(&arg.at(1)) else {
            return fail(format!("protocol 1 has no command `{}`", arg.at(1)));
        };
        agent(port, st, cmd, body).await.map(|_| ())
    }
}

step! {
    block_block_holds: Expectations, r#"^its "(?P<BLOCK>[^"]+)" block holds$"#,
    "every key of the fixture's block at BLOCK (`expect`, `phase1_expect`, `scenarios.NAME.expect`, …) holds, each by its fixed checker; `note` and `comment` are prose",
    |StepCtx { port, st, arg, .. }| {
        let fixture = fixture(st)?;
        let pointer = format!("/{}", arg.at(1).replace('.', "/"));
        let block = fixture.pointer(&pointer).cloned()
            .ok_or_else(|| StepFailure::failed(format!("the fixture has no block {:?}", arg.at(1))))?;
        check_block(port, st, &block).await
    }
}

step! {
    agent_answer_at_path: Expectations, r#"^the agent answer at "(?P<PATH>[^"]*)" is:$"# + "JSON (matchers allowed)",
    "the value at PATH of the last `agent_*` answer (normalised)",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let actual = at_path(&answer(st)?, &arg.at(1), "the agent answer")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    agent_answer_at_path_json: Expectations, r#"^the agent answer at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "the same, the expected JSON inline",
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(2))?;
        let actual = at_path(&answer(st)?, &arg.at(1), "the agent answer")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    agent_answer_at_path_contains_text: Expectations, r#"^the agent answer at "(?P<PATH>[^"]*)" contains "(?P<TEXT>.*)"$"#,
    "the string at PATH contains TEXT (another value: its compact JSON does)",
    records Kind::Lenient("contains"),
    |StepCtx { st, arg, .. }| {
        let actual = at_path(&answer(st)?, &arg.at(1), "the agent answer")?;
        contains(&actual, &crate::steps::helpers::unescape(&arg.at(2)))
    }
}

step! {
    agent_answer_at_path_not_regex: Expectations, r#"^the agent answer at "(?P<PATH>[^"]*)" (?P<NOT>does not match|matches) "(?P<REGEX>.*)"$"#,
    "the string at PATH matches the regex (searched, not anchored), or does not",
    records Kind::Lenient("regex"),
    |StepCtx { st, arg, .. }| {
        let actual = at_path(&answer(st)?, &arg.at(1), "the agent answer")?;
        if arg.at(2) == "matches" {
            return matches(&actual, &arg.at(3));
        }
        match matches(&actual, &arg.at(3)) {
            Ok(()) => fail_as(Kind::Lenient("regex"), format!("{} matches {:?}", toolnexus_ports::port::truncate(&actual.to_string(), 400), arg.at(3))),
            Err(_) => Ok(()),
        }
    }
}

step! {
    file_path_not_text: Expectations, r#"^the file "(?P<PATH>[^"]+)" (?P<NOT>does not contain|contains) "(?P<TEXT>.*)"$"#,
    "the file's text (lossy UTF-8) contains TEXT, or does not",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        let bytes = std::fs::read(&path).map_err(|e| StepFailure::failed(format!("cannot read {}: {e}", path.display())))?;
        let text = String::from_utf8_lossy(&bytes);
        let needle = crate::steps::helpers::unescape(&arg.at(3));
        match (arg.at(2) == "contains", text.contains(&needle)) {
            (true, true) | (false, false) => Ok(()),
            (true, false) => fail_as(Kind::Pinned, format!("{} does not contain {needle:?}: {}", path.display(), toolnexus_ports::port::truncate(&text, 300))),
            (false, true) => fail_as(Kind::Pinned, format!("{} contains {needle:?}", path.display())),
        }
    }
}

step! {
    file_path_n_bytes_long: Expectations, r#"^the file "(?P<PATH>[^"]+)" is (?P<N>\d+) bytes long$"#,
    "the file's size",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let path = st.path(&arg.at(1))?;
        let len = std::fs::metadata(&path).map_err(|e| StepFailure::failed(format!("cannot stat {}: {e}", path.display())))?.len();
        if len.to_string() == arg.at(2) { Ok(()) } else { fail_as(Kind::Pinned, format!("{} is {len} bytes, not {}", path.display(), arg.at(2))) }
    }
}

step! {
    agent_answer_nothing_at_path: Expectations, r#"^the agent answer has nothing at "(?P<PATH>[^"]+)"$"#,
    "PATH is absent from the last `agent_*` answer",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        absent(&answer(st)?, &arg.at(1), "the agent answer")
    }
}

step! {
    llm_request_k_body_same_llm_request: Expectations, r#"^LLM request (?P<K>\d+) body is the same as LLM request (?P<J>\d+) body$"#,
    "the two recorded request bodies are equal, byte for byte after normalisation",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let a = super::client::llm_request(st, &arg.at(1)).await?;
        let b = super::client::llm_request(st, &arg.at(2)).await?;
        let (a, b) = (a.get("body").cloned().unwrap_or(Value::Null), b.get("body").cloned().unwrap_or(Value::Null));
        if a == b { Ok(()) } else { fail_as(Kind::Pinned, format!("request bodies differ:\n{a}\n{b}")) }
    }
}

step! {
    transitions_h: Expectations, r#"^the transitions of "(?P<H>[^"]+)" are:$"# + "JSON array of `from→to` (`→closed` matches any source state)",
    "`agent_trace`'s `transitions` of handle H, whole and in order",
    records Kind::Pinned,
    |StepCtx { port, st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let trace = agent(port, st, Command::AgentTrace, json!({})).await?;
        transitions_hold(&trace, &json!({arg.at(1): expected}))
    }
}

step! {
    agent_trace_at_path: Expectations, r#"^the agent trace at "(?P<PATH>[^"]*)" is:$"# + "JSON (matchers allowed)",
    "`agent_trace` now, the value at PATH",
    |StepCtx { port, st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let trace = agent(port, st, Command::AgentTrace, json!({})).await?;
        let actual = at_path(&st.norm(&trace), &arg.at(1), "the agent trace")?;
        expect_json(st, &expected, &actual)
    }
}

/// Sends `cmd` to the newest runtime; the answer (without `ok`/`seq`) is kept.
async fn agent(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    cmd: Command,
    body: Value,
) -> Result<Value, StepFailure> {
    let runtime = st
        .areas
        .get_mut::<AgentState>()
        .runtime
        .clone()
        .ok_or_else(|| StepFailure::failed("no agent runtime exists in this scenario"))?;
    let mut request = match body {
        Value::Object(m) => m,
        _ => return fail("an agent command body must be a JSON object"),
    };
    request.insert("runtime".into(), json!(runtime));
    let (mut a, _) = port::send_object(port, cmd, request).await?;
    if let Some(m) = a.as_object_mut() {
        m.remove("ok");
        m.remove("seq");
    }
    st.areas.get_mut::<AgentState>().answer = Some(a.clone());
    Ok(a)
}

fn answer(st: &ScenarioState) -> Result<Value, StepFailure> {
    st.areas
        .get::<AgentState>()
        .and_then(|a| a.answer.as_ref())
        .map(|a| st.norm(a))
        .ok_or_else(|| StepFailure::failed("no agent command has been sent"))
}

fn fixture(st: &ScenarioState) -> Result<Value, StepFailure> {
    st.areas
        .get::<AgentState>()
        .and_then(|a| a.fixture.as_ref())
        .map(|(_, f)| f.clone())
        .ok_or_else(|| StepFailure::failed("no shared agent fixture is loaded"))
}

async fn create_runtime(port: &mut dyn Port, st: &mut ScenarioState, body: Value) -> StepResult {
    if let Some(old) = st.areas.get_mut::<AgentState>().runtime.take() {
        let _ = port::send(port, Request::AgentCloseRuntime { runtime: old }).await;
    }
    st.areas.get_mut::<AgentState>().counter += 1;
    let id = format!("rt{}", st.areas.get_mut::<AgentState>().counter);
    let mut request = match body {
        Value::Object(m) => m,
        _ => return fail("an agent runtime body must be a JSON object"),
    };
    request.insert("id".into(), json!(id));
    port::send_object(port, Command::AgentRuntime, request).await?;
    st.areas.get_mut::<AgentState>().runtime = Some(id);
    st.areas.get_mut::<AgentState>().ids.clear();
    Ok(())
}

/// Ends a scenario's agent runtime (stop-all), so nothing outlives it in the port.
pub(crate) async fn finish(port: &mut dyn Port, st: &mut ScenarioState) {
    if let Some(rt) = st.areas.get_mut::<AgentState>().runtime.take() {
        let _ = port::send(port, Request::AgentCloseRuntime { runtime: rt }).await;
    }
}

async fn inspect(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    id: &str,
) -> Result<Value, StepFailure> {
    agent(port, st, Command::AgentInspect, json!({"handle": id})).await
}

async fn list(port: &mut dyn Port, st: &mut ScenarioState) -> Result<Vec<Value>, StepFailure> {
    let a = agent(port, st, Command::AgentList, json!({})).await?;
    Ok(crate::steps::sent::array_field(&a, "/handles", "the `agent_list` answer")?.clone())
}

/// `e` with `ctx` in front of its message, its kind's label kept first; a skip stays a skip.
fn within(e: StepFailure, ctx: &str) -> StepFailure {
    match e {
        StepFailure::Skipped(m) => StepFailure::Skipped(m),
        StepFailure::Failed(f) => StepFailure::Failed(f.within(ctx)),
    }
}

fn same(what: &str, want: &Value, got: &Value) -> StepResult {
    if want == got {
        Ok(())
    } else {
        fail_as(Kind::Pinned, format!("{what}: expected {want}, got {got}"))
    }
}

/// Each expected transition list holds for its handle: exactly, in order; an expected
/// `→closed` matches any `X→closed`.
fn transitions_hold(trace: &Value, expected: &Value) -> StepResult {
    let Some(m) = expected.as_object() else {
        return fail("`transitions` must be an object {handle: [...]}");
    };
    for (h, want) in m {
        let got = trace
            .pointer(&format!(
                "/transitions/{}",
                h.replace('~', "~0").replace('/', "~1")
            ))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let want = want.as_array().cloned().unwrap_or_default();
        let ok = got.len() == want.len()
            && got
                .iter()
                .zip(&want)
                .all(|(g, w)| match (g.as_str(), w.as_str()) {
                    (Some(g), Some(w)) if w.starts_with('→') => g.ends_with(w),
                    (g, w) => g == w,
                });
        if !ok {
            return fail_as(
                Kind::Pinned,
                format!(
                    "the transitions of {h}: expected {}, got {}",
                    Value::Array(want),
                    Value::Array(got)
                ),
            );
        }
    }
    Ok(())
}
