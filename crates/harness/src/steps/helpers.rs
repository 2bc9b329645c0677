//! What many steps share: the expectation helpers that record a kind, building and executing
//! against the toolkit, reading its answers, and small text and file utilities.

use std::path::Path;

use serde_json::{json, Value};

use crate::compare::expect::{
    expect_json as json_eq, expect_text as text_eq, snapshot_json as snapshot_eq,
};
use crate::compare::expectation::Kind;
use crate::compare::json_path;
use crate::scenario::state::{fail, fail_as, Env, ScenarioState, StepFailure, StepResult};
use toolnexus_ports::port::{Port, PortError};

pub(super) fn held(
    st: &ScenarioState,
    outcome: Result<String, crate::outcome::failure::Failure>,
) -> StepResult {
    outcome
        .map(|kind| st.record(kind))
        .map_err(StepFailure::failed)
}

pub(super) fn expect_json(st: &ScenarioState, expected: &Value, actual: &Value) -> StepResult {
    held(st, json_eq(expected, actual))
}

pub(super) fn expect_text(st: &ScenarioState, expected: &str, actual: &str) -> StepResult {
    held(st, text_eq(expected, actual))
}

pub(super) fn snapshot_json(
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

pub(super) async fn build(port: &mut dyn Port, st: &mut ScenarioState) -> StepResult {
    if let Some(old) = st.toolkit.take() {
        let _ = port.close(&old).await;
    }
    st.counter += 1;
    let id = format!("tk{}", st.counter);
    let mut options = st.options.clone().unwrap_or_else(|| json!({}));
    with_http_methods(&mut options);
    let started = std::time::Instant::now();
    let r = match port.build(&id, &options).await {
        Err(PortError::Raised(message)) => return fail(raised_build(st, &message)),
        other => other?,
    };
    st.build_ms = Some(started.elapsed().as_millis());
    // `errors` and `skills` are optional (PROTOCOL.md §5.2): the steps that read them skip
    // when they are absent (`derived`).
    for key in ["tools", "names", "statuses"] {
        if r.get(key).is_none() {
            return fail(format!("build response lacks \"{key}\""));
        }
    }
    st.toolkit = Some(id);
    st.built = Some(r);
    Ok(())
}

/// The method an HTTP tool gets when its scenario names none: the protocol's default, not the
/// SPEC's (SPEC §7's `httpTool` lists `method` without a default), so the harness writes it
/// into every `http` block it sends and a driver never has to choose (PROTOCOL.md §7, NOTES
/// #421).
pub(crate) const HTTP_DEFAULT_METHOD: &str = "GET";

/// `options` with `method` set on each `extraTools[].http` block that lacks one.
pub(crate) fn with_http_methods(options: &mut Value) {
    let Some(tools) = options.get_mut("extraTools").and_then(Value::as_array_mut) else {
        return;
    };
    for http in tools
        .iter_mut()
        .filter_map(|t| t.get_mut("http").and_then(Value::as_object_mut))
    {
        http.entry("method")
            .or_insert_with(|| json!(HTTP_DEFAULT_METHOD));
    }
}

/// The failure of a build that answered `raised` (PROTOCOL.md §5.2) where the scenario wants a
/// toolkit: the port's `createToolkit` threw. In a scenario about a failing source (its clause
/// tags end in `isolated`, or it is `@seed-only`, a seed's `:errors` promise) the message names
/// the promise the throw broke: the build survives a failing source.
pub(super) fn raised_build(st: &ScenarioState, message: &str) -> String {
    let clauses: Vec<&str> = st
        .tags
        .iter()
        .filter_map(|t| {
            t.strip_prefix("partial-clause-")
                .or_else(|| t.strip_prefix("clause-"))
        })
        .filter(|id| id.ends_with("isolated"))
        .collect();
    let seeds: Vec<&str> = if crate::scenario::features::is_seed_only(&st.tags) {
        crate::scenario::features::seed_pages(&st.tags)
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
    let message = toolnexus_ports::port::truncate(message, 300);
    if promise.is_empty() {
        format!("the port raised: {message} (its createToolkit threw where the scenario builds a toolkit)")
    } else {
        format!(
            "the port raised: {message} (its createToolkit threw, but the build must survive here: {})",
            promise.join("; ")
        )
    }
}

pub(super) async fn execute(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    name: String,
    args: Value,
    answer: Option<Value>,
) -> StepResult {
    let id = st.toolkit_id()?;
    let started = std::time::Instant::now();
    let result = port.execute(&id, &name, &args, answer.as_ref()).await?;
    record_call(st, name, args, result, started);
    Ok(())
}

/// `execute` with `abortAfterMs` (PROTOCOL.md §5.4): the call's abort signal fires `ms`
/// after it starts.
pub(super) async fn execute_aborted(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    name: String,
    args: Value,
    ms: u64,
) -> StepResult {
    let id = st.toolkit_id()?;
    let started = std::time::Instant::now();
    let result = port.execute_aborted(&id, &name, &args, ms).await?;
    record_call(st, name, args, result, started);
    Ok(())
}

fn record_call(
    st: &mut ScenarioState,
    name: String,
    args: Value,
    result: Value,
    started: std::time::Instant,
) {
    st.call_ms = Some(started.elapsed().as_millis());
    st.last_call = Some((name, args));
    st.answers.push(result.clone());
    st.result = Some(result);
}

pub(super) async fn adapter(
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
pub(super) fn mentioned(st: &ScenarioState, key: &str, what: &str, needle: &str) -> StepResult {
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
pub(super) async fn live_tools(
    port: &mut dyn Port,
    st: &ScenarioState,
) -> Result<Value, StepFailure> {
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

pub(super) fn names(built: &Value) -> Value {
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

pub(super) fn tool<'a>(built: &'a Value, name: &str) -> Option<&'a Value> {
    built
        .get("tools")
        .and_then(Value::as_array)?
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
}

pub(super) fn write_file(path: &Path, bytes: &[u8]) -> StepResult {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .or_else(|e| fail(format!("cannot create {}: {e}", parent.display())))?;
    }
    std::fs::write(path, bytes).or_else(|e| fail(format!("cannot write {}: {e}", path.display())))
}

pub(super) fn escape_ptr(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

pub(super) fn unescape(s: &str) -> String {
    s.replace("\\n", "\n")
        .replace("\\\"", "\"")
        .replace("\\t", "\t")
}

pub(super) fn with_context(e: StepFailure, ctx: &str) -> StepFailure {
    match e {
        StepFailure::Failed(m) => StepFailure::Failed(m.with_note(ctx)),
        other => other,
    }
}

pub(super) async fn skills_prompt(
    port: &mut dyn Port,
    st: &ScenarioState,
) -> Result<String, StepFailure> {
    let id = st.toolkit_id()?;
    Ok(st
        .placeholders
        .normalise_text(&port.skills_prompt(&id).await?))
}

pub(super) fn selection(st: &ScenarioState) -> Result<Value, StepFailure> {
    st.selection
        .clone()
        .ok_or_else(|| StepFailure::Failed("no builtins were selected in this scenario".into()))
}

pub(super) fn is_error(st: &ScenarioState, want: bool) -> StepResult {
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

/// The value at `path` (json_path syntax) in `root`; nothing there fails, naming `what`.
pub(super) fn at_path(root: &Value, path: &str, what: &str) -> Result<Value, StepFailure> {
    match json_path::get(root, path).map_err(StepFailure::failed)? {
        Some(v) => Ok(v.clone()),
        None => fail(format!(
            "{what} has nothing at {path:?}: {}",
            toolnexus_ports::port::truncate(&root.to_string(), 400)
        )),
    }
}

/// Nothing is at `path` in `root` (pinned).
pub(super) fn absent(root: &Value, path: &str, what: &str) -> StepResult {
    match json_path::get(root, path).map_err(StepFailure::failed)? {
        None => Ok(()),
        Some(v) => fail_as(Kind::Pinned, format!("{what} has {v} at {path:?}")),
    }
}

/// A step argument written as inline JSON.
pub(super) fn inline_json(text: &str) -> Result<Value, StepFailure> {
    serde_json::from_str(text.trim())
        .map_err(|e| StepFailure::failed(format!("{text:?} is not JSON ({e})")))
}

/// `actual` (a string, else its JSON text) contains `needle` (lenient).
pub(super) fn contains(actual: &Value, needle: &str) -> StepResult {
    let text = match actual {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.contains(needle) {
        Ok(())
    } else {
        fail_as(
            Kind::Lenient("contains"),
            format!(
                "{} does not contain {needle:?}",
                toolnexus_ports::port::truncate(&text, 400)
            ),
        )
    }
}

/// `actual` is a string matching the regex `pattern` (lenient).
pub(super) fn matches(actual: &Value, pattern: &str) -> StepResult {
    let re = regex::Regex::new(pattern)
        .map_err(|e| StepFailure::failed(format!("bad regex {pattern:?}: {e}")))?;
    match actual.as_str() {
        Some(s) if re.is_match(s) => Ok(()),
        _ => fail_as(
            Kind::Lenient("regex"),
            format!(
                "{} does not match {pattern:?}",
                toolnexus_ports::port::truncate(&actual.to_string(), 400)
            ),
        ),
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
