//! The served-call operation (SPEC §7C): a port serves a toolkit with the cheap `noop` tool
//! through its MCP gateway (PROTOCOL §5.23 `serve`, §5.24 `serve_stop`), and the harness
//! times sequential JSON-RPC `tools/call` POSTs to `<url>/mcp` over one keep-alive HTTP
//! client. The same client against a minimal loopback server answering a canned result is
//! the operation's floor, in the harness process and in one of its own, and against a bare
//! rmcp server in one of its own (`toolnexus-floor`).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::agent_loop::mock_exe;
use crate::fixtures::noop_options;
use crate::measure::{note, Ctx, Go, Measured, Unit};
use crate::raw::send;
use crate::stats::ms;
use toolnexus_ports::port::{truncate, Port, PortError};
use toolnexus_protocol::Request;

const TK_SERVE: &str = "bench-serve";
const SERVE_ID: &str = "bench-serve";

/// The tool the served toolkit exposes and what it answers.
const TOOL: &str = "noop";
const TOOL_TEXT: &str = "ok";

/// How long one HTTP exchange may take.
const HTTP_BOUND: Duration = Duration::from_secs(30);

/// The MCP protocol version the client announces.
const MCP_VERSION: &str = "2025-06-18";

/// A plain MCP-over-HTTP client: JSON-RPC POSTs to one `/mcp` URL, answers as JSON or SSE
/// `data:` lines, the session header when the server handed one out on `initialize`.
pub(crate) struct McpHttp {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
    next_id: u64,
}

impl McpHttp {
    /// A client of `<base>/mcp` (one trailing `/` of `base` dropped) with a pooled
    /// keep-alive connection.
    pub(crate) fn new(base: &str) -> Result<Self, String> {
        let http = toolnexus_ports::tls::client_builder()
            .timeout(HTTP_BOUND)
            .tcp_nodelay(true)
            .build()
            .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
        let base = base.strip_suffix('/').unwrap_or(base);
        Ok(Self {
            http,
            url: format!("{base}/mcp"),
            session: None,
            next_id: 1,
        })
    }

    /// POSTs one JSON-RPC message; the first JSON-RPC message of the answer (`Null` for a
    /// notification's empty answer) and the session id the server sent, if any.
    async fn post(&mut self, message: &Value) -> Result<(Value, Option<String>), String> {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", MCP_VERSION);
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let response = request
            .body(message.to_string())
            .send()
            .await
            .map_err(|e| format!("POST {}: {e}", self.url))?;
        let status = response.status();
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let text = response
            .text()
            .await
            .map_err(|e| format!("POST {}: the answer broke off: {e}", self.url))?;
        if !status.is_success() {
            return Err(format!(
                "POST {}: HTTP {status}: {}",
                self.url,
                truncate(&text, 200)
            ));
        }
        Ok((first_message(&text), session))
    }

    /// `initialize`, then (when the server handed out a session) `notifications/initialized`
    /// with the session header; a stateless server needs neither, so a failed `initialize`
    /// is left to the calls to show.
    pub(crate) async fn initialize(&mut self) -> Result<(), String> {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": MCP_VERSION, "capabilities": {},
            "clientInfo": {"name": "toolnexus-bench", "version": "1"}}});
        let Ok((_, session)) = self.post(&init).await else {
            return Ok(());
        };
        if let Some(session) = session {
            self.session = Some(session);
            let done = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            self.post(&done).await?;
        }
        Ok(())
    }

    /// One `tools/call` of `tool` with no arguments; `Err` unless the answer's first text
    /// part is `expected` and it is not an error.
    pub(crate) async fn call(&mut self, tool: &str, expected: &str) -> Result<(), String> {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                             "params": {"name": tool, "arguments": {}}});
        let (answer, _) = self.post(&message).await?;
        let result = &answer["result"];
        if result["content"][0]["text"] != expected || result["isError"] == true {
            return Err(format!(
                "tools/call {tool} answered {}, expected the text {expected:?}",
                truncate(&answer.to_string(), 200)
            ));
        }
        Ok(())
    }

    /// `size` calls; counted ones add one sample each.
    pub(crate) async fn calls(
        &mut self,
        unit: Unit,
        tool: &str,
        expected: &str,
        m: &mut Measured,
    ) -> Result<(), String> {
        for _ in 0..unit.size {
            let started = Instant::now();
            self.call(tool, expected).await?;
            let elapsed = ms(started);
            if unit.counted {
                m.samples.push(elapsed);
            }
        }
        Ok(())
    }
}

/// The first JSON-RPC message of an answer body: the body as JSON, else the first JSON
/// `data:` line of an SSE stream; `Null` when there is none.
fn first_message(text: &str) -> Value {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return v;
    }
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .find_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .unwrap_or(Value::Null)
}

/// A port's served toolkit and the client calling it.
pub(crate) struct PortServe {
    client: McpHttp,
}

/// Builds the toolkit with `noop`, serves it with `"mcp": {"tools": ["noop"]}` and
/// initializes the client;
/// `unsupported` (a port without `serve`) is left to the caller's note.
pub(crate) async fn port_setup(port: &mut dyn Port) -> Result<Option<PortServe>, PortError> {
    port.build(TK_SERVE, &noop_options()).await?;
    let served = async {
        let answer = send(
            port,
            // The one tool named: by §7C the same as `{}` (every tool), and python 0.21.0's
            // `mcp: {}` lists no tool at all (a known port bug, its expected failures).
            Request::Serve {
                id: SERVE_ID.into(),
                toolkit: TK_SERVE.into(),
                client: None,
                a2a: None,
                mcp: Some(json!({"tools": [TOOL]})),
                on_task: false,
                on_call: false,
            },
        )
        .await?;
        let url = answer
            .get("url")
            .and_then(Value::as_str)
            .ok_or_else(|| PortError::Transport("serve answered no url".into()))?;
        let mut client = McpHttp::new(url).map_err(PortError::Transport)?;
        client.initialize().await.map_err(PortError::Transport)?;
        Ok(client)
    }
    .await;
    match served {
        Ok(client) => Ok(Some(PortServe { client })),
        Err(e) => {
            let _ = send(port, serve_stop()).await;
            let _ = port.close(TK_SERVE).await;
            Err(e)
        }
    }
}

/// The request stopping the benchmark's served handle.
fn serve_stop() -> Request {
    Request::ServeStop {
        serve: SERVE_ID.into(),
    }
}

impl PortServe {
    /// One block of calls; a failed or wrong answer is a note and stops the port.
    pub(crate) async fn step(&mut self, unit: Unit, m: &mut Measured) -> Go {
        match self.client.calls(unit, TOOL, TOOL_TEXT, m).await {
            Ok(()) => Go::On,
            Err(e) => {
                note(&mut m.notes, format!("failed: {e}"));
                Go::Stop
            }
        }
    }

    /// Stops the handle, then closes the toolkit.
    pub(crate) async fn teardown(self, port: &mut dyn Port) -> Result<(), PortError> {
        drop(self.client);
        let stopped = send(port, serve_stop()).await;
        let closed = port.close(TK_SERVE).await;
        stopped.map(|_| ()).and(closed)
    }
}

/// Where the served-call floor's server runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ServerKind {
    /// The canned server, on the harness's own runtime.
    InProcess,
    /// The canned server, in a process of its own (`floor canned-http`).
    Canned,
    /// A bare rmcp server, in a process of its own (`floor rmcp-http`).
    Rmcp,
}

/// What holds the floor's server: kept only to be dropped (which stops it) with the floor.
enum FloorServer {
    InProcess(#[allow(dead_code)] toolnexus_floor::canned_http::CannedServer),
    Process(#[allow(dead_code)] Box<toolnexus_ports::mock_launch::RunningMock>),
}

/// The floor's state: its server and the client calling it.
pub(crate) struct FloorServe {
    _server: FloorServer,
    client: McpHttp,
}

impl FloorServe {
    /// Starts the server of `kind` and initializes the client against it.
    pub(crate) async fn start(kind: ServerKind, ctx: &Ctx<'_>) -> Result<Self, String> {
        let (server, url) = match kind {
            ServerKind::InProcess => {
                let s = toolnexus_floor::canned_http::CannedServer::start().await?;
                let url = s.url.clone();
                (FloorServer::InProcess(s), url)
            }
            ServerKind::Canned | ServerKind::Rmcp => {
                let which = if kind == ServerKind::Canned {
                    "canned-http"
                } else {
                    "rmcp-http"
                };
                let exe = mock_exe(ctx.opts)?;
                let p = toolnexus_ports::mock_launch::floor_http(&exe, which).await?;
                let url = p.url.clone();
                (FloorServer::Process(Box::new(p)), url)
            }
        };
        let mut client = McpHttp::new(&url)?;
        client.initialize().await?;
        Ok(Self {
            _server: server,
            client,
        })
    }

    /// One block of calls, each answer checked.
    pub(crate) async fn step(&mut self, unit: Unit, m: &mut Measured) -> Go {
        match self.client.calls(unit, TOOL, TOOL_TEXT, m).await {
            Ok(()) => Go::On,
            Err(e) => {
                note(&mut m.notes, e);
                Go::Stop
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_json_or_sse() {
        assert_eq!(first_message(r#"{"id":1}"#), json!({"id": 1}));
        let sse = "event: message\ndata: {\"id\":2,\"result\":{}}\n\n";
        assert_eq!(first_message(sse), json!({"id": 2, "result": {}}));
        assert_eq!(first_message(""), Value::Null);
    }

    #[tokio::test]
    async fn the_client_calls_the_canned_server() {
        let server = toolnexus_floor::canned_http::CannedServer::start()
            .await
            .unwrap();
        let mut client = McpHttp::new(&server.url).unwrap();
        client.initialize().await.unwrap();
        let mut m = Measured::default();
        let unit = Unit {
            size: 3,
            counted: true,
            index: 0,
            of: 1,
        };
        client.calls(unit, TOOL, TOOL_TEXT, &mut m).await.unwrap();
        assert_eq!(m.samples.len(), 3);
        assert!(m.notes.is_empty(), "{:?}", m.notes);
        let err = client.call(TOOL, "not ok").await.unwrap_err();
        assert!(err.contains("expected the text \"not ok\""), "{err}");
    }
}
