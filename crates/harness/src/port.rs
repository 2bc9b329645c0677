//! The port boundary: one trait every implementation is driven through.

use std::fmt;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use toolnexus_protocol::{error_kind, PROTOCOL_VERSION};

/// Who a port is, from its `hello`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PortInfo {
    /// Port name (`reference`, `python`, ...).
    pub name: String,
    /// Implementation language.
    pub language: String,
    /// Implementation version.
    pub version: String,
}

/// What a port said about itself in `hello`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hello {
    /// Identity.
    pub port: PortInfo,
    /// SPEC sections it implements (`"0"`, `"3"`, `"4A"`, ...).
    pub implements: Vec<String>,
    /// The SPEC version it targets, when it says.
    pub spec: Option<String>,
}

/// Why a port call did not produce a usable answer.
#[derive(Debug, Clone, PartialEq)]
pub enum PortError {
    /// The port declared the command or option unsupported (the scenario is skipped).
    Unsupported(String),
    /// The driver answered `ok:false` for another reason.
    Driver {
        /// The error kind the driver gave.
        kind: String,
        /// Its message.
        message: String,
    },
    /// The driver crashed, hung, or spoke something other than the protocol.
    Transport(String),
}

impl fmt::Display for PortError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortError::Unsupported(m) => write!(f, "unsupported by the port: {m}"),
            PortError::Driver { kind, message } => write!(f, "driver error ({kind}): {message}"),
            PortError::Transport(m) => write!(f, "driver failure: {m}"),
        }
    }
}

/// One implementation under test. Transports implement `call` (one protocol message in,
/// one out); scenarios use the typed operations, which every port gets from `call`.
#[async_trait]
pub trait Port: Send {
    /// Sends one request and returns the raw response object.
    async fn call(&mut self, request: Value) -> Result<Value, PortError>;

    /// Makes sure the port can take requests (restarting a dead driver); called before
    /// each scenario so one crash fails one scenario, not the rest of the run.
    async fn ensure_ready(&mut self) -> Result<(), PortError> {
        Ok(())
    }

    /// Ends the port (closes the driver).
    async fn shutdown(&mut self) {}

    /// `build`: a toolkit from protocol options; the response carries `tools`, `names`,
    /// `statuses`, `errors` and `skills`.
    async fn build(&mut self, id: &str, options: &Value) -> Result<Value, PortError> {
        let r = request(self, json!({"cmd": "build", "id": id, "options": options})).await?;
        check_build(&r)?;
        Ok(r)
    }

    /// `tools`: the toolkit's tool descriptions in `tools()` order.
    async fn tools(&mut self, toolkit: &str) -> Result<Value, PortError> {
        let r = request(self, json!({"cmd": "tools", "toolkit": toolkit})).await?;
        check_tools(r.get("tools"))?;
        field(r, "tools")
    }

    /// `execute`: the ToolResult of one call, optionally with `Context.answer`.
    async fn execute(
        &mut self,
        toolkit: &str,
        name: &str,
        args: &Value,
        answer: Option<&Value>,
    ) -> Result<Value, PortError> {
        let mut req = json!({"cmd": "execute", "toolkit": toolkit, "name": name, "args": args});
        if let Some(answer) = answer {
            req["context"] = json!({ "answer": answer });
        }
        let result = field(request(self, req).await?, "result")?;
        let shaped = result.get("output").is_some_and(Value::is_string)
            && result.get("isError").is_some_and(Value::is_boolean)
            && result.get("metadata").is_none_or(|m| m.is_object());
        if !shaped {
            return Err(malformed(format!(
                "execute result must be {{output: string, isError: boolean, metadata?: object}}, got {}",
                truncate(&result.to_string(), 200)
            )));
        }
        Ok(result)
    }

    /// `adapter`: the provider schema array (`openai`, `anthropic`, `gemini`).
    async fn adapter(&mut self, toolkit: &str, format: &str) -> Result<Value, PortError> {
        let r = request(
            self,
            json!({"cmd": "adapter", "toolkit": toolkit, "format": format}),
        )
        .await?;
        field(r, "output")
    }

    /// `skills_prompt`: the system-prompt catalog.
    async fn skills_prompt(&mut self, toolkit: &str) -> Result<String, PortError> {
        let r = request(self, json!({"cmd": "skills_prompt", "toolkit": toolkit})).await?;
        text_field(&r, "prompt")
    }

    /// `list_skills`: the unfiltered inventory `{skills, skipped}`.
    async fn list_skills(&mut self, options: &Value) -> Result<Value, PortError> {
        let r = request(self, json!({"cmd": "list_skills", "options": options})).await?;
        Ok(json!({"skills": field(r.clone(), "skills")?, "skipped": field(r, "skipped")?}))
    }

    /// `list_mcp_tools` (§2 Gap 6): `{statuses, tools, errors}` for an MCP config.
    async fn list_mcp_tools(&mut self, config: &Value) -> Result<Value, PortError> {
        let r = request(self, json!({"cmd": "list_mcp_tools", "config": config})).await?;
        Ok(json!({
            "statuses": field(r.clone(), "statuses")?,
            "tools": field(r.clone(), "tools")?,
            "errors": r.get("errors").cloned().unwrap_or_else(|| json!({})),
        }))
    }

    /// `select_builtins`: the builtin tools a config selects.
    async fn select_builtins(&mut self, config: &Value) -> Result<Value, PortError> {
        let r = request(self, json!({"cmd": "select_builtins", "config": config})).await?;
        field(r, "tools")
    }

    /// `sanitize` (§0.2).
    async fn sanitize(&mut self, value: &str) -> Result<String, PortError> {
        let r = request(self, json!({"cmd": "sanitize", "value": value})).await?;
        text_field(&r, "value")
    }

    /// `close`: idempotent.
    async fn close(&mut self, toolkit: &str) -> Result<(), PortError> {
        request(self, json!({"cmd": "close", "toolkit": toolkit}))
            .await
            .map(|_| ())
    }
}

/// The error kind the harness gives a driver answer of the wrong shape.
pub const MALFORMED: &str = "malformed_response";

fn malformed(message: String) -> PortError {
    PortError::Driver {
        kind: MALFORMED.to_string(),
        message,
    }
}

fn check_tools(tools: Option<&Value>) -> Result<(), PortError> {
    let ok = tools.and_then(Value::as_array).is_some_and(|a| {
        a.iter().all(|t| {
            t.get("name").is_some_and(Value::is_string)
                && t.get("source").is_some_and(Value::is_string)
                && t.get("description").is_some_and(Value::is_string)
                && t.get("inputSchema").is_some_and(Value::is_object)
        })
    });
    if ok {
        Ok(())
    } else {
        Err(malformed(format!(
            "\"tools\" must be an array of {{name, description, inputSchema, source}}, got {}",
            truncate(&tools.map(Value::to_string).unwrap_or_default(), 200)
        )))
    }
}

/// A build answer must carry every field scenarios read, each of the right type, so an
/// absence check can never pass on a malformed answer.
fn check_build(r: &Value) -> Result<(), PortError> {
    check_tools(r.get("tools"))?;
    let strings = |v: Option<&Value>| {
        v.and_then(Value::as_array)
            .is_some_and(|a| a.iter().all(Value::is_string))
    };
    let string_map = |v: Option<&Value>| {
        v.and_then(Value::as_object)
            .is_some_and(|m| m.values().all(Value::is_string))
    };
    let skills = r.get("skills").and_then(Value::as_array).is_some_and(|a| {
        a.iter()
            .all(|s| s.get("name").is_some_and(Value::is_string))
    });
    for (key, ok) in [
        ("names", strings(r.get("names"))),
        ("statuses", string_map(r.get("statuses"))),
        ("errors", string_map(r.get("errors"))),
        ("skills", skills),
    ] {
        if !ok {
            return Err(malformed(format!(
                "build answer's \"{key}\" has the wrong shape: {}",
                truncate(
                    &r.get(key)
                        .map(Value::to_string)
                        .unwrap_or_else(|| "(missing)".into()),
                    200
                )
            )));
        }
    }
    Ok(())
}

fn field(mut response: Value, key: &str) -> Result<Value, PortError> {
    response.get_mut(key).map(Value::take).ok_or_else(|| {
        PortError::Transport(format!(
            "response lacks \"{key}\": {}",
            truncate(&response.to_string(), 200)
        ))
    })
}

fn text_field(response: &Value, key: &str) -> Result<String, PortError> {
    response
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| PortError::Transport(format!("response lacks a string \"{key}\"")))
}

/// Sends `request` and unwraps the protocol envelope: `ok:false` becomes a `PortError`.
pub async fn request<P: Port + ?Sized>(port: &mut P, request: Value) -> Result<Value, PortError> {
    let response = port.call(request).await?;
    match response.get("ok") {
        Some(Value::Bool(true)) => Ok(response),
        Some(Value::Bool(false)) => {
            let err = response.get("error");
            let text = |k: &str| {
                err.and_then(|e| e.get(k))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let kind = text("kind");
            if kind == error_kind::UNSUPPORTED {
                Err(PortError::Unsupported(text("message")))
            } else {
                Err(PortError::Driver {
                    kind,
                    message: text("message"),
                })
            }
        }
        _ => Err(PortError::Transport(format!(
            "response has no boolean \"ok\": {}",
            truncate(&response.to_string(), 300)
        ))),
    }
}

/// Performs the `hello` handshake.
pub async fn hello(port: &mut dyn Port) -> Result<Hello, PortError> {
    let r = request(port, json!({"cmd": "hello", "protocol": PROTOCOL_VERSION})).await?;
    match r.get("protocol").and_then(Value::as_u64) {
        Some(PROTOCOL_VERSION) => {}
        other => {
            return Err(PortError::Transport(format!(
                "driver speaks protocol {}, this harness speaks {PROTOCOL_VERSION}",
                other.map_or_else(|| "(none given)".to_string(), |v| v.to_string())
            )))
        }
    }
    let port_info: PortInfo = r
        .get("port")
        .cloned()
        .and_then(|p| serde_json::from_value(p).ok())
        .ok_or_else(|| {
            PortError::Transport(
                "hello response has no valid \"port\" {name, language, version}".into(),
            )
        })?;
    let implements = r
        .get("implements")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .ok_or_else(|| {
            PortError::Transport(
                "hello response has no \"implements\" array of SPEC sections".into(),
            )
        })?;
    Ok(Hello {
        port: port_info,
        implements,
        spec: r.get("spec").and_then(Value::as_str).map(str::to_string),
    })
}

/// Shortens text for messages, on a character boundary.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}… ({} chars)", text.chars().count())
}
