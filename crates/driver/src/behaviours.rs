//! Named behaviours: how code (extra tools, skill providers, wait-for resolvers) crosses the
//! port boundary as data. Every driver implements this same small catalogue.

use std::sync::{Arc, Mutex};

use serde_json::{json, Map, Value};

use toolnexus_protocol::messages::ToolSource;
use toolnexus_protocol::options::{
    self as proto, ExtraTool, SkillProviderBehaviour, SuspendSpec, ToolBehaviour, WaitForBehaviour,
};

use toolnexus_reference::content::ContentPart;
use toolnexus_reference::http_tool::{http_tool, HttpToolSpec};
use toolnexus_reference::native::{define_tool, NativeReturn};
use toolnexus_reference::skills::{SkillDef, SkillProvider};
use toolnexus_reference::suspension::{new_request_id, Answer, Request, WaitFor};
use toolnexus_reference::tool::{Context, Source, Tool, ToolResult};

/// The input schema an extra tool gets when its fixture names none.
pub fn default_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// The session-wide `toolCancels` list the `awaitCancel` behaviour appends to (§5.25).
pub type ToolCancels = Arc<Mutex<Vec<Value>>>;

/// `awaitCancel`'s bound when the fixture names none.
pub const AWAIT_CANCEL_DEFAULT_MS: u64 = 10_000;

/// Builds an extra tool from `{name, description?, inputSchema?, source?, behaviour}` or an
/// HTTP tool's `{name, description?, inputSchema?, http}`.
pub fn extra_tool(spec: &ExtraTool, cancels: &ToolCancels) -> Result<Tool, String> {
    let name = spec.name.clone();
    let description = spec.description.clone().unwrap_or_default();
    let schema = match &spec.input_schema {
        None => default_schema(),
        Some(s @ Value::Object(_)) => s.clone(),
        Some(other) => {
            return Err(format!(
                "extra tool \"{name}\": inputSchema must be a JSON-Schema object (§1), got {other}"
            ))
        }
    };
    if let Some(http) = &spec.http {
        return http_extra_tool(&name, &description, spec.input_schema.as_ref(), http);
    }
    let behaviour = spec
        .behaviour
        .as_ref()
        .ok_or_else(|| format!("extra tool \"{name}\" needs a \"behaviour\" or \"http\""))?;
    let action = ToolAction::parse(behaviour)?;
    let cancels = Arc::clone(cancels);
    let tool_name = name.clone();
    let mut tool = define_tool(&name, &description, schema, move |args, ctx| {
        let action = action.clone();
        let cancels = Arc::clone(&cancels);
        let tool_name = tool_name.clone();
        async move {
            if let ToolAction::AwaitCancel(ms) = action {
                return Ok(await_cancel(&tool_name, ms, &ctx, &cancels).await);
            }
            action.run(args, ctx.answer)
        }
    });
    if let Some(source) = spec.source {
        if source == ToolSource::Relay {
            // A relay tool has no behaviour to run: it is declared through `relayTools`.
            return Err(format!(
                "extra tool \"{name}\": source \"relay\" is declared with relayTools"
            ));
        }
        tool.source = parse_source(source)?;
    }
    Ok(tool)
}

/// A `relayTools` entry (SPEC §10 addendum): the reference's `relay_tool`.
pub fn relay_tool(decl: &proto::RelayToolDecl) -> Result<Tool, String> {
    let schema = match &decl.input_schema {
        None => default_schema(),
        Some(s @ Value::Object(_)) => s.clone(),
        Some(other) => {
            return Err(format!(
                "relay tool \"{}\": inputSchema must be a JSON-Schema object (§1), got {other}",
                decl.name
            ))
        }
    };
    Ok(toolnexus_reference::relay::relay_tool(
        decl.name.clone(),
        decl.description.clone().unwrap_or_default(),
        schema,
    ))
}

/// An extra tool declared as an §7 HTTP tool: `{name, description?, inputSchema?, http:
/// {method?, url, headers?, query?, body?, timeout?, resultMode?}}`.
fn http_extra_tool(
    name: &str,
    description: &str,
    schema: Option<&Value>,
    http: &Map<String, Value>,
) -> Result<Tool, String> {
    let mut decl = http.clone();
    decl.insert("name".into(), json!(name));
    decl.insert("description".into(), json!(description));
    if let Some(schema) = schema.filter(|s| !s.is_null()) {
        decl.insert("inputSchema".into(), schema.clone());
    }
    HttpToolSpec::from_json(&Value::Object(decl))
        .map(http_tool)
        .map_err(|e| e.to_string())
}

/// The protocol's source names are the reference's.
fn parse_source(s: ToolSource) -> Result<Source, String> {
    let name = serde_json::to_value(s).map_err(|e| e.to_string())?;
    serde_json::from_value(name.clone()).map_err(|_| format!("unknown tool source {name}"))
}

/// What an extra tool does when executed.
#[derive(Debug, Clone)]
enum ToolAction {
    Echo,
    Text(String),
    Fail(String),
    Panic(String),
    Suspend(SuspendSpec),
    AwaitCancel(u64),
    Template(String),
    Parts(String, Vec<ContentPart>),
}

impl ToolAction {
    fn parse(b: &ToolBehaviour) -> Result<Self, String> {
        Ok(match b {
            ToolBehaviour::Echo(true) => Self::Echo,
            ToolBehaviour::Echo(false) => {
                return Err("unknown tool behaviour {\"echo\":false}".to_string())
            }
            ToolBehaviour::Text(t) => Self::Text(t.clone()),
            ToolBehaviour::Fail(m) => Self::Fail(m.clone()),
            ToolBehaviour::Panic(m) => Self::Panic(m.clone()),
            ToolBehaviour::Suspend(s) => Self::Suspend(s.clone()),
            ToolBehaviour::AwaitCancel(s) => {
                Self::AwaitCancel(s.ms.unwrap_or(AWAIT_CANCEL_DEFAULT_MS))
            }
            ToolBehaviour::Template(t) => Self::Template(t.clone()),
            ToolBehaviour::Parts(spec) => {
                let wire = serde_json::to_value(&spec.parts).map_err(|e| e.to_string())?;
                let parts: Vec<ContentPart> =
                    serde_json::from_value(wire).map_err(|e| format!("parts: {e}"))?;
                Self::Parts(spec.output.clone(), parts)
            }
        })
    }

    fn run(&self, args: Value, answer: Option<Answer>) -> Result<NativeReturn, String> {
        match self {
            Self::Echo => Ok(NativeReturn::Text(args.to_string())),
            Self::Text(t) => Ok(NativeReturn::Text(t.clone())),
            Self::Fail(m) => Err(m.clone()),
            Self::Panic(m) => panic!("{m}"),
            Self::Suspend(spec) => Ok(NativeReturn::Result(suspend(spec, &args, answer))),
            // Async: handled before `run` is reached.
            Self::AwaitCancel(_) => Ok(NativeReturn::Text("not cancelled".to_string())),
            Self::Template(t) => Ok(NativeReturn::Text(fill_template(t, &args))),
            Self::Parts(output, parts) => Ok(NativeReturn::Result(
                ToolResult::ok(output.clone()).with_parts(parts.clone()),
            )),
        }
    }
}

/// `{"awaitCancel":{"ms"}}`: waits for the context's cancellation or `ms`, then records
/// `{name, cancelled}`. A call dropped before either (its future discarded) records nothing.
async fn await_cancel(name: &str, ms: u64, ctx: &Context, cancels: &ToolCancels) -> NativeReturn {
    let cancelled = tokio::select! {
        () = ctx.cancelled() => true,
        () = tokio::time::sleep(std::time::Duration::from_millis(ms)) => false,
    };
    crate::recorder::push_capped(
        &mut cancels.lock().unwrap_or_else(|p| p.into_inner()),
        json!({"name": name, "cancelled": cancelled}),
    );
    NativeReturn::Text(
        if cancelled {
            "cancelled"
        } else {
            "not cancelled"
        }
        .to_string(),
    )
}

/// `{"template": T}`: each `{{name}}` of `T` becomes that argument (a string as itself, any
/// other value as compact JSON, an absent one as nothing).
fn fill_template(template: &str, args: &Value) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = after[..end].trim();
        match args.get(name) {
            Some(Value::String(s)) => out.push_str(s),
            Some(v) => out.push_str(&v.to_string()),
            None => {}
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// `{"suspend":{kind,prompt,url?,data?,always?,echoArgs?}}`: pending on the first call; on
/// the retry with an answer, `answer.data` as compact JSON (or `null`), the arguments with
/// `echoArgs`, pending again with `always`.
fn suspend(spec: &SuspendSpec, args: &Value, answer: Option<Answer>) -> ToolResult {
    if let Some(answer) = answer.filter(|_| spec.always != Some(true)) {
        if let (Some(text), true) = (&spec.answer_text, answer.ok) {
            return ToolResult::ok(text.clone());
        }
        if spec.echo_args == Some(true) {
            return ToolResult::ok(args.to_string());
        }
        return ToolResult::ok(answer.data.unwrap_or(Value::Null).to_string());
    }
    let request = Request {
        id: new_request_id("req"),
        kind: spec.kind.clone().unwrap_or_else(|| "approval".to_string()),
        prompt: spec.prompt.clone().unwrap_or_default(),
        url: spec.url.clone(),
        data: spec.data.clone(),
        expires_at: spec.expires_at.clone(),
    };
    let output = request.prompt.clone();
    let pending = serde_json::to_value(&request).unwrap_or(Value::Null);
    ToolResult::error(output).with_meta("pending", pending)
}

/// A data skill `{name, description?, content, resources?, base?}`; a missing name is empty,
/// so the loader skips it as `missing-name`.
pub fn skill_def(d: &proto::SkillDef) -> SkillDef {
    SkillDef {
        name: d.name.clone().unwrap_or_default(),
        description: d.description.clone(),
        content: d.content.clone().unwrap_or_default(),
        resources: d.resources.clone().unwrap_or_default(),
        base: d.base.clone(),
    }
}

/// A provider behaviour: `{"skills":[defs]}` or `{"fail":"message"}`.
pub fn skill_provider(b: &SkillProviderBehaviour) -> SkillProvider {
    match b {
        SkillProviderBehaviour::Fail(message) => {
            let message = message.clone();
            Arc::new(move || Err(message.clone()))
        }
        SkillProviderBehaviour::Skills(defs) => {
            let defs: Vec<SkillDef> = defs.iter().map(skill_def).collect();
            Arc::new(move || Ok(defs.clone()))
        }
    }
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

/// A protocol `Answer` (a request's `answer` field) as the reference's §10 answer.
pub fn reference_answer(a: toolnexus_protocol::messages::Answer) -> Answer {
    Answer {
        id: a.id,
        ok: a.ok,
        data: a.data,
        reason: a.reason,
    }
}

/// A wait-for behaviour: `{"answer":{ok, data?, reason?}}` (the id echoes the request's), or
/// `{"echoRequest":true}`, which accepts with the request as `data` so a scenario can see what
/// the port asked — flattened to primitive values (`data` as compact JSON text), because an
/// MCP elicitation result may only carry primitives.
pub fn wait_for(b: &WaitForBehaviour) -> Result<WaitFor, String> {
    let template = match b {
        WaitForBehaviour::EchoRequest(true) => {
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
            }))
        }
        WaitForBehaviour::EchoRequest(false) => {
            return Err("waitFor behaviour needs \"answer\" or \"echoRequest\": true".to_string())
        }
        WaitForBehaviour::Answer(template) => template,
    };
    let ok = template.ok.unwrap_or(true);
    let data = template.data.clone();
    let reason = template.reason.clone();
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
