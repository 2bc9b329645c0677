//! The reference's §8 client through its driver (the protocol commands of PROTOCOL.md
//! §5.13–§5.20) against the mock LLM binary, on both wires.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use toolnexus_driver::ReferenceSession;

const BIN: &str = env!("CARGO_BIN_EXE_toolnexus-conformance");

/// A running mock LLM (killed on drop) and its base URL.
struct Llm {
    _child: Child,
    url: String,
}

async fn llm(file: &str) -> Llm {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("mock-servers/scenarios/llm")
        .join(file);
    let mut child = Command::new(BIN)
        .args(["mock", "llm", "--scenario"])
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut url = String::new();
    let stdout = child.stdout.take().unwrap();
    tokio::time::timeout(
        Duration::from_secs(10),
        BufReader::new(stdout).read_line(&mut url),
    )
    .await
    .unwrap()
    .unwrap();
    Llm {
        _child: child,
        url: url.trim_end().to_string(),
    }
}

async fn ok(s: &mut ReferenceSession, req: Value) -> Value {
    let r = s.handle(req.clone()).await;
    assert_eq!(r["ok"], true, "{req} -> {r}");
    r
}

async fn session_with_toolkit() -> ReferenceSession {
    let mut s = ReferenceSession::new();
    ok(
        &mut s,
        json!({"cmd": "build", "id": "tk", "options": {"builtins": false, "disableTools": ["skill"],
            "extraTools": [{"name": "lookup", "behaviour": {"echo": true}}]}}),
    )
    .await;
    s
}

#[tokio::test]
async fn the_tool_loop_runs_on_both_wires_and_streams_the_same_result() {
    let m = llm("tool-loop.json").await;
    let mut s = session_with_toolkit().await;
    for (style, base) in [
        ("openai", m.url.clone()),
        ("anthropic", format!("{}/v1", m.url)),
    ] {
        ok(
            &mut s,
            json!({"cmd": "client", "id": style, "options": {"baseUrl": base, "style": style,
                "model": "m", "apiKey": "k", "hooks": {"beforeTool": {"observe": true}},
                "onMetric": {"collect": true}}}),
        )
        .await;
        let r = ok(
            &mut s,
            json!({"cmd": "run", "client": style, "toolkit": "tk", "prompt": "go"}),
        )
        .await;
        let result = &r["result"];
        assert_eq!(
            result["text"], r#"done (3): {"q":"first"} | {"q":"second"} | {"q":"third"}"#,
            "{style}"
        );
        assert_eq!(
            (result["turns"].clone(), result["toolCallCount"].clone()),
            (json!(3), json!(3))
        );
        assert_eq!(
            result["usage"],
            json!({"promptTokens": 120, "completionTokens": 30, "totalTokens": 150})
        );
        let hooks = r["hookCalls"].as_array().unwrap();
        assert_eq!(hooks.len(), 3);
        assert_eq!(hooks[1]["turn"], hooks[2]["turn"], "two calls of one turn");
        let kinds: Vec<&str> = r["metricEvents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["event"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["llm", "tool", "llm", "tool", "tool", "llm", "run"]);

        let st = ok(
            &mut s,
            json!({"cmd": "stream", "client": style, "toolkit": "tk", "prompt": "go"}),
        )
        .await;
        let events = st["events"].as_array().unwrap();
        let deltas: String = events
            .iter()
            .filter(|e| e["type"] == "text")
            .map(|e| e["delta"].as_str().unwrap())
            .collect();
        let done = events.last().unwrap();
        assert_eq!(done["type"], "done");
        assert_eq!(done["result"]["text"], result["text"]);
        assert_eq!(deltas, result["text"].as_str().unwrap());
        assert!(events.len() > 10, "the mock streams small pieces");
    }
}

#[tokio::test]
async fn retries_on_error_classification_and_metrics() {
    let m = llm("retry-after.json").await;
    let mut s = ReferenceSession::new();
    let client = |id: &str, model: &str, extra: Value| {
        let mut o = json!({"baseUrl": m.url, "style": "openai", "model": model, "apiKey": "k",
            "retryBaseMs": 1, "onError": {"answer": "retry"}});
        o.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"cmd": "client", "id": id, "options": o})
    };
    ok(&mut s, client("twice", "retry-twice", json!({}))).await;
    let r = ok(
        &mut s,
        json!({"cmd": "run", "client": "twice", "prompt": "x"}),
    )
    .await;
    assert_eq!(r["result"]["text"], "recovered");
    assert_eq!(
        r["onErrorCalls"],
        json!([{"attempt": 0, "retryable": true, "status": 503},
               {"attempt": 1, "retryable": true, "status": 503}])
    );
    let text = ok(&mut s, json!({"cmd": "metrics", "client": "twice"})).await;
    let text = text["text"].as_str().unwrap();
    assert!(
        text.contains("toolnexus_llm_requests_total{model=\"retry-twice\",status=\"error\"} 2\n")
    );
    assert!(text.contains("toolnexus_llm_requests_total{model=\"retry-twice\",status=\"ok\"} 1\n"));

    // A fractional Retry-After is not honoured: backoff (1 ms base) instead of 1.5 s.
    ok(&mut s, client("frac", "fractional", json!({"retries": 1}))).await;
    let r = ok(
        &mut s,
        json!({"cmd": "run", "client": "frac", "prompt": "x"}),
    )
    .await;
    assert!(r["raised"].as_str().unwrap().contains("HTTP 429"), "{r}");
    assert!(r["elapsedMs"].as_u64().unwrap() < 1000, "{r}");

    // onError "fail" stops at the first attempt.
    ok(
        &mut s,
        client("fail", "zero", json!({"onError": {"answer": "fail"}})),
    )
    .await;
    let r = ok(
        &mut s,
        json!({"cmd": "run", "client": "fail", "prompt": "x"}),
    )
    .await;
    assert_eq!(r["onErrorCalls"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn conversation_memory_and_in_process_clients() {
    let m = llm("basic-openai.json").await;
    let mut s = ReferenceSession::new();
    ok(
        &mut s,
        json!({"cmd": "client", "id": "c", "options": {"baseUrl": m.url, "style": "openai",
            "model": "m-basic", "apiKey": "k", "store": {"seeded": {"t": [{"role": "user", "content": "earlier"}]}}}}),
    )
    .await;
    let r = ok(
        &mut s,
        json!({"cmd": "ask", "client": "c", "prompt": "hello", "id": "t", "onText": true}),
    )
    .await;
    let text = r["result"]["text"].as_str().unwrap().to_string();
    assert_eq!(
        r["textDeltas"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_str().unwrap())
            .collect::<String>(),
        text
    );
    let saved = ok(
        &mut s,
        json!({"cmd": "store_get", "client": "c", "id": "t"}),
    )
    .await;
    let saved = saved["messages"].as_array().unwrap();
    assert_eq!(
        saved[0]["content"], "earlier",
        "the seeded history was continued"
    );
    assert_eq!(saved.len(), 3);
    let none = ok(
        &mut s,
        json!({"cmd": "store_get", "client": "c", "id": "nope"}),
    )
    .await;
    assert_eq!(none["messages"], Value::Null);

    let convo = ok(
        &mut s,
        json!({"cmd": "conversation", "client": "c", "steps": [{"send": "one"}, {"reset": true}, {"send": "two"}]}),
    )
    .await;
    assert_eq!(convo["steps"][1], json!({}));
    assert_eq!(convo["messages"][0]["content"], "two");
    assert_eq!(convo["messages"].as_array().unwrap().len(), 2);

    ok(
        &mut s,
        json!({"cmd": "client", "id": "g", "options": {"model": "local", "generate": {"script": [
            {"toolCalls": [{"name": "nothing", "arguments": {"a": 1}}]},
            {"content": "fine", "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}]}}}),
    )
    .await;
    let r = ok(&mut s, json!({"cmd": "run", "client": "g", "prompt": "hi"})).await;
    assert_eq!(r["result"]["text"], "fine");
    assert_eq!(
        r["result"]["toolCalls"][0]["output"],
        "Unknown tool: nothing"
    );
    assert_eq!(r["generateCalls"].as_array().unwrap().len(), 2);
    let st = ok(
        &mut s,
        json!({"cmd": "stream", "client": "g", "prompt": "hi"}),
    )
    .await;
    assert!(st["raised"].is_string(), "{st}");

    let bad = s
        .handle(json!({"cmd": "run", "client": "missing", "prompt": "x"}))
        .await;
    assert_eq!(bad["error"]["kind"], "bad_request");
}

/// Issue 28 item 4: a one-letter key is redacted where it leaks (the server echoing it
/// back as a token) and leaves the words around it alone ("key", "known").
#[tokio::test]
async fn a_one_letter_api_key_is_redacted_as_a_token_without_mangling_the_error() {
    let m = llm("failures.json").await;
    let mut s = ReferenceSession::new();
    ok(
        &mut s,
        json!({"cmd": "client", "id": "k", "options": {"baseUrl": m.url, "style": "openai",
            "model": "s401-echo", "apiKey": "k", "retries": 0}}),
    )
    .await;
    let r = ok(&mut s, json!({"cmd": "run", "client": "k", "prompt": "x"})).await;
    let raised = r["raised"].as_str().unwrap_or_default();
    assert!(
        raised.contains("bad key [redacted]; the key must be a known one"),
        "{r}"
    );
}

#[tokio::test]
async fn timeout_and_cancel_abort_the_in_flight_call() {
    let m = llm("failures.json").await;
    let mut s = ReferenceSession::new();
    ok(
        &mut s,
        json!({"cmd": "client", "id": "t", "options": {"baseUrl": m.url, "style": "openai",
            "model": "slow", "apiKey": "k", "timeoutMs": 100, "onError": {"answer": "retry"}}}),
    )
    .await;
    let r = ok(&mut s, json!({"cmd": "run", "client": "t", "prompt": "x"})).await;
    assert!(r["raised"].as_str().unwrap().contains("timed out"), "{r}");
    assert_eq!(r["onErrorCalls"], json!([]), "aborts bypass onError");
    assert!(r["elapsedMs"].as_u64().unwrap() < 390, "{r}");

    ok(
        &mut s,
        json!({"cmd": "client", "id": "c", "options": {"baseUrl": m.url, "style": "anthropic",
            "model": "slow", "apiKey": "k"}}),
    )
    .await;
    let r = ok(
        &mut s,
        json!({"cmd": "stream", "client": "c", "prompt": "x", "cancelAfterMs": 100}),
    )
    .await;
    assert!(r["raised"].as_str().unwrap().contains("cancelled"), "{r}");
    let r = ok(&mut s, json!({"cmd": "run", "client": "c", "prompt": "x"})).await;
    assert_eq!(
        r["result"]["text"], "finally",
        "without a deadline the slow reply arrives"
    );

    // A dropped connection is a retryable network error, with the transport's message.
    ok(
        &mut s,
        json!({"cmd": "client", "id": "d", "options": {"baseUrl": m.url, "style": "openai",
            "model": "drop", "apiKey": "k", "retries": 1, "retryBaseMs": 1, "onError": {"answer": "retry"}}}),
    )
    .await;
    let r = ok(&mut s, json!({"cmd": "run", "client": "d", "prompt": "x"})).await;
    let calls = r["onErrorCalls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{r}");
    assert!(
        calls[0]["error"].is_string() && calls[0].get("status").is_none(),
        "{r}"
    );
    assert_eq!(calls[0]["retryable"], true);
}
