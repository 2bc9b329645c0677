//! The §8 client against a scripted HTTP server: what goes on the wire and what comes back.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use toolnexus_reference::client::{
    AskOptions, Client, ClientOptions, ErrorDecision, ErrorInfo, RunOptions, StreamEvent, Style,
};
use toolnexus_reference::native::{define_tool, NativeReturn};
use toolnexus_reference::{Toolkit, ToolkitOptions};

/// Answers the scripted replies in order (the last one again once used up).
struct Script(Mutex<Vec<ResponseTemplate>>);

impl Respond for Script {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let mut replies = self.0.lock().unwrap();
        if replies.len() > 1 {
            replies.remove(0)
        } else {
            replies[0].clone()
        }
    }
}

fn json_reply(v: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(v)
}

fn openai_text(text: &str) -> ResponseTemplate {
    json_reply(
        json!({"choices": [{"message": {"role": "assistant", "content": text},
        "finish_reason": "stop"}], "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}),
    )
}

fn openai_call(name: &str, args: Value) -> ResponseTemplate {
    json_reply(
        json!({"choices": [{"message": {"role": "assistant", "content": null,
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}}]},
        "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 10, "completion_tokens": 1}}),
    )
}

async fn server(route: &str, replies: Vec<ResponseTemplate>) -> MockServer {
    let s = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(route))
        .respond_with(Script(Mutex::new(replies)))
        .mount(&s)
        .await;
    s
}

async fn toolkit() -> Toolkit {
    let echo = define_tool(
        "echo",
        "Echoes.",
        json!({"type": "object", "properties": {"q": {"type": "string"}}}),
        |args, _ctx| async move { Ok(NativeReturn::Text(format!("got {}", args["q"]))) },
    );
    Toolkit::build(ToolkitOptions {
        builtins: Some(json!(false)),
        extra_tools: vec![echo],
        disable_tools: vec!["skill".into()],
        ..ToolkitOptions::default()
    })
    .await
}

fn options(base: &str, style: Style) -> ClientOptions {
    ClientOptions {
        base_url: base.to_string(),
        style,
        model: "m-1".into(),
        api_key: Some("sk-test".into()),
        system_prompt: Some("Be terse.".into()),
        retry_base_ms: 1,
        ..ClientOptions::default()
    }
}

async fn bodies(s: &MockServer) -> Vec<Value> {
    s.received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

#[tokio::test]
async fn openai_loop_runs_the_tool_and_reports_everything() {
    let s = server(
        "/chat/completions",
        vec![openai_call("echo", json!({"q": "x"})), openai_text("done")],
    )
    .await;
    let tk = toolkit().await;
    let client = Client::new(options(&s.uri(), Style::OpenAi));
    let opts = RunOptions {
        toolkit: Some(&tk),
        ..RunOptions::default()
    };
    let r = client.run("hi", opts).await.unwrap();
    assert_eq!(r.text, "done");
    assert_eq!((r.turns, r.tool_call_count), (2, 1));
    assert_eq!(r.tool_calls[0].output, "got \"x\"");
    assert_eq!(
        (
            r.usage.prompt_tokens,
            r.usage.completion_tokens,
            r.usage.total_tokens
        ),
        (13, 3, 16)
    );
    let reqs = s.received_requests().await.unwrap();
    assert_eq!(reqs[0].headers["authorization"], "Bearer sk-test");
    let b = bodies(&s).await;
    assert_eq!(b[0]["model"], "m-1");
    assert_eq!(b[0]["tool_choice"], "auto");
    assert_eq!(b[0]["tools"][0]["function"]["name"], "echo");
    let system = "Be terse.\n\nNo skills are currently available.";
    assert_eq!(
        b[0]["messages"][0],
        json!({"role": "system", "content": system})
    );
    assert_eq!(
        b[1]["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "got \"x\""})
    );
}

#[tokio::test]
async fn anthropic_wire_and_tool_results() {
    let call = json_reply(
        json!({"content": [{"type": "tool_use", "id": "tu_1", "name": "echo",
        "input": {"q": "y"}}], "stop_reason": "tool_use", "usage": {"input_tokens": 4, "output_tokens": 1}}),
    );
    let done = json_reply(json!({"content": [{"type": "text", "text": "ok"}],
        "usage": {"input_tokens": 6, "output_tokens": 2}}));
    let s = server("/v1/messages", vec![call, done]).await;
    let tk = toolkit().await;
    let mut o = options(&s.uri(), Style::Anthropic);
    o.request_params = json!({"max_tokens": 77, "tools": []})
        .as_object()
        .unwrap()
        .clone();
    let client = Client::new(o);
    let opts = RunOptions {
        toolkit: Some(&tk),
        ..RunOptions::default()
    };
    let r = client.run("hi", opts).await.unwrap();
    assert_eq!((r.text.as_str(), r.usage.total_tokens), ("ok", 13));
    let reqs = s.received_requests().await.unwrap();
    assert_eq!(reqs[0].headers["x-api-key"], "sk-test");
    assert_eq!(reqs[0].headers["anthropic-version"], "2023-06-01");
    let b = bodies(&s).await;
    let system = "Be terse.\n\nNo skills are currently available.";
    assert_eq!(
        b[0]["system"], system,
        "systemPrompt + \"\\n\\n\" + skillsPrompt()"
    );
    assert_eq!(b[0]["max_tokens"], 77, "a requestParams key wins");
    assert_eq!(
        b[0]["tools"][0]["name"], "echo",
        "`tools` is stripped from params"
    );
    assert_eq!(
        b[1]["messages"][2],
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1",
            "content": "got \"y\""}]})
    );
}

#[tokio::test]
async fn retries_then_fails_with_the_status_and_never_the_key() {
    let fail = ResponseTemplate::new(503)
        .insert_header("retry-after", "0")
        .set_body_string("overloaded sk-test");
    let s = server("/chat/completions", vec![fail]).await;
    let seen = Arc::new(Mutex::new(Vec::<ErrorInfo>::new()));
    let mut o = options(&s.uri(), Style::OpenAi);
    let log = seen.clone();
    o.on_error = Some(Arc::new(move |info: &ErrorInfo| {
        log.lock().unwrap().push(info.clone());
        ErrorDecision::Retry
    }));
    let client = Client::new(o);
    let err = client.run("hi", RunOptions::default()).await.unwrap_err();
    assert!(err.message().contains("HTTP 503"), "{}", err.message());
    assert!(!err.message().contains("sk-test"), "{}", err.message());
    let attempts: Vec<u32> = seen.lock().unwrap().iter().map(|i| i.attempt).collect();
    assert_eq!(attempts, [0, 1, 2], "first try + retries (2)");
    assert_eq!(s.received_requests().await.unwrap().len(), 3);
    assert!(client
        .metrics()
        .contains("toolnexus_run_errors_total{model=\"m-1\"} 1\n"));
}

#[tokio::test]
async fn a_non_retryable_status_fails_at_once() {
    let s = server("/chat/completions", vec![ResponseTemplate::new(401)]).await;
    let client = Client::new(options(&s.uri(), Style::OpenAi));
    let err = client.run("hi", RunOptions::default()).await.unwrap_err();
    assert!(err.message().contains("HTTP 401"));
    assert_eq!(s.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn body_transform_sees_the_merged_body_and_empty_tools_are_omitted() {
    let s = server("/chat/completions", vec![openai_text("ok")]).await;
    let mut o = options(&s.uri(), Style::OpenAi);
    o.request_params = json!({"temperature": 0}).as_object().unwrap().clone();
    o.body_transform = Some(Arc::new(|mut b: Value| {
        b["seen_temperature"] = b["temperature"].clone();
        b
    }));
    let client = Client::new(o);
    client.run("hi", RunOptions::default()).await.unwrap();
    let b = &bodies(&s).await[0];
    assert_eq!(b["seen_temperature"], 0);
    assert!(b.get("tools").is_none() && b.get("tool_choice").is_none());
}

#[tokio::test]
async fn openai_stream_reassembles_text_and_tool_calls() {
    let sse = |chunks: &[Value]| {
        let mut body = String::new();
        for c in chunks {
            body += &format!("data: {c}\n\n");
        }
        body += "data: [DONE]\n\n";
        ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
    };
    let first = sse(&[
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c9", "function": {"name": "echo", "arguments": "{\"q\":"}}]}}]}),
        json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"z\"}"}}]}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}),
    ]);
    let second = sse(&[
        json!({"choices": [{"delta": {"content": "he"}}]}),
        json!({"choices": [{"delta": {"content": "llo"}, "finish_reason": "stop"}]}),
    ]);
    let s = server("/chat/completions", vec![first, second]).await;
    let tk = toolkit().await;
    let client = Client::new(options(&s.uri(), Style::OpenAi));
    let opts = RunOptions {
        toolkit: Some(&tk),
        ..RunOptions::default()
    };
    let events: Vec<StreamEvent> = client
        .stream("hi", opts, Some("t1".into()))
        .map(|e| e.unwrap())
        .collect()
        .await;
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| match e {
            StreamEvent::Text { .. } => "text",
            StreamEvent::ToolCall { .. } => "tool_call",
            StreamEvent::ToolResult { .. } => "tool_result",
            StreamEvent::Pending { .. } => "pending",
            StreamEvent::Usage { .. } => "usage",
            StreamEvent::Done { .. } => "done",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "usage",
            "tool_call",
            "tool_result",
            "text",
            "text",
            "usage",
            "done"
        ]
    );
    let StreamEvent::Done { result } = &events[6] else {
        panic!()
    };
    assert_eq!(result.text, "hello");
    assert_eq!(result.tool_calls[0].args, json!({"q": "z"}));
    let b = bodies(&s).await;
    assert_eq!(b[0]["stream"], true);
    assert_eq!(b[0]["stream_options"], json!({"include_usage": true}));
    let saved = client.conversation_store().get("t1").await.unwrap();
    assert_eq!(saved, result.messages, "stream with an id saves the thread");
}

#[tokio::test]
async fn ask_with_an_id_continues_the_thread() {
    let s = server("/chat/completions", vec![openai_text("ok")]).await;
    let client = Client::new(options(&s.uri(), Style::OpenAi));
    let ask = |p: &'static str| {
        let c = client.clone();
        async move {
            let opts = AskOptions {
                id: Some("th".into()),
                ..AskOptions::default()
            };
            c.ask(p, opts).await.unwrap()
        }
    };
    ask("one").await;
    let second = ask("two").await;
    assert_eq!(second.messages.len(), 5, "system, one, ok, two, ok");
    let b = bodies(&s).await;
    assert_eq!(b[1]["messages"][1]["content"], "one");
}

#[tokio::test]
async fn timeout_and_cancel_abort_the_call_without_retrying() {
    let slow = openai_text("late").set_delay(std::time::Duration::from_secs(5));
    let s = server("/chat/completions", vec![slow]).await;
    let mut o = options(&s.uri(), Style::OpenAi);
    o.timeout_ms = Some(100);
    let called = Arc::new(Mutex::new(0));
    let c = called.clone();
    o.on_error = Some(Arc::new(move |_: &ErrorInfo| {
        *c.lock().unwrap() += 1;
        ErrorDecision::Retry
    }));
    let client = Client::new(o.clone());
    let t0 = std::time::Instant::now();
    let err = client.run("hi", RunOptions::default()).await.unwrap_err();
    assert!(
        err.aborted() && err.message().contains("timed out"),
        "{err}"
    );
    assert!(t0.elapsed() < std::time::Duration::from_secs(2));

    o.timeout_ms = None;
    let client = Client::new(o);
    let token = tokio_util::sync::CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let opts = RunOptions {
        cancel: Some(token),
        ..RunOptions::default()
    };
    let err = client.run("hi", opts).await.unwrap_err();
    assert!(err.message().contains("cancelled"), "{err}");
    assert_eq!(*called.lock().unwrap(), 0, "aborts bypass onError");
    assert_eq!(s.received_requests().await.unwrap().len(), 2);
}

struct Gate;

#[async_trait::async_trait]
impl toolnexus_reference::client::Hooks for Gate {
    async fn before_llm(
        &self,
        ctx: toolnexus_reference::client::BeforeLlm,
    ) -> Result<Option<toolnexus_reference::client::LlmOverride>, String> {
        if ctx.turn == 2 {
            return Err(format!("route denied for {}", ctx.model));
        }
        Ok(None)
    }

    async fn before_tool(
        &self,
        _ctx: toolnexus_reference::client::BeforeTool,
    ) -> Option<toolnexus_reference::client::ToolOverride> {
        Some(toolnexus_reference::client::ToolOverride::Result(
            toolnexus_reference::ToolResult::error("denied"),
        ))
    }
}

#[tokio::test]
async fn hooks_short_circuit_tools_and_gate_routes() {
    let s = server(
        "/chat/completions",
        vec![openai_call("echo", json!({"q": "x"})), openai_text("done")],
    )
    .await;
    let tk = toolkit().await;
    let mut o = options(&s.uri(), Style::OpenAi);
    o.hooks = Some(Arc::new(Gate));
    let client = Client::new(o);
    let opts = RunOptions {
        toolkit: Some(&tk),
        ..RunOptions::default()
    };
    let err = client.run("hi", opts).await.unwrap_err();
    assert_eq!(err.message(), "route denied for m-1");
    let b = bodies(&s).await;
    assert_eq!(b.len(), 1, "the gate stops the second call");
    assert!(
        !client.metrics().contains("toolnexus_tool_calls_total{"),
        "a short-circuited tool never ran"
    );
}

#[tokio::test]
async fn in_process_generate_runs_the_loop_and_refuses_to_stream() {
    use toolnexus_reference::client::{Generated, GeneratedCall};
    let calls = Arc::new(Mutex::new(Vec::<Value>::new()));
    let log = calls.clone();
    let generate: toolnexus_reference::client::Generate = Arc::new(move |req: Value| {
        let n = {
            let mut l = log.lock().unwrap();
            l.push(req);
            l.len()
        };
        Box::pin(async move {
            Ok(if n == 1 {
                Generated {
                    tool_calls: vec![GeneratedCall {
                        id: None,
                        name: "echo".into(),
                        arguments: json!({"q": "g"}),
                    }],
                    ..Generated::default()
                }
            } else {
                Generated {
                    content: Some("fin".into()),
                    usage: Some(json!({"prompt_tokens": 2, "completion_tokens": 1})),
                    ..Generated::default()
                }
            })
        })
    });
    let tk = toolkit().await;
    let client = Client::in_process(
        ClientOptions {
            model: "local".into(),
            ..ClientOptions::default()
        },
        generate,
    );
    let opts = RunOptions {
        toolkit: Some(&tk),
        ..RunOptions::default()
    };
    let r = client.run("hi", opts.clone()).await.unwrap();
    assert_eq!((r.text.as_str(), r.turns), ("fin", 2));
    assert_eq!(r.tool_calls[0].output, "got \"g\"");
    let second = calls.lock().unwrap()[1].clone();
    assert_eq!(
        second["messages"][2]["tool_calls"][0]["function"]["arguments"],
        "{\"q\":\"g\"}"
    );
    let events: Vec<_> = client.stream("hi", opts, None).collect().await;
    assert_eq!(events.len(), 1);
    assert!(events[0].is_err());
}

#[tokio::test]
async fn extra_headers_are_sent_and_replace_the_clients_own() {
    let s = server("/v1/messages", vec![json_reply(json!({"content": []}))]).await;
    let mut o = options(&s.uri(), Style::Anthropic);
    o.headers.insert("X-Trace".into(), "t1".into());
    o.headers
        .insert("Anthropic-Version".into(), "2099-01-01".into());
    Client::new(o)
        .run("hi", RunOptions::default())
        .await
        .unwrap();
    let req = &s.received_requests().await.unwrap()[0];
    assert_eq!(req.headers["x-trace"], "t1");
    let versions: Vec<_> = req.headers.get_all("anthropic-version").iter().collect();
    assert_eq!(versions, ["2099-01-01"]);
}
