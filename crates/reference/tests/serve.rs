//! `toolkit.serve` (SPEC §7B, §7C) over real HTTP: the Agent Card, JSON-RPC task
//! fulfilment with an in-process client, the task stores, and `/mcp` through rmcp's client.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};

use toolnexus_reference::client::{Client, ClientOptions, Generate, Generated, GeneratedCall};
use toolnexus_reference::native::{define_tool, NativeReturn};
use toolnexus_reference::serve::{
    A2AConfig, CallEvent, McpServeConfig, ServeHandle, ServeOptions, StoreSpec, TaskEvent,
};
use toolnexus_reference::skills::{SkillDef, SkillSources};
use toolnexus_reference::{Context, Tool, ToolResult, Toolkit, ToolkitOptions};

fn skill(name: &str, description: &str) -> SkillDef {
    SkillDef {
        name: name.into(),
        description: Some(description.into()),
        content: "body".into(),
        resources: Default::default(),
        base: None,
    }
}

fn echo_tool() -> Tool {
    define_tool(
        "echo",
        "Echoes its arguments.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        |args, _ctx| async move { Ok(NativeReturn::Text(args.to_string())) },
    )
}

fn failing_tool() -> Tool {
    define_tool(
        "fails",
        "Fails.",
        json!({"type": "object"}),
        |_a, _c| async {
            Ok(NativeReturn::Result(
                ToolResult::error("it broke").with_meta("secret", json!(1)),
            ))
        },
    )
}

fn panicking_tool() -> Tool {
    define_tool(
        "panics",
        "Panics.",
        json!({"type": "object"}),
        |_a, _c| async {
            if true {
                panic!("kaboom");
            }
            Ok(NativeReturn::Text(String::new()))
        },
    )
}

/// A tool that suspends (§10): the run halts `pending` with this prompt.
fn asking_tool() -> Tool {
    define_tool("ask", "Asks.", json!({"type": "object"}), |_a, _c| async {
        let request = json!({"id": "req-1", "kind": "input", "prompt": "Which colour?"});
        Ok(NativeReturn::Result(
            ToolResult::error("Which colour?").with_meta("pending", request),
        ))
    })
}

/// Waits for its context's cancellation (or 10 s) and reports which came first.
fn waiting_tool(seen: Arc<Mutex<Vec<bool>>>) -> Tool {
    define_tool(
        "wait",
        "Waits.",
        json!({"type": "object"}),
        move |_a, ctx: Context| {
            let seen = Arc::clone(&seen);
            async move {
                let cancelled = tokio::select! {
                    () = ctx.cancelled() => true,
                    () = tokio::time::sleep(Duration::from_secs(10)) => false,
                };
                seen.lock().unwrap().push(cancelled);
                Ok(NativeReturn::Text(format!("cancelled={cancelled}")))
            }
        },
    )
}

async fn toolkit(extra: Vec<Tool>, mcp_config: Option<Value>) -> Toolkit {
    Toolkit::build(ToolkitOptions {
        builtins: Some(json!(false)),
        mcp_config,
        skills: SkillSources {
            defs: vec![skill("zeta", "Last."), skill("alpha", "First.")],
            ..SkillSources::default()
        },
        extra_tools: extra,
        ..ToolkitOptions::default()
    })
    .await
}

/// An in-process client whose model answers `steps` in order (the last one repeatedly).
fn client(steps: Vec<Result<Generated, String>>) -> Client {
    let steps = Arc::new(Mutex::new(steps));
    let generate: Generate = Arc::new(move |_req: Value| -> BoxFuture<'static, _> {
        let steps = Arc::clone(&steps);
        Box::pin(async move {
            let mut s = steps.lock().unwrap();
            if s.len() > 1 {
                s.remove(0)
            } else {
                s[0].clone()
            }
        })
    });
    Client::in_process(
        ClientOptions {
            model: "m".into(),
            ..ClientOptions::default()
        },
        generate,
    )
}

fn text(t: &str) -> Result<Generated, String> {
    Ok(Generated {
        content: Some(t.into()),
        ..Generated::default()
    })
}

fn a2a_only(client: Option<Client>, a2a: A2AConfig) -> ServeOptions {
    ServeOptions {
        client,
        a2a: Some(a2a),
        ..ServeOptions::default()
    }
}

async fn rpc(url: &str, body: Value) -> Value {
    let reply = toolnexus_reference::http_client::plain_client()
        .post(format!("{url}/"))
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    reply.json().await.unwrap()
}

async fn send(url: &str, message: Value) -> Value {
    rpc(
        url,
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}),
    )
    .await
}

fn user(t: &str) -> Value {
    json!({"role": "user", "parts": [{"kind": "text", "text": t}]})
}

/// Polls `GetTask` until the task leaves `submitted`/`working`.
async fn settle(url: &str, id: &str) -> Value {
    for _ in 0..200 {
        let got = rpc(
            url,
            json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": id}}),
        )
        .await;
        let task = got["result"].clone();
        let state = task["status"]["state"].as_str().unwrap_or("").to_string();
        if state != "submitted" && state != "working" {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {id} never settled");
}

async fn get(url: &str) -> reqwest::Response {
    toolnexus_reference::http_client::plain_client()
        .get(url)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn no_profile_serves_nothing() {
    let tk = toolkit(vec![echo_tool()], None).await;
    let h = tk
        .serve("127.0.0.1:0", ServeOptions::default())
        .await
        .unwrap();
    for path in ["/.well-known/agent-card.json", "/mcp", "/", "/x"] {
        assert_eq!(
            get(&format!("{}{path}", h.url())).await.status(),
            404,
            "{path}"
        );
    }
    let post = toolnexus_reference::http_client::plain_client()
        .post(format!("{}/", h.url()))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 404);
    h.stop().await;
}

#[tokio::test]
async fn card_defaults_and_skills_never_tools() {
    let tk = toolkit(vec![echo_tool()], None).await;
    let h = tk
        .serve("127.0.0.1:0", a2a_only(None, A2AConfig::default()))
        .await
        .unwrap();
    let card: Value = get(&format!("{}/.well-known/agent-card.json", h.url()))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        card,
        json!({
            "name": "toolnexus-agent", "description": "", "version": "0.1.0",
            "protocolVersion": "0.3.0",
            "capabilities": {"streaming": false, "pushNotifications": false},
            "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
            "skills": [
                {"id": "alpha", "name": "alpha", "description": "First."},
                {"id": "zeta", "name": "zeta", "description": "Last."}],
            "url": format!("{}/", h.url()),
        })
    );
    let get_root = get(&format!("{}/", h.url())).await;
    assert_eq!(get_root.status(), 404);
    h.stop().await;
    h.stop().await; // idempotent
    assert!(toolnexus_reference::http_client::plain_client()
        .get(format!("{}/.well-known/agent-card.json", h.url()))
        .send()
        .await
        .is_err());
}

#[tokio::test]
async fn card_filter_and_provider() {
    let tk = toolkit(vec![], None).await;
    let cfg = A2AConfig {
        name: Some("Helper".into()),
        version: Some("2.0.0".into()),
        provider: Some(json!({"organization": "Acme", "url": "https://acme.test"})),
        skills: Some(vec!["zeta".into(), "nope".into()]),
        ..A2AConfig::default()
    };
    let h = tk.serve(":0", a2a_only(None, cfg)).await.unwrap();
    assert!(h.url().starts_with("http://127.0.0.1:"), "{}", h.url());
    let card: Value = get(&format!("{}/.well-known/agent-card.json", h.url()))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(card["name"], "Helper");
    assert_eq!(card["version"], "2.0.0");
    assert_eq!(card["provider"]["organization"], "Acme");
    assert_eq!(
        card["skills"],
        json!([{"id": "zeta", "name": "zeta", "description": "Last."}])
    );
}

#[tokio::test]
async fn send_message_completes_and_reports_on_task() {
    let tk = toolkit(vec![], None).await;
    let events: Arc<Mutex<Vec<TaskEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let opts = ServeOptions {
        on_task: Some(Arc::new(move |e| sink.lock().unwrap().push(e))),
        ..a2a_only(Some(client(vec![text("done: hi")])), A2AConfig::default())
    };
    let h = tk.serve("127.0.0.1:0", opts).await.unwrap();
    let msg = json!({"role": "user", "parts": [
        {"kind": "text", "text": "h"}, {"kind": "data", "data": {}}, {"kind": "text", "text": "i"}]});
    let sent = send(h.url(), msg).await;
    assert_eq!(sent["id"], 1);
    let id = sent["result"]["id"].as_str().unwrap().to_string();
    assert_eq!(sent["result"]["status"], json!({"state": "submitted"}));
    assert_eq!(id.len(), 36);
    let task = settle(h.url(), &id).await;
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(
        task["artifacts"][0]["parts"],
        json!([{"kind": "text", "text": "done: hi"}])
    );
    assert_eq!(
        task["artifacts"][0]["artifactId"].as_str().unwrap().len(),
        36
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    let events = events.lock().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].state, "completed");
    assert_eq!(events[0].id, id);
    assert_eq!(events[0].task, task);
    let result = events[0].result.as_ref().unwrap();
    assert_eq!(result.text, "done: hi");
    // The task text is the text parts joined with nothing between them.
    assert_eq!(
        result
            .messages
            .iter()
            .find(|m| m["role"] == "user")
            .unwrap()["content"],
        "hi"
    );
}

#[tokio::test]
async fn context_id_threads_the_conversation() {
    let tk = toolkit(vec![], None).await;
    let c = client(vec![text("one"), text("two")]);
    let h = tk
        .serve(
            "127.0.0.1:0",
            a2a_only(Some(c.clone()), A2AConfig::default()),
        )
        .await
        .unwrap();
    for (t, users) in [("first", 1), ("second", 2)] {
        let mut msg = user(t);
        msg["contextId"] = json!("ctx-1");
        let sent = send(h.url(), msg).await;
        assert_eq!(sent["result"]["contextId"], "ctx-1");
        let task = settle(h.url(), sent["result"]["id"].as_str().unwrap()).await;
        assert_eq!(task["status"]["state"], "completed");
        let stored = c.conversation_store().get("ctx-1").await.unwrap();
        let seen = stored.iter().filter(|m| m["role"] == "user").count();
        assert_eq!(seen, users, "{stored:?}");
    }
}

#[tokio::test]
async fn failures_become_failed_tasks_and_the_server_lives_on() {
    let tk = toolkit(vec![], None).await;
    let h = tk
        .serve(
            "127.0.0.1:0",
            a2a_only(
                Some(client(vec![Err("model exploded".into())])),
                A2AConfig::default(),
            ),
        )
        .await
        .unwrap();
    let sent = send(h.url(), user("x")).await;
    let task = settle(h.url(), sent["result"]["id"].as_str().unwrap()).await;
    assert_eq!(task["status"]["state"], "failed");
    assert_eq!(task["status"]["message"]["role"], "agent");
    let msg = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(msg.contains("model exploded"), "{msg}");

    // No client: a clear failure, not a crash.
    let h2 = tk
        .serve("127.0.0.1:0", a2a_only(None, A2AConfig::default()))
        .await
        .unwrap();
    let sent = send(h2.url(), user("x")).await;
    let task = settle(h2.url(), sent["result"]["id"].as_str().unwrap()).await;
    assert_eq!(task["status"]["state"], "failed");
    let msg = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(msg.contains("no client"), "{msg}");
}

#[tokio::test]
async fn a_panicking_run_fails_its_task_only() {
    let tk = toolkit(vec![], None).await;
    let generate: Generate = Arc::new(|_req: Value| -> BoxFuture<'static, _> {
        Box::pin(async { panic!("model panicked") })
    });
    let c = Client::in_process(ClientOptions::default(), generate);
    let events: Arc<Mutex<Vec<TaskEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let opts = ServeOptions {
        on_task: Some(Arc::new(move |e| sink.lock().unwrap().push(e))),
        ..a2a_only(Some(c), A2AConfig::default())
    };
    let h = tk.serve("127.0.0.1:0", opts).await.unwrap();
    let sent = send(h.url(), user("x")).await;
    let task = settle(h.url(), sent["result"]["id"].as_str().unwrap()).await;
    assert_eq!(task["status"]["state"], "failed");
    let msg = task["status"]["message"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(msg.contains("model panicked"), "{msg}");
    tokio::time::sleep(Duration::from_millis(50)).await;
    {
        let ev = events.lock().unwrap();
        assert_eq!(
            (ev[0].state.as_str(), ev[0].result.is_none()),
            ("failed", true)
        );
    }
    // Still serving.
    assert_eq!(
        get(&format!("{}/.well-known/agent-card.json", h.url()))
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn a_pending_run_is_input_required_never_completed() {
    let tk = toolkit(vec![asking_tool()], None).await;
    let call = Generated {
        tool_calls: vec![GeneratedCall {
            id: Some("call_1".into()),
            name: "ask".into(),
            arguments: json!({}),
        }],
        ..Generated::default()
    };
    let events: Arc<Mutex<Vec<TaskEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let opts = ServeOptions {
        on_task: Some(Arc::new(move |e| sink.lock().unwrap().push(e))),
        ..a2a_only(
            Some(client(vec![Ok(call), text("never")])),
            A2AConfig::default(),
        )
    };
    let h = tk.serve("127.0.0.1:0", opts).await.unwrap();
    let sent = send(h.url(), user("paint it")).await;
    let task = settle(h.url(), sent["result"]["id"].as_str().unwrap()).await;
    assert_eq!(
        task["status"],
        json!({"state": "input-required", "message": {"role": "agent",
            "parts": [{"kind": "text", "text": "Which colour?"}]}})
    );
    assert!(task.get("artifacts").is_none());
    tokio::time::sleep(Duration::from_millis(50)).await;
    let ev = events.lock().unwrap();
    assert_eq!(ev[0].state, "input-required");
    assert!(ev[0].result.as_ref().unwrap().pending.is_some());
}

#[tokio::test]
async fn json_rpc_errors() {
    let tk = toolkit(vec![], None).await;
    let h = tk
        .serve("127.0.0.1:0", a2a_only(None, A2AConfig::default()))
        .await
        .unwrap();
    let raw = |body: &'static str| {
        let url = format!("{}/", h.url());
        async move {
            let r = toolnexus_reference::http_client::plain_client()
                .post(url)
                .body(body)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200);
            r.json::<Value>().await.unwrap()
        }
    };
    let parse = raw("{nope").await;
    assert_eq!(
        (parse["error"]["code"].clone(), parse["id"].clone()),
        (json!(-32700), Value::Null)
    );
    for body in [
        "[]",
        "42",
        r#"{"id":1,"method":"GetTask"}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
    ] {
        assert_eq!(raw(body).await["error"]["code"], -32600, "{body}");
    }
    let unknown = rpc(
        h.url(),
        json!({"jsonrpc": "2.0", "id": "a", "method": "Nope"}),
    )
    .await;
    assert_eq!(
        (unknown["error"]["code"].clone(), unknown["id"].clone()),
        (json!(-32601), json!("a"))
    );
    let missing = rpc(
        h.url(),
        json!({"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "no-such"}}),
    )
    .await;
    assert_eq!(missing["error"]["code"], -32001);
    for params in [
        json!({}),
        json!({"message": {"parts": []}}),
        json!({"message": "hi"}),
    ] {
        let bad = rpc(
            h.url(),
            json!({"jsonrpc": "2.0", "id": 8, "method": "SendMessage", "params": params}),
        )
        .await;
        assert_eq!(bad["error"]["code"], -32602, "{params}");
    }
    // Oversized bodies are refused before they are buffered.
    let big = "x".repeat(5 * 1024 * 1024);
    let r = toolnexus_reference::http_client::plain_client()
        .post(format!("{}/", h.url()))
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
}

#[tokio::test]
async fn file_store_keeps_one_json_per_task() {
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("tasks");
    let tk = toolkit(vec![], None).await;
    let cfg = A2AConfig {
        store: StoreSpec::File(store_dir.clone()),
        ..A2AConfig::default()
    };
    let h = tk
        .serve("127.0.0.1:0", a2a_only(Some(client(vec![text("ok")])), cfg))
        .await
        .unwrap();
    let sent = send(h.url(), user("x")).await;
    let id = sent["result"]["id"].as_str().unwrap().to_string();
    let task = settle(h.url(), &id).await;
    let on_disk: Value =
        serde_json::from_slice(&std::fs::read(store_dir.join(format!("{id}.json"))).unwrap())
            .unwrap();
    assert_eq!(on_disk, task);
    let escape = rpc(
        h.url(),
        json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": format!("../tasks/{id}")}}),
    )
    .await;
    assert_eq!(escape["error"]["code"], -32001);
}

#[tokio::test]
async fn config_file_blocks_apply_and_inline_wins() {
    let cfg = json!({"mcpServers": {}, "a2a": {"name": "FromFile"}, "mcpServer": {"name": "file-mcp", "tools": ["echo"]}});
    let tk = toolkit(vec![echo_tool(), failing_tool()], Some(cfg)).await;
    let h = tk
        .serve("127.0.0.1:0", ServeOptions::default())
        .await
        .unwrap();
    let card: Value = get(&format!("{}/.well-known/agent-card.json", h.url()))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(card["name"], "FromFile");
    let mcp = mcp_client(h.url()).await;
    let info = mcp.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "file-mcp");
    let names: Vec<String> = mcp
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["echo"]);
    let inline = ServeOptions {
        a2a: Some(A2AConfig {
            name: Some("Inline".into()),
            ..A2AConfig::default()
        }),
        ..ServeOptions::default()
    };
    let h2 = tk.serve("127.0.0.1:0", inline).await.unwrap();
    let card: Value = get(&format!("{}/.well-known/agent-card.json", h2.url()))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(card["name"], "Inline");
}

async fn mcp_client(base: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    toolnexus_reference::http_client::install_tls_provider();
    let transport = StreamableHttpClientTransport::from_uri(format!("{base}/mcp"));
    ().serve(transport).await.unwrap()
}

fn mcp_opts(cfg: McpServeConfig, calls: &Arc<Mutex<Vec<CallEvent>>>) -> ServeOptions {
    let sink = Arc::clone(calls);
    ServeOptions {
        mcp: Some(cfg),
        on_call: Some(Arc::new(move |e| sink.lock().unwrap().push(e))),
        ..ServeOptions::default()
    }
}

#[tokio::test]
async fn mcp_lists_and_calls_the_toolkit_tools() {
    let tk = toolkit(vec![echo_tool(), failing_tool(), panicking_tool()], None).await;
    let calls: Arc<Mutex<Vec<CallEvent>>> = Arc::default();
    let h = tk
        .serve("127.0.0.1:0", mcp_opts(McpServeConfig::default(), &calls))
        .await
        .unwrap();
    // MCP-only: no A2A routes.
    assert_eq!(
        get(&format!("{}/.well-known/agent-card.json", h.url()))
            .await
            .status(),
        404
    );
    let mcp = mcp_client(h.url()).await;
    let info = mcp.peer_info().unwrap();
    assert_eq!(
        (
            info.server_info.as_ref().unwrap().name.as_str(),
            info.server_info.as_ref().unwrap().version.as_str()
        ),
        ("toolnexus", "0.1.0")
    );
    assert!(info.capabilities.tools.is_some());
    let tools = mcp.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["skill", "echo", "fails", "panics"]);
    let echo = &tools[1];
    assert_eq!(echo.description.as_deref(), Some("Echoes its arguments."));
    assert_eq!(
        Value::Object((*echo.input_schema).clone()),
        json!({"type": "object", "properties": {"text": {"type": "string"}}})
    );

    let args = json!({"text": "hi"}).as_object().unwrap().clone();
    let ok = mcp
        .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
        .await
        .unwrap();
    let ok = serde_json::to_value(&ok).unwrap();
    assert_eq!(
        ok["content"],
        json!([{"type": "text", "text": "{\"text\":\"hi\"}"}])
    );
    assert_eq!(ok["isError"], false);

    let failed = serde_json::to_value(
        mcp.call_tool(CallToolRequestParams::new("fails"))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        failed["content"],
        json!([{"type": "text", "text": "it broke"}])
    );
    assert_eq!(failed["isError"], true);
    assert!(
        !failed.to_string().contains("secret"),
        "metadata leaked: {failed}"
    );

    let panicked = serde_json::to_value(
        mcp.call_tool(CallToolRequestParams::new("panics"))
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(panicked["isError"], true);
    assert!(panicked["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("kaboom"));

    let unknown = mcp
        .call_tool(CallToolRequestParams::new("nope"))
        .await
        .unwrap_err();
    assert!(unknown.to_string().contains("-32602"), "{unknown}");

    // Still up after the panic.
    assert_eq!(mcp.list_all_tools().await.unwrap().len(), 4);
    let calls = calls.lock().unwrap();
    let seen: Vec<(&str, &str, bool)> = calls
        .iter()
        .map(|c| (c.name.as_str(), c.source.as_str(), c.is_error))
        .collect();
    assert_eq!(
        seen,
        [
            ("echo", "native", false),
            ("fails", "native", true),
            ("panics", "native", true)
        ]
    );
    assert!(calls.iter().all(|c| c.ms >= 0.0));
}

#[tokio::test]
async fn mcp_filter_ignores_unknown_names() {
    let tk = toolkit(vec![echo_tool(), failing_tool()], None).await;
    let calls = Arc::default();
    let cfg = McpServeConfig {
        name: Some("gw".into()),
        version: Some("9".into()),
        tools: Some(vec!["fails".into(), "ghost".into()]),
        text_only: false,
    };
    let h = tk
        .serve("127.0.0.1:0", mcp_opts(cfg, &calls))
        .await
        .unwrap();
    let mcp = mcp_client(h.url()).await;
    assert_eq!(
        mcp.peer_info().unwrap().server_info.as_ref().unwrap().name,
        "gw"
    );
    let names: Vec<String> = mcp
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["fails"]);
    // A tool filtered out is unknown to the server.
    assert!(mcp
        .call_tool(CallToolRequestParams::new("echo"))
        .await
        .is_err());
}

/// The HTTP client giving up on a `tools/call` (its connection closes) reaches the tool's
/// context as cancellation.
#[tokio::test]
async fn an_abandoned_call_cancels_the_tool() {
    let seen: Arc<Mutex<Vec<bool>>> = Arc::default();
    let tk = toolkit(vec![waiting_tool(Arc::clone(&seen))], None).await;
    let h = tk
        .serve(
            "127.0.0.1:0",
            mcp_opts(McpServeConfig::default(), &Arc::default()),
        )
        .await
        .unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "wait", "arguments": {}}});
    let request = toolnexus_reference::http_client::plain_client()
        .post(format!("{}/mcp", h.url()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .body(body.to_string())
        .send();
    // Abandon the call while the tool waits.
    assert!(tokio::time::timeout(Duration::from_millis(300), async {
        let response = request.await.unwrap();
        response.bytes().await
    })
    .await
    .is_err());
    for _ in 0..100 {
        if !seen.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(*seen.lock().unwrap(), [true]);
}

/// Stopping the server cancels an in-flight tool call too.
#[tokio::test]
async fn stop_cancels_in_flight_calls() {
    let seen: Arc<Mutex<Vec<bool>>> = Arc::default();
    let tk = toolkit(vec![waiting_tool(Arc::clone(&seen))], None).await;
    let h: ServeHandle = tk
        .serve(
            "127.0.0.1:0",
            mcp_opts(McpServeConfig::default(), &Arc::default()),
        )
        .await
        .unwrap();
    let mcp = mcp_client(h.url()).await;
    let call = tokio::spawn(async move { mcp.call_tool(CallToolRequestParams::new("wait")).await });
    tokio::time::sleep(Duration::from_millis(300)).await;
    h.stop().await;
    let _ = tokio::time::timeout(Duration::from_secs(5), call).await;
    assert_eq!(*seen.lock().unwrap(), [true]);
}

/// The rmcp client dropping its `call_tool` future reaches the tool as cancellation.
#[tokio::test]
async fn a_dropped_rmcp_call_cancels_the_tool() {
    let seen: Arc<Mutex<Vec<bool>>> = Arc::default();
    let tk = toolkit(vec![waiting_tool(Arc::clone(&seen))], None).await;
    let h = tk
        .serve(
            "127.0.0.1:0",
            mcp_opts(McpServeConfig::default(), &Arc::default()),
        )
        .await
        .unwrap();
    let mcp = mcp_client(h.url()).await;
    let call = mcp.call_tool(CallToolRequestParams::new("wait"));
    assert!(tokio::time::timeout(Duration::from_millis(300), call)
        .await
        .is_err());
    for _ in 0..100 {
        if !seen.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(*seen.lock().unwrap(), [true]);
}

/// A host store that refuses everything.
struct BrokenStore;

#[async_trait::async_trait]
impl toolnexus_reference::serve::TaskStore for BrokenStore {
    async fn get(&self, _id: &str) -> Result<Option<Value>, String> {
        Err("disk on fire".into())
    }
    async fn save(&self, _task: &Value) -> Result<(), String> {
        Err("disk on fire".into())
    }
}

#[tokio::test]
async fn store_errors_are_json_rpc_errors() {
    let tk = toolkit(vec![], None).await;
    let cfg = A2AConfig {
        store: StoreSpec::Custom(Arc::new(BrokenStore)),
        ..A2AConfig::default()
    };
    let h = tk
        .serve("127.0.0.1:0", a2a_only(Some(client(vec![text("ok")])), cfg))
        .await
        .unwrap();
    let sent = send(h.url(), user("x")).await;
    assert_eq!(sent["error"]["code"], -32603);
    assert!(sent["error"]["message"]
        .as_str()
        .unwrap()
        .contains("disk on fire"));
    let got = rpc(
        h.url(),
        json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "abc"}}),
    )
    .await;
    assert_eq!(got["error"]["code"], -32603);
    assert!(got["error"]["message"]
        .as_str()
        .unwrap()
        .contains("disk on fire"));
}
