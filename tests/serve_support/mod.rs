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
use toolnexus_reference::{Toolkit, ToolkitOptions};

/// The CLI binary, whose `mock mcp` subcommand is the aggregated MCP server.
pub const BIN: &str = env!("CARGO_BIN_EXE_toolnexus-conformance");

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The gateway toolkit: `mock_*` from the mock MCP server plus the native `upper`.
pub async fn gateway_toolkit() -> Toolkit {
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
        extra_tools: vec![upper],
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

/// The gateway toolkit served on 127.0.0.1 with the MCP profile and, if `a2a`, the A2A one.
pub async fn serve_gateway(a2a: bool) -> (Toolkit, ServeHandle) {
    let tk = gateway_toolkit().await;
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
