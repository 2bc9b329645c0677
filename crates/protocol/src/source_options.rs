//! The toolkit options whose SPEC shapes are deliberately loose (PROTOCOL.md §6): `mcpConfig`,
//! `builtins` and `agents`. Each is typed by the shapes the SPEC names, and the leniency the
//! SPEC needs is explicit: whatever a scenario sends is kept exactly (nulls, odd values, key
//! order), so the value serialises back to the JSON it was given and the port, not the
//! driver, judges it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `mcpConfig` (§2/§4): a parsed object, or a string that is JSON text when its first
/// non-blank character is `{` and a file path otherwise (the driver never parses it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum McpConfig {
    /// A parsed config (`mcpServers` | `servers` | `mcp`, `builtins`, `agents`, ...), as given.
    Object(Map<String, Value>),
    /// JSON text or a file path.
    Text(String),
    /// Neither (a number, a list, ...): passed on unchanged for the port to refuse.
    Other(Value),
}

impl From<Value> for McpConfig {
    /// The form a JSON value takes (the order the untagged decode tries them in).
    fn from(value: Value) -> Self {
        match value {
            Value::Object(map) => McpConfig::Object(map),
            Value::String(text) => McpConfig::Text(text),
            other => McpConfig::Other(other),
        }
    }
}

impl McpConfig {
    /// Whether this is a string holding JSON text rather than a path (PROTOCOL.md §6).
    pub fn is_json_text(&self) -> bool {
        matches!(self, McpConfig::Text(t) if t.trim_start().starts_with('{'))
    }

    /// The JSON the harness sent.
    pub fn to_value(&self) -> Value {
        match self {
            McpConfig::Object(map) => Value::Object(map.clone()),
            McpConfig::Text(text) => Value::String(text.clone()),
            McpConfig::Other(value) => value.clone(),
        }
    }
}

/// `builtins` (§4A): the SPEC's `boolean | object`. Scenarios also send `"yes"`, `0`, a list
/// (NOTES #186: only a real boolean toggles) and objects whose members are any JSON value
/// (`{"enabled": null}`), so members are kept as given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Builtins {
    /// `true` (all on) or `false` (all off).
    Toggle(bool),
    /// `{enabled?, disabled?, tools?: {name: bool}}`, members as given.
    Config(Map<String, Value>),
    /// Anything else, passed on unchanged (the SPEC's selection decides what it means).
    Other(Value),
}

impl From<Value> for Builtins {
    /// The form a JSON value takes (the order the untagged decode tries them in).
    fn from(value: Value) -> Self {
        match value {
            Value::Bool(on) => Builtins::Toggle(on),
            Value::Object(map) => Builtins::Config(map),
            other => Builtins::Other(other),
        }
    }
}

impl Builtins {
    /// A member of the object form, as given (`None` for the other forms or when absent).
    pub fn member(&self, key: &str) -> Option<&Value> {
        match self {
            Builtins::Config(map) => map.get(key),
            _ => None,
        }
    }

    /// The JSON the harness sent.
    pub fn to_value(&self) -> Value {
        match self {
            Builtins::Toggle(on) => Value::Bool(*on),
            Builtins::Config(map) => Value::Object(map.clone()),
            Builtins::Other(value) => value.clone(),
        }
    }
}

/// One `agents` entry (§7A): `agent({card, headers?, timeout?, pollEvery?})` plus `enabled` /
/// `disabled`. The port's agent parser reads it, so every member is kept as given (a wrong
/// type is the port's to report) and read through the accessors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct AgentDecl(pub Value);

impl AgentDecl {
    /// A member, as given.
    pub fn member(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// The agent card URL, when it is a string.
    pub fn card(&self) -> Option<&str> {
        self.member("card").and_then(Value::as_str)
    }

    /// The per-call timeout in ms, when it is a non-negative integer.
    pub fn timeout_ms(&self) -> Option<u64> {
        self.member("timeout").and_then(Value::as_u64)
    }

    /// The task-poll interval in ms, when it is a non-negative integer.
    pub fn poll_every_ms(&self) -> Option<u64> {
        self.member("pollEvery").and_then(Value::as_u64)
    }

    /// The JSON the harness sent.
    pub fn to_value(&self) -> Value {
        self.0.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::ToolkitOptions;

    /// Building a value's form by hand (what the harness does for `select_builtins` and
    /// `list_mcp_tools`) gives what the wire decode gives, so both reach the driver alike.
    #[test]
    fn from_value_agrees_with_the_wire_decode() {
        let values = [
            serde_json::json!(true),
            serde_json::json!({"enabled": null, "tools": {"bash": "no"}}),
            serde_json::json!("yes"),
            serde_json::json!("{\"mcpServers\": {}}"),
            serde_json::json!(0),
            serde_json::json!(["bash"]),
            serde_json::json!(null),
        ];
        for value in values {
            let built = Builtins::from(value.clone());
            assert_eq!(
                serde_json::from_value::<Builtins>(value.clone()).ok(),
                Some(built.clone())
            );
            assert_eq!(built.to_value(), value);
            let config = McpConfig::from(value.clone());
            assert_eq!(
                serde_json::from_value::<McpConfig>(value.clone()).ok(),
                Some(config.clone())
            );
            assert_eq!(config.to_value(), value);
        }
    }

    /// Every odd value a scenario sends survives decode and encode byte for byte.
    #[test]
    fn odd_options_round_trip_exactly() {
        let cases = [
            r#"{"mcpConfig":{"mcpServers":{"b":{"command":"x"},"a":null},"builtins":{"tools":{}}},"builtins":{"enabled":null,"tools":{"bash":"no"}}}"#,
            r#"{"mcpConfig":"/abs/path.json","builtins":"yes"}"#,
            r#"{"mcpConfig":"  {\"mcpServers\": {\"x\": ","builtins":0}"#,
            r#"{"mcpConfig":42,"builtins":["bash"]}"#,
            r#"{"builtins":true,"agents":[{"card":"http://x/card","timeout":2000,"pollEvery":null,"enabled":"yes"},7]}"#,
            r#"{"builtins":{},"agents":[]}"#,
        ];
        for case in cases {
            let options: ToolkitOptions = serde_json::from_str(case).unwrap();
            assert_eq!(serde_json::to_string(&options).unwrap(), case);
        }
        let options: ToolkitOptions = serde_json::from_str(cases[4]).unwrap();
        let agents = options.agents.unwrap_or_default();
        assert_eq!(agents[0].card(), Some("http://x/card"));
        assert_eq!(
            (agents[0].timeout_ms(), agents[0].poll_every_ms()),
            (Some(2000), None)
        );
        assert_eq!(agents[1].card(), None);
        let typed: ToolkitOptions = serde_json::from_str(cases[2]).unwrap();
        assert!(typed.mcp_config.is_some_and(|c| c.is_json_text()));
        assert!(matches!(typed.builtins, Some(Builtins::Other(_))));
        let toggled: ToolkitOptions = serde_json::from_str(cases[4]).unwrap();
        assert_eq!(toggled.builtins, Some(Builtins::Toggle(true)));
    }
}
