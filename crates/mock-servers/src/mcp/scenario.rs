//! Scenario files: the JSON that tells a mock MCP server what to advertise and how to
//! misbehave, parsed and validated up front so a bad file fails at start, never mid-test.

use std::fmt;
use std::path::Path;
use std::time::Duration;

use axum::http::HeaderName;
use rmcp::model::{CallToolResult, ElicitationSchema};
use serde::Deserialize;

use crate::loopback;
use serde_json::{Map, Value};

/// A validated scenario: everything the mock server needs, nothing left to parse.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// `serverInfo` answered at initialize.
    pub server: ServerIdentity,
    /// Tools per `tools/list` page; `None` ⇒ one page.
    pub page_size: Option<usize>,
    /// Pauses before answering initialize and each `tools/list` page.
    pub delays: Delays,
    /// How the server breaks, if it does.
    pub fail: Option<FailMode>,
    /// Headers every HTTP request must carry (ignored over stdio).
    pub require_headers: Vec<RequiredHeader>,
    /// A child process to leave behind, for process-tree tests.
    pub sleeper: Option<Sleeper>,
    /// The tools, in listing order.
    pub tools: Vec<ToolSpec>,
}

/// The server's name and version.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerIdentity {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
}

/// Delays before answering, so timeouts and per-phase budgets can be tested.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Delays {
    /// Before the initialize response.
    pub initialize: Duration,
    /// Before each `tools/list` page.
    pub list: Duration,
}

/// A broken server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailMode {
    /// Exit with code 3 on receiving initialize.
    CrashAtInitialize,
    /// Initialize normally, exit with code 3 on `tools/list`.
    CrashAtList,
    /// Never answer anything.
    Hang,
    /// Answer everything with text that is not JSON-RPC.
    Garbage,
    /// Exit with code 3 before reading or printing anything.
    ExitAtStart,
}

/// One header an HTTP request must carry with an exact value.
#[derive(Debug, Clone)]
pub struct RequiredHeader {
    /// The header (case-insensitive, as HTTP header names are).
    pub name: HeaderName,
    /// Where the expected value comes from.
    pub expected: Expected,
}

/// The expected value of a required header.
#[derive(Debug, Clone)]
pub enum Expected {
    /// Written in the scenario file.
    Literal(Secret),
    /// Read from this environment variable of the mock process at start, so no secret has
    /// to live in a committed file.
    FromEnv(String),
}

/// A value that must never reach a log: its `Debug` hides it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value itself, for comparing; never print it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// A `sleep 300` child whose pid is written to the file named by an env var.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sleeper {
    /// The environment variable holding the pid file's path.
    pub pid_file_env: String,
}

/// One tool: what `tools/list` shows and what `tools/call` does.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// Its description, if any.
    pub description: Option<String>,
    /// Its input schema (a JSON-Schema object).
    pub input_schema: Map<String, Value>,
    /// What a call does.
    pub call: Behaviour,
}

/// What a `tools/call` does.
#[derive(Debug, Clone)]
pub enum Behaviour {
    /// Answer this result as given.
    Result(CallToolResult),
    /// Answer the `text` argument, or the compact JSON of all arguments.
    Echo,
    /// Answer the value of this environment variable, or `<unset>`.
    Env(String),
    /// Answer the server's current directory.
    Cwd,
    /// Ask the client through `elicitation/create` and answer its result as JSON.
    Elicit {
        /// The message shown to the user.
        message: String,
        /// The form's schema.
        requested_schema: ElicitationSchema,
    },
    /// Wait, then behave as `then`.
    Sleep {
        /// How long.
        delay: Duration,
        /// What follows.
        then: Box<Behaviour>,
    },
    /// Answer one image entry of `bytes` zero bytes, its base64 made at call time: a
    /// payload of any size without a file of that size in the repository.
    Image {
        /// The decoded size of the image.
        bytes: usize,
        /// Its `mimeType`.
        mime_type: String,
    },
    /// Exit the process with code 3.
    Crash,
}

/// Reads and validates a scenario file; the error names the file and what is wrong.
pub fn load_scenario(path: impl AsRef<Path>) -> Result<Scenario, String> {
    loopback::load_json(path.as_ref(), parse_scenario)
}

/// Parses and validates scenario JSON.
pub fn parse_scenario(text: &str) -> Result<Scenario, String> {
    loopback::parse_object::<ScenarioFile>(text)?.validate()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ScenarioFile {
    #[serde(default)]
    server: Option<ServerFile>,
    #[serde(default)]
    page_size: Option<usize>,
    #[serde(default)]
    delays: Option<DelaysFile>,
    #[serde(default)]
    fail: Option<FailMode>,
    #[serde(default)]
    require_headers: Map<String, Value>,
    #[serde(default)]
    require_headers_from_env: Map<String, Value>,
    #[serde(default)]
    sleeper: Option<SleeperFile>,
    #[serde(default)]
    tools: Vec<ToolFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerFile {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    version: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DelaysFile {
    #[serde(default)]
    initialize: u64,
    #[serde(default)]
    list: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SleeperFile {
    pid_file_env: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ToolFile {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    input_schema: Option<Value>,
    call: Value,
}

impl ScenarioFile {
    fn validate(self) -> Result<Scenario, String> {
        let server = self.server.map_or_else(
            || ServerIdentity {
                name: "mock".into(),
                version: "1.0.0".into(),
            },
            |s| ServerIdentity {
                name: s.name.unwrap_or_else(|| "mock".into()),
                version: s.version.unwrap_or_else(|| "1.0.0".into()),
            },
        );
        if self.page_size == Some(0) {
            return Err("pageSize: must be at least 1".into());
        }
        let delays = self.delays.map_or_else(Delays::default, |d| Delays {
            initialize: Duration::from_millis(d.initialize),
            list: Duration::from_millis(d.list),
        });
        let require_headers =
            required_headers(self.require_headers, self.require_headers_from_env)?;
        let sleeper = match self.sleeper {
            Some(s) if s.pid_file_env.is_empty() => {
                return Err("sleeper.pidFileEnv: must name an environment variable".into())
            }
            Some(s) => Some(Sleeper {
                pid_file_env: s.pid_file_env,
            }),
            None => None,
        };
        let mut tools: Vec<ToolSpec> = Vec::with_capacity(self.tools.len());
        for (i, tool) in self.tools.into_iter().enumerate() {
            let where_ = format!("tools[{i}] ({:?})", tool.name);
            if tool.name.is_empty() {
                return Err(format!("tools[{i}].name: must not be empty"));
            }
            if tools.iter().any(|t| t.name == tool.name) {
                return Err(format!("{where_}: a tool of this name is already listed"));
            }
            let input_schema = match tool.input_schema {
                None => Map::from_iter([("type".to_string(), Value::from("object"))]),
                Some(Value::Object(m)) => m,
                Some(_) => return Err(format!("{where_}.inputSchema: must be a JSON object")),
            };
            let call = behaviour(&tool.call).map_err(|e| format!("{where_}.call: {e}"))?;
            tools.push(ToolSpec {
                name: tool.name,
                description: tool.description,
                input_schema,
                call,
            });
        }
        Ok(Scenario {
            server,
            page_size: self.page_size,
            delays,
            fail: self.fail,
            require_headers,
            sleeper,
            tools,
        })
    }
}

fn header_name(key: &str, field: &str) -> Result<HeaderName, String> {
    HeaderName::from_bytes(key.as_bytes())
        .map_err(|_| format!("{field}: {key:?} is not a valid HTTP header name"))
}

fn required_headers(
    literal: Map<String, Value>,
    from_env: Map<String, Value>,
) -> Result<Vec<RequiredHeader>, String> {
    let mut out: Vec<RequiredHeader> = Vec::new();
    let mut push = |name: HeaderName, expected: Expected, field: &str| {
        if out.iter().any(|h| h.name == name) {
            return Err(format!("{field}: header {name} is required twice"));
        }
        out.push(RequiredHeader { name, expected });
        Ok(())
    };
    for (key, value) in literal {
        let field = "requireHeaders";
        let name = header_name(&key, field)?;
        // The value is deliberately left out of the message: it may be a credential.
        let Value::String(v) = value else {
            return Err(format!("{field}.{key}: must be a string"));
        };
        push(name, Expected::Literal(Secret(v)), field)?;
    }
    for (key, value) in from_env {
        let field = "requireHeadersFromEnv";
        let name = header_name(&key, field)?;
        match value {
            Value::String(var) if !var.is_empty() => push(name, Expected::FromEnv(var), field)?,
            _ => return Err(format!("{field}.{key}: must name an environment variable")),
        }
    }
    Ok(out)
}

fn only_keys(obj: &Map<String, Value>, allowed: &[&str]) -> Result<(), String> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!(
            "unknown key {k:?} (expected {})",
            allowed
                .iter()
                .map(|a| format!("{a:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        None => Ok(()),
    }
}

fn must_be_true(value: &Value, key: &str) -> Result<(), String> {
    match value {
        Value::Bool(true) => Ok(()),
        _ => Err(format!("{key}: must be true")),
    }
}

const BEHAVIOURS: &[&str] = &[
    "result", "echo", "env", "cwd", "elicit", "sleep", "crash", "image",
];

/// The largest `image` a scenario may ask for: far above the 64 MiB the memory tests use,
/// low enough that a typo cannot ask the mock for all of the machine's memory.
pub const MAX_IMAGE_BYTES: usize = 1 << 30;

/// One `call` object. A sleep is the only two-key form (`sleep` + `then`); every other
/// behaviour is exactly one key, so a typo cannot silently pick a default.
fn behaviour(value: &Value) -> Result<Behaviour, String> {
    let Value::Object(obj) = value else {
        return Err("must be a JSON object with one behaviour key".into());
    };
    if obj.contains_key("sleep") {
        only_keys(obj, &["sleep", "then"])?;
        let ms = obj
            .get("sleep")
            .and_then(Value::as_u64)
            .ok_or("sleep: must be a whole number of milliseconds")?;
        let then = obj.get("then").ok_or("sleep: needs a \"then\" behaviour")?;
        let then = behaviour(then).map_err(|e| format!("then: {e}"))?;
        return Ok(Behaviour::Sleep {
            delay: Duration::from_millis(ms),
            then: Box::new(then),
        });
    }
    only_keys(obj, BEHAVIOURS)?;
    let mut entries = obj.iter();
    let (key, inner) = match (entries.next(), entries.next()) {
        (Some(entry), None) => entry,
        (None, _) => return Err(format!("needs one of {}", BEHAVIOURS.join(", "))),
        (Some(_), Some(_)) => return Err("must have exactly one behaviour key".into()),
    };
    match key.as_str() {
        "result" => serde_json::from_value::<CallToolResult>(inner.clone())
            .map(Behaviour::Result)
            .map_err(|e| format!("result: not a CallToolResult: {e}")),
        "echo" => must_be_true(inner, "echo").map(|()| Behaviour::Echo),
        "cwd" => must_be_true(inner, "cwd").map(|()| Behaviour::Cwd),
        "crash" => must_be_true(inner, "crash").map(|()| Behaviour::Crash),
        "env" => match inner {
            Value::String(var) if !var.is_empty() => Ok(Behaviour::Env(var.clone())),
            _ => Err("env: must name an environment variable".into()),
        },
        "elicit" => elicit(inner).map_err(|e| format!("elicit: {e}")),
        "image" => image(inner).map_err(|e| format!("image: {e}")),
        other => Err(format!("unknown behaviour {other:?}")),
    }
}

fn image(value: &Value) -> Result<Behaviour, String> {
    let Value::Object(obj) = value else {
        return Err("must be an object with \"bytes\" and \"mimeType\"".into());
    };
    only_keys(obj, &["bytes", "mimeType"])?;
    let bytes = obj
        .get("bytes")
        .and_then(Value::as_u64)
        .and_then(|b| usize::try_from(b).ok())
        .filter(|b| *b <= MAX_IMAGE_BYTES)
        .ok_or_else(|| format!("bytes: must be a whole number up to {MAX_IMAGE_BYTES}"))?;
    let mime_type = obj
        .get("mimeType")
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .ok_or("mimeType: must be a non-empty string")?
        .to_string();
    Ok(Behaviour::Image { bytes, mime_type })
}

fn elicit(value: &Value) -> Result<Behaviour, String> {
    let Value::Object(obj) = value else {
        return Err("must be an object with \"message\" and \"requestedSchema\"".into());
    };
    only_keys(obj, &["message", "requestedSchema"])?;
    let message = obj
        .get("message")
        .and_then(Value::as_str)
        .ok_or("message: must be a string")?
        .to_string();
    let schema = obj
        .get("requestedSchema")
        .ok_or("requestedSchema: missing")?;
    let requested_schema = serde_json::from_value::<ElicitationSchema>(schema.clone())
        .map_err(|e| format!("requestedSchema: not an elicitation schema: {e}"))?;
    Ok(Behaviour::Elicit {
        message,
        requested_schema,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        match parse_scenario(text) {
            Ok(_) => panic!("expected an error for {text}"),
            Err(e) => e,
        }
    }

    #[test]
    fn a_full_scenario_parses() {
        let s = parse_scenario(
            r#"{
              "server": {"name": "files", "version": "2.0.0"},
              "pageSize": 2,
              "delays": {"initialize": 300, "list": 10},
              "fail": "crash-at-list",
              "requireHeaders": {"X-Token": "t"},
              "requireHeadersFromEnv": {"authorization": "MOCK_EXPECTED_AUTH"},
              "sleeper": {"pidFileEnv": "PID_FILE"},
              "tools": [
                {"name": "echo", "description": "Echoes", "call": {"echo": true}},
                {"name": "later", "call": {"sleep": 5, "then": {"cwd": true}}},
                {"name": "ask", "call": {"elicit": {"message": "Your name?",
                  "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}, "required": ["name"]}}}},
                {"name": "sum", "call": {"result": {"content": [],
                  "structuredContent": {"b": 1, "a": [1, 2]}}}}
              ]
            }"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.server.name, "files");
        assert_eq!(s.page_size, Some(2));
        assert_eq!(s.delays.initialize, Duration::from_millis(300));
        assert_eq!(s.fail, Some(FailMode::CrashAtList));
        assert_eq!(s.require_headers.len(), 2);
        assert_eq!(s.require_headers[0].name.as_str(), "x-token");
        assert_eq!(s.tools.len(), 4);
        assert!(matches!(s.tools[1].call, Behaviour::Sleep { .. }));
        assert_eq!(
            s.tools[0].input_schema,
            Map::from_iter([("type".to_string(), Value::from("object"))])
        );
        let Behaviour::Result(r) = &s.tools[3].call else {
            panic!("not a result");
        };
        // Key order survives: the wire must show what the file says.
        assert_eq!(
            serde_json::to_string(&r.structured_content).unwrap_or_default(),
            r#"{"b":1,"a":[1,2]}"#
        );
    }

    #[test]
    fn an_empty_object_is_a_server_with_no_tools() {
        let s = parse_scenario("{}").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.server.name, "mock");
        assert!(s.tools.is_empty() && s.fail.is_none() && s.page_size.is_none());
    }

    #[test]
    fn unknown_keys_are_named() {
        assert!(err(r#"{"pagesize": 2}"#).contains("pagesize"));
        assert!(err(r#"{"server": {"nme": "x"}}"#).contains("nme"));
        assert!(
            err(r#"{"tools": [{"name": "a", "call": {"echo": true}, "x": 1}]}"#).contains("`x`")
        );
        let e = err(r#"{"tools": [{"name": "a", "call": {"ecko": true}}]}"#);
        assert!(e.contains("\"ecko\"") && e.contains("tools[0]"), "{e}");
        let e = err(r#"{"tools": [{"name": "a", "call": {"echo": true, "ecko": 1}}]}"#);
        assert!(e.contains("\"ecko\""), "{e}");
        assert!(
            err(r#"{"tools": [{"name": "a", "call": {"sleep": 1, "than": {}}}]}"#)
                .contains("\"than\"")
        );
        assert!(err(r#"{"fail": "explode"}"#).contains("explode"));
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        for bad in [
            "not json",
            "[]",
            r#"{"pageSize": 0}"#,
            r#"{"pageSize": -1}"#,
            r#"{"tools": [{"name": "", "call": {"echo": true}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"echo": true}}, {"name": "a", "call": {"cwd": true}}]}"#,
            r#"{"tools": [{"name": "a", "inputSchema": [], "call": {"echo": true}}]}"#,
            r#"{"tools": [{"name": "a", "call": {}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"echo": true, "cwd": true}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"echo": false}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"env": 3}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"sleep": "x", "then": {"echo": true}}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"sleep": 1}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"result": {}}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"elicit": {"message": "m"}}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"elicit": {"message": "m", "requestedSchema": {"type": "array"}}}}]}"#,
            r#"{"requireHeaders": {"bad header": "v"}}"#,
            r#"{"requireHeaders": {"a": "v"}, "requireHeadersFromEnv": {"A": "VAR"}}"#,
            r#"{"requireHeadersFromEnv": {"a": ""}}"#,
            r#"{"sleeper": {"pidFileEnv": ""}}"#,
            r#"{"tools": [{"name": "a", "call": {"image": {"bytes": 3}}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"image": {"bytes": -1, "mimeType": "image/png"}}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"image": {"bytes": 1073741825, "mimeType": "image/png"}}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"image": {"bytes": 3, "mimeType": ""}}}]}"#,
            r#"{"tools": [{"name": "a", "call": {"image": {"bytes": 3, "mimeType": "image/png", "x": 1}}}]}"#,
        ] {
            let _ = err(bad);
        }
    }

    #[test]
    fn a_literal_header_value_never_shows_in_errors_or_debug() {
        let e = err(r#"{"requireHeaders": {"x-token": 12345}}"#);
        assert!(!e.contains("12345"), "{e}");
        let s = parse_scenario(r#"{"requireHeaders": {"x-token": "canary-value"}}"#)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(!format!("{s:?}").contains("canary-value"));
    }

    #[test]
    fn every_shipped_scenario_loads() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mock-servers/scenarios");
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
        let mut count = 0;
        // Only the files: `a2a/` holds the A2A agent's scenarios, another format.
        for entry in entries.flatten().filter(|e| e.path().is_file()) {
            if let Err(e) = load_scenario(entry.path()) {
                panic!("{e}");
            }
            count += 1;
        }
        assert!(count >= 11, "only {count} scenario files");
    }

    #[test]
    fn load_names_the_file() {
        let e = match load_scenario("/nonexistent/scenario.json") {
            Ok(_) => panic!("loaded a missing file"),
            Err(e) => e,
        };
        assert!(e.contains("/nonexistent/scenario.json"), "{e}");
    }
}
