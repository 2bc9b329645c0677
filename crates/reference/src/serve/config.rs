//! The two opt-in serve profiles: §7B `A2AConfig` and §7C `MCPServeConfig`.

use serde_json::{Map, Value};

use super::task_store::StoreSpec;

/// §7B `A2AConfig`: the Agent Card fields, the skills filter and the task store.
#[derive(Clone, Default)]
pub struct A2AConfig {
    /// Card `name` (default `"toolnexus-agent"`).
    pub name: Option<String>,
    /// Card `description` (default `""`).
    pub description: Option<String>,
    /// Card `version` (default `"0.1.0"`).
    pub version: Option<String>,
    /// Card `provider` (`{organization, url}`), included only when set.
    pub provider: Option<Value>,
    /// Skill names to advertise; unknown names are ignored.
    pub skills: Option<Vec<String>>,
    /// Where Tasks live.
    pub store: StoreSpec,
}

/// §7C `MCPServeConfig`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct McpServeConfig {
    /// `serverInfo.name` (default `"toolnexus"`).
    pub name: Option<String>,
    /// `serverInfo.version` (default `"0.1.0"`).
    pub version: Option<String>,
    /// Tool names to expose; unknown names are ignored.
    pub tools: Option<Vec<String>>,
}

impl A2AConfig {
    /// Reads the JSON spelling (an inline option or the config file's `a2a` block).
    pub fn from_value(value: &Value) -> Result<A2AConfig, String> {
        let map = object(value, "a2a")?;
        let provider = match map.get("provider") {
            None | Some(Value::Null) => None,
            Some(p @ Value::Object(_)) => Some(p.clone()),
            Some(other) => return Err(format!("a2a.provider must be an object, got {other}")),
        };
        Ok(A2AConfig {
            name: string(map, "a2a", "name")?,
            description: string(map, "a2a", "description")?,
            version: string(map, "a2a", "version")?,
            provider,
            skills: strings(map, "a2a", "skills")?,
            store: StoreSpec::from_value(map.get("store"))?,
        })
    }
}

impl McpServeConfig {
    /// Reads the JSON spelling (an inline option or the config file's `mcpServer` block).
    pub fn from_value(value: &Value) -> Result<McpServeConfig, String> {
        let map = object(value, "mcp")?;
        Ok(McpServeConfig {
            name: string(map, "mcp", "name")?,
            version: string(map, "mcp", "version")?,
            tools: strings(map, "mcp", "tools")?,
        })
    }
}

fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    value
        .as_object()
        .ok_or_else(|| format!("{what} profile must be an object, got {value}"))
}

fn string(map: &Map<String, Value>, what: &str, key: &str) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("{what}.{key} must be a string, got {other}")),
    }
}

fn strings(map: &Map<String, Value>, what: &str, key: &str) -> Result<Option<Vec<String>>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{what}.{key} must hold strings, got {v}"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(format!(
            "{what}.{key} must be an array of names, got {other}"
        )),
    }
}
