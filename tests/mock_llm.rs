//! The mock LLM as a port's tests meet it: the built binary, started as a child process,
//! spoken to over plain HTTP with reqwest, on both providers' wires.

use std::future::Future;
use std::path::PathBuf;
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
        http: reqwest::Client::new(),
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
