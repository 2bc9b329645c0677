//! The rmcp `ServerHandler` that plays a scenario: initialize, paged `tools/list`, and each
//! tool's scripted `tools/call`, on whichever transport serves it.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    Implementation, InitializeRequestParams, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use super::crash;
use super::scenario::{Behaviour, FailMode, Scenario};

/// Serves one scenario; cheap to clone, as the HTTP transport makes one per session.
#[derive(Clone)]
pub struct MockHandler {
    scenario: Arc<Scenario>,
    tools: Arc<Vec<Tool>>,
}

impl MockHandler {
    /// A handler for `scenario`, with its wire tool definitions built once.
    pub fn new(scenario: Arc<Scenario>) -> Self {
        let tools = scenario
            .tools
            .iter()
            .map(|t| {
                let mut tool = Tool::default();
                tool.name = t.name.clone().into();
                tool.description = t.description.clone().map(Cow::Owned);
                tool.input_schema = Arc::new(t.input_schema.clone());
                tool
            })
            .collect();
        Self {
            scenario,
            tools: Arc::new(tools),
        }
    }

    fn fails_with(&self, mode: FailMode) -> bool {
        self.scenario.fail == Some(mode)
    }

    fn page(&self, cursor: Option<&str>) -> Result<ListToolsResult, ErrorData> {
        let all = self.tools.as_slice();
        let size = self.scenario.page_size.unwrap_or(all.len()).max(1);
        let index = match cursor {
            None => 0,
            Some(c) => c
                .strip_prefix("page-")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n >= 2 && (n - 1).saturating_mul(size) < all.len())
                .map(|n| n - 1)
                .ok_or_else(|| ErrorData::invalid_params(format!("unknown cursor {c:?}"), None))?,
        };
        let start = index.saturating_mul(size).min(all.len());
        let end = start.saturating_add(size).min(all.len());
        let mut result = ListToolsResult::with_all_items(all[start..end].to_vec());
        // Cursors name the next page (1-based) so a log of requests reads naturally.
        result.next_cursor = (end < all.len()).then(|| format!("page-{}", index + 2));
        Ok(result)
    }

    /// Runs a behaviour; a sleep unrolls into its successor instead of recursing.
    async fn perform(
        &self,
        behaviour: &Behaviour,
        args: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let mut current = behaviour;
        loop {
            match current {
                Behaviour::Sleep { delay, then } => {
                    pause(*delay, context).await?;
                    current = then;
                }
                Behaviour::Result(r) => return Ok(r.clone()),
                Behaviour::Echo => return Ok(text(echo_text(args))),
                Behaviour::Env(var) => {
                    let value = std::env::var_os(var)
                        .map_or_else(|| "<unset>".to_string(), |v| v.to_string_lossy().into());
                    return Ok(text(value));
                }
                Behaviour::Cwd => {
                    return Ok(match std::env::current_dir() {
                        Ok(dir) => text(dir.to_string_lossy()),
                        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
                            "no current directory: {e}"
                        ))]),
                    })
                }
                Behaviour::Elicit {
                    message,
                    requested_schema,
                } => {
                    if !client_elicits_forms(context) {
                        return Ok(text("client did not advertise elicitation"));
                    }
                    let params = ElicitRequestParams::FormElicitationParams {
                        meta: None,
                        message: message.clone(),
                        requested_schema: requested_schema.clone(),
                    };
                    return Ok(match context.peer.create_elicitation(params).await {
                        Ok(answer) => text(serde_json::to_string(&answer).unwrap_or_default()),
                        Err(e) => CallToolResult::error(vec![ContentBlock::text(format!(
                            "elicitation failed: {e}"
                        ))]),
                    });
                }
                Behaviour::Image { bytes, mime_type } => {
                    let data = zero_bytes_base64(*bytes);
                    return Ok(CallToolResult::success(vec![ContentBlock::image(
                        data,
                        mime_type.clone(),
                    )]));
                }
                Behaviour::Crash => crash("tools/call"),
            }
        }
    }
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

/// Standard padded base64 of `n` zero bytes: each whole 3-byte group is `AAAA`, and a last
/// group of one or two bytes is `AA==` or `AAA=` (RFC 4648 §4).
fn zero_bytes_base64(n: usize) -> String {
    let mut out = "AAAA".repeat(n / 3);
    out.push_str(match n % 3 {
        1 => "AA==",
        2 => "AAA=",
        _ => "",
    });
    out
}

fn echo_text(args: &Map<String, Value>) -> String {
    match args.get("text") {
        Some(Value::String(s)) => s.clone(),
        _ => Value::Object(args.clone()).to_string(),
    }
}

/// What the client declared: per-request metadata first, else what it sent at
/// initialize (rmcp keeps that on the session's peer, over stdio and HTTP sessions alike).
fn client_elicits_forms(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|caps| caps.elicitation)
        // An empty `elicitation: {}` predates modes and means form.
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// Waits, but gives up when the client cancels so an abandoned call does not linger.
async fn pause(delay: Duration, context: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
    if delay.is_zero() {
        return Ok(());
    }
    tokio::select! {
        () = tokio::time::sleep(delay) => Ok(()),
        () = context.ct.cancelled() => Err(ErrorData::internal_error("request cancelled", None)),
    }
}

impl ServerHandler for MockHandler {
    fn get_info(&self) -> ServerConfig {
        let id = &self.scenario.server;
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(id.name.clone(), id.version.clone()))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    /// Only revisions with an initialize handshake: the fail modes and delays are keyed
    /// to initialize, and later revisions forbid the server→client elicitation request.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(
            &ProtocolVersion::LATEST_WITH_INITIALIZE,
        ))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        if self.fails_with(FailMode::CrashAtInitialize) {
            crash("initialize");
        }
        pause(self.scenario.delays.initialize, &context).await?;
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if self.fails_with(FailMode::CrashAtList) {
            crash("tools/list");
        }
        pause(self.scenario.delays.list, &context).await?;
        self.page(request.as_ref().and_then(|r| r.cursor.as_deref()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.scenario.tools.iter().find(|t| t.name == request.name) else {
            // -32602, as the MCP spec's own example answers an unknown tool.
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        let args = request.arguments.unwrap_or_default();
        self.perform(&tool.call, &args, &context)
            .await
            .map(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::scenario::parse_scenario;

    fn handler(json: &str) -> MockHandler {
        MockHandler::new(Arc::new(
            parse_scenario(json).unwrap_or_else(|e| panic!("{e}")),
        ))
    }

    fn names(r: &ListToolsResult) -> Vec<String> {
        r.tools.iter().map(|t| t.name.to_string()).collect()
    }

    #[test]
    fn pages_walk_every_tool_once() {
        let h = handler(
            r#"{"pageSize": 2, "tools": [
              {"name": "t1", "call": {"echo": true}}, {"name": "t2", "call": {"echo": true}},
              {"name": "t3", "call": {"echo": true}}, {"name": "t4", "call": {"echo": true}},
              {"name": "t5", "call": {"echo": true}}]}"#,
        );
        let p1 = h.page(None).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(names(&p1), ["t1", "t2"]);
        assert_eq!(p1.next_cursor.as_deref(), Some("page-2"));
        let p2 = h.page(Some("page-2")).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(names(&p2), ["t3", "t4"]);
        let p3 = h.page(Some("page-3")).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(names(&p3), ["t5"]);
        assert_eq!(p3.next_cursor, None);
        for bad in [
            "page-4",
            "page-1",
            "page-0",
            "x",
            "page-",
            "page-99999999999999999999",
        ] {
            assert!(h.page(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn no_page_size_is_one_page() {
        let h = handler(r#"{"tools": [{"name": "a", "call": {"echo": true}}]}"#);
        let p = h.page(None).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(names(&p), ["a"]);
        assert_eq!(p.next_cursor, None);
        let empty = handler("{}").page(None).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(empty.tools.is_empty() && empty.next_cursor.is_none());
    }

    #[test]
    fn zero_bytes_are_standard_padded_base64() {
        // Worked by hand from RFC 4648 §4: 000000 000000 ... → "A" per six zero bits.
        assert_eq!(zero_bytes_base64(0), "");
        assert_eq!(zero_bytes_base64(1), "AA==");
        assert_eq!(zero_bytes_base64(2), "AAA=");
        assert_eq!(zero_bytes_base64(3), "AAAA");
        assert_eq!(zero_bytes_base64(7), "AAAAAAAAAA==");
    }

    #[test]
    fn echo_prefers_the_text_argument() {
        let args = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(echo_text(&args(serde_json::json!({"text": "hi"}))), "hi");
        assert_eq!(
            echo_text(&args(serde_json::json!({"text": 1, "b": [true]}))),
            r#"{"text":1,"b":[true]}"#
        );
        assert_eq!(echo_text(&Map::new()), "{}");
    }
}
