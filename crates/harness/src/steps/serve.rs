//! The §7B / §7C serve steps (PROTOCOL.md §5.23–§5.25): serving a toolkit, then being its
//! peers — an A2A client posting JSON-RPC and polling tasks, an MCP client (rmcp over
//! streamable HTTP) listing and calling tools — and reading what the host callbacks saw.
//! Every network wait is bounded; the observed lists (`onTask`, …) reuse the client steps'
//! list checks.

use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use toolnexus_protocol::{Command, Request};

use super::helpers::{absent, at_path, contains, expect_json, inline_json};
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, fail_as, ScenarioState, StepFailure, StepResult};
use crate::steps::StepCtx;
use toolnexus_ports::port::{self, truncate};

/// What the serve steps (PROTOCOL.md §5.23–§5.25) accumulate: the handles, the last HTTP
/// answers of the scenario's A2A peer and MCP client, and the last `serve_records`.
#[derive(Default)]
pub(crate) struct ServeState {
    /// Each handle id with its base URL (one trailing `/` stripped).
    pub(crate) handles: Vec<(String, String)>,
    /// The handle the last serve step named (the default for later steps).
    pub(crate) current: Option<String>,
    /// The last A2A request body sent, its HTTP status and its answer (JSON, else a string).
    pub(crate) a2a: Option<(Value, u16, Value)>,
    /// The task id of the last `SendMessage` answer.
    pub(crate) task: Option<String>,
    /// How many `SendMessage` answers carried a task id (`{{TASK:n}}` numbers them).
    pub(crate) tasks: u32,
    /// The JSON-RPC ids the A2A peer numbers its requests with.
    pub(crate) rpc_ids: u64,
    /// The connected MCP client and the handle it is connected to.
    pub(crate) mcp: Option<(String, rmcp::service::RunningService<rmcp::RoleClient, ()>)>,
    /// What `initialize` answered: `{protocolVersion, capabilities, serverInfo, …}`.
    pub(crate) mcp_init: Option<Value>,
    /// The last MCP answer: a `tools/list` (`{"tools": […]}`), a `CallToolResult`, or
    /// `{"error": {"code", "message"}}`.
    pub(crate) mcp_answer: Option<Value>,
    /// The HTTP status of the last raw post to `/mcp`.
    pub(crate) mcp_status: Option<u16>,
    /// The last `serve_records` answer.
    pub(crate) records: Option<Value>,
}

/// The serve lists of `serve_records` (§5.25), read by the client steps' list checks.
pub(super) const SERVE_LISTS: [&str; 4] = ["onTask", "onCall", "storeCalls", "toolCancels"];

/// How long one HTTP exchange with a served toolkit may take.
const HTTP_BOUND: Duration = Duration::from_secs(10);
/// How long polling (a task's state, a records list) may take.
const POLL_BOUND: Duration = Duration::from_secs(15);
/// The pause between two polls.
const POLL_EVERY: Duration = Duration::from_millis(50);
/// The MCP protocol version raw posts announce (the rmcp client negotiates its own).
const RAW_MCP_VERSION: &str = "2025-06-18";

step! {
    toolkit_tk_served_id: Setup, r#"^the toolkit(?: "(?P<TK>[^"]+)")? is served as "(?P<ID>[^"]+)"(?: with:)?$"# + "JSON `serve` fields (`client`, `a2a`, `mcp`, `onTask`, `onCall`), optional",
    "`serve` (the built toolkit unless named; `client` defaults to the current client, if any); `{{SERVE:ID}}` is the answered `url` minus one trailing `/`, and the handle is the one later steps use",
    |StepCtx { port, st, step, arg, .. }| {
        let mut request = match step.docstring {
            Some(_) => st.json_doc(step)?,
            None => json!({}),
        };
        if !request.is_object() {
            return fail("the serve doc string must be a JSON object");
        }
        let toolkit = match arg.opt(1) {
            Some(tk) => tk.to_string(),
            None => st.toolkit_id()?,
        };
        let id = arg.at(2);
        if request.get("client").is_none() {
            if let Some(client) = &st.client {
                request["client"] = json!(client);
            }
        }
        let Value::Object(mut fields) = request else {
            return fail("the serve doc string must be a JSON object");
        };
        fields.insert("id".into(), json!(id));
        fields.insert("toolkit".into(), json!(toolkit));
        let (answer, _) = port::send_object(port, Command::Serve, fields).await?;
        let Some(url) = answer.get("url").and_then(Value::as_str) else {
            return fail_as(Kind::Pinned, format!("the serve answer has no string `url`: {answer}"));
        };
        let base = url.strip_suffix('/').unwrap_or(url).to_string();
        if !base.starts_with("http://") && !base.starts_with("https://") {
            return fail_as(Kind::Pinned, format!("the serve url {url:?} is not an http(s) URL"));
        }
        st.placeholders.add_text(&format!("{{{{SERVE:{id}}}}}"), &base);
        st.areas.get_mut::<ServeState>().handles.retain(|(h, _)| *h != id);
        st.areas.get_mut::<ServeState>().handles.push((id.clone(), base));
        st.areas.get_mut::<ServeState>().current = Some(id);
        Ok(())
    }
}

step! {
    a2a_peer_gets_path_from_id: Actions, r#"^the A2A peer gets "(?P<PATH>[^"]*)"(?: from "(?P<ID>[^"]+)")?$"#,
    "HTTP GET of PATH on the served handle; keeps the status and the answer (JSON, else text)",
    |StepCtx { st, arg, .. }| {
        let base = base_url(st, arg.opt(2))?;
        let response = http()?.get(format!("{base}{}", arg.at(1))).send().await;
        let (status, body) = read_answer(response, "GET").await?;
        st.areas.get_mut::<ServeState>().a2a = Some((Value::Null, status, body));
        Ok(())
    }
}

step! {
    a2a_peer_sends_message_text_context_ctx: Actions, r#"^the A2A peer sends the message "(?P<TEXT>[^"]*)"(?: in context "(?P<CTX>[^"]+)")?(?: to "(?P<ID>[^"]+)")?$"#,
    "JSON-RPC `SendMessage` (one text part; `contextId` when given) to `POST /`; remembers the answered `result.id`, which the n-th message's placeholder `{{TASK:n}}` stands for",
    |StepCtx { st, arg, .. }| {
        let mut message = json!({"role": "user", "kind": "message",
            "messageId": format!("msg-{}", st.areas.get_mut::<ServeState>().rpc_ids + 1),
            "parts": [{"kind": "text", "text": arg.at(1)}]});
        if let Some(ctx) = arg.opt(2) {
            message["contextId"] = json!(ctx);
        }
        rpc(st, arg.opt(3), "SendMessage", json!({"message": message})).await?;
        let id = st.areas.get_mut::<ServeState>().a2a.as_ref()
            .and_then(|(_, _, answer)| answer.pointer("/result/id"))
            .and_then(Value::as_str).map(str::to_string);
        if let Some(id) = id {
            st.areas.get_mut::<ServeState>().tasks += 1;
            st.placeholders.add_text(&format!("{{{{TASK:{}}}}}", st.areas.get_mut::<ServeState>().tasks), &id);
            st.areas.get_mut::<ServeState>().task = Some(id);
        }
        Ok(())
    }
}

step! {
    a2a_peer_asks_task_task: Actions, r#"^the A2A peer asks for the task(?: "(?P<TASK>[^"]*)")?$"#,
    "JSON-RPC `GetTask` for TASK (placeholders expanded: `{{TASK:1}}`), else the task the last `SendMessage` answered",
    |StepCtx { st, arg, .. }| {
        let id = match arg.opt(1) {
            Some(t) => st.expand(t)?,
            None => task_id(st)?,
        };
        rpc(st, None, "GetTask", json!({"id": id})).await
    }
}

step! {
    a2a_peer_polls_task_until_leaves_submitted: Actions, r#"^the A2A peer polls the task until it leaves submitted/working$"#,
    "`GetTask` for the remembered task every 50 ms until its `status.state` is neither `submitted` nor `working` (at most 15 s; fails with the last state seen)",
    |StepCtx { st, .. }| {
        let id = task_id(st)?;
        let started = std::time::Instant::now();
        loop {
            rpc(st, None, "GetTask", json!({"id": id})).await?;
            let answer = st.areas.get_mut::<ServeState>().a2a.as_ref().map(|(_, _, a)| a.clone()).unwrap_or(Value::Null);
            if answer.get("error").is_some() {
                return fail_as(Kind::Pinned, format!("GetTask {id} answered an error while polling: {}",
                    truncate(&st.norm(&answer).to_string(), 400)));
            }
            let state = answer.pointer("/result/status/state").and_then(Value::as_str).unwrap_or("");
            if state.is_empty() {
                return fail_as(Kind::Pinned, format!("GetTask {id} answered no result.status.state: {}",
                    truncate(&st.norm(&answer).to_string(), 400)));
            }
            if state != "submitted" && state != "working" {
                return Ok(());
            }
            if started.elapsed() > POLL_BOUND {
                return fail_as(Kind::UpperBound, format!("task {id} is still {state:?} after {} s", POLL_BOUND.as_secs()));
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
    }
}

step! {
    a2a_peer_calls_method: Actions, r#"^the A2A peer calls "(?P<METHOD>[^"]+)" with:$"# + "JSON params",
    "a JSON-RPC request with that method and params to `POST /`",
    |StepCtx { st, step, arg, .. }| {
        let params = st.json_doc(step)?;
        rpc(st, None, &arg.at(1), params).await
    }
}

step! {
    a2a_peer_posts_raw_body: Actions, r#"^the A2A peer posts the raw body:$"# + "text",
    "POSTs the text as is (`content-type: application/json`) to `POST /`",
    |StepCtx { st, step, .. }| {
        let body = st.expand(&st.raw_doc(step)?)?;
        let base = base_url(st, None)?;
        let response = http()?.post(format!("{base}/"))
            .header("content-type", "application/json").body(body.clone()).send().await;
        let (status, answer) = read_answer(response, "POST /").await?;
        let sent = serde_json::from_str(&body).unwrap_or(Value::String(body));
        st.areas.get_mut::<ServeState>().a2a = Some((sent, status, answer));
        Ok(())
    }
}

step! {
    mcp_client_connects_id: Actions, r#"^an MCP client connects to "(?P<ID>[^"]+)"$"#,
    "the rmcp client `initialize`s over streamable HTTP at `<url>/mcp` (10 s bound); keeps the server's answer",
    |StepCtx { st, arg, .. }| {
        let id = arg.at(1);
        let base = base_url(st, Some(&id))?;
        toolnexus_ports::tls::install_provider();
        let transport = StreamableHttpClientTransport::from_uri(format!("{base}/mcp"));
        let service = match tokio::time::timeout(HTTP_BOUND, ().serve(transport)).await {
            Err(_) => return fail_as(Kind::UpperBound, format!("initialize at {base}/mcp took over {} s", HTTP_BOUND.as_secs())),
            Ok(Err(e)) => return fail_as(Kind::Pinned, format!("the MCP client could not initialize at {}/mcp: {e}",
                st.placeholders.normalise_text(&base))),
            Ok(Ok(s)) => s,
        };
        let info = service.peer_info().map(|i| serde_json::to_value(&*i).unwrap_or(Value::Null));
        st.areas.get_mut::<ServeState>().mcp_init = info;
        st.areas.get_mut::<ServeState>().mcp = Some((id, service));
        Ok(())
    }
}

step! {
    mcp_client_lists_tools: Actions, r#"^the MCP client lists the tools$"#,
    "`tools/list` (every page); the answer is `{\"tools\": […]}`",
    |StepCtx { st, .. }| {
        let peer = mcp_peer(st)?;
        let answer = match tokio::time::timeout(HTTP_BOUND, peer.list_all_tools()).await {
            Err(_) => return fail_as(Kind::UpperBound, "tools/list took over 10 s"),
            Ok(Err(e)) => mcp_error(e)?,
            Ok(Ok(tools)) => json!({"tools": serde_json::to_value(tools).unwrap_or(Value::Null)}),
        };
        st.areas.get_mut::<ServeState>().mcp_answer = Some(answer);
        Ok(())
    }
}

step! {
    mcp_client_calls_name: Actions, r#"^the MCP client calls "(?P<NAME>[^"]+)"(?: with:)?$"# + "JSON arguments, optional",
    "`tools/call`; the answer is the `CallToolResult` or `{\"error\": {code, message}}`",
    |StepCtx { st, step, arg, .. }| {
        let args = match step.docstring {
            Some(_) => st.json_doc(step)?,
            None => json!({}),
        };
        let Value::Object(args) = args else {
            return fail("the tool arguments must be a JSON object");
        };
        let peer = mcp_peer(st)?;
        let params = CallToolRequestParams::new(arg.at(1)).with_arguments(args);
        let answer = match tokio::time::timeout(HTTP_BOUND, peer.call_tool(params)).await {
            Err(_) => return fail_as(Kind::UpperBound, "tools/call took over 10 s"),
            Ok(Err(e)) => mcp_error(e)?,
            Ok(Ok(result)) => serde_json::to_value(result).unwrap_or(Value::Null),
        };
        st.areas.get_mut::<ServeState>().mcp_answer = Some(answer);
        Ok(())
    }
}

step! {
    mcp_client_calls_name_abandons_after_ms: Actions, r#"^the MCP client calls "(?P<NAME>[^"]+)" and abandons it after (?P<MS>\d+) ms$"#,
    "a raw stateless `tools/call` POST to `<url>/mcp`, dropped (connection closed) after MS ms, then `notifications/cancelled` for its id",
    |StepCtx { st, arg, .. }| {
        let base = base_url(st, None)?;
        let ms: u64 = arg.at(2).parse().unwrap_or(500);
        let call = json!({"jsonrpc": "2.0", "id": 9001, "method": "tools/call",
            "params": {"name": arg.at(1), "arguments": {}}});
        let client = http()?;
        let post = async {
            let response = mcp_post(&client, &base, &call).send().await;
            match response {
                Ok(r) => r.text().await.map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            }
        };
        if let Ok(done) = tokio::time::timeout(Duration::from_millis(ms), post).await {
            return fail_as(Kind::Pinned, format!("the call finished before it was abandoned after {ms} ms: {}",
                truncate(&format!("{done:?}"), 300)));
        }
        // The dropped future closed the connection; a stateful server hears this too.
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 9001, "reason": "abandoned by the harness"}});
        let _ = mcp_post(&client, &base, &cancel).send().await;
        Ok(())
    }
}

step! {
    mcp_client_posts_raw_body: Actions, r#"^the MCP client posts the raw body:$"# + "text",
    "POSTs the text as is to `<url>/mcp` (JSON and SSE accepted); the answer is the first JSON-RPC message, else `{\"status\": N}`",
    |StepCtx { st, step, .. }| {
        let body = st.expand(&st.raw_doc(step)?)?;
        let base = base_url(st, None)?;
        let client = http()?;
        let response = mcp_post(&client, &base, &Value::Null).body(body).send().await;
        let (status, answer) = read_answer(response, "POST /mcp").await?;
        st.areas.get_mut::<ServeState>().mcp_status = Some(status);
        st.areas.get_mut::<ServeState>().mcp_answer = Some(match answer {
            Value::String(text) => first_sse_message(&text).unwrap_or(json!({"status": status})),
            Value::Null => json!({"status": status}),
            other => other,
        });
        Ok(())
    }
}

step! {
    id_stopped: Actions, r#"^"(?P<ID>[^"]+)" is stopped$"#,
    "`serve_stop`",
    |StepCtx { port, arg, .. }| {
        port::send(port, Request::ServeStop { serve: arg.at(1) }).await?;
        Ok(())
    }
}

step! {
    serve_records_id_read_once_list_n: Actions, r#"^the serve records(?: of "(?P<ID>[^"]+)")? are read(?: once (?P<LIST>onTask|onCall|storeCalls|toolCancels) has (?P<N>\d+) entries)?$"#,
    "`serve_records`; with `once LIST has N entries` it asks again every 50 ms until LIST has at least N (at most 15 s: callbacks may fire after the answer they follow)",
    |StepCtx { port, st, arg, .. }| {
        let id = match arg.opt(1) {
            Some(id) => id.to_string(),
            None => st.areas.get_mut::<ServeState>().current.clone().ok_or_else(|| StepFailure::failed("nothing has been served in this scenario"))?,
        };
        let want: usize = arg.opt(3).and_then(|n| n.parse().ok()).unwrap_or(0);
        let list = arg.at(2);
        let started = std::time::Instant::now();
        loop {
            let (answer, _) = port::send(port, Request::ServeRecords { serve: id.clone() }).await?;
            let have = answer.get(&list).and_then(Value::as_array).map_or(0, Vec::len);
            st.areas.get_mut::<ServeState>().records = Some(answer);
            if list.is_empty() || have >= want {
                return Ok(());
            }
            if started.elapsed() > POLL_BOUND {
                return fail_as(Kind::UpperBound, format!("{list} has {have} entries after {} s, not {want}", POLL_BOUND.as_secs()));
            }
            tokio::time::sleep(POLL_EVERY).await;
        }
    }
}

step! {
    a2a_status_n: Expectations, r#"^the A2A status is (?P<N>\d+)$"#,
    "the HTTP status of the A2A peer's last request",
    |StepCtx { st, arg, .. }| {
        let (_, status, _) = a2a_answer(st)?;
        let want: u16 = arg.at(1).parse().unwrap_or(0);
        expect_json(st, &json!(want), &json!(status))
    }
}

step! {
    a2a_answer_at_path: Expectations, r#"^the A2A answer at "(?P<PATH>[^"]*)" is:$"# + "JSON (matchers allowed)",
    "the value at PATH of the last A2A answer (normalised; `{{SERVE:ID}}` stands for the handle's URL)",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let (_, _, answer) = a2a_answer(st)?;
        let actual = at_path(&st.norm(&answer), &arg.at(1), "the A2A answer")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    a2a_answer_at_path_json: Expectations, r#"^the A2A answer at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "the same, the expected JSON inline",
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(2))?;
        let (_, _, answer) = a2a_answer(st)?;
        let actual = at_path(&st.norm(&answer), &arg.at(1), "the A2A answer")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    a2a_answer_at_path_contains_text: Expectations, r#"^the A2A answer at "(?P<PATH>[^"]*)" contains "(?P<TEXT>.*)"$"#,
    "the string at PATH contains TEXT (another value: its compact JSON does)",
    records Kind::Lenient("contains"),
    |StepCtx { st, arg, .. }| {
        let (_, _, answer) = a2a_answer(st)?;
        let actual = at_path(&st.norm(&answer), &arg.at(1), "the A2A answer")?;
        contains(&actual, &crate::steps::helpers::unescape(&arg.at(2)))
    }
}

step! {
    a2a_answer_nothing_at_path: Expectations, r#"^the A2A answer has nothing at "(?P<PATH>[^"]+)"$"#,
    "PATH is absent from the last A2A answer",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let (_, _, answer) = a2a_answer(st)?;
        absent(&answer, &arg.at(1), "the A2A answer")
    }
}

step! {
    a2a_answer_json_rpc_error_code: Expectations, r#"^the A2A answer is the JSON-RPC error (?P<CODE>-?\d+)$"#,
    "the last answer is a JSON-RPC 2.0 error object with that `error.code`, no `result`, and the request's `id` echoed (`null` for a body that is not JSON)",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let (sent, status, answer) = a2a_answer(st)?;
        let code: i64 = arg.at(1).parse().unwrap_or(0);
        rpc_error(&sent, status, &answer, code)
    }
}

step! {
    task_file_dir: Expectations, r#"^the task file is in "(?P<DIR>[^"]+)"$"#,
    "DIR holds `<task id>.json` for the remembered task, a JSON object whose `id` is that id",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let id = task_id(st)?;
        let dir = st.path(&arg.at(1))?;
        let file = dir.join(format!("{id}.json"));
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => {
                let names: Vec<String> = std::fs::read_dir(&dir).map(|d| d.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().to_string()).collect()).unwrap_or_default();
                return fail_as(Kind::Pinned, format!("no readable {id}.json in {} ({e}); it holds {names:?}", arg.at(1)));
            }
        };
        let stored: Value = serde_json::from_str(&text)
            .or_else(|e| fail_as(Kind::Pinned, format!("{id}.json is not JSON ({e})")))?;
        if stored.get("id").and_then(Value::as_str) == Some(id.as_str()) { Ok(()) } else {
            fail_as(Kind::Pinned, format!("{id}.json holds another task: {}", truncate(&text, 300)))
        }
    }
}

step! {
    id_refuses_connections: Expectations, r#"^"(?P<ID>[^"]+)" refuses connections$"#,
    "a GET of the handle's agent card gets no HTTP answer at all (refused, reset or 3 s of silence)",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let base = base_url(st, Some(&arg.at(1)))?;
        let client = toolnexus_ports::tls::client_builder().timeout(Duration::from_secs(3)).build()
            .map_err(|e| StepFailure::failed(format!("cannot build an HTTP client: {e}")))?;
        match client.get(format!("{base}/.well-known/agent-card.json")).send().await {
            Err(_) => Ok(()),
            Ok(r) => fail_as(Kind::Pinned, format!("the stopped handle still answered HTTP {}", r.status().as_u16())),
        }
    }
}

step! {
    mcp_server_info_at_path_json: Expectations, r#"^the MCP server info at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "the value at PATH of what `initialize` answered (`serverInfo.name`, `capabilities.tools`)",
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(2))?;
        let info = st.areas.get_mut::<ServeState>().mcp_init.clone().ok_or_else(|| StepFailure::failed("no MCP client has connected"))?;
        let actual = at_path(&st.norm(&info), &arg.at(1), "the initialize answer")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    mcp_answer_at_path: Expectations, r#"^the MCP answer at "(?P<PATH>[^"]*)" is:$"# + "JSON (matchers allowed)",
    "the value at PATH of the last MCP answer (normalised)",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let answer = mcp_answer(st)?;
        let actual = at_path(&answer, &arg.at(1), "the MCP answer")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    mcp_answer_at_path_json: Expectations, r#"^the MCP answer at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "the same, the expected JSON inline",
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(2))?;
        let answer = mcp_answer(st)?;
        let actual = at_path(&answer, &arg.at(1), "the MCP answer")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    mcp_answer_at_path_contains_text: Expectations, r#"^the MCP answer at "(?P<PATH>[^"]*)" contains "(?P<TEXT>.*)"$"#,
    "the string at PATH contains TEXT (another value: its compact JSON does)",
    records Kind::Lenient("contains"),
    |StepCtx { st, arg, .. }| {
        let answer = mcp_answer(st)?;
        let actual = at_path(&answer, &arg.at(1), "the MCP answer")?;
        contains(&actual, &crate::steps::helpers::unescape(&arg.at(2)))
    }
}

step! {
    mcp_answer_nothing_at_path: Expectations, r#"^the MCP answer has nothing at "(?P<PATH>[^"]+)"$"#,
    "PATH is absent from the last MCP answer",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let answer = mcp_answer(st)?;
        absent(&answer, &arg.at(1), "the MCP answer")
    }
}

step! {
    mcp_tool_names_any_order: Expectations, r#"^the MCP tool names are, in any order:$"# + "JSON array of names",
    "the last `tools/list` answer's names, sorted, equal the sorted list (the SPEC fixes no order)",
    records Kind::Lenient("any order"),
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let answer = mcp_answer(st)?;
        let Some(tools) = answer.get("tools").and_then(Value::as_array) else {
            return fail(format!("the last MCP answer is not a tools/list: {}", truncate(&answer.to_string(), 300)));
        };
        let mut names: Vec<String> = tools.iter()
            .map(|t| t.get("name").and_then(Value::as_str).unwrap_or("<no name>").to_string()).collect();
        let mut want: Vec<String> = expected.as_array().map(|a| a.iter()
            .map(|v| v.as_str().unwrap_or_default().to_string()).collect()).unwrap_or_default();
        names.sort();
        want.sort();
        if names == want { Ok(()) } else {
            fail_as(Kind::Lenient("any order"), format!("the MCP tools are {names:?}, not {want:?}"))
        }
    }
}

step! {
    mcp_tool_name_listed: Expectations, r#"^the MCP tool "(?P<NAME>[^"]+)" is listed as:$"# + "JSON (matchers allowed)",
    "the `tools/list` entry of that name (normalised)",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let answer = mcp_answer(st)?;
        let name = arg.at(1);
        let entry = answer.get("tools").and_then(Value::as_array)
            .and_then(|t| t.iter().find(|t| t.get("name").and_then(Value::as_str) == Some(name.as_str())))
            .cloned();
        match entry {
            Some(e) => expect_json(st, &expected, &e),
            None => fail_as(Kind::Pinned, format!("tools/list has no tool {name:?}: {}", truncate(&answer.to_string(), 400))),
        }
    }
}

step! {
    mcp_answer_error_code: Expectations, r#"^the MCP answer is the error (?P<CODE>-?\d+)$"#,
    "the last MCP request got a JSON-RPC error with that code (not a `CallToolResult`)",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let answer = mcp_answer(st)?;
        let code: i64 = arg.at(1).parse().unwrap_or(0);
        match answer.pointer("/error/code").and_then(Value::as_i64) {
            Some(c) if c == code => Ok(()),
            Some(c) => fail_as(Kind::Pinned, format!("the MCP error code is {c}, not {code}: {answer}")),
            None => fail_as(Kind::Pinned, format!("the MCP request did not fail with a JSON-RPC error; it answered {}",
                truncate(&answer.to_string(), 400))),
        }
    }
}

step! {
    mcp_answer_does_not_mention_text: Expectations, r#"^the MCP answer does not mention "(?P<TEXT>.*)"$"#,
    "the last MCP answer's compact JSON does not contain TEXT (e.g. a metadata key)",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let answer = mcp_answer(st)?.to_string();
        let needle = crate::steps::helpers::unescape(&arg.at(1));
        if answer.contains(&needle) {
            fail_as(Kind::Pinned, format!("the MCP answer mentions {needle:?}: {}", truncate(&answer, 400)))
        } else { Ok(()) }
    }
}

step! {
    mcp_answer_first_text_output_last_execution: Expectations, r#"^the MCP answer's first text is the output of the last execution$"#,
    "`content[0].text` of the last MCP answer equals the `output` of the last `execute` (both normalised)",
    |StepCtx { st, .. }| {
        let output = st.output()?;
        let answer = mcp_answer(st)?;
        let actual = at_path(&answer, "content[0].text", "the MCP answer")?;
        expect_json(st, &json!(output), &actual)
    }
}

step! {
    stored_messages_end: Expectations, r#"^the stored messages end with:$"# + "JSON array (matchers allowed)",
    "the last `store_get`'s `messages` end with these (a port may store more before them, e.g. a system message)",
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let want = expected.as_array().map_or(0, Vec::len);
        let stored = st.stored.clone().ok_or_else(|| StepFailure::failed("the store has not been read"))?;
        let messages = st.norm(&stored).as_array().cloned().unwrap_or_default();
        if messages.len() < want {
            return fail_as(Kind::Pinned, format!("the store holds {} messages, fewer than {want}: {}",
                messages.len(), truncate(&Value::Array(messages).to_string(), 400)));
        }
        let tail = Value::Array(messages[messages.len() - want..].to_vec());
        expect_json(st, &expected, &tail)
    }
}

step! {
    mcp_status_n: Expectations, r#"^the MCP status is (?P<N>\d+)$"#,
    "the HTTP status of the last raw post to `/mcp`",
    |StepCtx { st, arg, .. }| {
        let status = st.areas.get_mut::<ServeState>().mcp_status.ok_or_else(|| StepFailure::failed("nothing has been posted raw to /mcp"))?;
        let want: u16 = arg.at(1).parse().unwrap_or(0);
        expect_json(st, &json!(want), &json!(status))
    }
}

step! {
    mcp_call_result_not_error: Expectations, r#"^the MCP call result is (?P<NOT>not )?an error$"#,
    "the last answer is a `CallToolResult` (has `content`) whose `isError` is true (`not`: false or absent, the MCP default)",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let answer = mcp_answer(st)?;
        if answer.get("content").and_then(Value::as_array).is_none() {
            return fail_as(Kind::Pinned, format!("the last MCP answer is not a CallToolResult: {}", truncate(&answer.to_string(), 400)));
        }
        let is_error = answer.get("isError").and_then(Value::as_bool).unwrap_or(false);
        let want = arg.opt(1).is_none();
        if is_error == want { Ok(()) } else {
            fail_as(Kind::Pinned, format!("isError is {is_error}: {}", truncate(&answer.to_string(), 400)))
        }
    }
}

step! {
    mcp_server_lists_every_toolkit_tool_toolkit: Expectations, r#"^the MCP server lists every toolkit tool as the toolkit does$"#,
    "the last `tools/list` has exactly the built toolkit's tool names (any order), each with the toolkit's `description` (an empty one may be left out) and `inputSchema`",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let answer = mcp_answer(st)?;
        let built = st.norm(&st.built()?.get("tools").cloned().unwrap_or(Value::Null));
        let listed = answer.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
        let toolkit = built.as_array().cloned().unwrap_or_default();
        let name = |t: &Value| t.get("name").and_then(Value::as_str).unwrap_or("").to_string();
        let mut a: Vec<String> = listed.iter().map(name).collect();
        let mut b: Vec<String> = toolkit.iter().map(name).collect();
        a.sort();
        b.sort();
        if a != b {
            return fail_as(Kind::Pinned, format!("tools/list names {a:?}, the toolkit has {b:?}"));
        }
        for t in &toolkit {
            let n = name(t);
            let Some(entry) = listed.iter().find(|e| name(e) == n) else { continue };
            for key in ["description", "inputSchema"] {
                let want = listed_value(t, key);
                let got = listed_value(entry, key);
                if want != got {
                    return fail_as(Kind::Pinned, format!("tools/list gives {n:?} the {key} {got}, the toolkit {want}"));
                }
            }
        }
        Ok(())
    }
}

/// A `tools/list` entry's `key`, absent as `null`. MCP makes a tool's `description` optional,
/// so an empty one and none are the same entry (NOTES #417).
fn listed_value(entry: &Value, key: &str) -> Value {
    match entry.get(key) {
        Some(Value::String(s)) if key == "description" && s.is_empty() => Value::Null,
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

fn http() -> Result<reqwest::Client, StepFailure> {
    toolnexus_ports::tls::client_builder()
        .timeout(HTTP_BOUND)
        .build()
        .map_err(|e| StepFailure::failed(format!("cannot build an HTTP client: {e}")))
}

/// The base URL of the handle `id`, else of the current one.
fn base_url(st: &ScenarioState, id: Option<&str>) -> Result<String, StepFailure> {
    let id = match id {
        Some(id) => id.to_string(),
        None => st
            .areas
            .get::<ServeState>()
            .and_then(|s| s.current.clone())
            .ok_or_else(|| StepFailure::failed("nothing has been served in this scenario"))?,
    };
    st.areas
        .get::<ServeState>()
        .into_iter()
        .flat_map(|s| s.handles.iter())
        .find(|(h, _)| *h == id)
        .map(|(_, url)| url.clone())
        .ok_or_else(|| StepFailure::failed(format!("no serve handle {id:?} in this scenario")))
}

fn task_id(st: &ScenarioState) -> Result<String, StepFailure> {
    st.areas
        .get::<ServeState>()
        .and_then(|s| s.task.clone())
        .ok_or_else(|| {
            StepFailure::failed(
                "no SendMessage has answered a task id (`result.id`) in this scenario",
            )
        })
}

/// The status and the body of an HTTP answer: JSON when it parses, else the text (`null`
/// when empty).
async fn read_answer(
    response: Result<reqwest::Response, reqwest::Error>,
    what: &str,
) -> Result<(u16, Value), StepFailure> {
    let response =
        response.or_else(|e| fail_as(Kind::Pinned, format!("{what} got no HTTP answer: {e}")))?;
    let status = response.status().as_u16();
    let text = response.text().await.or_else(|e| {
        fail_as(
            Kind::Pinned,
            format!("{what}: the answer body broke off: {e}"),
        )
    })?;
    let body = if text.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    Ok((status, body))
}

/// Posts one JSON-RPC request to the handle's `POST /` and keeps request, status and answer.
async fn rpc(st: &mut ScenarioState, id: Option<&str>, method: &str, params: Value) -> StepResult {
    let base = base_url(st, id)?;
    st.areas.get_mut::<ServeState>().rpc_ids += 1;
    let request = json!({"jsonrpc": "2.0", "id": st.areas.get_mut::<ServeState>().rpc_ids, "method": method, "params": params});
    let response = http()?.post(format!("{base}/")).json(&request).send().await;
    let (status, answer) = read_answer(response, &format!("{method} (POST /)")).await?;
    st.areas.get_mut::<ServeState>().a2a = Some((request, status, answer));
    Ok(())
}

fn a2a_answer(st: &ScenarioState) -> Result<(Value, u16, Value), StepFailure> {
    st.areas
        .get::<ServeState>()
        .and_then(|s| s.a2a.clone())
        .ok_or_else(|| StepFailure::failed("the A2A peer has sent nothing in this scenario"))
}

/// Checks a JSON-RPC error answer: its cause is named by the code, and the id ties it to the
/// request that caused it (a parse error cannot know the id: `null`).
fn rpc_error(sent: &Value, status: u16, answer: &Value, code: i64) -> StepResult {
    let shown = truncate(&answer.to_string(), 400);
    if !answer.is_object() {
        return fail_as(
            Kind::Pinned,
            format!("HTTP {status}: the answer is not a JSON-RPC object: {shown}"),
        );
    }
    if answer.get("jsonrpc") != Some(&json!("2.0")) {
        return fail_as(
            Kind::Pinned,
            format!("the answer lacks \"jsonrpc\": \"2.0\": {shown}"),
        );
    }
    if answer.get("result").is_some() {
        return fail_as(
            Kind::Pinned,
            format!("the answer carries a result, not only an error: {shown}"),
        );
    }
    let want_id = sent.get("id").cloned().unwrap_or(Value::Null);
    if answer.get("id").cloned().unwrap_or(Value::Null) != want_id {
        return fail_as(
            Kind::Pinned,
            format!(
                "the error answers id {}, not the request's {want_id}: {shown}",
                answer
                    .get("id")
                    .map_or("nothing".to_string(), Value::to_string)
            ),
        );
    }
    match answer.pointer("/error/code").and_then(Value::as_i64) {
        Some(c) if c == code => Ok(()),
        Some(c) => fail_as(
            Kind::Pinned,
            format!("the JSON-RPC error code is {c}, not {code}: {shown}"),
        ),
        None => fail_as(
            Kind::Pinned,
            format!("the answer has no integer error.code: {shown}"),
        ),
    }
}

fn mcp_peer(st: &ScenarioState) -> Result<rmcp::service::Peer<rmcp::RoleClient>, StepFailure> {
    st.areas
        .get::<ServeState>()
        .and_then(|s| s.mcp.as_ref())
        .map(|(_, s)| s.peer().clone())
        .ok_or_else(|| StepFailure::failed("no MCP client has connected in this scenario"))
}

/// A JSON-RPC error the server answered, as the answer; anything else (transport) fails the step.
fn mcp_error(e: rmcp::ServiceError) -> Result<Value, StepFailure> {
    match e {
        rmcp::ServiceError::McpError(data) => {
            Ok(json!({"error": {"code": data.code.0, "message": data.message}}))
        }
        other => fail_as(
            Kind::Pinned,
            format!("the MCP request failed without a JSON-RPC error: {other}"),
        ),
    }
}

fn mcp_answer(st: &ScenarioState) -> Result<Value, StepFailure> {
    st.areas
        .get::<ServeState>()
        .and_then(|s| s.mcp_answer.as_ref())
        .map(|a| st.norm(a))
        .ok_or_else(|| StepFailure::failed("the MCP client has no answer yet in this scenario"))
}

/// A stateless MCP POST (body `request` unless replaced): JSON and SSE answers accepted.
fn mcp_post(client: &reqwest::Client, base: &str, request: &Value) -> reqwest::RequestBuilder {
    client
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", RAW_MCP_VERSION)
        .body(request.to_string())
}

/// The first JSON `data:` line of an SSE answer.
fn first_sse_message(text: &str) -> Option<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .find_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .filter(Value::is_object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpc_errors_name_their_cause() {
        let sent = json!({"jsonrpc": "2.0", "id": 3, "method": "GetTask"});
        let good = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32001, "message": "x"}});
        assert!(rpc_error(&sent, 200, &good, -32001).is_ok());
        assert!(rpc_error(&sent, 200, &good, -32601).is_err());
        let wrong_id = json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32001}});
        assert!(rpc_error(&sent, 200, &wrong_id, -32001).is_err());
        let with_result =
            json!({"jsonrpc": "2.0", "id": 3, "result": {}, "error": {"code": -32001}});
        assert!(rpc_error(&sent, 200, &with_result, -32001).is_err());
        let parse = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700}});
        assert!(rpc_error(&Value::String("{".into()), 200, &parse, -32700).is_ok());
        assert!(rpc_error(&sent, 404, &Value::Null, -32001).is_err());
    }

    #[test]
    fn sse_answers_yield_their_first_message() {
        let text = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        assert_eq!(
            first_sse_message(text),
            Some(json!({"jsonrpc": "2.0", "id": 1, "result": {}}))
        );
        assert_eq!(first_sse_message("data: \n"), None);
    }

    /// An empty `description` and none are the same `tools/list` entry; any other value,
    /// and every other key, is kept as it is.
    #[test]
    fn an_empty_description_is_no_description() {
        let empty = json!({"name": "t", "description": ""});
        let none = json!({"name": "t"});
        assert_eq!(
            listed_value(&empty, "description"),
            listed_value(&none, "description")
        );
        assert_ne!(
            listed_value(&json!({"description": "x"}), "description"),
            listed_value(&none, "description")
        );
        assert_eq!(
            listed_value(&json!({"inputSchema": ""}), "inputSchema"),
            json!("")
        );
    }
}
