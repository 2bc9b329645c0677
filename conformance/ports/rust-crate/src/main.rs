//! Conformance driver (port protocol 1, `conformance/PROTOCOL.md`) for the published
//! `toolnexus` crate 0.23.0 from crates.io.
//!
//! Every answer comes from the crate's PUBLIC API (`create_toolkit`, `Toolkit::{tools,
//! execute, skills_prompt, mcp_status, mcp_source, skill_source, to_openai, to_anthropic,
//! to_gemini, close}`, `define_tool`, `pending`, `http::http_tool`, `a2a::parse_agents_value`,
//! `select_builtins`, `BuiltinsConfig::from_value`, `skills::list_skills`, `sanitize`; the §8
//! client commands in `client_cmds.rs` use `client::create_client` and friends, and the §8B
//! classifier commands in `classifier_cmds.rs` use `classifier::create_classifier`). Where the
//! crate exposes nothing for a protocol field the driver says what is true (an empty map, a
//! missing key) and never invents data; each such place carries a `NOT EXPOSED` comment.
//!
//! stdout carries protocol lines only; the crate itself logs with `eprintln!` (stderr) and has no
//! `println!` in its library code. Panics are caught per request (`catch_unwind`) and become an
//! `internal` error envelope, so the driver never dies on a request.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;

use futures::FutureExt;
use serde_json::{json, Map, Value};
use tokio::io::AsyncBufReadExt;

mod agent_cmds;
mod classifier_cmds;
mod client_cmds;
mod serve_cmds;

use toolnexus::builtins::BuiltinsConfig;
use toolnexus::client::WaitForFn;
use toolnexus::http::{http_tool, HttpToolOptions};
use toolnexus::skills::{LoadSkillsOptions, SkillDef, SkillInfo};
use toolnexus::toolkit::{SkillProvider, SkillProviderFuture};
use toolnexus::{
    define_tool, pending, Answer, ContentPart, McpConfigInput, Request, Tool, ToolContext,
    ToolResult, ToolSource, Toolkit, ToolkitError, ToolkitOptions,
};

const PORT_NAME: &str = "rust-crate";
// Kept in step with Cargo.toml's `toolnexus = "=0.23.0"`; setup.sh rewrites both for a release
// port (`rust-crate@VERSION`).
const PORT_VERSION: &str = "0.23.0";
// toolnexus releases are numbered by the SPEC version they implement.
const SPEC_VERSION: &str = PORT_VERSION;

// ---------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------

#[derive(Debug)]
struct DriverError {
    kind: &'static str,
    message: String,
}

type Res<T> = Result<T, DriverError>;

fn bad(msg: impl Into<String>) -> DriverError {
    DriverError {
        kind: "bad_request",
        message: msg.into(),
    }
}
fn unsupported(msg: impl Into<String>) -> DriverError {
    DriverError {
        kind: "unsupported",
        message: msg.into(),
    }
}
fn internal(msg: impl Into<String>) -> DriverError {
    DriverError {
        kind: "internal",
        message: msg.into(),
    }
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic with a non-string payload".into())
}

// ---------------------------------------------------------------------------
// small JSON helpers
// ---------------------------------------------------------------------------

fn field<'a>(req: &'a Map<String, Value>, key: &str) -> Res<&'a Value> {
    match req.get(key) {
        Some(v) => Ok(v),
        None => Err(bad(format!("missing field \"{key}\""))),
    }
}

fn str_field<'a>(req: &'a Map<String, Value>, key: &str) -> Res<&'a str> {
    field(req, key)?
        .as_str()
        .ok_or_else(|| bad(format!("field \"{key}\" must be a string")))
}

fn as_obj<'a>(v: &'a Value, what: &str) -> Res<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| bad(format!("{what} must be an object")))
}

fn opt_str(m: &Map<String, Value>, key: &str, what: &str) -> Res<Option<String>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(format!("{what}.{key} must be a string"))),
    }
}

fn string_list(v: &Value, what: &str) -> Res<Vec<String>> {
    let arr = v
        .as_array()
        .ok_or_else(|| bad(format!("{what} must be an array of strings")))?;
    arr.iter()
        .map(|x| {
            x.as_str()
                .map(String::from)
                .ok_or_else(|| bad(format!("{what} must be an array of strings")))
        })
        .collect()
}

/// Compact JSON: no whitespace, keys in received order (serde_json `preserve_order`, which
/// feature-unifies into the crate's own `serde_json`, so `args` keep their order through
/// `Toolkit::execute`), non-ASCII as itself.
fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// The single key of a behaviour object.
fn behaviour_key<'a>(v: &'a Value, what: &str) -> Res<(&'a str, &'a Value)> {
    let m = as_obj(v, what)?;
    if m.len() != 1 {
        return Err(bad(format!("{what} must have exactly one key")));
    }
    let (k, val) = m.iter().next().expect("one key");
    Ok((k.as_str(), val))
}

// ---------------------------------------------------------------------------
// descriptions (protocol §8)
// ---------------------------------------------------------------------------

fn describe(t: &Tool) -> Value {
    json!({
        "name": t.name,
        "description": t.description,
        "inputSchema": t.input_schema,
        "source": serde_json::to_value(t.source).unwrap_or(Value::Null),
    })
}

/// ToolResult on the wire: exactly `output`, `isError`, and `parts` (SPEC §1B, in the crate's
/// own serde form) and `metadata` when present. The crate keeps no parts as an empty list, so
/// an empty one is absent.
fn result_json(r: &ToolResult) -> Value {
    let mut m = Map::new();
    m.insert("output".into(), Value::String(r.output.clone()));
    m.insert("isError".into(), Value::Bool(r.is_error));
    if !r.parts.is_empty() {
        m.insert(
            "parts".into(),
            serde_json::to_value(&r.parts).unwrap_or(Value::Null),
        );
    }
    if let Some(meta) = &r.metadata {
        m.insert("metadata".into(), Value::Object(meta.clone()));
    }
    Value::Object(m)
}

/// PROTOCOL.md §5.28 `content_part`: the crate's edge constructors (`from_path`,
/// `from_bytes`, `from_url`); it has no validating constructor of the raw type (`part`) nor
/// public renderings of a part, so those are `unsupported` / left out.
fn content_part(req: &Map<String, Value>) -> Res<Value> {
    use base64::Engine as _;
    let from = as_obj(req.get("from").unwrap_or(&Value::Null), "from")?;
    let mime = opt_str(from, "mimeType", "from")?;
    let made = match (
        from.get("path"),
        from.get("bytes"),
        from.get("url"),
        from.get("part"),
    ) {
        (Some(Value::String(p)), None, None, None) => {
            if mime.is_some() {
                return Err(unsupported(
                    "the crate's ContentPart::from_path takes no explicit mimeType",
                ));
            }
            ContentPart::from_path(p)
        }
        (None, Some(Value::String(b)), None, None) => {
            let raw = base64::engine::general_purpose::STANDARD
                .decode(b)
                .map_err(|e| bad(format!("from.bytes is not base64: {e}")))?;
            ContentPart::from_bytes(raw, mime.as_deref().unwrap_or(""))
        }
        (None, None, Some(Value::String(u)), None) => {
            ContentPart::from_url(u, mime.as_deref().unwrap_or(""))
        }
        (None, None, None, Some(_)) => {
            return Err(unsupported(
                "the crate has no validating constructor of the raw ContentPart type",
            ))
        }
        _ => {
            return Err(bad(
                "content_part: `from` needs exactly one of path, bytes, url, part (a string)",
            ))
        }
    };
    Ok(match made {
        Ok(p) => json!({"part": serde_json::to_value(&p).unwrap_or(Value::Null)}),
        Err(e) => json!({"raised": e.to_string()}),
    })
}

/// Skill info: the crate's `SkillInfo` has `origin` "fs" (location = absolute SKILL.md) or
/// "logical" (location = base = the logical base). `description` is a plain `String` in the
/// crate (no null); it is sent as the crate holds it.
fn skill_info(s: &SkillInfo) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), Value::String(s.name.clone()));
    m.insert("description".into(), Value::String(s.description.clone()));
    if s.origin == "logical" {
        m.insert("base".into(), Value::String(s.base.clone()));
    } else {
        m.insert("location".into(), Value::String(s.location.clone()));
    }
    Value::Object(m)
}

// ---------------------------------------------------------------------------
// options (protocol §6) → ToolkitOptions
// ---------------------------------------------------------------------------

fn skill_defs(v: &Value, what: &str) -> Res<Vec<SkillDef>> {
    let arr = v
        .as_array()
        .ok_or_else(|| bad(format!("{what} must be an array")))?;
    arr.iter()
        .enumerate()
        .map(|(i, d)| {
            let w = format!("{what}[{i}]");
            let m = as_obj(d, &w)?;
            let resources = match m.get("resources") {
                None | Some(Value::Null) => Vec::new(),
                Some(r) => string_list(r, &format!("{w}.resources"))?,
            };
            Ok(SkillDef {
                name: opt_str(m, "name", &w)?.unwrap_or_default(),
                description: opt_str(m, "description", &w)?.unwrap_or_default(),
                content: opt_str(m, "content", &w)?.unwrap_or_default(),
                resources,
                base: opt_str(m, "base", &w)?.unwrap_or_default(),
            })
        })
        .collect()
}

/// `skillProvider` behaviour → the crate's `SkillProvider` (an async fn returning defs or an error).
fn skill_provider(v: &Value) -> Res<SkillProvider> {
    match behaviour_key(v, "skillProvider")? {
        ("skills", defs) => {
            let defs = skill_defs(defs, "skillProvider.skills")?;
            Ok(Arc::new(move || -> SkillProviderFuture {
                let defs = defs.clone();
                Box::pin(async move { Ok(defs) })
            }))
        }
        ("fail", msg) => {
            let msg = msg
                .as_str()
                .ok_or_else(|| bad("skillProvider.fail must be a string"))?
                .to_owned();
            Ok(Arc::new(move || -> SkillProviderFuture {
                let msg = msg.clone();
                Box::pin(async move { Err(msg) })
            }))
        }
        (k, _) => Err(unsupported(format!(
            "unknown skillProvider behaviour \"{k}\""
        ))),
    }
}

/// Resolve a provider behaviour the way a host would for `list_skills` (the crate's
/// `skills::list_skills` takes data defs only; providers are host code).
async fn provider_defs(v: &Value) -> Res<Result<Vec<SkillDef>, String>> {
    let p = skill_provider(v)?;
    Ok(p().await)
}

fn wait_for(v: &Value) -> Res<WaitForFn> {
    match behaviour_key(v, "waitFor")? {
        ("answer", a) => {
            let m = as_obj(a, "waitFor.answer")?;
            let ok = match m.get("ok") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(bad("waitFor.answer.ok must be a boolean")),
            };
            let data = match m.get("data") {
                None | Some(Value::Null) => None,
                Some(Value::Object(d)) => Some(d.clone()),
                Some(_) => return Err(bad("waitFor.answer.data must be an object")),
            };
            let reason = opt_str(m, "reason", "waitFor.answer")?.unwrap_or_default();
            Ok(Arc::new(move |req: Request| {
                let answer = Answer {
                    id: req.id,
                    ok,
                    data: data.clone(),
                    reason: reason.clone(),
                };
                Box::pin(async move { Ok(answer) })
            }))
        }
        ("echoRequest", Value::Bool(true)) => Ok(Arc::new(|req: Request| {
            // The Request as the crate serialises it (`url`, `data` and `expiresAt` omitted
            // when empty), flattened to primitives: an MCP elicitation result allows nothing
            // else, so `data` travels as compact JSON text.
            let data = match serde_json::to_value(&req) {
                Ok(Value::Object(mut m)) => {
                    if let Some(d) = m.get_mut("data") {
                        *d = Value::String(d.to_string());
                    }
                    Some(m)
                }
                _ => None,
            };
            let answer = Answer {
                id: req.id,
                ok: true,
                data,
                reason: String::new(),
            };
            Box::pin(async move { Ok(answer) })
        })),
        (k, _) => Err(unsupported(format!("unknown waitFor behaviour \"{k}\""))),
    }
}

fn tool_source(s: &str) -> Res<ToolSource> {
    serde_json::from_value::<ToolSource>(Value::String(s.to_owned()))
        .map_err(|_| unsupported(format!("the crate has no tool source \"{s}\"")))
}

/// One extra tool (protocol §7), built with the crate's native-tool helper `define_tool`.
fn extra_tool(v: &Value, i: usize) -> Res<Tool> {
    let w = format!("extraTools[{i}]");
    let m = as_obj(v, &w)?;
    let name = opt_str(m, "name", &w)?.ok_or_else(|| bad(format!("{w}.name is required")))?;
    let description = opt_str(m, "description", &w)?.unwrap_or_default();
    // Protocol §7: `inputSchema` defaults to {"type":"object","properties":{}} (the request
    // field's default; the crate's own `define_tool(.., None, ..)` default is not used).
    let schema = match m.get("inputSchema") {
        None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
        Some(s @ Value::Object(_)) => s.clone(),
        Some(_) => return Err(bad(format!("{w}.inputSchema must be an object"))),
    };
    let source = match opt_str(m, "source", &w)? {
        None => None,
        Some(s) => Some(tool_source(&s)?),
    };
    if let (Some(h), false) = (m.get("http"), m.contains_key("behaviour")) {
        // PROTOCOL.md §7 "HTTP tools": a SPEC §7 HTTP tool, built with the crate's `http_tool`.
        // `inputSchema` is passed only when given (absent: the crate's own empty schema).
        let input_schema = match m.get("inputSchema") {
            None | Some(Value::Null) => None,
            Some(s @ Value::Object(_)) => Some(s.clone()),
            Some(_) => return Err(bad(format!("{w}.inputSchema must be an object"))),
        };
        let mut tool = http_extra_tool(name, description, input_schema, h, &w)?;
        if let Some(src) = source {
            tool.source = src;
        }
        return Ok(tool);
    }
    let behaviour = m
        .get("behaviour")
        .ok_or_else(|| bad(format!("{w}.behaviour is required")))?;
    let mut tool = match behaviour_key(behaviour, &format!("{w}.behaviour"))? {
        ("echo", Value::Bool(true)) => define_tool(
            name,
            description,
            Some(schema),
            |args: Value, _ctx: ToolContext| async move { Ok::<String, String>(compact(&args)) },
        ),
        ("text", Value::String(t)) => {
            let t = t.clone();
            define_tool(
                name,
                description,
                Some(schema),
                move |_args: Value, _ctx: ToolContext| {
                    let t = t.clone();
                    async move { Ok::<String, String>(t) }
                },
            )
        }
        ("fail", Value::String(msg)) => {
            // The ordinary native-tool error path: `Err(M)` ⇒ the crate makes it isError/output M.
            let msg = msg.clone();
            define_tool(
                name,
                description,
                Some(schema),
                move |_args: Value, _ctx: ToolContext| {
                    let msg = msg.clone();
                    async move { Err::<String, String>(msg) }
                },
            )
        }
        ("panic", Value::String(msg)) => {
            // A real Rust panic inside the tool; whether it becomes a ToolResult is up to the crate.
            let msg = msg.clone();
            define_tool(
                name,
                description,
                Some(schema),
                move |_args: Value, _ctx: ToolContext| {
                    let msg = msg.clone();
                    async move {
                        if !msg.is_empty() {
                            panic!("{}", msg);
                        }
                        Ok::<String, String>(String::new())
                    }
                },
            )
        }
        ("template", Value::String(t)) => {
            // PROTOCOL.md §7 `{"template": T}` (the agent runtime's tools): each `{{name}}`
            // becomes that argument (a string as itself, other values as compact JSON).
            let t = t.clone();
            define_tool(
                name,
                description,
                Some(schema),
                move |args: Value, _ctx: ToolContext| {
                    let out = fill_template(&t, &args);
                    async move { Ok::<String, String>(out) }
                },
            )
        }
        ("parts", Value::Object(spec)) => {
            // PROTOCOL.md §7 `{"parts": {output, parts}}`: the crate's own ContentPart, read
            // from the SPEC's wire form by its serde.
            let output = opt_str(spec, "output", &w)?.unwrap_or_default();
            let parts: Vec<ContentPart> =
                serde_json::from_value(spec.get("parts").cloned().unwrap_or(json!([])))
                    .map_err(|e| bad(format!("{w}.behaviour.parts.parts: {e}")))?;
            Tool {
                name,
                description,
                input_schema: schema,
                source: ToolSource::Native,
                hints: None,
                execute: Arc::new(move |_args: Value, _ctx: ToolContext| {
                    let mut r = ToolResult::ok(output.clone());
                    r.parts = parts.clone();
                    Box::pin(async move { r })
                }),
            }
        }
        ("suspend", s) => suspend_tool(name, description, schema, s, &w)?,
        ("awaitCancel", a) => serve_cmds::await_cancel_tool(name, description, schema, a, &w)?,
        (k, _) => {
            return Err(unsupported(format!(
                "unknown or malformed extra-tool behaviour \"{k}\""
            )))
        }
    };
    if let Some(src) = source {
        tool.source = src;
    }
    Ok(tool)
}

/// PROTOCOL.md §7 "HTTP tools": the `http` block → the crate's `HttpToolOptions`.
fn http_extra_tool(
    name: String,
    description: String,
    input_schema: Option<Value>,
    h: &Value,
    w: &str,
) -> Res<Tool> {
    let what = format!("{w}.http");
    let hm = as_obj(h, &what)?;
    if let Some(k) = hm.keys().find(|k| {
        ![
            "method",
            "url",
            "headers",
            "query",
            "body",
            "timeout",
            "resultMode",
        ]
        .contains(&k.as_str())
    }) {
        return Err(bad(format!("{what}: unknown key \"{k}\"")));
    }
    let url = opt_str(hm, "url", &what)?.ok_or_else(|| bad(format!("{what}.url is required")))?;
    let headers: BTreeMap<String, String> = match hm.get("headers") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(v) => as_obj(v, &format!("{what}.headers"))?
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|s| (k.clone(), s.to_owned()))
                    .ok_or_else(|| bad(format!("{what}.headers.{k} must be a string")))
            })
            .collect::<Res<_>>()?,
    };
    let query = match hm.get("query") {
        None | Some(Value::Null) => Vec::new(),
        Some(v) => string_list(v, &format!("{what}.query"))?,
    };
    // UNITS: the protocol's `timeout` is milliseconds, and so is the crate's
    // `HttpToolOptions::timeout_ms` (0 ⇒ its 30 s default): passed through unchanged.
    let timeout_ms = match hm.get("timeout") {
        None | Some(Value::Null) => 0,
        Some(v) => v.as_u64().ok_or_else(|| {
            bad(format!(
                "{what}.timeout must be a non-negative integer (ms)"
            ))
        })?,
    };
    Ok(http_tool(HttpToolOptions {
        name,
        description,
        // Empty ⇒ the crate's defaults: GET, a `json` body, the body text as the result.
        method: opt_str(hm, "method", &what)?.unwrap_or_default(),
        url,
        headers,
        query,
        body: opt_str(hm, "body", &what)?.unwrap_or_default(),
        input_schema,
        timeout_ms,
        result_mode: opt_str(hm, "resultMode", &what)?.unwrap_or_default(),
    }))
}

/// `{{name}}` placeholders filled from `args` (an absent argument is nothing).
fn fill_template(t: &str, args: &Value) -> String {
    let mut out = String::new();
    let mut rest = t;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(j) = after.find("}}") else {
            out.push_str(&rest[i..]);
            return out;
        };
        match args.get(after[..j].trim()) {
            Some(Value::String(v)) => out.push_str(v),
            Some(v) => out.push_str(&compact(v)),
            None => {}
        }
        rest = &after[j + 2..];
    }
    out.push_str(rest);
    out
}

/// §10 suspending tool: a plain crate `Tool` whose execute returns the crate's `pending(Request)`
/// (the id is left empty so the crate generates a fresh one per call), or, with `ctx.answer`,
/// `ToolResult::ok(compact JSON of answer.data)`. `define_tool` cannot carry metadata, so the
/// `Tool` struct is built directly (its fields are public API).
fn suspend_tool(name: String, description: String, schema: Value, s: &Value, w: &str) -> Res<Tool> {
    let sm = as_obj(s, &format!("{w}.behaviour.suspend"))?;
    let what = format!("{w}.behaviour.suspend");
    let kind = opt_str(sm, "kind", &what)?.unwrap_or_else(|| "approval".into());
    let prompt = opt_str(sm, "prompt", &what)?.unwrap_or_default();
    let url = opt_str(sm, "url", &what)?.unwrap_or_default();
    let expires_at = opt_str(sm, "expiresAt", &what)?.unwrap_or_default();
    let data = match sm.get("data") {
        None | Some(Value::Null) => None,
        Some(Value::Object(d)) => Some(d.clone()),
        Some(_) => return Err(bad(format!("{what}.data must be an object"))),
    };
    let flag = |k: &str| -> Res<bool> {
        match sm.get(k) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(bad(format!("{what}.{k} must be a boolean"))),
        }
    };
    // `always`: suspend again on the re-execution with an answer (§10 `unresolved:`);
    // `echoArgs`: the re-execution outputs its arguments, ignoring the answer's data.
    let (always, echo_args) = (flag("always")?, flag("echoArgs")?);
    // `answerText` (the agent runtime's tools): an ok answer makes the re-execution output it.
    let answer_text = opt_str(sm, "answerText", &what)?;
    let template = Request {
        id: String::new(),
        kind,
        prompt,
        url,
        data,
        expires_at,
    };
    Ok(Tool {
        name,
        description,
        input_schema: schema,
        source: ToolSource::Native,
        hints: None,
        execute: Arc::new(move |args: Value, ctx: ToolContext| {
            let template = template.clone();
            let answer_text = answer_text.clone();
            Box::pin(async move {
                match ctx.answer {
                    Some(_) if always => pending(template),
                    Some(ans) if ans.ok && answer_text.is_some() => {
                        ToolResult::ok(answer_text.unwrap_or_default())
                    }
                    Some(_) if echo_args => ToolResult::ok(compact(&args)),
                    Some(ans) => ToolResult::ok(match ans.data {
                        Some(d) => compact(&Value::Object(d)),
                        None => "null".into(),
                    }),
                    None => pending(template),
                }
            })
        }),
    })
}

/// `mcpConfig`: an object ⇒ `McpConfigInput::Json`; a string whose first non-blank character
/// is `{` ⇒ JSON text; any other string ⇒ `McpConfigInput::Path`.
///
/// The crate's `McpConfigInput` has no "JSON text" variant. Valid JSON text is handed over as
/// the parsed `Json(value)` (so a top-level `builtins`/`agents` key still applies). Invalid JSON
/// text is checked with the crate's own text parser `mcp::parse_mcp_config_str`, whose error is
/// exactly what `create_toolkit` returns (`ToolkitError::Mcp`) for a config file with that
/// content: the crate fails the whole build rather than isolating the config.
fn mcp_config(v: &Value) -> Res<Result<McpConfigInput, ToolkitError>> {
    match v {
        Value::Object(_) => Ok(Ok(McpConfigInput::Json(v.clone()))),
        Value::String(s) if s.trim_start().starts_with('{') => {
            match serde_json::from_str::<Value>(s) {
                Ok(parsed) => Ok(Ok(McpConfigInput::Json(parsed))),
                Err(_) => match toolnexus::mcp::parse_mcp_config_str(s) {
                    Ok(c) => Ok(Ok(McpConfigInput::Parsed(c))),
                    Err(e) => Ok(Err(ToolkitError::Mcp(e))),
                },
            }
        }
        Value::String(s) => Ok(Ok(McpConfigInput::Path(PathBuf::from(s)))),
        _ => Err(bad("mcpConfig must be an object or a string")),
    }
}

/// `relayTools`: `{name, description?, inputSchema?}` entries → the crate's declaration-only
/// `relay_tool(name, description, schema)` (absent schema ⇒ the crate's empty object schema).
fn relay_tools(v: &Value) -> Res<Vec<Tool>> {
    let arr = v
        .as_array()
        .ok_or_else(|| bad("relayTools must be an array"))?;
    let mut out = Vec::new();
    for (i, t) in arr.iter().enumerate() {
        let w = format!("relayTools[{i}]");
        let m = as_obj(t, &w)?;
        if let Some(k) = m
            .keys()
            .find(|k| !["name", "description", "inputSchema"].contains(&k.as_str()))
        {
            return Err(bad(format!("{w}: unknown key \"{k}\"")));
        }
        let name = opt_str(m, "name", &w)?.ok_or_else(|| bad(format!("{w}.name is required")))?;
        let description = opt_str(m, "description", &w)?.unwrap_or_default();
        let schema = match m.get("inputSchema") {
            None | Some(Value::Null) => None,
            Some(s @ Value::Object(_)) => Some(s.clone()),
            Some(_) => return Err(bad(format!("{w}.inputSchema must be an object"))),
        };
        out.push(toolnexus::relay::relay_tool(name, description, schema));
    }
    Ok(out)
}

fn skills_dirs(v: &Value) -> Res<Vec<PathBuf>> {
    match v {
        Value::String(s) => Ok(vec![PathBuf::from(s)]),
        Value::Array(_) => Ok(string_list(v, "skillsDir")?
            .into_iter()
            .map(PathBuf::from)
            .collect()),
        _ => Err(bad("skillsDir must be a string or an array of strings")),
    }
}

fn bool_map(v: &Value, what: &str) -> Res<HashMap<String, bool>> {
    let m = as_obj(v, what)?;
    m.iter()
        .map(|(k, b)| {
            b.as_bool()
                .map(|b| (k.clone(), b))
                .ok_or_else(|| bad(format!("{what}.{k} must be a boolean")))
        })
        .collect()
}

fn toolkit_options(opts: &Map<String, Value>) -> Res<Result<ToolkitOptions, ToolkitError>> {
    let mut o = ToolkitOptions::default();
    let mut relays = Vec::new();
    for (key, v) in opts {
        if v.is_null() {
            continue;
        }
        match key.as_str() {
            "mcpConfig" => match mcp_config(v)? {
                Ok(c) => o.mcp_config = Some(c),
                Err(e) => return Ok(Err(e)),
            },
            "skillsDir" => o.skills_dir = skills_dirs(v)?,
            "skills" => o.skills = skill_defs(v, "skills")?,
            "skillProvider" => o.skill_provider = Some(skill_provider(v)?),
            "skillsFilter" => o.skills_filter = bool_map(v, "skillsFilter")?,
            "skillSampleLimit" => {
                o.skill_sample_limit = v
                    .as_i64()
                    .ok_or_else(|| bad("skillSampleLimit must be an integer"))?
            }
            "extraTools" => {
                let arr = v
                    .as_array()
                    .ok_or_else(|| bad("extraTools must be an array"))?;
                o.extra_tools = arr
                    .iter()
                    .enumerate()
                    .map(|(i, t)| extra_tool(t, i))
                    .collect::<Res<_>>()?;
            }
            "builtins" => match v {
                Value::Bool(_) | Value::Object(_) => {
                    o.builtins = Some(BuiltinsConfig::from_value(v))
                }
                _ => return Err(bad("builtins must be a boolean or an object")),
            },
            "agents" => {
                // Each entry goes through the crate's own parser of a config `agents` block,
                // `a2a::parse_agents_value`, one entry at a time (its block is a BTreeMap, which
                // would reorder "10" before "2"): it honours `enabled`/`disabled` (MCP
                // precedence), which the `Agent` struct has no field for. UNITS: `timeout` and
                // `pollEvery` are milliseconds in the crate (`Agent::timeout_ms`,
                // `poll_every_ms`) as in the protocol; nothing is converted.
                let arr = v.as_array().ok_or_else(|| bad("agents must be an array"))?;
                let mut agents = Vec::new();
                for (i, a) in arr.iter().enumerate() {
                    let entry = as_obj(a, &format!("agents[{i}]"))?;
                    if !matches!(entry.get("card"), Some(Value::String(_))) {
                        return Err(bad(format!("agents[{i}].card must be a string")));
                    }
                    agents.extend(toolnexus::a2a::parse_agents_value(&json!({ "agent": a })));
                }
                o.agents = agents;
            }
            "waitFor" => o.wait_for = Some(wait_for(v)?),
            "disableTools" => o.disable_tools = string_list(v, "disableTools")?,
            "disableSkills" => o.disable_skills = string_list(v, "disableSkills")?,
            // SPEC §10 addendum (a preview): the crate's `relay::relay_tool`.
            "relayTools" => relays = relay_tools(v)?,
            other => return Err(bad(format!("unknown option \"{other}\""))),
        }
    }
    // Relay tools are listed after `extraTools`, whatever the options' key order.
    o.extra_tools.extend(relays);
    Ok(Ok(o))
}

// ---------------------------------------------------------------------------
// session
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Session {
    kits: HashMap<String, Toolkit>,
    /// §8 clients by id (PROTOCOL.md §5.14).
    clients: HashMap<String, client_cmds::ClientEntry>,
    /// §8B classifiers by id (PROTOCOL.md §5.29).
    classifiers: HashMap<String, classifier_cmds::ClassifierEntry>,
    /// The toolkit of a loop command without `toolkit`: no tools, empty skills prompt.
    empty_kit: Option<Toolkit>,
    /// `serve` handles by id (PROTOCOL.md §5.23).
    serves: serve_cmds::Serves,
    /// Agent runtimes by id (PROTOCOL.md §5.27).
    agents: agent_cmds::Agents,
}

impl Session {
    /// The loop command's toolkit: the named one, else an empty toolkit (builtins off).
    async fn loop_kit(&mut self, req: &Map<String, Value>) -> Res<Toolkit> {
        if req.get("toolkit").is_some_and(|v| !v.is_null()) {
            return self.kit(req);
        }
        if let Some(tk) = &self.empty_kit {
            return Ok(tk.clone());
        }
        let o = ToolkitOptions {
            builtins: Some(BuiltinsConfig::from_value(&json!(false))),
            ..Default::default()
        };
        let tk = toolnexus::create_toolkit(o)
            .await
            .map_err(|e| internal(format!("create_toolkit (empty) failed: {e}")))?;
        self.empty_kit = Some(tk.clone());
        Ok(tk)
    }

    fn kit(&self, req: &Map<String, Value>) -> Res<Toolkit> {
        let id = str_field(req, "toolkit")?;
        self.kits.get(id).cloned().ok_or_else(|| DriverError {
            kind: "unknown_toolkit",
            message: format!("no toolkit \"{id}\""),
        })
    }

    async fn handle(&mut self, req: &Map<String, Value>) -> Res<Map<String, Value>> {
        let cmd = str_field(req, "cmd")?;
        let mut out = Map::new();
        match cmd {
            "hello" => {
                out.insert("protocol".into(), json!(1));
                out.insert("spec".into(), json!(SPEC_VERSION));
                out.insert(
                    "port".into(),
                    json!({"name": PORT_NAME, "language": "rust", "version": PORT_VERSION}),
                );
                out.insert(
                    "implements".into(),
                    json!([
                        "0", "1", "2", "3", "4", "4A", "6", "7", "7A", "7B", "7C", "7D", "7E",
                        "7F", "8", "8A", "8B", "10", "11"
                    ]),
                );
            }
            "build" => {
                let id = str_field(req, "id")?.to_owned();
                let opts = as_obj(field(req, "options")?, "options")?;
                if let Some(old) = self.kits.remove(&id) {
                    old.close().await;
                }
                // PROTOCOL.md §5.25: `toolCancels` holds the calls since the latest build.
                serve_cmds::clear_tool_cancels();
                let built = match toolkit_options(opts)? {
                    Ok(o) => toolnexus::create_toolkit(o).await,
                    Err(e) => Err(e),
                };
                let tk = match built {
                    Ok(tk) => tk,
                    // PROTOCOL.md §5.2: the crate's create_toolkit failed (a relay tool named
                    // like a builtin, §6; a config file that does not parse): `raised`, with
                    // the port's own message, not a driver error.
                    Err(e) => {
                        let message = match e {
                            ToolkitError::Relay(m) => m,
                            e => e.to_string(),
                        };
                        out.insert("raised".into(), Value::String(message));
                        return Ok(out);
                    }
                };
                let tools: Vec<Value> = tk.tools().iter().map(describe).collect();
                let mut names: Vec<String> = tk.tools().into_iter().map(|t| t.name).collect();
                names.sort();
                // statuses: the crate exposes `mcp_status()` (one entry per MCP server) only.
                // NOT EXPOSED: a status for the builtin source; no `builtin` key is invented.
                let statuses: Map<String, Value> = tk
                    .mcp_status()
                    .into_iter()
                    .map(|(k, s)| (k, Value::String(s.as_str().into())))
                    .collect();
                // errors: the crate exposes `McpSource::errors` (per failed server).
                // NOT EXPOSED: a failing skill provider or A2A agent is only `eprintln!`ed by
                // the crate; a malformed config fails `create_toolkit` as a whole (see mcp_config).
                let errors: Map<String, Value> = tk
                    .mcp_source()
                    .map(|m| {
                        m.errors
                            .iter()
                            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                            .collect()
                    })
                    .unwrap_or_default();
                // skills: the filtered catalog the `skill` tool reads (`SkillSource::skills`, a
                // BTreeMap, so the crate's order is by name, not discovery order).
                let skills: Vec<Value> = tk
                    .skill_source()
                    .map(|s| s.skills.values().map(skill_info).collect())
                    .unwrap_or_default();
                out.insert("toolkit".into(), Value::String(id.clone()));
                out.insert("tools".into(), Value::Array(tools));
                out.insert("names".into(), json!(names));
                out.insert("statuses".into(), Value::Object(statuses));
                out.insert("errors".into(), Value::Object(errors));
                out.insert("skills".into(), Value::Array(skills));
                self.kits.insert(id, tk);
            }
            "tools" => {
                let tk = self.kit(req)?;
                out.insert(
                    "tools".into(),
                    Value::Array(tk.tools().iter().map(describe).collect()),
                );
            }
            "execute" => {
                let tk = self.kit(req)?;
                let name = str_field(req, "name")?;
                let args = match req.get("args") {
                    None | Some(Value::Null) => Value::Object(Map::new()),
                    Some(a @ Value::Object(_)) => a.clone(),
                    Some(_) => return Err(bad("args must be an object")),
                };
                let mut ctx = ToolContext::default();
                if let Some(c) = req.get("context").filter(|c| !c.is_null()) {
                    let c = as_obj(c, "context")?;
                    if let Some(a) = c.get("answer").filter(|a| !a.is_null()) {
                        let ans: Answer = serde_json::from_value(a.clone())
                            .map_err(|e| bad(format!("context.answer: {e}")))?;
                        ctx.answer = Some(ans);
                    }
                }
                // PROTOCOL.md §5.4 `abortAfterMs`: the context's cancellation token, cancelled by
                // a timer that many ms after the call starts.
                let abort = match req.get("abortAfterMs").filter(|v| !v.is_null()) {
                    None => None,
                    Some(v) => {
                        let ms = v
                            .as_u64()
                            .ok_or_else(|| bad("abortAfterMs must be a non-negative integer"))?;
                        let token = ctx.cancel.clone();
                        Some(tokio::spawn(async move {
                            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                            token.cancel();
                        }))
                    }
                };
                // A panic escaping `Toolkit::execute` is caught here and reported as what it is:
                // the port's API unwound instead of returning a ToolResult.
                let r = AssertUnwindSafe(tk.execute(name, args, ctx)).catch_unwind().await.map_err(|p| {
                    internal(format!(
                        "a panic escaped toolnexus::Toolkit::execute (no ToolResult was returned): {}",
                        panic_message(&*p)
                    ))
                });
                if let Some(timer) = abort {
                    timer.abort();
                }
                let r = r?;
                out.insert("result".into(), result_json(&r));
            }
            "adapter" => {
                let tk = self.kit(req)?;
                let out_arr = match str_field(req, "format")? {
                    "openai" => tk.to_openai(),
                    "anthropic" => tk.to_anthropic(),
                    "gemini" => tk.to_gemini(),
                    f => return Err(bad(format!("unknown adapter format \"{f}\""))),
                };
                out.insert("output".into(), Value::Array(out_arr));
            }
            "skills_prompt" => {
                let tk = self.kit(req)?;
                out.insert("prompt".into(), Value::String(tk.skills_prompt()));
            }
            "list_skills" => {
                let opts = as_obj(field(req, "options")?, "options")?;
                let mut lo = LoadSkillsOptions::default();
                let mut provider_error = None;
                // Order as the crate's create_toolkit: data defs, then the provider's defs.
                if let Some(v) = opts.get("skillsDir").filter(|v| !v.is_null()) {
                    lo.dirs = skills_dirs(v)?;
                }
                if let Some(v) = opts.get("skills").filter(|v| !v.is_null()) {
                    lo.skills = skill_defs(v, "skills")?;
                }
                if let Some(v) = opts.get("skillProvider").filter(|v| !v.is_null()) {
                    match provider_defs(v).await? {
                        Ok(more) => lo.skills.extend(more),
                        Err(e) => provider_error = Some(e),
                    }
                }
                let inv = toolnexus::skills::list_skills(&lo);
                let skills: Vec<Value> = inv.skills.iter().map(skill_info).collect();
                // The crate's SkillSkip has no `name`; `detail` (native parser message) is sent
                // only when non-empty (skipped entries are open objects).
                let skipped: Vec<Value> = inv
                    .skipped
                    .iter()
                    .map(|s| {
                        let mut m = Map::new();
                        m.insert("location".into(), Value::String(s.location.clone()));
                        m.insert("reason".into(), Value::String(s.reason.as_str().into()));
                        if !s.detail.is_empty() {
                            m.insert("detail".into(), Value::String(s.detail.clone()));
                        }
                        Value::Object(m)
                    })
                    .collect();
                out.insert("skills".into(), Value::Array(skills));
                out.insert("skipped".into(), Value::Array(skipped));
                if let Some(e) = provider_error {
                    // The provider is host code run by this driver (the crate's list_skills takes
                    // data defs only), so its failure is known here first-hand.
                    out.insert("errors".into(), json!({"<skill-provider>": e}));
                }
            }
            "list_mcp_tools" => {
                // SPEC §2 Gap 6 (`ListMcpTools`): NOT EXPOSED. Crate 0.23.0 has no list-only MCP
                // inventory (mcp.rs offers `load_mcp`/`load_mcp_with`, whose tools are already
                // filtered by the per-server `tools` map and renamed `sanitize(server)_sanitize(tool)`,
                // so original names cannot be recovered). Answered honestly as unsupported.
                field(req, "config")?;
                return Err(unsupported(
                    "list_mcp_tools: toolnexus 0.23.0 has no list-only MCP inventory (SPEC §2 Gap 6)",
                ));
            }
            "select_builtins" => {
                let cfg = match field(req, "config")? {
                    Value::Null => BuiltinsConfig::default(),
                    v @ (Value::Bool(_) | Value::Object(_)) => BuiltinsConfig::from_value(v),
                    _ => return Err(bad("config must be null, a boolean or an object")),
                };
                let tools = toolnexus::select_builtins(&cfg)
                    .map_err(|e| internal(format!("select_builtins failed: {e}")))?;
                out.insert(
                    "tools".into(),
                    Value::Array(tools.iter().map(describe).collect()),
                );
            }
            "content_part" => {
                let answer = content_part(req)?;
                if let Value::Object(a) = answer {
                    out.extend(a);
                }
            }
            "sanitize" => {
                let v = str_field(req, "value")?;
                out.insert("value".into(), Value::String(toolnexus::sanitize(v)));
            }
            "close" => {
                let id = str_field(req, "toolkit")?;
                self.serves.stop_toolkit(id);
                if let Some(tk) = self.kits.remove(id) {
                    tk.close().await;
                }
            }
            "shutdown" => {
                self.serves.stop_all();
                self.clients.clear();
                self.classifiers.clear();
                for (_, tk) in self.kits.drain() {
                    tk.close().await;
                }
            }
            "serve" => {
                let tk = self.kit(req)?;
                let client = match req.get("client") {
                    None | Some(Value::Null) => None,
                    Some(_) => {
                        let id = str_field(req, "client")?;
                        Some(
                            self.clients
                                .get(id)
                                .ok_or_else(|| bad(format!("no client \"{id}\"")))?,
                        )
                    }
                };
                return self.serves.serve(req, &tk, client).await;
            }
            "serve_stop" => return self.serves.stop(req),
            "compact" => return agent_cmds::compact(req).await,
            c if c.starts_with("agent_") => return self.agents.handle(c, req).await,
            "serve_records" => return self.serves.records(req),
            "client" => {
                let id = str_field(req, "id")?.to_owned();
                let opts = as_obj(field(req, "options")?, "options")?;
                let entry = client_cmds::make_client(opts)?;
                self.clients.insert(id.clone(), entry);
                out.insert("client".into(), Value::String(id));
            }
            "classifier" => {
                let id = str_field(req, "id")?.to_owned();
                let opts = match req.get("options") {
                    None | Some(Value::Null) => Map::new(),
                    Some(v) => as_obj(v, "options")?.clone(),
                };
                match classifier_cmds::make_classifier(&opts, &self.clients)? {
                    Ok(entry) => {
                        self.classifiers.insert(id.clone(), entry);
                        out.insert("classifier".into(), Value::String(id));
                    }
                    Err(raised) => {
                        out.insert("raised".into(), Value::String(raised));
                    }
                }
            }
            "evaluate" => {
                let id = str_field(req, "classifier")?;
                let entry = self
                    .classifiers
                    .get(id)
                    .ok_or_else(|| bad(format!("no classifier \"{id}\"")))?;
                return classifier_cmds::evaluate(req, entry).await;
            }
            "run" | "stream" | "ask" | "conversation" | "store_get" | "store_save" | "metrics"
            | "translate" | "run_with_answer" | "ask_with_answer" => {
                let id = str_field(req, "client")?;
                if !self.clients.contains_key(id) {
                    return Err(bad(format!("no client \"{id}\"")));
                }
                let tk = match cmd {
                    "run" | "stream" | "ask" | "conversation" | "run_with_answer"
                    | "ask_with_answer" => Some(self.loop_kit(req).await?),
                    // §11: a toolkit only when one is named (declared, never executed).
                    "translate" if req.get("toolkit").is_some_and(|v| !v.is_null()) => {
                        Some(self.kit(req)?)
                    }
                    _ => None,
                };
                let entry = self
                    .clients
                    .get(id)
                    .ok_or_else(|| bad(format!("no client \"{id}\"")))?;
                return client_cmds::handle(cmd, req, entry, tk.as_ref()).await;
            }
            other => return Err(unsupported(format!("unknown command \"{other}\""))),
        }
        Ok(out)
    }
}

fn envelope(r: Res<Map<String, Value>>) -> Value {
    match r {
        Ok(mut m) => {
            let mut out = Map::new();
            out.insert("ok".into(), Value::Bool(true));
            out.append(&mut m);
            Value::Object(out)
        }
        Err(e) => json!({"ok": false, "error": {"kind": e.kind, "message": e.message}}),
    }
}

fn write_line(v: &Value) {
    let mut line = serde_json::to_string(v).unwrap_or_else(|e| {
        format!(r#"{{"ok":false,"error":{{"kind":"internal","message":"cannot serialise response: {e}"}}}}"#)
    });
    line.push('\n');
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    if lock
        .write_all(line.as_bytes())
        .and_then(|_| lock.flush())
        .is_err()
    {
        // stdout closed: nobody is listening any more.
        std::process::exit(0);
    }
}

fn main() {
    // One stderr line per panic (the harness keeps only the last 12 stderr lines).
    std::panic::set_hook(Box::new(|info| {
        let loc = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("[driver] panic{loc}: {}", panic_message(info.payload()));
    }));
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("[driver] cannot start tokio: {e}");
            std::process::exit(1);
        }
    };
    rt.block_on(run());
    // Do not wait for stray blocking tasks (e.g. a builtin's child process) at exit.
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    std::process::exit(0);
}

/// Stdin as a reactor-registered pipe when it is one (as the harness starts drivers), like
/// the reference's driver: `tokio::io::stdin()` reads on the blocking pool, a thread
/// hand-off per request line that `bench` would otherwise charge to the crate. (The crate's
/// children never inherit stdin: `bash` gets a null one, MCP servers a pipe of their own.)
fn stdin() -> Box<dyn tokio::io::AsyncRead + Unpin + Send> {
    use std::os::fd::AsFd;
    match std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .and_then(tokio::net::unix::pipe::Receiver::from_owned_fd)
    {
        Ok(pipe) => Box::new(pipe),
        Err(_) => Box::new(tokio::io::stdin()),
    }
}

async fn run() {
    let mut session = Session::default();
    let mut stdin = tokio::io::BufReader::new(stdin());
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match stdin.read_until(b'\n', &mut buf).await {
            Ok(0) => break, // EOF
            Ok(_) => {}
            Err(e) => {
                eprintln!("[driver] stdin: {e}");
                break;
            }
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let parsed: Result<Value, _> = serde_json::from_str(text);
        let (resp, shutdown) = match parsed {
            Ok(Value::Object(req)) => {
                let shutdown = req.get("cmd").and_then(Value::as_str) == Some("shutdown");
                let r = AssertUnwindSafe(session.handle(&req))
                    .catch_unwind()
                    .await
                    .unwrap_or_else(|p| {
                        Err(internal(format!("driver panicked: {}", panic_message(&*p))))
                    });
                let mut resp = envelope(r);
                // PROTOCOL.md §2 "Sequence numbers": copy the request's `seq` into every answer,
                // error envelopes included.
                if let (Some(seq), Some(obj)) = (req.get("seq"), resp.as_object_mut()) {
                    obj.insert("seq".into(), seq.clone());
                }
                (resp, shutdown)
            }
            Ok(_) => (envelope(Err(bad("a request must be a JSON object"))), false),
            Err(e) => (envelope(Err(bad(format!("unparseable line: {e}")))), false),
        };
        write_line(&resp);
        if shutdown {
            break;
        }
    }
    session.serves.stop_all();
    for (_, tk) in session.kits.drain() {
        tk.close().await;
    }
}
