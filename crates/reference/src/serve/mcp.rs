//! §7C the `/mcp` profile: the toolkit's tools behind rmcp's stateless streamable-HTTP
//! server (a fresh handler per request, no sessions).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

use super::{CallEvent, McpServeConfig, OnCall, MAX_BODY_BYTES};
use crate::tool::{Context, Tool};
use crate::toolkit::Toolkit;

/// The default `serverInfo.name`.
pub const DEFAULT_NAME: &str = "toolnexus";
/// The default `serverInfo.version`.
pub const DEFAULT_VERSION: &str = "0.1.0";

/// Answers `initialize`, `tools/list` and `tools/call` over the exposed tools.
#[derive(Clone)]
pub(crate) struct McpGateway {
    tools: Arc<Vec<Tool>>,
    wire: Arc<Vec<McpTool>>,
    name: String,
    version: String,
    on_call: Option<OnCall>,
}

impl McpGateway {
    /// The toolkit's tools in toolkit order, filtered to `cfg.tools` when set.
    pub(crate) fn new(toolkit: &Toolkit, cfg: McpServeConfig, on_call: Option<OnCall>) -> Self {
        let tools: Vec<Tool> = toolkit
            .tools()
            .iter()
            .filter(|t| {
                cfg.tools
                    .as_ref()
                    .is_none_or(|wanted| wanted.iter().any(|w| w == &t.name))
            })
            .cloned()
            .collect();
        let wire = tools.iter().map(wire_tool).collect();
        Self {
            tools: Arc::new(tools),
            wire: Arc::new(wire),
            name: cfg.name.unwrap_or_else(|| DEFAULT_NAME.to_string()),
            version: cfg.version.unwrap_or_else(|| DEFAULT_VERSION.to_string()),
            on_call,
        }
    }
}

/// `{name, description, inputSchema}`: the name verbatim, the parameters as the schema.
fn wire_tool(tool: &Tool) -> McpTool {
    let mut wire = McpTool::default();
    wire.name = tool.name.clone().into();
    wire.description = Some(Cow::Owned(tool.description.clone()));
    wire.input_schema = Arc::new(tool.input_schema.as_object().cloned().unwrap_or_default());
    wire
}

/// The `/mcp` tower service; `shutdown` ends in-flight calls when the server stops.
pub(crate) fn service(
    toolkit: &Toolkit,
    cfg: McpServeConfig,
    on_call: Option<OnCall>,
    shutdown: CancellationToken,
) -> StreamableHttpService<McpGateway, NeverSessionManager> {
    let gateway = McpGateway::new(toolkit, cfg, on_call);
    // One JSON answer per call when the handler sends nothing before its result (rmcp
    // falls back to an event stream otherwise): streamable HTTP lets the server pick either,
    // and a plain body skips the SSE framing, its keep-alive timer and its stream task.
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_cancellation_token(shutdown);
    config.max_request_body_bytes = MAX_BODY_BYTES;
    StreamableHttpService::new(
        move || Ok(gateway.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

impl ServerHandler for McpGateway {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(self.name.clone(), self.version.clone()))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.wire.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = self.tools.iter().find(|t| t.name == request.name) else {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        };
        let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
        // The request's token: rmcp cancels it on `notifications/cancelled`, on a client
        // disconnect and when the server shuts down.
        let ctx = Context {
            cancel: Some(context.ct.clone()),
            ..Context::default()
        };
        let started = Instant::now();
        // `Tool::execute` already turns a panic into an `isError` result.
        let result = tool.execute(args, &ctx).await;
        if let Some(on_call) = &self.on_call {
            let event = CallEvent {
                name: tool.name.clone(),
                source: tool.source,
                ms: started.elapsed().as_secs_f64() * 1000.0,
                is_error: result.is_error,
            };
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| on_call(event)));
        }
        let content = vec![ContentBlock::text(result.output)];
        let answer = if result.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        Ok(answer.into())
    }
}
