//! The mock LLM as a port's tests meet it: the built binary, started as a child process,
//! spoken to over plain HTTP with reqwest, on both providers' wires.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_toolnexus-conformance");
/// Generous for a loaded CI machine, tiny next to a hang.
const BOUND: Duration = Duration::from_secs(10);
const API_KEY: &str = "test-api-key-1";

async fn bounded<T>(what: &str, fut: impl Future<Output = T>) -> T {
    match tokio::time::timeout(BOUND, fut).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within {BOUND:?}"),
    }
}

/// A running mock: the child (killed on drop) and its base URL.
struct Llm {
    _child: Child,
    url: String,
    http: reqwest::Client,
}

async fn start(file: &str, env: &[(&str, &str)]) -> Llm {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("mock-servers/scenarios/llm")
        .join(file);
    start_path(&path, env).await
}

async fn start_path(path: &Path, env: &[(&str, &str)]) -> Llm {
    let mut cmd = Command::new(BIN);
    cmd.args(["mock", "llm", "--scenario"])
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut url = String::new();
    bounded("URL line", BufReader::new(stdout).read_line(&mut url))
        .await
        .unwrap();
    let url = url.trim_end().to_string();
    let port = url.strip_prefix("http://127.0.0.1:").unwrap_or_default();
    assert!(
        !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()),
        "first line {url:?}"
    );
    Llm {
        _child: child,
        url,
        http: toolnexus_ports::tls::client(),
    }
}

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    }
}

impl Llm {
    async fn post(&self, path: &str, body: &Value, headers: &[(&str, &str)]) -> Answer {
        let mut request = self
            .http
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .body(body.to_string());
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let response = bounded("request", request.send()).await.unwrap();
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = bounded("body", response.text()).await.unwrap();
        Answer {
            status,
            headers,
            body,
        }
    }

    async fn openai(&self, body: &Value) -> Answer {
        self.post("/chat/completions", body, &[]).await
    }

    async fn anthropic(&self, body: &Value) -> Answer {
        self.post("/v1/messages", body, &[("x-api-key", API_KEY)])
            .await
    }
}

fn chat(model: &str, user: &str, tool_results: &[&str]) -> Value {
    let mut messages = vec![json!({"role": "user", "content": user})];
    if !tool_results.is_empty() {
        let calls: Vec<Value> = (0..tool_results.len())
            .map(|i| {
                json!({"id": format!("c{i}"), "type": "function",
                            "function": {"name": "t", "arguments": "{}"}})
            })
            .collect();
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": calls}));
        for (i, r) in tool_results.iter().enumerate() {
            messages.push(json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": r}));
        }
    }
    json!({"model": model, "messages": messages})
}

fn messages(model: &str, user: &str, tool_results: &[&str]) -> Value {
    let mut msgs = vec![json!({"role": "user", "content": user})];
    if !tool_results.is_empty() {
        let uses: Vec<Value> = (0..tool_results.len())
            .map(|i| json!({"type": "tool_use", "id": format!("t{i}"), "name": "t", "input": {}}))
            .collect();
        msgs.push(json!({"role": "assistant", "content": uses}));
        let results: Vec<Value> = tool_results
            .iter()
            .enumerate()
            .map(|(i, r)| json!({"type": "tool_result", "tool_use_id": format!("t{i}"), "content": r}))
            .collect();
        msgs.push(json!({"role": "user", "content": results}));
    }
    json!({"model": model, "max_tokens": 100, "messages": msgs})
}

#[tokio::test]
async fn openai_tool_call_then_text_with_usage() {
    let llm = start("basic-openai.json", &[]).await;
    let a = llm
        .openai(&chat("gpt-x", "What's the weather in Paris?", &[]))
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    let v = a.json();
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["model"], "gpt-x");
    let choice = &v["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], Value::Null);
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(call["id"], "call_w1");
    assert_eq!(call["type"], "function");
    assert_eq!(call["function"]["name"], "get_weather");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"city": "Paris", "units": "metric"}));
    assert_eq!(
        v["usage"],
        json!({"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19})
    );

    let v = llm
        .openai(&chat("gpt-x", "What's the weather in Paris?", &["sunny"]))
        .await
        .json();
    assert_eq!(v["choices"][0]["message"]["content"], "It is sunny.");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert!(v["choices"][0]["message"].get("tool_calls").is_none());

    let v = llm
        .post("/v1/chat/completions", &chat("gpt-y", "hello", &[]), &[])
        .await
        .json();
    assert_eq!(v["choices"][0]["message"]["content"], "echo: hello (gpt-y)");

    // The scenario serves the OpenAI style only.
    let a = llm
        .post("/v1/messages", &messages("c", "hello", &[]), &[])
        .await;
    assert_eq!(a.status, 404);
    assert_eq!(a.json()["type"], "error");
}

#[tokio::test]
async fn anthropic_blocks_stop_reason_usage_and_the_required_key() {
    let auth = start("auth-anthropic.json", &[("MOCK_LLM_API_KEY", API_KEY)]).await;
    let a = auth
        .post(
            "/messages",
            &messages("claude-y", "hi", &[]),
            &[("x-api-key", API_KEY)],
        )
        .await;
    assert_eq!(a.status, 200, "the right key: {}", a.body);
    let a = auth
        .post("/v1/messages", &messages("claude-x", "weather?", &[]), &[])
        .await;
    assert_eq!(a.status, 401, "no key: {}", a.body);
    let a = auth
        .post(
            "/v1/messages",
            &messages("claude-x", "weather?", &[]),
            &[("x-api-key", "wrong")],
        )
        .await;
    assert_eq!(a.status, 401);

    let llm = start("basic-anthropic.json", &[]).await;
    let v = llm
        .anthropic(&messages("claude-x", "Weather in Paris?", &[]))
        .await
        .json();
    assert_eq!(v["type"], "message");
    assert_eq!(v["role"], "assistant");
    assert_eq!(v["model"], "claude-x");
    assert_eq!(v["stop_reason"], "tool_use");
    assert_eq!(
        v["content"],
        json!([{"type": "text", "text": "Let me look that up."},
               {"type": "tool_use", "id": "toolu_w1", "name": "get_weather",
                "input": {"city": "Paris"}}])
    );
    assert_eq!(v["usage"], json!({"input_tokens": 21, "output_tokens": 9}));

    let v = llm
        .anthropic(&messages("claude-x", "Weather in Paris?", &["rainy"]))
        .await
        .json();
    assert_eq!(
        v["content"],
        json!([{"type": "text", "text": "It is rainy."}])
    );
    assert_eq!(v["stop_reason"], "end_turn");

    let a = llm
        .post(
            "/messages",
            &messages("claude-y", "hi there", &[]),
            &[("x-api-key", API_KEY)],
        )
        .await;
    assert_eq!(a.json()["content"][0]["text"], "echo: hi there (claude-y)");
}

#[tokio::test]
async fn replies_follow_the_tool_result_count() {
    let llm = start("tool-loop.json", &[]).await;
    let v = llm.openai(&chat("m", "go", &[])).await.json();
    let calls = &v["choices"][0]["message"]["tool_calls"];
    assert_eq!(calls.as_array().unwrap().len(), 1);
    assert!(calls[0]["id"].as_str().unwrap().starts_with("call_mock_"));
    let v = llm.openai(&chat("m", "go", &["r1"])).await.json();
    let calls = &v["choices"][0]["message"]["tool_calls"];
    assert_eq!(calls.as_array().unwrap().len(), 2);
    assert_ne!(calls[0]["id"], calls[1]["id"]);
    assert_eq!(calls[1]["function"]["arguments"], r#"{"q":"third"}"#);
    let v = llm
        .openai(&chat("m", "go", &["r1", "r2", "r3"]))
        .await
        .json();
    assert_eq!(
        v["choices"][0]["message"]["content"],
        "done (3): r1 | r2 | r3"
    );
    assert_eq!(v["usage"]["total_tokens"], 120);
    // Anthropic tool_result blocks count the same way.
    let v = llm
        .anthropic(&messages("m", "go", &["a", "b"]))
        .await
        .json();
    assert_eq!(v["content"][0]["text"], "done (2): a | b");
}

#[tokio::test]
async fn fanout_callers_get_their_own_replies_concurrently() {
    let llm = start("fanout.json", &[]).await;
    let mut jobs = Vec::new();
    for i in 0..16 {
        let (model, results): (&str, Vec<&str>) = match i % 4 {
            0 => ("m-coordinator", vec![]),
            1 => ("m-coordinator", vec!["found:data(x)", "found:data(y)"]),
            2 => ("m-explore", vec![]),
            _ => ("m-explore", vec!["data(x)"]),
        };
        let body = chat(model, "answer using two lookups", &results);
        let http = llm.http.clone();
        let url = format!("{}/chat/completions", llm.url);
        jobs.push(tokio::spawn(async move {
            let r = http.post(url).json(&body).send().await.unwrap();
            (i, r.json::<Value>().await.unwrap())
        }));
    }
    for job in jobs {
        let (i, v) = bounded("job", job).await.unwrap();
        let message = &v["choices"][0]["message"];
        match i % 4 {
            0 => {
                let calls = message["tool_calls"].as_array().unwrap();
                assert_eq!(calls.len(), 2);
                assert_eq!(calls[0]["function"]["name"], "task");
                assert_eq!(
                    calls[1]["function"]["arguments"],
                    r#"{"agent":"explore","prompt":"find B"}"#
                );
            }
            1 => assert_eq!(
                message["content"],
                "synthesis: found:data(x) + found:data(y)"
            ),
            2 => assert_eq!(
                message["tool_calls"][0]["function"]["arguments"],
                r#"{"q":"x"}"#
            ),
            _ => assert_eq!(message["content"], "found:data(x)"),
        }
        assert_eq!(v["usage"]["total_tokens"], 40);
    }
    // A model no reply names: a clear 500 saying why.
    let a = llm.openai(&chat("m-other", "hi", &[])).await;
    assert_eq!(a.status, 500);
    let message = a.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(
        message.contains("no reply matches") && message.contains("m-other"),
        "{message}"
    );
}

#[tokio::test]
async fn retry_after_passes_through_verbatim_and_times_sequences() {
    let llm = start("retry-after.json", &[]).await;
    let forms = [
        ("digits", Some("2")),
        ("zero", Some("0")),
        ("fractional", Some("1.5")),
        ("negative", Some("-3")),
        ("http-date", Some("Wed, 21 Oct 2015 07:28:00 GMT")),
        ("empty", Some("")),
        ("garbage", Some("soon-ish")),
        ("huge", Some("99999999999999999999")),
        ("none", None),
    ];
    for (model, expected) in forms {
        let a = llm.openai(&chat(model, "hi", &[])).await;
        assert_eq!(a.status, 429, "{model}");
        assert_eq!(a.header("retry-after").as_deref(), expected, "{model}");
        assert_eq!(a.json()["error"]["type"], "rate_limit_exceeded");
    }
    let a = llm.anthropic(&messages("digits", "hi", &[])).await;
    assert_eq!(a.json()["error"]["type"], "rate_limit_error");

    let first = llm.openai(&chat("retry-twice", "hi", &[])).await;
    let second = llm.openai(&chat("retry-twice", "hi", &[])).await;
    let third = llm.openai(&chat("retry-twice", "hi", &[])).await;
    assert_eq!((first.status, second.status, third.status), (503, 503, 200));
    assert_eq!(second.header("retry-after").as_deref(), Some("0"));
    assert_eq!(
        third.json()["choices"][0]["message"]["content"],
        "recovered"
    );
}

#[tokio::test]
async fn statuses_drop_malformed_and_slow() {
    let llm = start("failures.json", &[]).await;
    for status in [400u16, 401, 500, 503, 504, 529] {
        let a = llm
            .anthropic(&messages(&format!("s{status}"), "hi", &[]))
            .await;
        assert_eq!(a.status, status);
        assert_eq!(a.json()["type"], "error", "{status}");
    }
    assert_eq!(
        llm.anthropic(&messages("s529", "hi", &[])).await.json()["error"]["type"],
        "overloaded_error"
    );
    let a = llm.openai(&chat("s502", "hi", &[])).await;
    assert_eq!(
        (a.status, a.body.as_str()),
        (502, "<html>bad gateway</html>")
    );

    let request = llm
        .http
        .post(format!("{}/chat/completions", llm.url))
        .json(&chat("drop", "hi", &[]));
    match bounded("drop", request.send()).await {
        Err(_) => {}
        Ok(response) => assert!(
            bounded("drop body", response.bytes()).await.is_err(),
            "a dropped connection delivered a complete answer"
        ),
    }

    let a = llm.openai(&chat("malformed", "hi", &[])).await;
    assert_eq!(a.status, 200);
    assert!(
        serde_json::from_str::<Value>(&a.body).is_err(),
        "{}",
        a.body
    );

    let started = Instant::now();
    let a = llm.openai(&chat("slow", "hi", &[])).await;
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert_eq!(a.json()["choices"][0]["message"]["content"], "finally");

    let a = llm
        .post("/chat/completions", &json!("not an object"), &[])
        .await;
    assert_eq!(a.status, 400);
}

#[tokio::test]
async fn the_recording_redacts_keys_and_the_canary() {
    let canary = "canary-7f3a";
    let llm = start(
        "tool-loop.json",
        &[("TOOLNEXUS_CONFORMANCE_SECRET", canary)],
    )
    .await;
    let body = chat("m", "go", &[]);
    llm.post(
        "/chat/completions",
        &body,
        &[
            ("authorization", "Bearer sk-visible"),
            ("x-api-key", "k-visible"),
            ("x-custom", canary),
            ("x-plain", "kept"),
        ],
    )
    .await;
    let r = llm
        .http
        .get(format!("{}/_mock/requests", llm.url))
        .send()
        .await
        .unwrap();
    let text = r.text().await.unwrap();
    assert!(!text.contains("sk-visible") && !text.contains("k-visible") && !text.contains(canary));
    let all: Value = serde_json::from_str(&text).unwrap();
    let one = &all[0];
    assert_eq!(all.as_array().unwrap().len(), 1);
    assert_eq!(one["method"], "POST");
    assert_eq!(one["path"], "/chat/completions");
    assert_eq!(one["body"], body);
    assert_eq!(one["headers"]["authorization"], "<redacted>");
    assert_eq!(one["headers"]["x-api-key"], "<redacted>");
    assert_eq!(one["headers"]["x-custom"], "<redacted>");
    assert_eq!(one["headers"]["x-plain"], "kept");
}

/// `(event name, data)` per SSE event.
fn sse(body: &str) -> Vec<(String, String)> {
    body.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let mut event = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(e) = line.strip_prefix("event: ") {
                    event = e.to_string();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data = d.to_string();
                } else {
                    panic!("unexpected SSE line {line:?}");
                }
            }
            (event, data)
        })
        .collect()
}

#[tokio::test]
async fn openai_streams_chunks_and_usage_only_when_asked() {
    let llm = start("tool-loop.json", &[]).await;
    for include_usage in [false, true] {
        let mut body = chat("m", "go", &["r1"]);
        body["stream"] = json!(true);
        if include_usage {
            body["stream_options"] = json!({"include_usage": true});
        }
        let a = llm.openai(&body).await;
        assert_eq!(
            a.header("content-type").as_deref(),
            Some("text/event-stream")
        );
        let events = sse(&a.body);
        assert_eq!(events.last().unwrap().1, "[DONE]");
        let chunks: Vec<Value> = events[..events.len() - 1]
            .iter()
            .map(|(e, d)| {
                assert!(e.is_empty());
                serde_json::from_str(d).unwrap()
            })
            .collect();
        assert!(chunks
            .iter()
            .all(|c| c["object"] == "chat.completion.chunk"));
        assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
        let mut args: Vec<String> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let mut finish = Vec::new();
        for c in &chunks {
            let Some(choice) = c["choices"].get(0) else {
                continue;
            };
            if let Some(f) = choice["finish_reason"].as_str() {
                finish.push(f.to_string());
            }
            for tc in choice["delta"]["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let i = tc["index"].as_u64().unwrap() as usize;
                if args.len() <= i {
                    args.resize(i + 1, String::new());
                    names.resize(i + 1, String::new());
                }
                if let Some(n) = tc["function"]["name"].as_str() {
                    names[i].push_str(n);
                }
                args[i].push_str(tc["function"]["arguments"].as_str().unwrap_or_default());
            }
        }
        assert_eq!(names, vec!["lookup", "lookup"]);
        assert_eq!(args, vec![r#"{"q":"second"}"#, r#"{"q":"third"}"#]);
        assert!(
            chunks
                .iter()
                .filter(|c| c["choices"][0]["delta"]["tool_calls"][0]["index"] == 1)
                .count()
                > 2,
            "arguments are split"
        );
        assert_eq!(finish, vec!["tool_calls"]);
        let last = chunks.last().unwrap();
        if include_usage {
            assert_eq!(last["choices"], json!([]));
            assert_eq!(last["usage"]["total_tokens"], 15);
        } else {
            assert!(chunks.iter().all(|c| c.get("usage").is_none()));
            assert_eq!(last["choices"][0]["finish_reason"], "tool_calls");
        }
    }
    // Text streams in pieces too.
    let mut body = chat("m", "go", &["alpha", "beta"]);
    body["stream"] = json!(true);
    let text: String = sse(&llm.openai(&body).await.body)
        .iter()
        .filter(|(_, d)| d != "[DONE]")
        .map(|(_, d)| serde_json::from_str::<Value>(d).unwrap())
        .filter_map(|c| {
            c["choices"][0]["delta"]["content"]
                .as_str()
                .map(String::from)
        })
        .collect();
    assert_eq!(text, "done (2): alpha | beta");
}

#[tokio::test]
async fn anthropic_streams_events_in_order() {
    let llm = start("basic-anthropic.json", &[("MOCK_LLM_API_KEY", API_KEY)]).await;
    let mut body = messages("claude-x", "weather?", &[]);
    body["stream"] = json!(true);
    let a = llm.anthropic(&body).await;
    assert_eq!(
        a.header("content-type").as_deref(),
        Some("text/event-stream")
    );
    let events = sse(&a.body);
    let mut names: Vec<String> = Vec::new();
    let mut text = String::new();
    let mut json_args = String::new();
    let mut stop = String::new();
    for (event, data) in &events {
        let v: Value = serde_json::from_str(data).unwrap();
        assert_eq!(v["type"], event.as_str(), "event name and type agree");
        if names.last() != Some(event) || event != "content_block_delta" {
            names.push(event.clone());
        }
        match event.as_str() {
            "content_block_start" if v["index"] == 1 => {
                assert_eq!(
                    v["content_block"],
                    json!({"type": "tool_use", "id": "toolu_w1", "name": "get_weather", "input": {}})
                );
            }
            "content_block_delta" => match v["delta"]["type"].as_str() {
                Some("text_delta") => text.push_str(v["delta"]["text"].as_str().unwrap()),
                Some("input_json_delta") => {
                    json_args.push_str(v["delta"]["partial_json"].as_str().unwrap())
                }
                other => panic!("delta {other:?}"),
            },
            "message_delta" => {
                stop = v["delta"]["stop_reason"].as_str().unwrap().to_string();
                assert_eq!(v["usage"]["output_tokens"], 9);
            }
            "message_start" => assert_eq!(v["message"]["usage"]["input_tokens"], 21),
            _ => {}
        }
    }
    assert_eq!(
        names,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    assert_eq!(text, "Let me look that up.");
    assert_eq!(
        serde_json::from_str::<Value>(&json_args).unwrap(),
        json!({"city": "Paris"})
    );
    assert_eq!(stop, "tool_use");
}

// ---- The shared §7D/§7E fixtures' `mockLLM` blocks, converted (llm::from_fixture) ----

/// The six fixtures whose `mockLLM` block the converter must read.
const AGENT_FIXTURES: [&str; 6] = [
    "subagent-fanout",
    "subagent-escalation",
    "subagent-budgets",
    "subagent-lifecycle",
    "subagent-durable-resume",
    "persona-agent",
];

/// `../shared/spec/examples/NAME/fixture.json`; like the features', a missing checkout fails.
fn shared_fixture(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/spec/examples")
        .join(name)
        .join("fixture.json");
    assert!(path.is_file(), "missing shared fixture {}", path.display());
    path
}

fn convert(name: &str) -> Value {
    toolnexus_mock_servers::llm::from_fixture(&shared_fixture(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The converted fixture in a temp file, served; the directory lives as long as the mock.
async fn start_fixture(name: &str) -> (Llm, tempfile::TempDir) {
    start_json(&convert(name)).await
}

async fn start_json(scenario: &Value) -> (Llm, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("llm.json");
    std::fs::write(&path, scenario.to_string()).unwrap();
    (start_path(&path, &[]).await, dir)
}

fn with_system(mut body: Value, system: &str) -> Value {
    let messages = body["messages"].as_array_mut().unwrap();
    messages.insert(0, json!({"role": "system", "content": system}));
    body
}

fn content(a: &Answer) -> String {
    assert_eq!(a.status, 200, "{}", a.body);
    a.json()["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn replies_of<'a>(scenario: &'a Value, model: &str) -> Vec<&'a Value> {
    scenario["replies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["match"]["model"] == model)
        .collect()
}

#[test]
fn every_shared_agent_fixture_converts() {
    for name in AGENT_FIXTURES {
        let s = convert(name);
        assert!(!s["replies"].as_array().unwrap().is_empty(), "{name}");
    }
    // The converter reproduces the hand conversion of subagent-fanout.
    let hand: Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("mock-servers/scenarios/llm/fanout.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(convert("subagent-fanout"), hand);
    // durable-resume's `mockLLM` is a $ref to escalation's.
    assert_eq!(
        convert("subagent-durable-resume"),
        convert("subagent-escalation")
    );
    // lifecycle's m-coordinator/m-explore are $refs into fanout; m-slow blocks.
    let lifecycle = convert("subagent-lifecycle");
    let fanout = convert("subagent-fanout");
    for model in ["m-coordinator", "m-explore"] {
        assert_eq!(replies_of(&lifecycle, model), replies_of(&fanout, model));
    }
    let slow = replies_of(&lifecycle, "m-slow");
    assert_eq!(slow.len(), 1);
    assert_eq!(slow[0]["delayMs"], 60000);
    assert_eq!(slow[0]["text"], "slow-done");
    // A prose conditional becomes ordered replies: the guarded branch first.
    let persona = convert("persona-agent");
    let heartbeat = replies_of(&persona, "m-heartbeat");
    assert_eq!(heartbeat.len(), 2);
    assert_eq!(heartbeat[0]["match"]["lastUserText"], "Heartbeat");
    assert_eq!(heartbeat[1]["text"], "HEARTBEAT_OK");
    assert!(heartbeat[1]["match"].get("systemText").is_none());
}

#[tokio::test]
async fn escalation_asker_asks_then_echoes_the_secret() {
    let (llm, _dir) = start_fixture("subagent-escalation").await;
    let first = llm.openai(&chat("m-asker", "get the secret", &[])).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let calls = &first.json()["choices"][0]["message"]["tool_calls"];
    assert_eq!(calls[0]["function"]["name"], "check_secret");
    // A tool result without the secret: still asking (noToolResultContains).
    let denied = llm
        .openai(&chat("m-asker", "get the secret", &["denied"]))
        .await;
    assert_eq!(
        denied.json()["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
        "check_secret"
    );
    let answered = llm
        .openai(&chat(
            "m-asker",
            "get the secret",
            &["x", "ok: secret-token"],
        ))
        .await;
    assert_eq!(content(&answered), "asker-done: secret-token");
    // The parent quotes the last tool result.
    let parent = llm
        .openai(&chat(
            "m-approver-parent",
            "go",
            &["first", "asker-done: secret-token"],
        ))
        .await;
    assert_eq!(content(&parent), "parent-final: asker-done: secret-token");
}

#[tokio::test]
async fn lifecycle_peer_counts_numbered_lines_of_the_last_user_text() {
    let (llm, _dir) = start_fixture("subagent-lifecycle").await;
    let inbox = "Inbox:\n1. [from coordinator] hi\n2. [external] <untrusted>x</untrusted>\n\
                 3. tick (x3)\nnot 4. counted\n5.no space";
    let a = llm.openai(&chat("m-peer", inbox, &[])).await;
    assert_eq!(content(&a), "processed 3 items");
    let a = llm.openai(&chat("m-peer", "nothing numbered", &[])).await;
    assert_eq!(content(&a), "processed 0 items");
}

#[tokio::test]
async fn persona_scripts_read_the_system_prompt() {
    let (llm, _dir) = start_fixture("persona-agent").await;
    let soul = "## SOUL.md\nYou are Ava.\n\n## USER.md\nThe user is Muthu.\n### not a section\n\
                ##nor this\n## HEARTBEAT.md\nIf it is time, remind about the 3pm sync.\n## MEMORY.md\n- x";
    let a = llm
        .openai(&with_system(chat("m-echo-soul", "hi", &[]), soul))
        .await;
    assert_eq!(
        content(&a),
        "sections:[SOUL.md,USER.md,HEARTBEAT.md,MEMORY.md]"
    );
    let a = llm.openai(&chat("m-echo-soul", "hi", &[])).await;
    assert_eq!(content(&a), "sections:[]");
    let recall = |system: &str| with_system(chat("m-recall", "what do I like?", &[]), system);
    let a = llm
        .openai(&recall("## USER.md\n- Prefers dark roast"))
        .await;
    assert_eq!(content(&a), "I recall: dark roast");
    let a = llm.openai(&recall("## USER.md\n- Muthu")).await;
    assert_eq!(content(&a), "no memory");
    let beat = |system: &str, user: &str| with_system(chat("m-heartbeat", user, &[]), system);
    let due = "## HEARTBEAT.md\nIf it is time, remind about the 3pm sync.";
    let a = llm.openai(&beat(due, "Heartbeat: read HEARTBEAT.md")).await;
    assert_eq!(content(&a), "Reminder: 3pm sync \u{1f514}");
    let a = llm.openai(&beat(due, "just chatting")).await;
    assert_eq!(content(&a), "HEARTBEAT_OK");
    let a = llm
        .openai(&beat(
            "## HEARTBEAT.md\nOtherwise reply HEARTBEAT_OK.",
            "Heartbeat",
        ))
        .await;
    assert_eq!(content(&a), "HEARTBEAT_OK");
}

#[tokio::test]
async fn the_new_matchers_and_templates_read_both_wires() {
    let scenario = json!({"replies": [
        {"match": {"systemText": "(?m)^## B$", "toolResultContains": "needle"},
         "text": "{{systemHeadings}}|{{toolResult.last}}|{{lastUserText.count:o}}"},
        {"match": {"noToolResultContains": "needle"}, "text": "none: {{toolResult.last}}"},
        {"text": "fallback"}
    ]});
    let (llm, _dir) = start_json(&scenario).await;
    let results = ["hay", "a needle", "end"];
    let a = llm
        .openai(&with_system(chat("m", "foo boo", &results), "## A\n## B"))
        .await;
    assert_eq!(content(&a), "A,B|end|4");
    // No system text: systemText fails, and a result holds the needle.
    let a = llm.openai(&chat("m", "foo boo", &results)).await;
    assert_eq!(content(&a), "fallback");
    let a = llm
        .openai(&with_system(chat("m", "foo", &["hay"]), "## B"))
        .await;
    assert_eq!(content(&a), "none: hay");
    let a = llm.openai(&chat("m", "foo", &[])).await;
    assert_eq!(content(&a), "none: ");
    // Anthropic: top-level `system` as text blocks (one per line) or a string;
    // tool results from `tool_result` blocks.
    let mut body = messages("m", "foo boo", &results);
    body["system"] = json!([{"type": "text", "text": "## A"}, {"type": "text", "text": "## B"}]);
    let v = llm.anthropic(&body).await.json();
    assert_eq!(v["content"][0]["text"], "A,B|end|4");
    body["system"] = json!("intro\n## B");
    let v = llm.anthropic(&body).await.json();
    assert_eq!(v["content"][0]["text"], "B|end|4");
    body["system"] = json!("## A");
    let v = llm.anthropic(&body).await.json();
    assert_eq!(v["content"][0]["text"], "fallback");
}

/// A fixture-shaped file in `dir` whose m-x script has `steps`.
fn tiny_fixture(dir: &Path, steps: Value) -> PathBuf {
    let path = dir.join("fixture.json");
    let fixture = json!({"mockLLM": {"style": "openai", "scripts": {"m-x": steps}}});
    std::fs::write(&path, fixture.to_string()).unwrap();
    path
}

#[test]
fn unknown_prose_and_keys_are_refused_by_name() {
    use toolnexus_mock_servers::llm::from_fixture;
    let dir = tempfile::tempdir().unwrap();
    let steps = json!([{"always": true, "text": "ok"},
                       {"always": true, "text": "sum: <sum of tool msg numbers>"}]);
    let path = tiny_fixture(dir.path(), steps);
    let e = from_fixture(&path).unwrap_err();
    assert!(
        e.contains(&path.display().to_string())
            && e.contains("m-x[1]")
            && e.contains("<sum of tool msg numbers>"),
        "{e}"
    );
    // A known placeholder beside unknown prose is still refused.
    let steps = json!([{"always": true, "text": "<first tool msg content> <and more>"}]);
    let e = from_fixture(&tiny_fixture(dir.path(), steps)).unwrap_err();
    assert!(e.contains("m-x[0]") && e.contains("<and more>"), "{e}");
    for (step, named) in [
        (
            json!({"always": true, "text": "x", "whenMoon": 1}),
            "whenMoon",
        ),
        (
            json!({"always": true, "text": "x", "blocksUntil": "noon"}),
            "noon",
        ),
        (json!({"always": false, "text": "x"}), "always"),
        (json!({"text": "x"}), "no condition"),
        (json!({"always": true, "text": "{{model}}"}), "{{model}}"),
        (json!({"whenToolMsgs": "~1", "text": "x"}), "whenToolMsgs"),
        (
            json!({"always": true, "toolCalls": [{"name": "t", "id": "c"}]}),
            "\"id\"",
        ),
    ] {
        let e = from_fixture(&tiny_fixture(dir.path(), json!([step]))).unwrap_err();
        assert!(e.contains("m-x[0]") && e.contains(named), "{named}: {e}");
    }
    // $ref: a relative path plus a pointer, and a cycle refused.
    let other = dir.path().join("other.json");
    std::fs::write(
        &other,
        json!({"s": [{"always": true, "text": "from other"}]}).to_string(),
    )
    .unwrap();
    let path = tiny_fixture(dir.path(), json!({"$ref": "other.json#/s"}));
    let s = from_fixture(&path).unwrap();
    assert_eq!(s["replies"][0]["text"], "from other");
    std::fs::write(&other, json!({"s": {"$ref": "#/s"}}).to_string()).unwrap();
    let e = from_fixture(&path).unwrap_err();
    assert!(e.contains("cycle"), "{e}");
}

async fn stats(llm: &Llm) -> Value {
    let r = bounded(
        "stats",
        llm.http.get(format!("{}/_mock/stats", llm.url)).send(),
    )
    .await
    .unwrap();
    bounded("stats body", r.json::<Value>()).await.unwrap()
}

#[tokio::test]
async fn stats_see_overlapping_requests() {
    let scenario = json!({"replies": [{"delayMs": 400, "text": "late"}]});
    let (llm, _dir) = start_json(&scenario).await;
    let in_flight = |s: Value| (s["peakInFlight"].clone(), s["inFlight"].clone());
    assert_eq!(in_flight(stats(&llm).await), (json!(0), json!(0)));
    let (one, two) = (chat("m", "one", &[]), chat("m", "two", &[]));
    let (a, b) = tokio::join!(llm.openai(&one), llm.openai(&two));
    assert_eq!((content(&a), content(&b)), ("late".into(), "late".into()));
    assert_eq!(in_flight(stats(&llm).await), (json!(2), json!(0)));
    // One at a time does not raise the peak.
    llm.openai(&chat("m", "three", &[])).await;
    assert_eq!(stats(&llm).await["peakInFlight"], 2);
}

#[tokio::test]
async fn a_blocking_step_is_dropped_when_the_client_gives_up() {
    let (llm, _dir) = start_fixture("subagent-lifecycle").await;
    let body = chat("m-slow", "work", &[]);
    let gave_up = llm
        .http
        .post(format!("{}/chat/completions", llm.url))
        .timeout(Duration::from_millis(300))
        .json(&body)
        .send()
        .await;
    assert!(gave_up.is_err(), "m-slow answered at once");
    // The handler is dropped with the connection: nothing stays in flight for the 60 s.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let s = stats(&llm).await;
        assert_eq!(s["peakInFlight"], 1);
        if s["inFlight"] == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the aborted request is still in flight: {s}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The server still answers others.
    let a = llm.openai(&chat("m-peer", "1. a", &[])).await;
    assert_eq!(content(&a), "processed 1 items");
}

/// The mock's peak resident memory (`VmHWM`) in bytes, where `/proc` tells it.
fn peak_resident(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[tokio::test]
async fn the_recording_stays_under_its_byte_cap_under_big_bodies() {
    // The cap mock-servers/README.md states; 100 bodies cut to 1 MiB each hold ~100 MiB.
    const CAP: u64 = 64 << 20;
    let (llm, _dir) = start_json(&json!({"replies": [{"text": "ok"}]})).await;
    let body = chat("m", &"x".repeat(4_000_000), &[]).to_string();
    for i in 0..100 {
        let response = bounded(
            "4 MB request",
            llm.http
                .post(format!("{}/chat/completions", llm.url))
                .header("content-type", "application/json")
                .body(body.clone())
                .send(),
        )
        .await
        .unwrap();
        assert_eq!(response.status().as_u16(), 200, "request {i}");
        bounded("answer", response.bytes()).await.unwrap();
    }
    let s = stats(&llm).await;
    let peak = llm._child.id().and_then(peak_resident);
    eprintln!(
        "mock-llm after 100 × 4 MB bodies: VmHWM {:?} MiB, stats {s}",
        peak.map(|p| p >> 20)
    );
    let held = s["recordedBytes"].as_u64().unwrap_or(u64::MAX);
    assert!(held <= CAP, "the recording holds {held} bytes: {s}");
    assert_eq!(s["recordedBytesCap"], CAP, "{s}");
    let kept = s["recorded"].as_u64().unwrap_or(0);
    assert!((1..100).contains(&kept), "{s}");
    assert_eq!(s["recordedEvicted"], 100 - kept, "{s}");
    // A loose bound only (4 MB bodies are read whole, and the allocator keeps what it
    // freed); the byte count above is what the cap promises.
    if let Some(peak) = peak {
        assert!(peak < 512 << 20, "mock-llm peaked at {} MiB", peak >> 20);
    }
}
