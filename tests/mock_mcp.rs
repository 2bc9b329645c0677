//! The mock MCP server as a port's tests meet it: the built binary, started as a child
//! process, spoken to by rmcp's client over stdio and streamable HTTP.

use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, Implementation, PaginatedRequestParams,
};
use rmcp::service::{RequestContext, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_toolnexus-conformance");
/// Generous for a loaded CI machine, tiny next to a hang.
const BOUND: Duration = Duration::from_secs(10);

fn scenario(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("mock-servers/scenarios")
        .join(name)
}

async fn bounded<T>(what: &str, fut: impl Future<Output = T>) -> T {
    match tokio::time::timeout(BOUND, fut).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within {BOUND:?}"),
    }
}

fn mock(transport: &str, file: &str) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(["mock", "mcp", "--transport", transport, "--scenario"])
        .arg(scenario(file))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    cmd
}

fn spawn(mut cmd: Command) -> Child {
    cmd.spawn()
        .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"))
}

/// A client over a stdio child; the child is returned too so it lives as long as the test.
async fn connect<C: ClientHandler>(
    client: C,
    cmd: Command,
) -> (RunningService<RoleClient, C>, Child) {
    let mut child = spawn(cmd);
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        panic!("child without pipes");
    };
    let service = bounded("initialize", client.serve((stdout, stdin)))
        .await
        .unwrap_or_else(|e| panic!("initialize failed: {e}"));
    (service, child)
}

async fn call<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    name: &str,
    args: Value,
) -> CallToolResult {
    let mut params = CallToolRequestParams::new(name.to_string());
    params.arguments = args.as_object().cloned();
    bounded(name, client.call_tool(params))
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn texts(r: &CallToolResult) -> Vec<String> {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test]
async fn paging_returns_every_tool_across_three_pages() {
    let (client, _child) = connect((), mock("stdio", "paging.json")).await;
    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = bounded("tools/list", client.list_tools(params))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        pages += 1;
        names.extend(page.tools.iter().map(|t| t.name.to_string()));
        match page.next_cursor {
            Some(next) if pages < 10 => cursor = Some(next),
            _ => break,
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names, ["t1", "t2", "t3", "t4", "t5"]);
}

#[tokio::test]
async fn basic_tools_answer_as_scripted() {
    let mut cmd = mock("stdio", "basic.json");
    let dir = std::env::temp_dir();
    cmd.env("MOCK_ENV", "from-the-environment")
        .current_dir(&dir);
    let (client, _child) = connect((), cmd).await;

    let info = client
        .peer_info()
        .unwrap_or_else(|| panic!("no server info"));
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("mock")
    );

    let echo = call(&client, "echo", json!({"text": "hello"})).await;
    assert_eq!(texts(&echo), ["hello"]);
    assert_ne!(echo.is_error, Some(true));

    let add = call(&client, "add", json!({"a": 1, "b": 2})).await;
    // The scenario's key order, not an alphabetical one.
    assert_eq!(
        serde_json::to_string(&add.structured_content).unwrap_or_default(),
        r#"{"sum":3,"operands":[1,2]}"#
    );

    let colors = call(&client, "list_colors", json!({})).await;
    assert_eq!(texts(&colors), ["red", "green", "blue"]);

    let divide = call(&client, "divide", json!({"a": 1, "b": 0})).await;
    assert_eq!(divide.is_error, Some(true));
    assert_eq!(texts(&divide), ["division by zero"]);

    let twice = call(&client, "fail_twice", json!({})).await;
    assert_eq!(twice.is_error, Some(true));
    assert_eq!(texts(&twice), ["first problem", "", "second problem"]);

    let silent = call(&client, "fail_silently", json!({})).await;
    assert_eq!(silent.is_error, Some(true));
    assert!(silent.content.is_empty());

    let note = call(&client, "read_note", json!({})).await;
    assert_eq!(
        serde_json::to_value(&note.content).unwrap_or_default()[0]["resource"]["text"],
        "inside the note"
    );

    let env = call(&client, "show_env", json!({})).await;
    assert_eq!(texts(&env), ["from-the-environment"]);

    let pwd = call(&client, "pwd", json!({})).await;
    let canonical = |p: &str| std::fs::canonicalize(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    assert_eq!(
        canonical(&texts(&pwd).concat()),
        canonical(&dir.to_string_lossy())
    );

    let unknown = bounded(
        "unknown tool",
        client.call_tool(CallToolRequestParams::new("no_such_tool")),
    )
    .await;
    assert!(unknown.is_err(), "{unknown:?}");
    // Still serving after the error.
    assert_eq!(
        texts(&call(&client, "echo", json!({"text": "again"})).await),
        ["again"]
    );
}

#[tokio::test]
async fn a_crash_during_a_call_ends_the_process_with_code_3() {
    let (client, mut child) = connect((), mock("stdio", "basic.json")).await;
    let crashed = bounded(
        "crash",
        client.call_tool(CallToolRequestParams::new("crash")),
    )
    .await;
    assert!(crashed.is_err(), "{crashed:?}");
    let status = bounded("exit", child.wait())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.code(), Some(3));
}

#[tokio::test]
async fn unset_env_reads_as_unset() {
    let mut cmd = mock("stdio", "basic.json");
    cmd.env_remove("MOCK_ENV");
    let (client, _child) = connect((), cmd).await;
    assert_eq!(
        texts(&call(&client, "show_env", json!({})).await),
        ["<unset>"]
    );
}

/// A client that advertises elicitation and accepts with a fixed name.
struct Accepting;

impl ClientHandler for Accepting {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("mock-test", "1.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        assert_eq!(message, "Your name?");
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Ada"})))
    }
}

const ACCEPTED: &str = r#"{"action":"accept","content":{"name":"Ada"}}"#;

#[tokio::test]
async fn elicitation_reaches_a_client_that_advertises_it() {
    let (client, _child) = connect(Accepting, mock("stdio", "elicit.json")).await;
    assert_eq!(texts(&call(&client, "ask", json!({})).await), [ACCEPTED]);
}

#[tokio::test]
async fn no_elicitation_without_the_capability() {
    let (client, _child) = connect((), mock("stdio", "elicit.json")).await;
    assert_eq!(
        texts(&call(&client, "ask", json!({})).await),
        ["client did not advertise elicitation"]
    );
}

#[tokio::test]
async fn crash_at_initialize_fails_fast_with_exit_code_3() {
    let mut child = spawn(mock("stdio", "crash-at-initialize.json"));
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        panic!("child without pipes");
    };
    let outcome = bounded("initialize", ().serve((stdout, stdin))).await;
    assert!(
        outcome.is_err(),
        "initialize succeeded against a crashing server"
    );
    let status = bounded("exit", child.wait())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.code(), Some(3));
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut stderr).await;
    }
    assert!(
        stderr.contains("mock-mcp: crashing at initialize"),
        "{stderr}"
    );
}

#[tokio::test]
async fn exit_at_start_prints_nothing() {
    let out = bounded("exit", mock("stdio", "exit-at-start.json").output())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty());
}

#[tokio::test]
async fn garbage_answers_each_line_with_non_json_rpc() {
    let mut child = spawn(mock("stdio", "garbage.json"));
    let (Some(stdout), Some(mut stdin)) = (child.stdout.take(), child.stdin.take()) else {
        panic!("child without pipes");
    };
    let hello = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    bounded("write", stdin.write_all(hello))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let mut line = String::new();
    bounded("read", BufReader::new(stdout).read_line(&mut line))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(line, "this is not JSON-RPC\n");
}

/// Starts an HTTP mock and returns it with the URL from its first stdout line.
async fn http_mock(mut cmd: Command) -> (Child, String) {
    cmd.stdin(Stdio::null());
    let mut child = spawn(cmd);
    let Some(stdout) = child.stdout.take() else {
        panic!("child without stdout");
    };
    let mut url = String::new();
    bounded("URL line", BufReader::new(stdout).read_line(&mut url))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let url = url.trim_end().to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "first line {url:?}"
    );
    (child, url)
}

#[tokio::test]
async fn http_mode_prints_its_url_first_and_serves_tools() {
    let (_child, url) = http_mock(mock("http", "paging.json")).await;
    toolnexus_ports::tls::install_provider();
    let transport = StreamableHttpClientTransport::from_uri(url);
    let client = bounded("initialize", ().serve(transport))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let tools = bounded("tools/list", client.list_all_tools())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["t1", "t2", "t3", "t4", "t5"]);
}

#[tokio::test]
async fn http_mode_elicits_through_the_session() {
    let (_child, url) = http_mock(mock("http", "elicit.json")).await;
    toolnexus_ports::tls::install_provider();
    let transport = StreamableHttpClientTransport::from_uri(url);
    let client = bounded("initialize", Accepting.serve(transport))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(texts(&call(&client, "ask", json!({})).await), [ACCEPTED]);
}

#[tokio::test]
async fn required_header_from_env_rejects_a_missing_or_wrong_header() {
    let token = "canary-7f3a-do-not-log";
    let mut cmd = mock("http", "secured.json");
    cmd.env("MOCK_EXPECTED_AUTH", format!("Bearer {token}"));
    let (mut child, url) = http_mock(cmd).await;
    let http = toolnexus_ports::tls::client();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    for auth in [None, Some("Bearer wrong"), Some(token)] {
        let mut request = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(init.to_string());
        if let Some(a) = auth {
            request = request.header("authorization", a);
        }
        let response = bounded("POST", request.send())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(response.status().as_u16(), 401, "{auth:?}");
        let body = bounded("body", response.text())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(body, "unauthorized");
    }

    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url).auth_header(token),
    );
    let client = bounded("initialize", ().serve(transport))
        .await
        .unwrap_or_else(|e| panic!("authorized client refused: {e}"));
    let tools = bounded("tools/list", client.list_all_tools())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(tools.len(), 1);

    let _ = client.cancel().await;
    let _ = child.start_kill();
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = bounded("stderr", e.read_to_string(&mut stderr)).await;
    }
    assert!(stderr.contains("401"), "{stderr}");
    assert!(
        !stderr.contains(token) && !stderr.contains("wrong"),
        "{stderr}"
    );
}

#[tokio::test]
async fn required_header_env_unset_refuses_to_start() {
    let mut cmd = mock("http", "secured.json");
    cmd.env_remove("MOCK_EXPECTED_AUTH").stdin(Stdio::null());
    let out = bounded("exit", cmd.output())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "printed a URL without a guard");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("MOCK_EXPECTED_AUTH"), "{stderr}");
}

#[tokio::test]
async fn sleeper_writes_the_pid_of_a_live_child() {
    let pid_file =
        std::env::temp_dir().join(format!("mock-mcp-sleeper-{}.pid", std::process::id()));
    let _ = std::fs::remove_file(&pid_file);
    let mut cmd = mock("stdio", "sleeper.json");
    cmd.env("PID_FILE", &pid_file);
    let (client, mut child) = connect((), cmd).await;
    let text = std::fs::read_to_string(&pid_file).unwrap_or_else(|e| panic!("no pid file: {e}"));
    let _ = std::fs::remove_file(&pid_file);
    let pid: i32 = text
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("{text:?}: {e}"));
    let mock_pid = child.id().unwrap_or_default();
    // ppid and process group from /proc: the sleeper must be the mock's own child, in the
    // mock's group, or killing "the tree" would not reach it.
    let (ppid, pgrp) = parent_and_group(pid);
    let (_, mock_pgrp) = parent_and_group(mock_pid as i32);
    let _ = client.cancel().await;
    let _ = child.kill().await;
    // This test started the sleeper, so it ends it, before asserting so a failure leaves no
    // orphan; only by its own pid, and only once it is known to be the mock's child.
    if ppid == Some(mock_pid as i32) {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }
    assert_eq!(
        ppid,
        Some(mock_pid as i32),
        "pid {pid} is not the mock's child"
    );
    assert_eq!(pgrp, mock_pgrp, "the sleeper left the mock's process group");
}

/// Fields 4 and 5 of `/proc/PID/stat`; the command name (field 2) may hold spaces, so
/// counting starts after its closing parenthesis.
fn parent_and_group(pid: i32) -> (Option<i32>, Option<i32>) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let mut fields = rest.split_whitespace().skip(1).map(|f| f.parse().ok());
    (fields.next().flatten(), fields.next().flatten())
}

#[tokio::test]
async fn args_other_than_text_echo_as_compact_json() {
    let (client, _child) = connect((), mock("stdio", "basic.json")).await;
    let mut args = Map::new();
    args.insert("b".into(), json!(2));
    args.insert("a".into(), json!([1]));
    let r = call(&client, "echo", Value::Object(args)).await;
    assert_eq!(texts(&r), [r#"{"b":2,"a":[1]}"#]);
}

#[tokio::test]
async fn crash_at_list_initializes_then_dies_on_list() {
    let (client, mut child) = connect((), mock("stdio", "crash-at-list.json")).await;
    let listed = bounded("tools/list", client.list_tools(None)).await;
    assert!(listed.is_err(), "{listed:?}");
    let status = bounded("exit", child.wait())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.code(), Some(3));
}

#[tokio::test]
async fn hang_never_answers_initialize() {
    let mut child = spawn(mock("stdio", "hang.json"));
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        panic!("child without pipes");
    };
    // The handshake stays pending (its pipes open) while the server is checked: dropping it
    // first would close the server's stdin, and a server that then exits on end-of-file would
    // race the check.
    let handshake = ().serve((stdout, stdin));
    tokio::pin!(handshake);
    tokio::select! {
        _ = &mut handshake => panic!("a hanging server answered initialize"),
        _ = tokio::time::sleep(Duration::from_millis(500)) => {}
    }
    assert!(bounded("still running", async { child.try_wait() })
        .await
        .ok()
        .flatten()
        .is_none());
}

/// One JSON-RPC POST into an HTTP session, as a client that picks its own ids sends it.
async fn post(
    http: &reqwest::Client,
    url: &str,
    session: Option<&str>,
    body: &Value,
) -> reqwest::Response {
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(s) = session {
        request = request.header("mcp-session-id", s);
    }
    bounded("POST", request.send())
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The first JSON-RPC response (or error) a POST's own body carries, SSE or plain JSON.
async fn answer_on(mut response: reqwest::Response) -> Value {
    let mut seen = String::new();
    loop {
        let chunk = response.chunk().await.unwrap_or_else(|e| panic!("{e}"));
        let Some(chunk) = chunk else {
            panic!("the stream ended without an answer: {seen:?}");
        };
        seen.push_str(&String::from_utf8_lossy(&chunk));
        let found = seen
            .lines()
            .map(|l| l.strip_prefix("data:").unwrap_or(l).trim())
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|m| m.get("result").is_some() || m.get("error").is_some());
        if let Some(message) = found {
            return message;
        }
    }
}

#[tokio::test]
async fn http_requests_reusing_an_id_each_get_their_own_answer() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("reuse.json");
    std::fs::write(
        &file,
        r#"{"tools": [
          {"name": "slow", "call": {"sleep": 600, "then": {"echo": true}}},
          {"name": "quick", "call": {"echo": true}}]}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (_child, url) = http_mock(mock("http", &file.to_string_lossy())).await;
    let http = toolnexus_ports::tls::client();
    let init = json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let response = post(&http, &url, None, &init).await;
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no session id"));
    let _ = bounded("initialize", answer_on(response)).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let _ = post(&http, &url, Some(&session), &initialized).await;

    // The same id as initialize, and as each other: a client's id counter is its own affair
    // once the earlier request is answered, but these three are all in flight at once.
    let call = |tool: &str, text: &str| {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": tool, "arguments": {"text": text}}})
    };
    let slow = post(&http, &url, Some(&session), &call("slow", "first")).await;
    let slow2 = post(&http, &url, Some(&session), &call("slow", "second")).await;
    let quick = post(&http, &url, Some(&session), &call("quick", "third")).await;
    let (a, b, c) = bounded(
        "three calls sharing id 7",
        futures::future::join3(answer_on(slow), answer_on(slow2), answer_on(quick)),
    )
    .await;
    for (answer, text) in [(a, "first"), (b, "second"), (c, "third")] {
        assert_eq!(answer["id"], json!(7), "{answer}");
        assert_eq!(
            answer["result"]["content"][0]["text"],
            json!(text),
            "{answer}"
        );
    }
}
