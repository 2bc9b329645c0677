//! The systemone route as a classifier meets it: the mock served in-process on loopback,
//! spoken to over raw HTTP/1.1 so the bytes sent and received are exactly the ones checked.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::scenario::parse_scenario;
use super::server::router;
use crate::loopback::{self, Guard};
use crate::mcp::Secret;

/// A hang guard only (no test measures time): generous for a loaded machine.
const BOUND: Duration = Duration::from_secs(30);

/// Serves `scenario` on loopback until the test's runtime ends.
async fn serve(scenario: &str, guard: Guard) -> SocketAddr {
    let scenario = match parse_scenario(scenario) {
        Ok(s) => s,
        Err(e) => panic!("scenario refused: {e}\n{scenario}"),
    };
    let (listener, addr) = loopback::bind().await.unwrap();
    let app = loopback::guarded(router(scenario, None), guard, "mock-llm");
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// One answer, its body as raw bytes.
struct Got {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one request with `Connection: close` and reads the whole answer.
async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    extra: &[(&str, &str)],
    body: &[u8],
) -> Got {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in extra {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body).await.unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await.unwrap();
        raw
    };
    let raw = tokio::time::timeout(BOUND, exchange)
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no answer within {BOUND:?}"));
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("status line {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let got = Got {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    };
    assert!(
        got.header("transfer-encoding").is_none(),
        "every answer here has a known length"
    );
    got
}

async fn post(addr: SocketAddr, path: &str, body: &[u8]) -> Got {
    send(addr, "POST", path, &[], body).await
}

async fn recorded(addr: SocketAddr) -> Vec<Value> {
    let got = send(addr, "GET", "/_mock/requests", &[], b"").await;
    assert_eq!(got.status, 200);
    match got.json() {
        Value::Array(entries) => entries,
        other => panic!("not an array: {other}"),
    }
}

/// A systemone request body: `model` and one noul question per key.
fn ask(model: &str, keys: &[&str]) -> Vec<u8> {
    let questions: serde_json::Map<String, Value> = keys
        .iter()
        .map(|k| {
            (
                k.to_string(),
                json!({"type": "noul", "instructions": "Is it?"}),
            )
        })
        .collect();
    json!({"model": model, "questions": questions, "state": "s"})
        .to_string()
        .into_bytes()
}

fn chat(model: &str) -> Vec<u8> {
    json!({"model": model, "messages": [{"role": "user", "content": "hi"}]})
        .to_string()
        .into_bytes()
}

/// Written by hand the way a backend could answer: key order not sorted, spacing and a
/// newline kept, the three numbers a re-encoder gets wrong (`0`, `1.21`, `0.000016716`),
/// and no `calibrated` (which a client reads as true, so the absence must survive).
const DECISION: &str = r#"{"model": "jev-1.13.0",
  "answers": {"zeta": {"noul": 0}, "alpha": {"score": 1.21, "probabilities": {"1": 0.79, "0": 0.21}}},
  "usage": {"cost": 0.000016716, "input_tokens": 40}}"#;

/// The same with an explicit `"calibrated": null` and an integer-looking float.
const DECISION_NULL: &str =
    r#"{"answers":{"k":{"noul":1.0}},"model":"jev-latest","calibrated":null,"usage":{}}"#;

#[tokio::test]
async fn decision_bytes_reach_the_client_verbatim() {
    let scenario = format!(
        r#"{{"replies": [
             {{"match": {{"model": "m-null"}}, "decision": {DECISION_NULL}}},
             {{"match": {{"model": "m-null-literal"}}, "decision": null}},
             {{"match": {{"model": "m-raw"}}, "decisionRaw": "not json {{ at all"}},
             {{"decision": {DECISION}}}
           ]}}"#
    );
    let addr = serve(&scenario, Guard::new()).await;
    for path in ["/systemone", "/v1/systemone"] {
        let got = post(addr, path, &ask("jev-latest", &["zeta", "alpha"])).await;
        assert_eq!(got.status, 200, "{path}: {}", got.text());
        assert_eq!(got.header("content-type"), Some("application/json"));
        assert_eq!(got.body, DECISION.as_bytes(), "{path}");
    }
    let got = post(addr, "/systemone", &ask("m-null", &["k"])).await;
    assert_eq!(got.body, DECISION_NULL.as_bytes());
    let got = post(addr, "/systemone", &ask("m-null-literal", &["k"])).await;
    assert_eq!((got.status, got.text().as_str()), (200, "null"));
    let got = post(addr, "/systemone", &ask("m-raw", &["k"])).await;
    assert_eq!(
        (got.status, got.text().as_str()),
        (200, "not json { at all")
    );
    assert_eq!(got.header("content-type"), Some("application/json"));
}

#[tokio::test]
async fn replies_match_by_model_question_key_and_style() {
    let addr = serve(
        r#"{"replies": [
             {"match": {"questionKey": "route"}, "decision": {"answers": "by key"}},
             {"match": {"model": "jev-pinned"}, "decision": {"answers": "by model"}},
             {"match": {"style": "systemone", "model": "too-many"}, "status": 400,
              "body": "{\"error\": \"Too many choices. Must have at most 255 choices.\"}"},
             {"match": {"style": "openai", "model": "chat-only"}, "status": 418},
             {"match": {"style": "systemone"}, "decision": {"answers": "any systemone"}},
             {"text": "chat answer"}
           ]}"#,
        Guard::new(),
    )
    .await;
    let answer = |got: &Got| got.json()["answers"].clone();
    // The key decides whatever the model; without it the model does.
    let got = post(addr, "/systemone", &ask("jev-pinned", &["other", "route"])).await;
    assert_eq!(answer(&got), "by key");
    let got = post(addr, "/systemone", &ask("jev-pinned", &["other"])).await;
    assert_eq!(answer(&got), "by model");
    let got = post(addr, "/systemone", &ask("too-many", &["x"])).await;
    assert_eq!(got.status, 400);
    assert_eq!(
        got.text(),
        r#"{"error": "Too many choices. Must have at most 255 choices."}"#
    );
    // A failure filtered to the OpenAI wire is not a systemone reply; the text reply
    // after the systemone catch-all never answers one either.
    let got = post(addr, "/systemone", &ask("chat-only", &["x"])).await;
    assert_eq!(answer(&got), "any systemone");
    // Chat requests skip every decision reply (the question key and model ones included)
    // and the systemone-only failure.
    for model in ["jev-pinned", "too-many"] {
        let got = post(addr, "/chat/completions", &chat(model)).await;
        assert_eq!(got.status, 200, "{}", got.text());
        assert_eq!(
            got.json()["choices"][0]["message"]["content"],
            "chat answer"
        );
    }
    let got = post(addr, "/chat/completions", &chat("chat-only")).await;
    assert_eq!(got.status, 418);
}

#[tokio::test]
async fn failures_with_retry_after_then_times_fall_through() {
    let addr = serve(
        r#"{"replies": [
             {"text": "a turn, never for a systemone request"},
             {"times": 1, "status": 529, "retryAfter": "0"},
             {"times": 1, "status": 520},
             {"times": 1, "status": 408, "retryAfter": "2"},
             {"times": 2, "decision": {"n": 1}},
             {"decision": {"n": 2}}
           ]}"#,
        Guard::new(),
    )
    .await;
    let body = ask("jev-latest", &["k"]);
    let got = post(addr, "/systemone", &body).await;
    assert_eq!(got.status, 529);
    assert_eq!(got.header("retry-after"), Some("0"));
    // The default error body is the systemone one, naming the scripted status.
    assert_eq!(got.json()["error"]["code"], 529);
    let got = post(addr, "/v1/systemone", &body).await;
    assert_eq!((got.status, got.header("retry-after")), (520, None));
    let got = post(addr, "/systemone", &body).await;
    assert_eq!((got.status, got.header("retry-after")), (408, Some("2")));
    let mut bodies = Vec::new();
    for _ in 0..3 {
        let got = post(addr, "/systemone", &body).await;
        assert_eq!(got.status, 200);
        bodies.push(got.text());
    }
    assert_eq!(bodies, [r#"{"n": 1}"#, r#"{"n": 1}"#, r#"{"n": 2}"#]);
}

#[tokio::test]
async fn drop_and_malformed_answer_systemone_too() {
    let addr = serve(
        r#"{"replies": [
             {"match": {"model": "drop"}, "drop": true},
             {"match": {"model": "bad"}, "malformed": true}
           ]}"#,
        Guard::new(),
    )
    .await;
    let got = post(addr, "/systemone", &ask("bad", &["k"])).await;
    assert_eq!(got.status, 200);
    assert!(
        serde_json::from_slice::<Value>(&got.body).is_err(),
        "{}",
        got.text()
    );
    // A dropped answer ends without a complete body: the connection closes after (at most)
    // the head, so the read ends with nothing a client could parse.
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let body = ask("drop", &["k"]);
        let head = format!(
            "POST /systemone HTTP/1.1\r\nhost: x\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(&body).await.unwrap();
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw).await;
        raw
    };
    let raw = tokio::time::timeout(BOUND, exchange).await.unwrap();
    let text = String::from_utf8_lossy(&raw).to_lowercase();
    assert!(
        raw.is_empty()
            || (text.contains("transfer-encoding: chunked") && !text.ends_with("0\r\n\r\n")),
        "a complete answer: {text:?}"
    );
}

#[tokio::test]
async fn unmatched_and_non_object_bodies_answer_like_chat() {
    let addr = serve(
        r#"{"replies": [{"match": {"questionKey": "only"}, "decision": {}}, {"text": "t"}]}"#,
        Guard::new(),
    )
    .await;
    let got = post(addr, "/systemone", &ask("jev-x", &["b", "a"])).await;
    assert_eq!(got.status, 500);
    let message = got.json()["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        message.starts_with("mock-llm: no reply matches")
            && message.contains(r#"model="jev-x""#)
            && message.contains(r#"questions=["a", "b"]"#),
        "{message}"
    );
    for bad in [&b"[1, 2]"[..], b"nope", b"\"s\"", b"{\"a\": \"\xff\"}"] {
        let got = post(addr, "/systemone", bad).await;
        assert_eq!(got.status, 400, "{bad:?}");
        assert!(got.json()["error"]["message"].is_string());
    }
}

#[tokio::test]
async fn body_text_records_the_bytes_as_sent_and_chat_entries_stay_as_they_were() {
    let addr = serve(
        r#"{"replies": [{"decision": {"answers": {}}}, {"text": "t"}]}"#,
        Guard::new(),
    )
    .await;
    // Keys unsorted, spacing odd, raw non-ASCII and HTML-ish characters, a -0.0 in state:
    // everything a parse-and-print would change.
    let sent = "{\"questions\":{\"zeta\":{\"type\":\"noul\",\"instructions\":\"<b>&'\\\"ü\"},\"café\":{\"type\":\"noul\",\"instructions\":\"✓\"}},  \"model\" : \"jev-1.13.0\",\"state\":{\"b\":-0.0,\"a\":1e21}}";
    let got = post(addr, "/systemone", sent.as_bytes()).await;
    assert_eq!(got.status, 200);
    let chat_body = chat("m");
    let got = post(addr, "/chat/completions", &chat_body).await;
    assert_eq!(got.status, 200);
    let entries = recorded(addr).await;
    assert_eq!(entries.len(), 2);
    let systemone = &entries[0];
    assert_eq!(systemone["path"], "/systemone");
    assert_eq!(
        systemone["bodyText"].as_str().map(str::as_bytes),
        Some(sent.as_bytes())
    );
    assert_eq!(systemone["body"]["model"], "jev-1.13.0");
    assert_eq!(systemone["body"]["questions"]["café"]["instructions"], "✓");
    let chat_entry = &entries[1];
    let keys: Vec<&String> = chat_entry
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["method", "path", "headers", "body"]);
    let parsed: Value = serde_json::from_slice(&chat_body).unwrap();
    assert_eq!(chat_entry["body"], parsed);
    let got = send(addr, "GET", "/_mock/stats", &[], b"").await;
    let stats = got.json();
    assert_eq!(stats["recorded"], 2);
    assert_eq!(stats["inFlight"], 0);
    assert!(
        stats["peakInFlight"].as_u64().is_some_and(|n| n >= 1),
        "{stats}"
    );
}

#[tokio::test]
async fn required_headers_guard_the_systemone_route() {
    let guard: Guard = vec![(
        axum::http::HeaderName::from_static("authorization"),
        Secret::new("Bearer s1-key"),
    )];
    let addr = serve(r#"{"replies": [{"decision": {"ok": true}}]}"#, guard).await;
    let body = ask("jev-latest", &["k"]);
    let got = post(addr, "/systemone", &body).await;
    assert_eq!((got.status, got.text().as_str()), (401, "unauthorized"));
    let got = send(
        addr,
        "POST",
        "/systemone",
        &[("authorization", "Bearer wrong")],
        &body,
    )
    .await;
    assert_eq!(got.status, 401);
    let got = send(
        addr,
        "POST",
        "/systemone",
        &[("authorization", "Bearer s1-key")],
        &body,
    )
    .await;
    assert_eq!((got.status, got.text().as_str()), (200, r#"{"ok": true}"#));
}

#[tokio::test]
async fn a_scenario_style_keeps_the_other_wires_out() {
    let only_chat = serve(
        r#"{"style": "openai", "replies": [{"text": "t"}]}"#,
        Guard::new(),
    )
    .await;
    let got = post(only_chat, "/systemone", &ask("m", &["k"])).await;
    assert_eq!(got.status, 404);
    let only_s1 = serve(
        r#"{"style": "systemone", "replies": [{"decision": {}}]}"#,
        Guard::new(),
    )
    .await;
    let got = post(only_s1, "/chat/completions", &chat("m")).await;
    assert_eq!(got.status, 404);
    let got = post(only_s1, "/systemone", &ask("m", &["k"])).await;
    assert_eq!((got.status, got.text().as_str()), (200, "{}"));
}

/// The example in mock-servers/README.md's classifier section is a scenario that loads.
#[test]
fn the_readme_example_loads() {
    let readme =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mock-servers/README.md");
    let text = std::fs::read_to_string(&readme).unwrap();
    let section = text
        .split("### Classifier (`systemone`)")
        .nth(1)
        .and_then(|s| s.split("```json\n").nth(1))
        .and_then(|s| s.split("```").next())
        .unwrap_or_else(|| panic!("no classifier example in {}", readme.display()));
    let scenario = parse_scenario(section).unwrap_or_else(|e| panic!("{e}\n{section}"));
    let kinds: Vec<bool> = scenario
        .replies
        .iter()
        .map(|r| matches!(r.answer, super::scenario::Answer::Decision(_)))
        .collect();
    assert_eq!(kinds, [false, false, true]);
}
