//! The mock A2A agent as a port's tests meet it: the built binary, started as a child
//! process, spoken to over plain HTTP with reqwest, exactly the SPEC §7A wire.

use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_toolnexus-conformance");
/// Generous for a loaded CI machine, tiny next to a hang.
const BOUND: Duration = Duration::from_secs(10);
const CARD: &str = "/.well-known/agent-card.json";

async fn bounded<T>(what: &str, fut: impl Future<Output = T>) -> T {
    match tokio::time::timeout(BOUND, fut).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within {BOUND:?}"),
    }
}

fn mock(file: &str) -> Command {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("mock-servers/scenarios/a2a")
        .join(file);
    let mut cmd = Command::new(BIN);
    cmd.args(["mock", "a2a", "--scenario"])
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

/// A running agent: the child (killed on drop) and its base URL.
struct Agent {
    child: Child,
    url: String,
    http: reqwest::Client,
}

async fn start(mut cmd: Command) -> Agent {
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
    let Some(stdout) = child.stdout.take() else {
        panic!("child without stdout");
    };
    let mut url = String::new();
    bounded("URL line", BufReader::new(stdout).read_line(&mut url))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let url = url.trim_end().to_string();
    let port = url.strip_prefix("http://127.0.0.1:").unwrap_or_default();
    assert!(
        !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()),
        "first line {url:?}"
    );
    Agent {
        child,
        url,
        http: toolnexus_ports::tls::client(),
    }
}

/// Status and body of one HTTP answer.
struct Answer {
    status: u16,
    content_type: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

impl Agent {
    async fn send(&self, request: reqwest::RequestBuilder) -> Answer {
        let response = bounded("request", request.send())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body = bounded("body", response.text())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        Answer {
            status,
            content_type,
            body,
        }
    }

    async fn card(&self, auth: Option<&str>) -> Answer {
        let mut request = self.http.get(format!("{}{CARD}", self.url));
        if let Some(a) = auth {
            request = request.header("authorization", a);
        }
        self.send(request).await
    }

    async fn post(&self, path: &str, body: &Value, auth: Option<&str>) -> Answer {
        let mut request = self
            .http
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(a) = auth {
            request = request.header("authorization", a);
        }
        self.send(request).await
    }

    /// A JSON-RPC call that must answer 200 with JSON.
    async fn rpc(&self, path: &str, body: &Value) -> Value {
        let answer = self.post(path, body, None).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        answer.json()
    }

    /// Kills the agent and answers everything it wrote on stderr.
    async fn stderr(mut self) -> String {
        let _ = self.child.start_kill();
        let mut text = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = bounded("stderr", e.read_to_string(&mut text)).await;
        }
        text
    }
}

fn send_message(id: Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "SendMessage", "params": {
        "message": {"role": "user", "messageId": "msg-1",
                    "parts": [{"kind": "text", "text": text}]},
        "configuration": {"blocking": false}}})
}

fn get_task(id: Value, task: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "GetTask", "params": {"id": task}})
}

/// SendMessage, then the task's id.
async fn submit(agent: &Agent, path: &str, text: &str) -> String {
    let sent = agent.rpc(path, &send_message(json!(1), text)).await;
    assert_eq!(sent["result"]["status"]["state"], "submitted", "{sent}");
    sent["result"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("no task id: {sent}"))
        .to_string()
}

/// The states of `n` GetTask polls, and the last Task.
async fn poll(agent: &Agent, path: &str, task: &str, n: usize) -> (Vec<String>, Value) {
    let mut states = Vec::new();
    let mut last = Value::Null;
    for i in 0..n {
        let answer = agent.rpc(path, &get_task(json!(i), task)).await;
        assert_eq!(answer["id"], i, "{answer}");
        last = answer["result"].clone();
        states.push(last["status"]["state"].as_str().unwrap_or("?").to_string());
    }
    (states, last)
}

fn texts(task: &Value) -> Vec<&str> {
    task["artifacts"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|a| a["parts"].as_array().into_iter().flatten())
        .filter(|p| p["kind"] == "text")
        .filter_map(|p| p["text"].as_str())
        .collect()
}

#[tokio::test]
async fn the_card_names_itself_at_its_own_url() {
    let agent = start(mock("completes.json")).await;
    let answer = agent.card(None).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "application/json");
    let card = answer.json();
    assert_eq!(card["name"], "Research Bot");
    assert_eq!(card["url"], format!("{}/rpc", agent.url));
    assert_eq!(card["skills"][0]["id"], "summarize");
    assert_eq!(card["skills"][1]["name"], "Translate text");
    assert!(card["skills"][1].get("id").is_none(), "{card}");
}

#[tokio::test]
async fn a_task_completes_after_two_working_polls() {
    let agent = start(mock("completes.json")).await;
    let task = submit(&agent, "/rpc", "summarize this").await;
    let (states, last) = poll(&agent, "/rpc", &task, 4).await;
    assert_eq!(states, ["working", "working", "completed", "completed"]);
    assert_eq!(texts(&last), ["line one", "line two"]);
    assert_eq!(last["artifacts"][0]["parts"][1]["data"], json!({"x": 1}));
    let stderr = agent.stderr().await;
    assert!(
        stderr.contains("mock-a2a: POST /rpc \"SendMessage\""),
        "{stderr}"
    );
    // Methods are logged, the task text never is.
    assert!(!stderr.contains("summarize this"), "{stderr}");
}

#[tokio::test]
async fn concurrent_tasks_run_apart_and_echo_their_text() {
    let agent = start(mock("echo.json")).await;
    let a = submit(&agent, "/rpc", "first").await;
    let b = submit(&agent, "/rpc", "second").await;
    assert_ne!(a, b);
    let (states, done_b) = poll(&agent, "/rpc", &b, 1).await;
    assert_eq!(states, ["completed"]);
    assert_eq!(texts(&done_b), ["second"]);
    let (_, done_a) = poll(&agent, "/rpc", &a, 1).await;
    assert_eq!(texts(&done_a), ["first"]);
}

#[tokio::test]
async fn history_comes_back_on_a_task_without_artifacts() {
    let agent = start(mock("history-only.json")).await;
    let task = submit(&agent, "/rpc", "q").await;
    let (_, last) = poll(&agent, "/rpc", &task, 1).await;
    assert!(last.get("artifacts").is_none(), "{last}");
    let agent_texts: Vec<_> = last["history"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "agent")
        .filter_map(|m| m["parts"][0]["text"].as_str())
        .collect();
    assert_eq!(agent_texts, ["first answer", "final answer"]);
}

#[tokio::test]
async fn the_wire_shape_is_checked() {
    let agent = start(mock("completes.json")).await;
    let mut wrong_method = send_message(json!("a"), "x");
    wrong_method["method"] = json!("message/send");
    let mut blocking = send_message(json!("b"), "x");
    blocking["params"]["configuration"]["blocking"] = json!(true);
    let mut no_message_id = send_message(json!("c"), "x");
    if let Some(m) = no_message_id["params"]["message"].as_object_mut() {
        m.remove("messageId");
    }
    for (request, code, needle) in [
        (wrong_method, -32601, "message/send"),
        (blocking, -32602, "blocking"),
        (no_message_id, -32602, "messageId"),
    ] {
        let answer = agent.rpc("/rpc", &request).await;
        assert_eq!(answer["id"], request["id"], "{answer}");
        assert_eq!(answer["error"]["code"], code, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(needle), "{message:?} lacks {needle:?}");
    }
    let unknown = agent.rpc("/rpc", &get_task(json!(9), "task-404")).await;
    assert_eq!(
        unknown["error"],
        json!({"code": -32001, "message": "task not found"})
    );
    let answer = agent
        .send(agent.http.post(format!("{}/rpc", agent.url)).body("{oops"))
        .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.json()["error"]["code"], -32700);
    assert_eq!(answer.json()["id"], Value::Null);
}

#[tokio::test]
async fn a_failed_task_carries_its_message() {
    let agent = start(mock("fails.json")).await;
    let task = submit(&agent, "/rpc", "report").await;
    let (states, last) = poll(&agent, "/rpc", &task, 2).await;
    assert_eq!(states, ["working", "failed"]);
    assert_eq!(last["status"]["message"]["role"], "agent");
    assert_eq!(
        last["status"]["message"]["parts"][0]["text"],
        "quota exceeded"
    );
    assert!(last.get("artifacts").is_none(), "{last}");
}

#[tokio::test]
async fn a_canceled_task_has_no_message() {
    let agent = start(mock("canceled.json")).await;
    let task = submit(&agent, "/rpc", "ticket").await;
    let (states, last) = poll(&agent, "/rpc", &task, 1).await;
    assert_eq!(states, ["canceled"]);
    assert!(last["status"].get("message").is_none(), "{last}");
}

#[tokio::test]
async fn forever_stays_working() {
    let agent = start(mock("forever.json")).await;
    let task = submit(&agent, "/rpc", "index").await;
    let (states, _) = poll(&agent, "/rpc", &task, 20).await;
    assert!(states.iter().all(|s| s == "working"), "{states:?}");
}

#[tokio::test]
async fn broken_cards_fail_as_scripted() {
    let agent = start(mock("card-500.json")).await;
    let answer = agent.card(None).await;
    assert_eq!(answer.status, 500);
    assert_eq!(answer.body, "agent card unavailable");

    let agent = start(mock("card-malformed.json")).await;
    let answer = agent.card(None).await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.content_type, "application/json");
    assert!(
        serde_json::from_str::<Value>(&answer.body).is_err(),
        "{:?}",
        answer.body
    );
}

#[tokio::test]
async fn broken_rpc_fails_as_scripted() {
    let request = send_message(json!("r-1"), "x");

    let agent = start(mock("rpc-500.json")).await;
    assert_eq!(agent.card(None).await.status, 200, "the card still works");
    assert_eq!(agent.post("/rpc", &request, None).await.status, 500);

    let agent = start(mock("rpc-malformed.json")).await;
    let answer = agent.post("/rpc", &request, None).await;
    assert_eq!(answer.status, 200);
    assert!(
        serde_json::from_str::<Value>(&answer.body).is_err(),
        "{:?}",
        answer.body
    );

    let agent = start(mock("rpc-error.json")).await;
    assert_eq!(
        agent.rpc("/rpc", &request).await,
        json!({"jsonrpc": "2.0", "id": "r-1",
               "error": {"code": -32603, "message": "mock failure"}})
    );
}

#[tokio::test]
async fn a_card_without_url_is_served_at_the_origin() {
    let agent = start(mock("no-url.json")).await;
    let card = agent.card(None).await.json();
    assert!(card.get("url").is_none(), "{card}");
    let task = submit(&agent, "/", "weather?").await;
    let (states, last) = poll(&agent, "/", &task, 1).await;
    assert_eq!(states, ["completed"]);
    assert_eq!(texts(&last), ["via origin"]);
}

#[tokio::test]
async fn secured_needs_the_exact_header_and_never_logs_it() {
    let token = "Bearer canary-a2a-5e1d-do-not-log";
    let mut cmd = mock("secured.json");
    cmd.env("MOCK_EXPECTED_AUTH", token);
    let agent = start(cmd).await;
    let request = send_message(json!(1), "open");
    for auth in [None, Some("Bearer wrong")] {
        let card = agent.card(auth).await;
        assert_eq!((card.status, card.body.as_str()), (401, "unauthorized"));
        assert_eq!(agent.post("/rpc", &request, auth).await.status, 401);
    }
    assert_eq!(agent.card(Some(token)).await.status, 200);
    let sent = agent.post("/rpc", &request, Some(token)).await.json();
    let task = sent["result"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let done = agent
        .post("/rpc", &get_task(json!(2), &task), Some(token))
        .await
        .json();
    assert_eq!(texts(&done["result"]), ["secured ok"]);
    let stderr = agent.stderr().await;
    assert!(stderr.contains("401"), "{stderr}");
    assert!(
        !stderr.contains("canary") && !stderr.contains("wrong"),
        "{stderr}"
    );
}

#[tokio::test]
async fn secured_refuses_to_start_without_its_variable() {
    let mut cmd = mock("secured.json");
    cmd.env_remove("MOCK_EXPECTED_AUTH");
    let out = bounded("exit", cmd.output())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "printed a URL without a guard");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("mock-a2a:") && stderr.contains("MOCK_EXPECTED_AUTH"),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_bad_scenario_names_the_key() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("bad.json");
    std::fs::write(&file, r#"{"card": {}, "task": {"pols": 1}}"#).unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = Command::new(BIN);
    cmd.args(["mock", "a2a", "--scenario"])
        .arg(&file)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let out = bounded("exit", cmd.output())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("mock-a2a:") && stderr.contains("pols") && stderr.contains("bad.json"),
        "{stderr}"
    );
}
