//! The two opt-in serve profiles: §7B `A2AConfig` and §7C `MCPServeConfig`.

use serde_json::{Map, Value};

use super::error::ProfileError;
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
    /// SPEC 0.16.0's `tools/call`: the output as the single text block, `parts` dropped (a
    /// session judged by a text before 0.17.0 sets it); otherwise a block per non-text part
    /// follows the text.
    pub text_only: bool,
}

impl A2AConfig {
    /// Reads the JSON spelling (an inline option or the config file's `a2a` block).
    pub fn from_value(value: &Value) -> Result<A2AConfig, ProfileError> {
        let map = object(value, "a2a")?;
        let provider = match map.get("provider") {
            None | Some(Value::Null) => None,
            Some(p @ Value::Object(_)) => Some(p.clone()),
            Some(other) => return Err(ProfileError::ProviderNotObject { got: other.clone() }),
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
    pub fn from_value(value: &Value) -> Result<McpServeConfig, ProfileError> {
        let map = object(value, "mcp")?;
        Ok(McpServeConfig {
            name: string(map, "mcp", "name")?,
            version: string(map, "mcp", "version")?,
            tools: strings(map, "mcp", "tools")?,
            text_only: false,
        })
    }
}

fn object<'a>(
    value: &'a Value,
    profile: &'static str,
) -> Result<&'a Map<String, Value>, ProfileError> {
    value.as_object().ok_or_else(|| ProfileError::NotObject {
        profile,
        got: value.clone(),
    })
}

fn string(
    map: &Map<String, Value>,
    profile: &'static str,
    key: &'static str,
) -> Result<Option<String>, ProfileError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ProfileError::NotString {
            profile,
            key,
            got: other.clone(),
        }),
    }
}

fn strings(
    map: &Map<String, Value>,
    profile: &'static str,
    key: &'static str,
) -> Result<Option<Vec<String>>, ProfileError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| ProfileError::EntryNotString {
                        profile,
                        key,
                        got: v.clone(),
                    })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(ProfileError::NotNameArray {
            profile,
            key,
            got: other.clone(),
        }),
    }
}
