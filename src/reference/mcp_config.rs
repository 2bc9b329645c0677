//! §2 MCP config parsing: wrappers, reserved sibling keys, type inference, toggles.
//!
//! Connecting to servers arrives with the MCP issue; until then the toolkit reports every
//! enabled server through the isolation path (status `failed`, an error entry).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

/// Keys that sit beside a raw server map and are never servers (§2 "Reserved sibling keys").
pub const RESERVED_KEYS: [&str; 4] = ["builtins", "agents", "a2a", "mcpServer"];

/// The error key used when the config itself cannot be read.
pub const CONFIG_ERROR_KEY: &str = "<config>";

/// One server entry, as far as this layer needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// `local` or `remote` (explicit or inferred from `command`/`url`).
    pub kind: Option<String>,
    /// Whether the server is skipped (`disabled:true` wins, else `enabled:false`).
    pub disabled: bool,
    /// Per-phase timeout in milliseconds (default 30000).
    pub timeout_ms: u64,
    /// The raw entry, for the transport layer.
    pub raw: Value,
}

/// A parsed config: the whole object (for sibling sections) and its servers by name.
#[derive(Debug, Clone, Default)]
pub struct McpConfig {
    /// The top-level object.
    pub root: Map<String, Value>,
    /// Servers, sorted by name.
    pub servers: BTreeMap<String, ServerConfig>,
}

/// Reads a config given as a parsed object, a JSON string, or a file path.
pub fn parse(input: &Value) -> Result<McpConfig, String> {
    let root = match input {
        Value::Object(map) => map.clone(),
        Value::String(text) => read_text_or_path(text)?,
        other => {
            return Err(format!(
                "mcp config must be an object, a JSON string or a path, got {}",
                kind_of(other)
            ))
        }
    };
    let server_map = ["mcpServers", "servers", "mcp"]
        .iter()
        .find_map(|k| root.get(*k))
        .cloned();
    let servers_value = match server_map {
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(format!(
                "mcp config server map must be an object, got {}",
                kind_of(&other)
            ))
        }
        None => root
            .iter()
            .filter(|(k, _)| !RESERVED_KEYS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    };
    let servers = servers_value
        .into_iter()
        .map(|(name, raw)| (name, server(raw)))
        .collect();
    Ok(McpConfig { root, servers })
}

fn read_text_or_path(text: &str) -> Result<Map<String, Value>, String> {
    let trimmed = text.trim_start();
    let body = if trimmed.starts_with('{') {
        text.to_string()
    } else {
        read_config_file(Path::new(text))?
    };
    match serde_json::from_str::<Value>(&body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "mcp config must be a JSON object, got {}",
            kind_of(&other)
        )),
        Err(e) => Err(format!("mcp config is not valid JSON: {e}")),
    }
}

/// The largest config file read.
const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a config file: a regular file (never a FIFO or device, which could block or never
/// end) of bounded size.
fn read_config_file(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read mcp config file: {e}"))?;
    if !meta.is_file() {
        return Err("mcp config path is not a regular file".to_string());
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(format!(
            "mcp config file is larger than {MAX_CONFIG_BYTES} bytes"
        ));
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_CONFIG_BYTES).read_to_string(&mut text))
        .map_err(|e| format!("cannot read mcp config file: {e}"))?;
    Ok(text)
}

fn server(raw: Value) -> ServerConfig {
    let kind = raw
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| raw.get("url").map(|_| "remote".to_string()))
        .or_else(|| raw.get("command").map(|_| "local".to_string()));
    ServerConfig {
        kind,
        disabled: entry_disabled(&raw),
        timeout_ms: raw.get("timeout").and_then(Value::as_u64).unwrap_or(30_000),
        raw,
    }
}

/// `disabled:true` wins, else `enabled:false` disables, else enabled (§2, §4).
pub fn entry_disabled(raw: &Value) -> bool {
    raw.get("disabled") == Some(&Value::Bool(true))
        || raw.get("enabled") == Some(&Value::Bool(false))
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrappers_and_reserved_keys() {
        let c = parse(&json!({"servers": {"a": {"url": "http://x"}}})).unwrap();
        assert_eq!(c.servers["a"].kind.as_deref(), Some("remote"));
        let raw = parse(
            &json!({"builtins": false, "agents": [], "s": {"command": ["x"], "disabled": true}}),
        )
        .unwrap();
        assert_eq!(raw.servers.keys().collect::<Vec<_>>(), vec!["s"]);
        assert!(raw.servers["s"].disabled);
        assert!(parse(&json!("{not json")).is_err());
        assert!(parse(&json!("/dev/zero")).is_err());
        assert!(parse(&json!("/nonexistent/mcp.json")).is_err());
    }
}
