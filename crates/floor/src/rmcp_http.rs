//! The bench's floor for the served `tools/call` (SPEC §7C): the least an rmcp server does to
//! answer one, in a process of its own, as every port's served toolkit is. One tool, `noop`,
//! answering the text `ok`; rmcp's stateless streamable HTTP with JSON answers, the profile
//! §7C asks for (a fresh handler per request, no sessions), and nothing else: no toolkit, no
//! `onCall`, no cancellation wiring. The bench compares a port's served call with it to tell
//! rmcp's (or the port's SDK's) required work from the port's own.

use std::sync::Arc;

use axum::serve::ListenerExt;
use axum::Router;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};

/// The one tool the floor server lists and answers.
pub const TOOL: &str = "noop";
/// What it answers.
pub const TEXT: &str = "ok";

/// Lists `noop` and answers every call of it with `ok`.
#[derive(Clone)]
struct Noop {
    tools: Arc<Vec<Tool>>,
}

impl ServerHandler for Noop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != TOOL {
            return Err(ErrorData::invalid_params(
                format!("Unknown tool: {}", request.name),
                None,
            ));
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(TEXT)]).into())
    }
}

/// Serves `/mcp` on an ephemeral loopback port, announced as the first stdout line, until
/// stdin closes (the bench holds it, so the server dies with the bench).
pub fn serve_until_stdin_closes() -> crate::Entry {
    Box::pin(until_stdin_closes())
}

async fn until_stdin_closes() -> Result<(), String> {
    tokio::select! {
        served = serve() => served,
        () = crate::stdin_closed() => Ok(()),
    }
}

async fn serve() -> Result<(), String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot bind the loopback server: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let mut tool = Tool::default();
    tool.name = TOOL.into();
    tool.input_schema = Arc::new(serde_json::Map::from_iter([(
        "type".to_string(),
        serde_json::Value::from("object"),
    )]));
    let handler = Noop {
        tools: Arc::new(vec![tool]),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(handler.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let router = Router::new().route_service("/mcp", service);
    crate::announce(&format!("http://{addr}")).await?;
    // Small answers go out at once, as the served toolkits' do (Nagle would hold them).
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router)
        .await
        .map_err(|e| format!("http server stopped: {e}"))
}
