//! Answers protocol requests with the reference implementation.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::options;
use toolnexus_protocol::{error_kind, error_response, PROTOCOL_VERSION, SPEC_VERSION};
use toolnexus_reference::adapters::Format;
use toolnexus_reference::builtins::select_builtins;
use toolnexus_reference::mcp;
use toolnexus_reference::sanitize::sanitize;
use toolnexus_reference::skills::{self, SkillInfo, SkillOrigin};
use toolnexus_reference::suspension::Answer;
use toolnexus_reference::tool::Context;
use toolnexus_reference::toolkit::{Toolkit, SKILL_PROVIDER_ERROR_KEY};

/// The SPEC sections the reference implements today.
pub const IMPLEMENTS: [&str; 9] = ["0", "1", "2", "3", "4", "4A", "6", "7", "7A"];

/// One protocol session: the toolkits built so far, by id.
#[derive(Default)]
pub struct ReferenceSession {
    toolkits: BTreeMap<String, Toolkit>,
}

impl ReferenceSession {
    /// A session with no toolkits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers one request; every failure is an `{"ok":false}` response, never a panic.
    pub async fn handle(&mut self, request: Value) -> Value {
        let Some(cmd) = request
            .get("cmd")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            let mut response =
                error_response(error_kind::BAD_REQUEST, "request needs a string \"cmd\"");
            if let Some(seq) = request.get("seq") {
                response["seq"] = seq.clone();
            }
            return response;
        };
        let result = match cmd.as_str() {
            "hello" => Ok(hello()),
            "build" => self.build(&request).await,
            "tools" => self.with_toolkit(&request, |tk| Ok(json!({"tools": describe_tools(tk)}))),
            "execute" => self.execute(&request).await,
            "adapter" => self.adapter(&request),
            "skills_prompt" => {
                self.with_toolkit(&request, |tk| Ok(json!({"prompt": tk.skills_prompt()})))
            }
            "list_skills" => list_skills(&request),
            "list_mcp_tools" => list_mcp_tools(&request).await,
            "select_builtins" => Ok(select(&request)),
            "sanitize" => sanitize_cmd(&request),
            "close" => self.close(&request).await,
            "shutdown" => Ok(json!({})),
            other => Err((
                error_kind::UNSUPPORTED,
                format!("unknown command \"{other}\""),
            )),
        };
        let mut response = match result {
            Ok(Value::Object(mut body)) => {
                let mut out = Map::new();
                out.insert("ok".into(), Value::Bool(true));
                out.append(&mut body);
                Value::Object(out)
            }
            Ok(other) => json!({"ok": true, "value": other}),
            Err((kind, message)) => error_response(kind, message),
        };
        if let Some(seq) = request.get("seq") {
            response["seq"] = seq.clone();
        }
        response
    }

    async fn build(&mut self, request: &Value) -> Reply {
        let id = string_field(request, "id")?;
        let opts = options::toolkit_options(request.get("options").unwrap_or(&Value::Null))
            .map_err(|m| (error_kind::BAD_REQUEST, m))?;
        let tk = Toolkit::build(opts).await;
        let body = json!({
            "toolkit": id,
            "tools": describe_tools(&tk),
            "names": tk.tool_names(),
            "statuses": tk.statuses(),
            "errors": tk.errors(),
            "skills": tk.skills().iter().map(describe_skill).collect::<Vec<_>>(),
            "warnings": tk.warnings(),
        });
        if let Some(mut old) = self.toolkits.insert(id, tk) {
            old.close().await;
        }
        Ok(body)
    }

    fn toolkit(&self, request: &Value) -> Result<&Toolkit, (&'static str, String)> {
        let id = string_field(request, "toolkit")?;
        self.toolkits
            .get(&id)
            .ok_or((error_kind::UNKNOWN_TOOLKIT, format!("no toolkit \"{id}\"")))
    }

    fn with_toolkit(&self, request: &Value, f: impl FnOnce(&Toolkit) -> Reply) -> Reply {
        f(self.toolkit(request)?)
    }

    async fn execute(&self, request: &Value) -> Reply {
        let tk = self.toolkit(request)?;
        let name = string_field(request, "name")?;
        let args = request.get("args").cloned().unwrap_or_else(|| json!({}));
        let answer = match request.get("context").and_then(|c| c.get("answer")) {
            None | Some(Value::Null) => None,
            Some(a) => Some(
                serde_json::from_value::<Answer>(a.clone())
                    .map_err(|e| (error_kind::BAD_REQUEST, format!("bad answer: {e}")))?,
            ),
        };
        let ctx = Context {
            answer,
            ..Context::default()
        };
        let result = tk.execute(&name, args, &ctx).await;
        let result = serde_json::to_value(&result).map_err(|e| {
            (
                error_kind::INTERNAL,
                format!("cannot serialise result: {e}"),
            )
        })?;
        Ok(json!({ "result": result }))
    }

    fn adapter(&self, request: &Value) -> Reply {
        let tk = self.toolkit(request)?;
        let format = string_field(request, "format")?;
        let format = Format::parse(&format).ok_or((
            error_kind::BAD_REQUEST,
            format!("unknown adapter format \"{format}\""),
        ))?;
        Ok(json!({ "output": tk.adapter(format) }))
    }

    async fn close(&mut self, request: &Value) -> Reply {
        let id = string_field(request, "toolkit")?;
        // Closing is idempotent: an id already closed (or never built) is not an error.
        if let Some(mut tk) = self.toolkits.remove(&id) {
            tk.close().await;
        }
        Ok(json!({}))
    }

    /// Closes every toolkit (end of session).
    pub async fn close_all(&mut self) {
        for tk in self.toolkits.values_mut() {
            tk.close().await;
        }
    }
}

type Reply = Result<Value, (&'static str, String)>;

fn string_field(request: &Value, key: &str) -> Result<String, (&'static str, String)> {
    request
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or((
            error_kind::BAD_REQUEST,
            format!("request needs a string \"{key}\""),
        ))
}

/// The `hello` answer: who this port is and what it implements.
pub fn hello() -> Value {
    json!({
        "protocol": PROTOCOL_VERSION,
        "spec": SPEC_VERSION,
        "port": {"name": "reference", "language": "rust", "version": env!("CARGO_PKG_VERSION")},
        "implements": IMPLEMENTS,
    })
}

fn describe_tools(tk: &Toolkit) -> Vec<Value> {
    tk.tools().iter().map(|t| t.describe()).collect()
}

fn describe_skill(s: &SkillInfo) -> Value {
    let mut v = json!({"name": s.name, "description": s.description});
    if let Some(loc) = &s.location {
        v["location"] = json!(loc.to_string_lossy());
    }
    if let SkillOrigin::Data { base, .. } = &s.origin {
        v["base"] = json!(base);
    }
    v
}

fn list_skills(request: &Value) -> Reply {
    let empty = Map::new();
    let map = request
        .get("options")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let sources = options::skill_sources(map).map_err(|m| (error_kind::BAD_REQUEST, m))?;
    let inv = skills::load(&sources);
    let mut body = json!({
        "skills": inv.skills.iter().map(describe_skill).collect::<Vec<_>>(),
        "skipped": inv.skipped,
    });
    if let Some(err) = inv.provider_error {
        body["errors"] =
            json!({ SKILL_PROVIDER_ERROR_KEY: format!("skill provider failed: {err}") });
    }
    Ok(body)
}

/// §2 Gap 6: list every enabled server's tools (original names, unfiltered), then disconnect.
async fn list_mcp_tools(request: &Value) -> Reply {
    let config = request.get("config").unwrap_or(&Value::Null);
    let parsed = match mcp::parse_config(config) {
        Ok(parsed) => parsed,
        Err(message) => {
            return Ok(json!({
                "statuses": {}, "tools": {},
                "errors": { mcp::config::CONFIG_ERROR_KEY: message },
            }))
        }
    };
    let inv = mcp::inventory(&parsed).await;
    let tools: Map<String, Value> = inv
        .tools
        .iter()
        .map(|(server, infos)| {
            let described = infos.iter().map(|i| i.describe()).collect::<Vec<_>>();
            (server.clone(), json!(described))
        })
        .collect();
    Ok(json!({"statuses": inv.statuses, "tools": tools, "errors": inv.errors}))
}

fn select(request: &Value) -> Value {
    let cfg = request.get("config").filter(|v| !v.is_null());
    let tools: Vec<Value> = select_builtins(cfg).iter().map(|t| t.describe()).collect();
    json!({ "tools": tools })
}

fn sanitize_cmd(request: &Value) -> Reply {
    Ok(json!({"value": sanitize(&string_field(request, "value")?)}))
}

#[async_trait::async_trait]
impl toolnexus_protocol::Handler for ReferenceSession {
    async fn handle(&mut self, request: Value) -> Value {
        ReferenceSession::handle(self, request).await
    }

    async fn close_all(&mut self) {
        ReferenceSession::close_all(self).await;
    }
}
