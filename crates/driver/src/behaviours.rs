//! Named behaviours: how code (extra tools, skill providers, wait-for resolvers) crosses the
//! port boundary as data. Every driver implements this same small catalogue.

use std::sync::Arc;

use serde_json::{json, Value};

use toolnexus_reference::http_tool::{http_tool, HttpToolSpec};
use toolnexus_reference::native::{define_tool, NativeReturn};
use toolnexus_reference::skills::{SkillDef, SkillProvider};
use toolnexus_reference::suspension::{new_request_id, Answer, Request, WaitFor};
use toolnexus_reference::tool::{Source, Tool, ToolResult};

/// The input schema an extra tool gets when its fixture names none.
pub fn default_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// Builds an extra tool from `{name, description?, inputSchema?, source?, behaviour}`.
pub fn extra_tool(spec: &Value) -> Result<Tool, String> {
    let name = spec
        .get("name")
        .and_then(Value::as_str)
        .ok_or("extra tool needs a string \"name\"")?
        .to_string();
    let description = spec
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let schema = match spec.get("inputSchema") {
        None | Some(Value::Null) => default_schema(),
        Some(s @ Value::Object(_)) => s.clone(),
        Some(other) => {
            return Err(format!(
                "extra tool \"{name}\": inputSchema must be a JSON-Schema object (§1), got {other}"
            ))
        }
    };
    if let Some(http) = spec.get("http") {
        return http_extra_tool(&name, &description, spec.get("inputSchema"), http);
    }
    let behaviour = spec
        .get("behaviour")
        .cloned()
        .ok_or_else(|| format!("extra tool \"{name}\" needs a \"behaviour\" or \"http\""))?;
    let action = ToolBehaviour::parse(&behaviour)?;
    let mut tool = define_tool(&name, &description, schema, move |args, ctx| {
        let action = action.clone();
        async move { action.run(args, ctx.answer) }
    });
    if let Some(source) = spec.get("source").and_then(Value::as_str) {
        tool.source = parse_source(source)?;
    }
    Ok(tool)
}

/// An extra tool declared as an §7 HTTP tool: `{name, description?, inputSchema?, http:
/// {method?, url, headers?, query?, body?, timeout?, resultMode?}}`.
fn http_extra_tool(
    name: &str,
    description: &str,
    schema: Option<&Value>,
    http: &Value,
) -> Result<Tool, String> {
    let Value::Object(fields) = http else {
        return Err(format!("extra tool \"{name}\": \"http\" must be an object"));
    };
    let mut decl = fields.clone();
    decl.insert("name".into(), json!(name));
    decl.insert("description".into(), json!(description));
    if let Some(schema) = schema.filter(|s| !s.is_null()) {
        decl.insert("inputSchema".into(), schema.clone());
    }
    HttpToolSpec::from_json(&Value::Object(decl)).map(http_tool)
}

fn parse_source(s: &str) -> Result<Source, String> {
    serde_json::from_value(Value::String(s.to_string()))
        .map_err(|_| format!("unknown tool source \"{s}\""))
}

/// What an extra tool does when executed.
#[derive(Debug, Clone)]
enum ToolBehaviour {
    Echo,
    Text(String),
    Fail(String),
    Panic(String),
    Suspend(Value),
}

impl ToolBehaviour {
    fn parse(v: &Value) -> Result<Self, String> {
        // Exactly one behaviour per tool, so a fixture can never mean two things.
        if v.as_object().map(|m| m.len()) != Some(1) {
            return Err(format!(
                "a tool behaviour is an object with exactly one key, got {v}"
            ));
        }
        if v.get("echo") == Some(&Value::Bool(true)) {
            return Ok(Self::Echo);
        }
        if let Some(t) = v.get("text").and_then(Value::as_str) {
            return Ok(Self::Text(t.to_string()));
        }
        if let Some(t) = v.get("fail").and_then(Value::as_str) {
            return Ok(Self::Fail(t.to_string()));
        }
        if let Some(t) = v.get("panic").and_then(Value::as_str) {
            return Ok(Self::Panic(t.to_string()));
        }
        if let Some(s) = v.get("suspend") {
            return Ok(Self::Suspend(s.clone()));
        }
        Err(format!("unknown tool behaviour {v}"))
    }

    fn run(&self, args: Value, answer: Option<Answer>) -> Result<NativeReturn, String> {
        match self {
            Self::Echo => Ok(NativeReturn::Text(args.to_string())),
            Self::Text(t) => Ok(NativeReturn::Text(t.clone())),
            Self::Fail(m) => Err(m.clone()),
            Self::Panic(m) => panic!("{m}"),
            Self::Suspend(spec) => Ok(NativeReturn::Result(suspend(spec, answer))),
        }
    }
}

/// `{"suspend":{kind,prompt,url?,data?}}`: pending on the first call; on the retry with an
/// answer, `answer.data` as compact JSON (or `null`).
fn suspend(spec: &Value, answer: Option<Answer>) -> ToolResult {
    if let Some(answer) = answer {
        return ToolResult::ok(answer.data.unwrap_or(Value::Null).to_string());
    }
    let text = |k: &str| spec.get(k).and_then(Value::as_str).map(str::to_string);
    let request = Request {
        id: new_request_id("req"),
        kind: text("kind").unwrap_or_else(|| "approval".to_string()),
        prompt: text("prompt").unwrap_or_default(),
        url: text("url"),
        data: spec.get("data").cloned(),
        expires_at: text("expiresAt"),
    };
    let output = request.prompt.clone();
    let pending = serde_json::to_value(&request).unwrap_or(Value::Null);
    ToolResult::error(output).with_meta("pending", pending)
}

/// Parses a data skill `{name, description?, content, resources?, base?}`.
pub fn skill_def(v: &Value) -> Result<SkillDef, String> {
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(SkillDef {
        name: text("name").unwrap_or_default(),
        description: text("description"),
        content: text("content").unwrap_or_default(),
        resources: v
            .get("resources")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
        base: text("base"),
    })
}

/// A provider behaviour: `{"skills":[defs]}` or `{"fail":"message"}`.
pub fn skill_provider(v: &Value) -> Result<SkillProvider, String> {
    if let Some(message) = v.get("fail").and_then(Value::as_str) {
        let message = message.to_string();
        return Ok(Arc::new(move || Err(message.clone())));
    }
    let defs = v
        .get("skills")
        .and_then(Value::as_array)
        .ok_or("skill provider behaviour needs \"skills\" or \"fail\"")?
        .iter()
        .map(skill_def)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Arc::new(move || Ok(defs.clone())))
}

/// `{id, kind, prompt, url?, data?: compact JSON text, expiresAt?}`.
fn flat_request(request: &Request) -> Value {
    let mut flat = serde_json::Map::new();
    flat.insert("id".into(), json!(request.id));
    flat.insert("kind".into(), json!(request.kind));
    flat.insert("prompt".into(), json!(request.prompt));
    if let Some(url) = &request.url {
        flat.insert("url".into(), json!(url));
    }
    if let Some(data) = &request.data {
        flat.insert("data".into(), json!(data.to_string()));
    }
    if let Some(at) = &request.expires_at {
        flat.insert("expiresAt".into(), json!(at));
    }
    Value::Object(flat)
}

/// A wait-for behaviour: `{"answer":{ok, data?, reason?}}` (the id echoes the request's), or
/// `{"echoRequest":true}`, which accepts with the request as `data` so a scenario can see what
/// the port asked — flattened to primitive values (`data` as compact JSON text), because an
/// MCP elicitation result may only carry primitives.
pub fn wait_for(v: &Value) -> Result<WaitFor, String> {
    if v.get("echoRequest") == Some(&Value::Bool(true)) {
        return Ok(Arc::new(|request: Request| {
            let data = Some(flat_request(&request));
            Box::pin(async move {
                Answer {
                    id: request.id,
                    ok: true,
                    data,
                    reason: None,
                }
            })
        }));
    }
    let template = v
        .get("answer")
        .cloned()
        .ok_or("waitFor behaviour needs \"answer\" or \"echoRequest\"")?;
    let ok = template.get("ok").and_then(Value::as_bool).unwrap_or(true);
    let data = template.get("data").cloned();
    let reason = template
        .get("reason")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(Arc::new(move |request: Request| {
        let answer = Answer {
            id: request.id,
            ok,
            data: data.clone(),
            reason: reason.clone(),
        };
        Box::pin(async move { answer })
    }))
}
