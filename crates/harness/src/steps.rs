//! The step vocabulary (features/STEPS.md): each Gherkin step maps to protocol requests and
//! comparisons. Both the CLI runner and the cucumber test drive scenarios through `run_step`.

use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::{json, Value};

use super::expect::{expect_json as json_eq, expect_text as text_eq, snapshot_json as snapshot_eq};
use super::features::StepSpec;
use super::port::{Port, PortError};
use super::scenario::{fail, Env, ScenarioState, StepFailure, StepResult};
use super::snapshots;
use super::surroundings;
use super::{mock_launch, secret};
use toolnexus_protocol::error_kind;

fn held(st: &ScenarioState, outcome: Result<String, super::failure::Failure>) -> StepResult {
    outcome
        .map(|kind| st.record(kind))
        .map_err(StepFailure::Failed)
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
) -> StepResult {
    held(st, snapshot_eq(&env.snapshots, name, actual, lenient))
}

macro_rules! steps {
    ($($name:ident => $re:literal,)*) => {
        #[derive(Debug, Clone, Copy, PartialEq)]
        #[allow(non_camel_case_types)]
        enum StepKind { $($name,)* }
        fn table() -> &'static Vec<(StepKind, Regex)> {
            static TABLE: OnceLock<Vec<(StepKind, Regex)>> = OnceLock::new();
            TABLE.get_or_init(|| vec![$((StepKind::$name, Regex::new($re).unwrap_or_else(|e| panic!("bad step regex {}: {e}", $re))),)*])
        }
        /// Every step pattern, for `list --steps` and STEPS.md.
        pub fn patterns() -> Vec<&'static str> { vec![$($re,)*] }
    };
}

steps! {
    FileContaining => r#"^a file "([^"]+)" containing:$"#,
    FileInvalidUtf8 => r#"^a file "([^"]+)" containing invalid UTF-8$"#,
    ManyFiles => r#"^(\d+) files "([^"]+)" containing "(.*)"$"#,
    Directory => r#"^a directory "([^"]+)"$"#,
    Symlink => r#"^a symlink "([^"]+)" pointing to "([^"]+)"$"#,
    HttpServer => r#"^an HTTP server answers:$"#,
    McpHttp => r#"^a mock MCP server over HTTP runs "([^"]+)"$"#,
    A2aAgent => r#"^a mock A2A agent(?: "([^"]+)")? runs "([^"]+)"$"#,
    Record => r#"^the files under "([^"]+)" are recorded$"#,
    Options => r#"^the toolkit options:$"#,
    BuiltWith => r#"^a toolkit built with:$"#,
    BuiltDefault => r#"^a toolkit built with no options$"#,
    Build => r#"^the toolkit is built$"#,
    Execute => r#"^"([^"]+)" is executed$"#,
    ExecuteWith => r#"^"([^"]+)" is executed with:$"#,
    ExecuteAnswer => r#"^the same call is executed again with the answer:$"#,
    Select => r#"^the builtins are selected with:$"#,
    ListSkills => r#"^the skills are listed with:$"#,
    Sanitize => r#"^this value is sanitized:$"#,
    Close => r#"^the toolkit is closed$"#,
    Forgotten => r#"^the toolkit is no longer known to the port$"#,
    ToolNames => r#"^the tool names are:$"#,
    ToolNamesMatch => r#"^the tool names match:$"#,
    SortedNames => r#"^the sorted tool names are:$"#,
    ToolCount => r#"^the toolkit has (\d+) tools$"#,
    HasTool => r#"^the toolkit has the tool "([^"]+)"$"#,
    HasNoTool => r#"^the toolkit has no tool "([^"]+)"$"#,
    ToolSource => r#"^the tool "([^"]+)" has source "([^"]+)"$"#,
    ToolMatches => r#"^the tool "([^"]+)" matches:$"#,
    IsError => r#"^the result is an error$"#,
    NotError => r#"^the result is not an error$"#,
    OutputIs => r#"^the output is:$"#,
    OutputIsInline => r#"^the output is "(.*)"$"#,
    OutputContains => r#"^the output contains "(.*)"$"#,
    OutputLacks => r#"^the output does not contain "(.*)"$"#,
    OutputRegex => r#"^the output matches:$"#,
    OutputSnapshot => r#"^the output matches snapshot "([^"]+)"$"#,
    OutputJson => r#"^the output parses as JSON matching:$"#,
    ResultMatches => r#"^the result matches:$"#,
    Suspends => r#"^the result suspends with a "([^"]+)" request$"#,
    PromptIs => r#"^the skills prompt is:$"#,
    PromptMatches => r#"^the skills prompt matches:$"#,
    PromptSnapshot => r#"^the skills prompt matches snapshot "([^"]+)"$"#,
    PromptLacks => r#"^the skills prompt does not mention "([^"]+)"$"#,
    AdapterMatches => r#"^the "(openai|anthropic|gemini)" adapter output matches:$"#,
    AdapterSnapshot => r#"^the "(openai|anthropic|gemini)" adapter output matches snapshot "([^"]+)"( ignoring builtin descriptions)?$"#,
    AdapterOrder => r#"^the three adapters list the tools in the toolkit's order$"#,
    StatusIs => r#"^the status of "([^"]+)" is "([^"]+)"$"#,
    NoStatus => r#"^there is no status for "([^"]+)"$"#,
    NoErrors => r#"^there are no errors$"#,
    ErrorMentions => r#"^an error mentions "([^"]+)"$"#,
    ErrorFor => r#"^the error for "([^"]+)" mentions "([^"]+)"$"#,
    WarningMentions => r#"^a warning mentions "([^"]+)"$"#,
    CatalogNames => r#"^the skill catalog names are:$"#,
    SelectedNames => r#"^the selected builtin names are:$"#,
    SelectedMatch => r#"^the selected builtins match:$"#,
    SelectedSnapshot => r#"^the selected builtins match snapshot "([^"]+)" ignoring builtin descriptions$"#,
    InventoryMatches => r#"^the skill inventory matches:$"#,
    SanitizedIs => r#"^the sanitized value is "(.*)"$"#,
    FileNow => r#"^the file "([^"]+)" now contains:$"#,
    FileAbsent => r#"^the file "([^"]+)" does not exist$"#,
    Unchanged => r#"^the files under "([^"]+)" are unchanged$"#,
    ProcessGone => r#"^the process whose pid is in "([^"]+)" is gone$"#,
    BuildTook => r#"^the build took less than (\d+) ms$"#,
    CallTook => r#"^the call took less than (\d+) ms$"#,
    HttpReceived => r#"^the HTTP server's last request matches:$"#,
    ListMcp => r#"^the MCP tools are listed with:$"#,
    McpInventory => r#"^the MCP inventory matches:$"#,
    NoSecret => r#"^nothing the port reported mentions the secret$"#,
}

/// Runs one step against `port`.
pub async fn run_step(
    port: &mut dyn Port,
    env: &Env,
    st: &mut ScenarioState,
    step: &StepSpec,
) -> StepResult {
    let Some((kind, caps)) = table()
        .iter()
        .find_map(|(k, re)| re.captures(&step.text).map(|c| (*k, c)))
    else {
        return fail(format!(
            "unknown step `{}` (see features/STEPS.md)",
            step.text
        ));
    };
    dispatch(port, env, st, step, kind, &caps).await?;
    // Checks that compare without the expectation helpers still say what kind they were.
    use StepKind::*;
    match kind {
        ErrorMentions | ErrorFor | WarningMentions => st.record("lenient (contains)"),
        ToolCount | HasTool | HasNoTool | IsError | NotError | Suspends | NoStatus | NoErrors
        | SanitizedIs | PromptLacks | OutputLacks | Forgotten | FileAbsent | Unchanged
        | ProcessGone | NoSecret => st.record("pinned"),
        BuildTook | CallTook => st.record("bound"),
        _ => {}
    }
    Ok(())
}

async fn dispatch(
    port: &mut dyn Port,
    env: &Env,
    st: &mut ScenarioState,
    step: &StepSpec,
    kind: StepKind,
    caps: &regex::Captures<'_>,
) -> StepResult {
    let arg = |i: usize| {
        caps.get(i)
            .map(|m| m.as_str().to_string())
            .unwrap_or_default()
    };
    use StepKind::*;
    match kind {
        FileContaining => {
            let path = st.path(&arg(1))?;
            let body = st.expand(&st.raw_doc(step)?)?;
            write_file(&path, body.as_bytes())
        }
        FileInvalidUtf8 => {
            let path = st.path(&arg(1))?;
            write_file(&path, b"---\nname: bad\xff\xfe\n---\nbody \xc3\x28\n")
        }
        ManyFiles => {
            // `{n}` in the name becomes 001, 002, … so the files sort in creation order.
            let count = arg(1).parse::<usize>().unwrap_or(0);
            let text = unescape(&arg(3));
            for n in 1..=count {
                let path = st.path(&arg(2).replace("{n}", &format!("{n:03}")))?;
                write_file(&path, text.as_bytes())?;
            }
            Ok(())
        }
        Directory => {
            let path = st.path(&arg(1))?;
            std::fs::create_dir_all(&path)
                .or_else(|e| fail(format!("cannot create {}: {e}", path.display())))
        }
        Symlink => {
            let link = st.path(&arg(1))?;
            let target = st.path(&arg(2))?;
            if let Some(parent) = link.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            std::os::unix::fs::symlink(&target, &link)
                .or_else(|e| fail(format!("cannot symlink {}: {e}", link.display())))
        }
        HttpServer => {
            let routes = st.json_doc(step)?;
            let server = surroundings::http_server(&routes)
                .await
                .map_err(StepFailure::failed)?;
            st.placeholders.add_text("{{HTTP}}", &server.uri());
            st.http = Some(server);
            Ok(())
        }
        McpHttp => {
            let scenario = env.mocks.join(arg(1));
            let mock = mock_launch::mcp_http(&env.mock_bin, &scenario)
                .await
                .map_err(StepFailure::failed)?;
            st.placeholders.add_text("{{MCP_URL}}", &mock.url);
            st.mocks.push(mock);
            Ok(())
        }
        BuildTook => {
            let bound: u128 = arg(1).parse().unwrap_or(0);
            match st.build_ms {
                Some(ms) if ms < bound => Ok(()),
                Some(ms) => fail(format!(
                    "[bound] the build took {ms} ms, more than {bound} ms"
                )),
                None => fail("no toolkit has been built in this scenario"),
            }
        }
        A2aAgent => {
            let scenario = env.mocks.join("a2a").join(arg(2));
            let agent = mock_launch::a2a(&env.mock_bin, &scenario)
                .await
                .map_err(StepFailure::failed)?;
            let placeholder = match caps.get(1) {
                Some(name) => format!("{{{{A2A:{}}}}}", name.as_str()),
                None => "{{A2A}}".to_string(),
            };
            st.placeholders.add_text(&placeholder, &agent.url);
            st.mocks.push(agent);
            Ok(())
        }
        CallTook => {
            let bound: u128 = arg(1).parse().unwrap_or(0);
            match st.call_ms {
                Some(ms) if ms < bound => Ok(()),
                Some(ms) => fail(format!(
                    "[bound] the call took {ms} ms, more than {bound} ms"
                )),
                None => fail("no tool has been executed in this scenario"),
            }
        }
        HttpReceived => {
            let expected = st.expect_doc(step)?;
            let server = st.http.as_ref().ok_or_else(|| {
                StepFailure::Failed("no HTTP server runs in this scenario".into())
            })?;
            let last = surroundings::last_request(server)
                .await
                .ok_or_else(|| StepFailure::Failed("the HTTP server received no request".into()))?;
            expect_json(st, &expected, &st.norm(&last))
        }
        ListMcp => {
            let config = st.json_doc(step)?;
            let inventory = port.list_mcp_tools(&config).await?;
            st.mcp_inventory = Some(inventory);
            Ok(())
        }
        McpInventory => {
            let expected = st.expect_doc(step)?;
            let actual = st
                .mcp_inventory
                .clone()
                .ok_or_else(|| StepFailure::Failed("no MCP tools have been listed".into()))?;
            expect_json(st, &expected, &st.norm(&actual))
        }
        NoSecret => {
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
                fail(format!(
                    "[pinned] the secret appears in {}",
                    leaks.join(", ")
                ))
            }
        }
        Record => {
            let dir = st.path(&arg(1))?;
            let tree = surroundings::record_tree(&dir).map_err(StepFailure::failed)?;
            st.recorded = Some((dir, tree));
            Ok(())
        }
        Options => {
            st.options = Some(st.json_doc(step)?);
            Ok(())
        }
        BuiltWith => {
            st.options = Some(st.json_doc(step)?);
            build(port, st).await
        }
        BuiltDefault => {
            st.options = Some(json!({}));
            build(port, st).await
        }
        Build => build(port, st).await,
        Execute => execute(port, st, arg(1), json!({}), None).await,
        ExecuteWith => {
            let args = st.json_doc(step)?;
            execute(port, st, arg(1), args, None).await
        }
        ExecuteAnswer => {
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
        }
        Select => {
            let config = st.json_doc(step)?;
            st.selection = Some(port.select_builtins(&config).await?);
            Ok(())
        }
        ListSkills => {
            let options = st.json_doc(step)?;
            let inventory = port.list_skills(&options).await?;
            st.inventory = Some(st.norm(&inventory));
            Ok(())
        }
        Sanitize => {
            let value = st.raw_doc(step)?;
            st.sanitized = Some(port.sanitize(&value).await?);
            Ok(())
        }
        Close => {
            let id = st.toolkit_id()?;
            port.close(&id).await?;
            Ok(())
        }
        ToolNames | ToolNamesMatch => {
            let listed = live_tools(port, st).await?;
            expect_json(st, &st.expect_doc(step)?, &names(&listed))
        }
        SortedNames => {
            let actual = st.built()?.get("names").cloned().unwrap_or(Value::Null);
            expect_json(st, &st.expect_doc(step)?, &actual)
        }
        ToolCount => {
            let listed = live_tools(port, st).await?;
            let n = arg(1).parse::<usize>().unwrap_or(0);
            let got = names(&listed).as_array().map_or(0, Vec::len);
            if got == n {
                Ok(())
            } else {
                fail(format!("expected {n} tools, got {got}: {}", names(&listed)))
            }
        }
        HasTool | HasNoTool => {
            let listed = live_tools(port, st).await?;
            let name = arg(1);
            let present = tool(&listed, &name).is_some();
            match (kind == HasTool, present) {
                (true, false) => fail(format!("no tool \"{name}\"; tools: {}", names(&listed))),
                (false, true) => fail(format!("tool \"{name}\" is present but should not be")),
                _ => Ok(()),
            }
        }
        ToolSource => {
            let listed = live_tools(port, st).await?;
            let name = arg(1);
            let t = tool(&listed, &name)
                .ok_or_else(|| StepFailure::failed(format!("no tool \"{name}\"")))?;
            expect_json(st, &json!(arg(2)), t.get("source").unwrap_or(&Value::Null))
        }
        ToolMatches => {
            let listed = live_tools(port, st).await?;
            let name = arg(1);
            let t = tool(&listed, &name)
                .ok_or_else(|| StepFailure::failed(format!("no tool \"{name}\"")))?;
            let actual = st.norm(t);
            expect_json(st, &st.expect_doc(step)?, &actual)
        }
        Forgotten => {
            let id = st.toolkit_id()?;
            match port.tools(&id).await {
                Err(PortError::Driver { kind, .. }) if kind == error_kind::UNKNOWN_TOOLKIT => {
                    Ok(())
                }
                Err(PortError::Transport(m)) => fail(m),
                other => fail(format!(
                    "after close, `tools` for \"{id}\" should answer unknown_toolkit, got {other:?}"
                )),
            }
        }
        IsError | NotError => {
            let is_error = st.result()?.get("isError").and_then(Value::as_bool);
            let want = kind == IsError;
            if is_error == Some(want) {
                Ok(())
            } else {
                fail(format!(
                    "expected isError={want}, got result {}",
                    st.norm(st.result()?)
                ))
            }
        }
        OutputIs => expect_text(st, &st.raw_doc(step)?, &st.output()?),
        OutputIsInline => expect_text(st, &unescape(&arg(1)), &st.output()?),
        OutputContains => expect_json(
            st,
            &json!({"$contains": unescape(&arg(1))}),
            &json!(st.output()?),
        ),
        OutputRegex => expect_json(
            st,
            &json!({"$regex": st.raw_doc(step)?.trim()}),
            &json!(st.output()?),
        ),
        OutputSnapshot => {
            let body = snapshots::body(&env.snapshots, &arg(1)).map_err(StepFailure::failed)?;
            expect_text(st, &body, &st.output()?)
        }
        OutputJson => {
            let out = st.output()?;
            let parsed: Value = serde_json::from_str(&out)
                .map_err(|e| StepFailure::failed(format!("output is not JSON ({e}): {out:?}")))?;
            expect_json(st, &st.expect_doc(step)?, &parsed)
        }
        ResultMatches => {
            let actual = st.norm(st.result()?);
            expect_json(st, &st.expect_doc(step)?, &actual)
        }
        Suspends => {
            let r = st.result()?;
            let pending = r.pointer("/metadata/pending");
            let kind_of = pending.and_then(|p| p.get("kind")).and_then(Value::as_str);
            match (pending, kind_of) {
                (Some(p), Some(k)) if k == arg(1) && p.get("id").is_some_and(Value::is_string) => Ok(()),
                _ => fail(format!("expected a suspension with metadata.pending.kind \"{}\" and a string id, got {}", arg(1), st.norm(r))),
            }
        }
        PromptIs | PromptMatches | PromptSnapshot | PromptLacks => {
            let id = st.toolkit_id()?;
            let prompt = st
                .placeholders
                .normalise_text(&port.skills_prompt(&id).await?);
            match kind {
                PromptIs => expect_text(st, &st.raw_doc(step)?, &prompt),
                PromptMatches => expect_json(st, &st.expect_doc(step)?, &json!(prompt)),
                PromptLacks if prompt.contains(&arg(1)) => fail(format!(
                    "the skills prompt mentions \"{}\": {prompt:?}",
                    arg(1)
                )),
                PromptLacks => Ok(()),
                _ => expect_text(
                    st,
                    &snapshots::body(&env.snapshots, &arg(1)).map_err(StepFailure::failed)?,
                    &prompt,
                ),
            }
        }
        AdapterMatches | AdapterSnapshot => {
            let actual = adapter(port, st, &arg(1)).await?;
            if kind == AdapterMatches {
                return expect_json(st, &st.expect_doc(step)?, &actual);
            }
            snapshot_json(st, env, &arg(2), &actual, !arg(3).is_empty())
        }
        AdapterOrder => {
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
        }
        StatusIs => {
            let actual = st
                .built()?
                .pointer(&format!("/statuses/{}", escape_ptr(&arg(1))))
                .cloned()
                .unwrap_or(Value::Null);
            expect_json(st, &json!(arg(2)), &actual).map_err(|e| {
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
        }
        NoStatus => match st
            .built()?
            .pointer(&format!("/statuses/{}", escape_ptr(&arg(1))))
        {
            Some(v) => fail(format!("expected no status for \"{}\", got {v}", arg(1))),
            None => Ok(()),
        },
        NoErrors => {
            let errors = st.built()?.get("errors").cloned().unwrap_or(json!({}));
            if errors.as_object().is_some_and(|m| m.is_empty()) {
                Ok(())
            } else {
                fail(format!("expected no errors, got {}", st.norm(&errors)))
            }
        }
        ErrorMentions => mentioned(st, "errors", "error", &arg(1)),
        WarningMentions => mentioned(st, "warnings", "warning", &arg(1)),
        OutputLacks => {
            let out = st.output()?;
            if out.contains(&unescape(&arg(1))) {
                fail(format!(
                    "[pinned] the output contains {:?}: {out:?}",
                    arg(1)
                ))
            } else {
                Ok(())
            }
        }
        ErrorFor => {
            let errors = st.norm(&st.built()?.get("errors").cloned().unwrap_or(json!({})));
            match errors.get(arg(1)).and_then(Value::as_str) {
                Some(text) if text.contains(&arg(2)) => Ok(()),
                _ => fail(format!("[lenient (contains)] expected an error for \"{}\" mentioning \"{}\"; errors: {errors}", arg(1), arg(2))),
            }
        }
        CatalogNames => {
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
        }
        SelectedNames | SelectedMatch | SelectedSnapshot => {
            let sel = st.selection.clone().ok_or_else(|| {
                StepFailure::Failed("no builtins were selected in this scenario".into())
            })?;
            match kind {
                SelectedNames => {
                    let names: Value = sel
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .map(|t| t.get("name").cloned().unwrap_or(Value::Null))
                                .collect()
                        })
                        .unwrap_or_default();
                    expect_json(st, &st.expect_doc(step)?, &names)
                }
                SelectedMatch => expect_json(st, &st.expect_doc(step)?, &sel),
                _ => snapshot_json(st, env, &arg(1), &sel, true),
            }
        }
        InventoryMatches => {
            let inv = st.inventory.clone().ok_or_else(|| {
                StepFailure::Failed("no skills were listed in this scenario".into())
            })?;
            expect_json(st, &st.expect_doc(step)?, &inv)
        }
        FileNow => {
            let path = st.path(&arg(1))?;
            let bytes = std::fs::read(&path)
                .map_err(|e| StepFailure::failed(format!("cannot read {}: {e}", path.display())))?;
            expect_text(st, &st.raw_doc(step)?, &String::from_utf8_lossy(&bytes))
        }
        FileAbsent => {
            let path = st.path(&arg(1))?;
            if path.symlink_metadata().is_ok() {
                fail(format!(
                    "{} exists",
                    st.placeholders.normalise_text(&path.to_string_lossy())
                ))
            } else {
                Ok(())
            }
        }
        Unchanged => {
            let dir = st.path(&arg(1))?;
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
                Some(d) => fail(format!("[pinned] files changed: {d}")),
            }
        }
        ProcessGone => {
            let path = st.path(&arg(1))?;
            // Polling sleeps; on a blocking thread it cannot stall other scenarios' timers.
            let within = std::time::Duration::from_secs(3);
            tokio::task::spawn_blocking(move || surroundings::process_gone(&path, within))
                .await
                .unwrap_or_else(|e| Err(format!("the process check failed: {e}")))
                .map_err(StepFailure::failed)
        }
        SanitizedIs => match &st.sanitized {
            Some(v) if *v == unescape(&arg(1)) => Ok(()),
            other => fail(format!(
                "[pinned] expected sanitized value {:?}, got {other:?}",
                unescape(&arg(1))
            )),
        },
    }
}

/// Ends a scenario: closes its toolkits so nothing is left running in the port.
pub async fn finish(port: &mut dyn Port, st: &mut ScenarioState) {
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
    let r = port.build(&id, &options).await?;
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
        fail(format!(
            "[lenient (contains)] no {what} mentions \"{needle}\"; {key}: {found_in}"
        ))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// STEPS.md is the contract other runners implement; every pattern must be on it.
    #[test]
    fn steps_doc_lists_every_step() {
        let doc = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../features/STEPS.md"
        ))
        .unwrap_or_default();
        let squash = |s: &str| s.replace(['"', '`'], "");
        let doc = squash(&doc);
        for pattern in patterns() {
            let lead: String = pattern
                .trim_start_matches('^')
                .chars()
                .take_while(|c| !matches!(c, '(' | '$' | '"' | ':'))
                .collect();
            assert!(
                doc.contains(lead.trim()),
                "STEPS.md does not document `{pattern}` (looked for {lead:?})"
            );
        }
    }
}
