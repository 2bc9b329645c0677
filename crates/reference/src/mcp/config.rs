//! §2 MCP config parsing: wrappers, reserved sibling keys, type inference, toggles, and
//! each server's launch description (command or URL).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

pub use super::config_error::{ConfigError, EntryError};

/// Keys that sit beside a raw server map and are never servers (§2 "Reserved sibling keys").
pub const RESERVED_KEYS: [&str; 4] = ["builtins", "agents", "a2a", "mcpServer"];

/// §2 default per-phase timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;

/// The longest `timeout` taken: JavaScript's timer limit (2^31 − 1 ms, about 24.8 days),
/// past which opencode, whose config §2 mirrors, would fire the timer at once.
pub const MAX_TIMEOUT_MS: u64 = 2_147_483_647;

/// The error key used when the config itself cannot be read.
pub const CONFIG_ERROR_KEY: &str = "<config>";

/// One server entry, as far as this layer needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// `local` or `remote` (explicit or inferred from `command`/`url`).
    pub kind: Option<String>,
    /// Whether the server is skipped (`disabled:true` wins, else `enabled:false`).
    pub disabled: bool,
    /// Per-phase timeout in milliseconds (default 30000). An invalid `timeout` leaves the
    /// default here and fails the entry at [`ServerConfig::launch`].
    pub timeout_ms: u64,
    /// The raw entry, for the transport layer.
    pub raw: Value,
}

/// A parsed config: the whole object (for sibling sections) and its servers.
#[derive(Debug, Clone, Default)]
pub struct McpConfig {
    /// The top-level object.
    pub root: Map<String, Value>,
    /// Servers in the order the config lists them (the order their tools are exposed in).
    pub servers: Vec<(String, ServerConfig)>,
}

/// How to reach one server.
#[derive(Debug, Clone, PartialEq)]
pub enum Launch {
    /// Spawn a child and speak MCP over its stdio.
    Local {
        /// Program and arguments.
        argv: Vec<String>,
        /// Variables added to the inherited environment.
        env: Vec<(String, String)>,
        /// Working directory of the child.
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP.
    Remote {
        /// The endpoint.
        url: String,
        /// Header names and their unexpanded values (`${ENV}` is expanded at connect).
        headers: Vec<(String, String)>,
    },
}

impl ServerConfig {
    /// The launch description, or why the entry cannot be launched.
    pub fn launch(&self) -> Result<Launch, EntryError> {
        if !self.raw.is_object() {
            return Err(EntryError::NotObject {
                got: kind_of(&self.raw),
            });
        }
        // Checked before anything starts: a typo'd timeout must not quietly become 30 s.
        timeout_ms(&self.raw)?;
        match self.kind.as_deref() {
            Some("remote") => {
                let url = match self.raw.get("url") {
                    Some(Value::String(u)) if !u.is_empty() => u.clone(),
                    _ => return Err(EntryError::MissingUrl),
                };
                Ok(Launch::Remote {
                    url,
                    headers: string_pairs(self.raw.get("headers"), "headers")?,
                })
            }
            Some("local") => Ok(Launch::Local {
                argv: argv(self.raw.get("command"), self.raw.get("args"))?,
                env: match self.raw.get("environment") {
                    Some(v) if !v.is_null() => string_pairs(Some(v), "environment")?,
                    _ => string_pairs(self.raw.get("env"), "env")?,
                },
                cwd: match self.raw.get("cwd") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(c)) => Some(PathBuf::from(c)),
                    Some(other) => {
                        return Err(EntryError::CwdNotString {
                            got: kind_of(other),
                        })
                    }
                },
            }),
            Some(other) => Err(EntryError::UnknownType {
                kind: other.to_string(),
            }),
            None => Err(EntryError::NoCommandOrUrl),
        }
    }

    /// The per-server `tools` map (§2 Gap 7), keyed on original tool names.
    pub fn tools_filter(&self) -> Result<BTreeMap<String, bool>, EntryError> {
        match self.raw.get("tools") {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    v.as_bool()
                        .map(|b| (k.clone(), b))
                        .ok_or_else(|| EntryError::ToolsValueNotBool { name: k.clone() })
                })
                .collect(),
            Some(other) => Err(EntryError::ToolsNotObject {
                got: kind_of(other),
            }),
        }
    }
}

/// `command` as an array, or a string with an optional Claude-style `args` array.
fn argv(command: Option<&Value>, args: Option<&Value>) -> Result<Vec<String>, EntryError> {
    let mut argv = match command {
        Some(Value::String(s)) if !s.is_empty() => vec![s.clone()],
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or(EntryError::CommandEntryNotString)?,
        _ => return Err(EntryError::CommandEmpty),
    };
    if argv[0].is_empty() {
        return Err(EntryError::EmptyProgram);
    }
    match args {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for v in items {
                argv.push(
                    v.as_str()
                        .ok_or(EntryError::ArgsEntryNotString)?
                        .to_string(),
                );
            }
        }
        Some(other) => {
            return Err(EntryError::ArgsNotArray {
                got: kind_of(other),
            })
        }
    }
    Ok(argv)
}

/// A string→string object as pairs, in config order.
fn string_pairs(v: Option<&Value>, what: &str) -> Result<Vec<(String, String)>, EntryError> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(EntryError::PairValueNotString {
                    what: what.to_string(),
                    key: k.clone(),
                    got: kind_of(other),
                }),
            })
            .collect(),
        Some(other) => Err(EntryError::PairsNotObject {
            what: what.to_string(),
            got: kind_of(other),
        }),
    }
}

/// Reads a config given as a parsed object, a JSON string, or a file path.
pub fn parse(input: &Value) -> Result<McpConfig, ConfigError> {
    let root = match input {
        Value::Object(map) => map.clone(),
        Value::String(text) => read_text_or_path(text)?,
        other => {
            return Err(ConfigError::WrongInput {
                got: kind_of(other),
            })
        }
    };
    let server_map = ["mcpServers", "servers", "mcp"]
        .iter()
        .find_map(|k| root.get(*k))
        .cloned();
    let servers_value = match server_map {
        Some(Value::Object(m)) => m,
        Some(other) => {
            return Err(ConfigError::ServerMapNotObject {
                got: kind_of(&other),
            })
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

fn read_text_or_path(text: &str) -> Result<Map<String, Value>, ConfigError> {
    let trimmed = text.trim_start();
    let body = if trimmed.starts_with('{') {
        text.to_string()
    } else {
        read_config_file(Path::new(text))?
    };
    match serde_json::from_str::<Value>(&body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(ConfigError::NotJsonObject {
            got: kind_of(&other),
        }),
        Err(e) => Err(ConfigError::InvalidJson(e)),
    }
}

/// The largest config file read.
pub const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a config file: a regular file (never a FIFO or device, which could block or never
/// end) of bounded size.
fn read_config_file(path: &Path) -> Result<String, ConfigError> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(ConfigError::CannotRead)?;
    if !meta.is_file() {
        return Err(ConfigError::NotRegularFile);
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Err(ConfigError::TooLarge);
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_CONFIG_BYTES).read_to_string(&mut text))
        .map_err(ConfigError::CannotRead)?;
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
        timeout_ms: timeout_ms(&raw).unwrap_or(DEFAULT_TIMEOUT_MS),
        raw,
    }
}

/// `timeout`: absent or null ⇒ the default, else a whole number of milliseconds from 1 to
/// [`MAX_TIMEOUT_MS`] (`1e3` is 1000; `"abc"`, `0`, `-1`, `2.5` and `1e20` are refused).
fn timeout_ms(raw: &Value) -> Result<u64, EntryError> {
    let value = match raw.get("timeout") {
        None | Some(Value::Null) => return Ok(DEFAULT_TIMEOUT_MS),
        Some(v) => v,
    };
    let whole = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && (1.0..=MAX_TIMEOUT_MS as f64).contains(f))
            .map(|f| f as u64)
    });
    match whole {
        Some(ms) if (1..=MAX_TIMEOUT_MS).contains(&ms) => Ok(ms),
        _ => {
            let got = match value {
                Value::Number(n) => n.to_string(),
                other => kind_of(other).to_string(),
            };
            Err(EntryError::Timeout { got })
        }
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
        assert_eq!(c.servers[0].1.kind.as_deref(), Some("remote"));
        let raw = parse(
            &json!({"builtins": false, "agents": [], "s": {"command": ["x"], "disabled": true}}),
        )
        .unwrap();
        let names: Vec<&str> = raw.servers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, vec!["s"]);
        assert!(raw.servers[0].1.disabled);
        assert!(parse(&json!("{not json")).is_err());
        assert!(parse(&json!("/dev/zero")).is_err());
        assert!(parse(&json!("/nonexistent/mcp.json")).is_err());
    }

    #[test]
    fn launch_descriptions() {
        let c = parse(&json!({"mcp": {
            "z": {"command": ["prog", "a"], "env": {"K": "v"}, "cwd": "/tmp"},
            "a": {"command": "npx", "args": ["-y", "pkg"], "environment": {"E": "1"}},
            "r": {"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${T}"}},
            "bad": {"command": []},
            "odd": {"type": "carrier-pigeon"}
        }}))
        .unwrap();
        let names: Vec<&str> = c.servers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            vec!["z", "a", "r", "bad", "odd"],
            "config order is kept"
        );
        let launch = |i: usize| c.servers[i].1.launch();
        assert_eq!(
            launch(0),
            Ok(Launch::Local {
                argv: vec!["prog".into(), "a".into()],
                env: vec![("K".into(), "v".into())],
                cwd: Some(PathBuf::from("/tmp")),
            })
        );
        assert!(matches!(launch(1), Ok(Launch::Local { argv, env, .. })
            if argv == ["npx", "-y", "pkg"] && env == [("E".to_string(), "1".to_string())]));
        assert!(matches!(launch(2), Ok(Launch::Remote { headers, .. })
            if headers == [("Authorization".to_string(), "Bearer ${T}".to_string())]));
        assert_eq!(c.servers[2].1.timeout_ms, DEFAULT_TIMEOUT_MS);
        assert!(launch(3).is_err());
        assert!(launch(4)
            .unwrap_err()
            .to_string()
            .contains("carrier-pigeon"));
    }

    #[test]
    fn timeouts_are_whole_positive_milliseconds() {
        let timeout = |t: Value| {
            let c = parse(&json!({"mcp": {"s": {"command": ["prog"], "timeout": t}}})).unwrap();
            let s = &c.servers[0].1;
            s.launch().map(|_| s.timeout_ms)
        };
        assert_eq!(timeout(json!(500)), Ok(500));
        assert_eq!(timeout(json!(1e3)), Ok(1000));
        assert_eq!(timeout(json!(MAX_TIMEOUT_MS)), Ok(MAX_TIMEOUT_MS));
        assert_eq!(timeout(Value::Null), Ok(DEFAULT_TIMEOUT_MS));
        for bad in [
            json!("abc"),
            json!("500"),
            json!(-1),
            json!(0),
            json!(2.5),
            json!(1e20),
            json!(MAX_TIMEOUT_MS + 1),
            json!(true),
            json!([500]),
        ] {
            let e = timeout(bad.clone()).unwrap_err().to_string();
            assert!(e.contains("\"timeout\""), "{bad}: {e}");
        }
        assert!(timeout(json!(-1))
            .unwrap_err()
            .to_string()
            .ends_with("got -1"));
        assert!(timeout(json!("abc"))
            .unwrap_err()
            .to_string()
            .ends_with("got a string"));
        let absent = parse(&json!({"mcp": {"s": {"command": ["prog"]}}})).unwrap();
        assert_eq!(absent.servers[0].1.timeout_ms, DEFAULT_TIMEOUT_MS);
    }
}
