//! The MCP call's fairer floor: the least a port driver does for one MCP `tools/call` over
//! stdio. It reads the request line, calls the tool over a bare rmcp client session with the
//! MCP server, and writes the answer line: between the harness and the MCP server it has the
//! process hops every port's driver has, and no other work.

use std::process::Stdio;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// The longest request line read (the bench's are about 100 bytes).
const MAX_LINE: u64 = 1 << 20;

/// A bare rmcp client session with a local MCP server, and the server's process.
pub struct Session {
    /// The server (killed when dropped).
    pub child: tokio::process::Child,
    /// The initialized session.
    pub service: RunningService<RoleClient, ()>,
}

/// Starts `command` (an MCP server over stdio, stderr discarded) and initializes a bare rmcp
/// client session with it: the least any MCP client does before its first call. The bench's
/// in-process floor opens its session here too.
pub async fn connect(command: &[String]) -> Result<Session, String> {
    let Some((exe, args)) = command.split_first() else {
        return Err("no MCP server command".into());
    };
    let mut child = tokio::process::Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start the MCP server {exe}: {e}"))?;
    let (Some(out), Some(inp)) = (child.stdout.take(), child.stdin.take()) else {
        return Err("the MCP server has no pipes".into());
    };
    let service = ()
        .serve((out, inp))
        .await
        .map_err(|e| format!("initialize with the MCP server: {e}"))?;
    Ok(Session { child, service })
}

/// Starts `command` (the mock MCP server), opens a bare rmcp client session with it, then
/// answers each request line on stdin (`{"args": {…}, "seq": N, …}`) by calling `tool` with
/// the line's `args` and writing `{"ok":true,"result":{"output","isError"},"seq":N}`. Ends
/// at the end of stdin, stopping the server.
pub fn serve(command: Vec<String>, tool: String) -> crate::Entry {
    Box::pin(async move { serve_inner(&command, &tool).await })
}

async fn serve_inner(command: &[String], tool: &str) -> Result<(), String> {
    let Session { mut child, service } = connect(command).await?;
    crate::announce("ready").await?;
    let mut input = BufReader::new(toolnexus_stdio::stdin()).take(MAX_LINE);
    let mut output = toolnexus_stdio::stdout();
    let mut line = String::new();
    loop {
        line.clear();
        input.set_limit(MAX_LINE);
        if input
            .read_line(&mut line)
            .await
            .map_err(|e| e.to_string())?
            == 0
        {
            break;
        }
        let request: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        let arguments = match request.get("args") {
            Some(Value::Object(m)) => m.clone(),
            _ => Map::new(),
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let result = service
            .call_tool(params)
            .await
            .map_err(|e| format!("tools/call {tool}: {e}"))?;
        let output_text: Vec<&str> = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
            .collect();
        let answer = json!({
            "ok": true,
            "result": {"output": output_text.join("\n"), "isError": result.is_error == Some(true)},
            "seq": request.get("seq").cloned().unwrap_or(Value::Null),
        });
        // As the reference's driver writes its answers: JSON bytes, then a newline.
        let mut text = serde_json::to_vec(&answer).map_err(|e| e.to_string())?;
        text.push(b'\n');
        output.write_all(&text).await.map_err(|e| e.to_string())?;
        output.flush().await.map_err(|e| e.to_string())?;
    }
    let _ = service.cancel().await;
    let _ = child.kill().await;
    Ok(())
}
