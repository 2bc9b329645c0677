//! A reference toolkit served for the §7B/§7C peer, load and bench checks: the mock MCP server
//! (stdio, `mock-servers/scenarios/basic.json`, tools `mock_*`) plus one native tool `upper`,
//! every other source off, served on an ephemeral loopback port with the MCP profile and,
//! when asked, the A2A profile fulfilled by an in-process model that answers `done: <task>`.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{json, Value};
use toolnexus_reference::client::{Client, ClientOptions, Generated};
use toolnexus_reference::native::{define_tool, NativeReturn};
use toolnexus_reference::serve::{A2AConfig, McpServeConfig, ServeHandle, ServeOptions};
use toolnexus_reference::{Tool, ToolResult, Toolkit, ToolkitOptions};

/// The CLI binary, whose `mock mcp` subcommand is the aggregated MCP server.
pub const BIN: &str = env!("CARGO_BIN_EXE_toolnexus-conformance");

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The gateway toolkit: `mock_*` from the mock MCP server plus the native `upper`.
pub async fn gateway_toolkit() -> Toolkit {
    gateway_toolkit_with(Vec::new()).await
}

/// The gateway toolkit plus `extra` host tools.
pub async fn gateway_toolkit_with(extra: Vec<Tool>) -> Toolkit {
    let scenario = repo().join("mock-servers/scenarios/basic.json");
    let config = json!({"mcpServers": {"mock": {
        "command": BIN,
        "args": ["mock", "mcp", "--transport", "stdio", "--scenario", scenario],
    }}});
    let upper = define_tool(
        "upper",
        "Upper-cases the text",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |args: Value, _ctx| async move {
            match args.get("text").and_then(Value::as_str) {
                Some(text) => Ok(NativeReturn::Text(text.to_uppercase())),
                None => Err("upper: `text` must be a string".to_string()),
            }
        },
    );
    let tk = Toolkit::build(ToolkitOptions {
        mcp_config: Some(config),
        builtins: Some(json!(false)),
        disable_tools: vec!["skill".into()],
        extra_tools: std::iter::once(upper).chain(extra).collect(),
        ..Default::default()
    })
    .await;
    assert_eq!(
        tk.statuses().get("mock").map(String::as_str),
        Some("connected"),
        "the mock MCP server did not connect: {:?}",
        tk.errors()
    );
    tk
}

/// An in-process model that answers every task with `done: <the task text>`.
pub fn echo_client() -> Client {
    Client::in_process(
        ClientOptions {
            model: "in-process".into(),
            ..Default::default()
        },
        Arc::new(|body: Value| {
            Box::pin(async move {
                let task = body["messages"]
                    .as_array()
                    .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
                    .and_then(|m| m["content"].as_str())
                    .unwrap_or("<no task>")
                    .to_string();
                Ok(Generated {
                    content: Some(format!("done: {task}")),
                    tool_calls: Vec::new(),
                    usage: None,
                })
            })
        }),
    )
}

/// Native tools named and shaped as the official MCP conformance suite's server scenarios
/// expect (`tools-call-simple-text`, `tools-call-error`, `json-schema-2020-12`; the texts and
/// schema of mock-servers/scenarios/conformance.json). They are toolkit tools like any other,
/// so the suite checks the gateway's own mapping (§7C: output ⇒ one text part, `isError`
/// propagates, `inputSchema` verbatim); a gateway cannot re-expose MCP tools under their
/// bare names, since the toolkit prefixes them with the server name.
pub fn conformance_tools() -> Vec<Tool> {
    let text = |name: &str, out: &'static str, is_error: bool| {
        define_tool(
            name,
            "A conformance-suite tool",
            json!({"type": "object", "properties": {}}),
            move |_args: Value, _ctx| async move {
                Ok(NativeReturn::Result(if is_error {
                    ToolResult::error(out)
                } else {
                    ToolResult::ok(out)
                }))
            },
        )
    };
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"type": "object", "properties": {
            "street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": false
    });
    vec![
        text(
            "test_simple_text",
            "This is a simple text response for testing.",
            false,
        ),
        text(
            "test_error_handling",
            "This tool intentionally returns an error for testing",
            true,
        ),
        define_tool(
            "json_schema_2020_12_tool",
            "Echoes its arguments",
            schema,
            |args: Value, _ctx| async move { Ok(NativeReturn::Text(args.to_string())) },
        ),
    ]
}

/// The gateway toolkit served on 127.0.0.1 with the MCP profile and, if `a2a`, the A2A one.
pub async fn serve_gateway(a2a: bool) -> (Toolkit, ServeHandle) {
    serve_toolkit(gateway_toolkit().await, a2a).await
}

/// `tk` served on 127.0.0.1 with the MCP profile and, if `a2a`, the A2A one.
pub async fn serve_toolkit(tk: Toolkit, a2a: bool) -> (Toolkit, ServeHandle) {
    let handle = tk
        .serve(
            "127.0.0.1:0",
            ServeOptions {
                client: a2a.then(echo_client),
                a2a: a2a.then(|| A2AConfig {
                    name: Some("served-gateway".into()),
                    ..Default::default()
                }),
                mcp: Some(McpServeConfig::default()),
                ..Default::default()
            },
        )
        .await
        .unwrap_or_else(|e| panic!("serve: {e}"));
    (tk, handle)
}
