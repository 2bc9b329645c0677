//! Load on a served reference toolkit (SPEC §7B/§7C): 200 concurrent `tools/call` over `/mcp`
//! and 200 concurrent A2A `SendMessage`s, each mixing well-formed requests with malformed
//! ones. Every well-formed request is answered correctly (each call's own output; each task
//! reaches `completed` with its own artifact, read back with `GetTask`), every malformed one
//! gets an error, and the server still answers afterwards. Everything is bounded.

mod serve_support;

use std::time::Duration;

use futures::future::join_all;
use serde_json::{json, Value};
use serve_support::serve_gateway;

const CONCURRENT: usize = 200;
/// One whole wave (200 requests on a 2-core machine, each answered in milliseconds).
const WAVE_BOUND: Duration = Duration::from_secs(60);
/// Polling all 200 tasks to a terminal state.
const TASKS_BOUND: Duration = Duration::from_secs(60);

async fn bounded<T>(what: &str, limit: Duration, fut: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(limit, fut)
        .await
        .unwrap_or_else(|_| panic!("{what}: not done within {limit:?}"))
}

/// The JSON-RPC message in an MCP answer, whether sent as JSON or as one SSE event.
fn mcp_message(body: &str) -> Option<Value> {
    let body = body.trim();
    if body.starts_with('{') {
        return serde_json::from_str(body).ok();
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| m.get("result").is_some() || m.get("error").is_some())
}

/// POSTs `body` to `/mcp`; returns the HTTP status and the JSON-RPC message, if any.
async fn post_mcp(http: &reqwest::Client, url: &str, body: String) -> (u16, Option<Value>) {
    let resp = http
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST /mcp: {e}"));
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    (status, mcp_message(&text))
}

/// POSTs `body` to the A2A JSON-RPC endpoint and parses the answer.
async fn post_a2a(http: &reqwest::Client, url: &str, body: String) -> Value {
    let resp = http
        .post(format!("{url}/"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST /: {e}"));
    let text = resp.text().await.unwrap_or_default();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("A2A answer not JSON ({e}): {text:?}"))
}

fn call(id: usize, name: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": args}})
    .to_string()
}

/// Request `i` of the MCP wave and what a correct answer is.
enum McpCase {
    /// Well-formed: the text output the call must return.
    Ok(String),
    /// Malformed: any error (HTTP 4xx, a JSON-RPC error, or an isError result).
    Bad(&'static str),
}

fn mcp_request(i: usize) -> (String, McpCase) {
    match i % 5 {
        0 => (
            call(i, "mock_echo", json!({"text": format!("echo-{i}")})),
            McpCase::Ok(format!("echo-{i}")),
        ),
        1 => (
            call(i, "upper", json!({"text": format!("up-{i}")})),
            McpCase::Ok(format!("UP-{i}")),
        ),
        2 => (
            format!("{{\"jsonrpc\": \"2.0\", \"id\": {i}, \"method\": "),
            McpCase::Bad("truncated JSON"),
        ),
        3 => (
            call(i, "no_such_tool", json!({})),
            McpCase::Bad("unknown tool"),
        ),
        _ => (
            call(i, "upper", json!({"text": 42})),
            McpCase::Bad("wrong argument type"),
        ),
    }
}

fn is_error_answer(status: u16, msg: &Option<Value>) -> bool {
    if status >= 400 {
        return true;
    }
    match msg {
        Some(m) => m.get("error").is_some() || m["result"]["isError"] == true,
        None => false,
    }
}

async fn echo_once(http: &reqwest::Client, url: &str, text: &str) {
    let (status, msg) = post_mcp(http, url, call(9999, "mock_echo", json!({"text": text}))).await;
    assert_eq!(status, 200, "{msg:?}");
    let msg = msg.unwrap_or_else(|| panic!("no JSON-RPC answer"));
    assert_eq!(msg["result"]["content"][0]["text"], text, "{msg}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_tools_calls_mixed_with_malformed_ones() {
    let (tk, handle) = serve_gateway(false).await;
    let url = handle.url().trim_end_matches('/').to_string();
    let http = toolnexus_ports::tls::client();

    let answers = bounded(
        "200 concurrent tools/call",
        WAVE_BOUND,
        join_all((0..CONCURRENT).map(|i| {
            let (body, case) = mcp_request(i);
            let (http, url) = (http.clone(), url.clone());
            async move { (i, case, post_mcp(&http, &url, body).await) }
        })),
    )
    .await;
    let (mut good, mut bad) = (0, 0);
    for (i, case, (status, msg)) in answers {
        match case {
            McpCase::Ok(text) => {
                assert_eq!(status, 200, "call {i}: {msg:?}");
                let msg = msg.unwrap_or_else(|| panic!("call {i}: no JSON-RPC answer"));
                assert_eq!(msg["id"], i, "call {i}: {msg}");
                assert_eq!(msg["result"]["isError"], false, "call {i}: {msg}");
                assert_eq!(
                    msg["result"]["content"],
                    json!([{"type": "text", "text": text}]),
                    "call {i}: {msg}"
                );
                good += 1;
            }
            McpCase::Bad(what) => {
                assert!(
                    is_error_answer(status, &msg),
                    "call {i} ({what}) was not an error: {status} {msg:?}"
                );
                bad += 1;
            }
        }
    }
    assert_eq!((good, bad), (80, 120));
    bounded(
        "a call after the wave",
        WAVE_BOUND,
        echo_once(&http, &url, "still here"),
    )
    .await;
    handle.stop().await;
    drop(tk);
}

/// Request `i` of the A2A wave: the body, and the JSON-RPC error code it must get (None for
/// a well-formed SendMessage).
fn a2a_request(i: usize) -> (String, Option<i64>) {
    let send = |params: Value| {
        json!({"jsonrpc": "2.0", "id": i, "method": "SendMessage", "params": params}).to_string()
    };
    match i % 4 {
        0 | 1 => (
            send(
                json!({"message": {"role": "user", "messageId": format!("m-{i}"),
                                    "parts": [{"kind": "text", "text": format!("task-{i}")}]}}),
            ),
            None,
        ),
        2 => (
            "{\"jsonrpc\": \"2.0\", \"method\": \"SendMessage\", \"params\": {".to_string(),
            Some(-32700),
        ),
        _ => (
            json!({"jsonrpc": "2.0", "id": i, "method": "SendMesage", "params": {}}).to_string(),
            Some(-32601),
        ),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_send_messages_mixed_with_malformed_ones() {
    let (tk, handle) = serve_gateway(true).await;
    let url = handle.url().trim_end_matches('/').to_string();
    let http = toolnexus_ports::tls::client();

    let answers = bounded(
        "200 concurrent SendMessage",
        WAVE_BOUND,
        join_all((0..CONCURRENT).map(|i| {
            let (body, code) = a2a_request(i);
            let (http, url) = (http.clone(), url.clone());
            async move { (i, code, post_a2a(&http, &url, body).await) }
        })),
    )
    .await;
    let mut tasks = Vec::new();
    for (i, code, answer) in answers {
        match code {
            None => {
                assert_eq!(answer["id"], i, "send {i}: {answer}");
                let task = &answer["result"];
                assert_eq!(task["status"]["state"], "submitted", "send {i}: {answer}");
                let id = task["id"]
                    .as_str()
                    .unwrap_or_else(|| panic!("send {i}: no id: {answer}"));
                tasks.push((i, id.to_string()));
            }
            Some(code) => {
                assert_eq!(answer["error"]["code"], code, "send {i}: {answer}");
                assert!(answer.get("result").is_none(), "send {i}: {answer}");
            }
        }
    }
    assert_eq!(tasks.len(), 100);
    let mut ids: Vec<&String> = tasks.iter().map(|(_, id)| id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 100, "task ids are unique");

    bounded(
        "every task completed",
        TASKS_BOUND,
        join_all(tasks.iter().map(|(i, id)| {
            let (http, url) = (http.clone(), url.clone());
            async move {
                loop {
                    let body = json!({"jsonrpc": "2.0", "id": i, "method": "GetTask",
                                      "params": {"id": id}})
                    .to_string();
                    let answer = post_a2a(&http, &url, body).await;
                    let task = &answer["result"];
                    assert_eq!(task["id"], id.as_str(), "task {i}: {answer}");
                    match task["status"]["state"].as_str() {
                        Some("submitted" | "working") => {
                            tokio::time::sleep(Duration::from_millis(20)).await
                        }
                        Some("completed") => {
                            assert_eq!(
                                task["artifacts"][0]["parts"][0],
                                json!({"kind": "text", "text": format!("done: task-{i}")}),
                                "task {i}: {answer}"
                            );
                            break;
                        }
                        _ => panic!("task {i} did not complete: {answer}"),
                    }
                }
            }
        })),
    )
    .await;

    // Still answering: the card, an unknown task, and one more task end to end.
    let card: Value = http
        .get(format!("{url}/.well-known/agent-card.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["name"], "served-gateway");
    let unknown = post_a2a(
        &http,
        &url,
        json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "nope"}})
            .to_string(),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32001, "{unknown}");
    echo_once(&http, &url, "after the a2a wave").await;
    handle.stop().await;
    drop(tk);
}
