//! §7C the `/mcp` profile: the toolkit's tools behind rmcp's stateless streamable-HTTP
//! server (a fresh handler per request, no sessions).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, Tool as McpTool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

use super::{CallEvent, McpServeConfig, OnCall, MAX_BODY_BYTES};
use crate::content::{ContentPart, MediaKind, MediaPart, PartBody};
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
    /// SPEC 0.16.0's single text block ([`McpServeConfig::text_only`]).
    text_only: bool,
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
            text_only: cfg.text_only,
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
        let parts = if self.text_only {
            None
        } else {
            result.parts.as_deref()
        };
        let content = content_blocks(result.output, parts);
        let answer = if result.is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        Ok(answer.into())
    }
}

/// §7C: `output` as one text block, then one block per non-text part, in order: `image` ⇒
/// image, `audio` ⇒ audio, `file` with `data` ⇒ an embedded resource, `file` with `url` ⇒ a
/// `resource_link`. A text part has no block of its own (the SPEC maps non-text parts only).
/// What MCP cannot say (an image or audio by URL) and what MCP requires that a part lacks (a
/// resource's `uri`, a link's `name`) are the reference's readings: NOTES #391–#393.
pub(crate) fn content_blocks(output: String, parts: Option<&[ContentPart]>) -> Vec<ContentBlock> {
    let mut blocks = vec![ContentBlock::text(output)];
    for (i, part) in parts.unwrap_or_default().iter().enumerate() {
        if let ContentPart::Media(m) = part {
            blocks.push(media_block(i, m));
        }
    }
    blocks
}

fn media_block(index: usize, m: &MediaPart) -> ContentBlock {
    match (&m.body, m.kind) {
        (PartBody::Data(data), MediaKind::Image) => ContentBlock::image(data, &m.mime_type),
        (PartBody::Data(data), MediaKind::Audio) => ContentBlock::audio(data, &m.mime_type),
        (PartBody::Data(data), MediaKind::File) => {
            // A part's name is where §2 puts a blob's URI coming in; without one, the part's
            // position names it (NOTES #392).
            let uri = m
                .name
                .clone()
                .unwrap_or_else(|| format!("toolnexus://part/{index}"));
            ContentBlock::resource(ResourceContents::blob(data, uri).with_mime_type(&m.mime_type))
        }
        // A file by URL is a `resource_link`; an image or audio by URL has no MCP block of its
        // own (MCP's image and audio carry data only), so it is a link too (NOTES #393).
        (PartBody::Url(url), _) => {
            let name = m.name.clone().unwrap_or_else(|| link_name(url));
            ContentBlock::resource_link(Resource::new(url, name).with_mime_type(&m.mime_type))
        }
    }
}

/// A `resource_link`'s required `name` for a part without one: the URL's last path segment,
/// else the URL (NOTES #391).
fn link_name(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.split_once("://")
        .and_then(|(_, rest)| rest.split_once('/'))
        .and_then(|(_, p)| p.rsplit('/').find(|s| !s.is_empty()))
        .map_or_else(|| url.to_string(), str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_named_by_its_last_path_segment_else_its_url() {
        assert_eq!(
            link_name("https://ex.test/docs/report.pdf?x=1#p2"),
            "report.pdf"
        );
        assert_eq!(link_name("https://ex.test/docs/"), "docs");
        assert_eq!(link_name("https://ex.test"), "https://ex.test");
        assert_eq!(link_name("https://ex.test/"), "https://ex.test/");
        assert_eq!(link_name("urn:x"), "urn:x");
    }

    #[test]
    fn text_comes_first_then_one_block_per_non_text_part() {
        let parts: Vec<ContentPart> = serde_json::from_value(serde_json::json!([
            {"type": "image", "mimeType": "image/png", "data": "iVBO"},
            {"type": "text", "text": "skipped"},
            {"type": "file", "mimeType": "application/pdf", "url": "https://ex.test/a.pdf"},
        ]))
        .unwrap_or_else(|e| panic!("{e}"));
        let blocks = content_blocks("out".into(), Some(&parts));
        let wire = serde_json::to_value(&blocks).unwrap_or_else(|e| panic!("{e}"));
        let types: Vec<&str> = wire
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| b["type"].as_str())
            .collect();
        assert_eq!(types, ["text", "image", "resource_link"]);
        assert_eq!(content_blocks("t".into(), None).len(), 1);
    }
}
