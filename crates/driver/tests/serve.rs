//! §5.23–§5.25 through the reference session: `serve` answers a URL peers reach over HTTP,
//! `serve_records` reports the host callbacks, `serve_stop` and `close` end the server.

use std::time::Duration;

use serde_json::{json, Value};
use toolnexus_driver::ReferenceSession;

async fn ok(session: &mut ReferenceSession, request: Value) -> Value {
    let answer = session.handle(request.clone()).await;
    assert_eq!(answer["ok"], true, "{request} ⇒ {answer}");
    answer
}

async fn refused(session: &mut ReferenceSession, request: Value) -> String {
    let answer = session.handle(request.clone()).await;
    assert_eq!(answer["ok"], false, "{request} ⇒ {answer}");
    answer["error"]["kind"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

async fn post(url: &str, body: Value, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = toolnexus_reference::http_client::plain_client()
        .post(url)
        .body(body.to_string());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request.send().await.unwrap()
}

async fn session() -> ReferenceSession {
    let mut s = ReferenceSession::new();
    ok(&mut s, json!({"cmd": "hello", "protocol": 1})).await;
    ok(
        &mut s,
        json!({"cmd": "build", "id": "tk1", "options": {"builtins": false,
            "extraTools": [{"name": "echo", "behaviour": {"echo": true}},
                           {"name": "wait", "behaviour": {"awaitCancel": {"ms": 5000}}},
                           {"name": "quick", "behaviour": {"awaitCancel": {"ms": 10}}}]}}),
    )
    .await;
    ok(
        &mut s,
        json!({"cmd": "client", "id": "c1", "options": {"model": "m",
            "generate": {"script": [{"content": "echo: hi"}]}}}),
    )
    .await;
    s
}

const MCP_HEADERS: [(&str, &str); 3] = [
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
    ("mcp-protocol-version", "2025-06-18"),
];

fn tool_call(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": {}}})
}

#[tokio::test]
async fn serve_fulfils_records_and_stops() {
    let mut s = session().await;
    let served = ok(
        &mut s,
        json!({"cmd": "serve", "id": "s1", "toolkit": "tk1", "client": "c1",
            "a2a": {"name": "Helper", "store": {"recording": true}}, "mcp": {},
            "onTask": true, "onCall": true}),
    )
    .await;
    let url = served["url"].as_str().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let sent: Value = post(
        &format!("{url}/"),
        json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
            "params": {"message": {"role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}),
        &[],
    )
    .await
    .json()
    .await
    .unwrap();
    let id = sent["result"]["id"].as_str().unwrap().to_string();
    let mut records = Value::Null;
    for _ in 0..100 {
        records = ok(&mut s, json!({"cmd": "serve_records", "serve": "s1"})).await;
        if records["onTask"].as_array().is_some_and(|a| !a.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let on_task = &records["onTask"][0];
    assert_eq!(on_task["id"], json!(id));
    assert_eq!(on_task["state"], "completed");
    assert_eq!(on_task["task"]["status"]["state"], "completed");
    assert_eq!(on_task["result"]["text"], "echo: hi");
    assert_eq!(on_task["result"]["toolCallCount"], 0);
    assert_eq!(
        records["storeCalls"],
        json!([{"op": "save", "id": id, "state": "submitted"},
               {"op": "save", "id": id, "state": "working"},
               {"op": "save", "id": id, "state": "completed"}])
    );

    let called = post(&format!("{url}/mcp"), tool_call("quick"), &MCP_HEADERS).await;
    assert!(called.text().await.unwrap().contains("not cancelled"));
    let records = ok(&mut s, json!({"cmd": "serve_records", "serve": "s1"})).await;
    assert_eq!(records["onCall"][0]["name"], "quick");
    assert_eq!(records["onCall"][0]["source"], "native");
    assert_eq!(records["onCall"][0]["isError"], false);
    assert_eq!(
        records["toolCancels"],
        json!([{"name": "quick", "cancelled": false}])
    );

    ok(&mut s, json!({"cmd": "serve_stop", "serve": "s1"})).await;
    ok(&mut s, json!({"cmd": "serve_stop", "serve": "s1"})).await;
    assert!(toolnexus_reference::http_client::plain_client()
        .get(format!("{url}/.well-known/agent-card.json"))
        .send()
        .await
        .is_err());
}

#[tokio::test]
async fn an_abandoned_mcp_call_records_a_cancel() {
    let mut s = session().await;
    let served = ok(
        &mut s,
        json!({"cmd": "serve", "id": "s1", "toolkit": "tk1", "mcp": {"tools": ["wait"]}}),
    )
    .await;
    let url = served["url"].as_str().unwrap().to_string();
    let mcp_url = format!("{url}/mcp");
    let call = post(&mcp_url, tool_call("wait"), &MCP_HEADERS);
    let abandoned = tokio::time::timeout(Duration::from_millis(300), async {
        call.await.text().await
    })
    .await;
    assert!(abandoned.is_err());
    let mut records = Value::Null;
    for _ in 0..100 {
        records = ok(&mut s, json!({"cmd": "serve_records", "serve": "s1"})).await;
        if records["toolCancels"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        records["toolCancels"],
        json!([{"name": "wait", "cancelled": true}])
    );
    // Not requested ⇒ empty.
    assert_eq!(records["onCall"], json!([]));
    assert_eq!(records["onTask"], json!([]));
}

#[tokio::test]
async fn lookups_reuse_and_close() {
    let mut s = session().await;
    assert_eq!(
        refused(
            &mut s,
            json!({"cmd": "serve", "id": "s1", "toolkit": "nope", "a2a": {}})
        )
        .await,
        "unknown_toolkit"
    );
    assert_eq!(
        refused(
            &mut s,
            json!({"cmd": "serve", "id": "s1", "toolkit": "tk1", "client": "nope", "a2a": {}})
        )
        .await,
        "bad_request"
    );
    assert_eq!(
        refused(
            &mut s,
            json!({"cmd": "serve", "id": "s1", "toolkit": "tk1", "a2a": {"store": "redis"}})
        )
        .await,
        "bad_request"
    );
    assert_eq!(
        refused(&mut s, json!({"cmd": "serve_stop", "serve": "nope"})).await,
        "bad_request"
    );
    let first = ok(
        &mut s,
        json!({"cmd": "serve", "id": "s1", "toolkit": "tk1", "a2a": {}}),
    )
    .await;
    let first = first["url"].as_str().unwrap().to_string();
    let second = ok(
        &mut s,
        json!({"cmd": "serve", "id": "s1", "toolkit": "tk1", "a2a": {}}),
    )
    .await;
    let second = second["url"].as_str().unwrap().to_string();
    let card = |u: &str| {
        toolnexus_reference::http_client::plain_client()
            .get(format!("{u}/.well-known/agent-card.json"))
            .send()
    };
    assert!(
        card(&first).await.is_err(),
        "reusing an id stops the earlier handle"
    );
    assert_eq!(card(&second).await.unwrap().status(), 200);
    ok(&mut s, json!({"cmd": "close", "toolkit": "tk1"})).await;
    assert!(
        card(&second).await.is_err(),
        "close stops the toolkit's handles"
    );
}
