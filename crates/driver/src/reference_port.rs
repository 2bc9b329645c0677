//! Answers protocol requests with the reference implementation.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::agent_port::Agents;
use crate::behaviours::{self, ToolCancels};
use crate::classifier_port::Classifiers;
use crate::client_port::{Clients, LoopCommand};
use crate::compact_port::compact;
use crate::options;
use crate::reply::{bad_request, Reply};
use crate::serve_port::{ServeRequest, Serves};
use toolnexus_protocol::messages::{Answer as ProtoAnswer, ContentPartSource};
use toolnexus_protocol::options::{SkillSourceOptions, ToolkitOptions as ProtoOptions};
use toolnexus_protocol::{
    decode_request, error_response, ErrorKind, Request, PROTOCOL_VERSION, REFERENCE_SPEC,
};
use toolnexus_reference::adapters::Format;
use toolnexus_reference::builtins::select_builtins;
use toolnexus_reference::content::{ContentPart, MediaPart, PartBody};
use toolnexus_reference::mcp;
use toolnexus_reference::sanitize::sanitize;
use toolnexus_reference::skills::{self, SkillInfo, SkillOrigin};
use toolnexus_reference::tool::{Context, Tool, ToolResult};
use toolnexus_reference::toolkit::{Toolkit, SKILL_PROVIDER_ERROR_KEY};

/// The SPEC sections the reference implements today.
pub const IMPLEMENTS: [&str; 19] = [
    "0", "1", "2", "3", "4", "4A", "6", "7", "7A", "7B", "7C", "7D", "7E", "7F", "8", "8A", "8B",
    "10", "11",
];

/// One protocol session: the toolkits built so far, by id.
#[derive(Default)]
pub struct ReferenceSession {
    toolkits: BTreeMap<String, Toolkit>,
    clients: Clients,
    classifiers: Classifiers,
    serves: Serves,
    agents: Agents,
    /// Every finished `awaitCancel` call of the session (§5.25 `toolCancels`).
    tool_cancels: ToolCancels,
    /// The last answer's buffer, handed back by [`Self::recycle`] to write the next one in: a
    /// large catalog's answer is a megabyte that a fresh buffer would grow by doubling and
    /// fault in page by page on every build.
    spare: Vec<u8>,
    /// The SPEC text `hello` declares, when not [`REFERENCE_SPEC`] (a run judging the
    /// reference by an earlier text).
    spec: Option<String>,
}

/// The largest answer buffer kept for reuse; a larger one is freed once sent.
const MAX_SPARE: usize = 8 * 1024 * 1024;

impl ReferenceSession {
    /// A session with no toolkits.
    pub fn new() -> Self {
        Self::default()
    }

    /// A session whose `hello` declares SPEC `spec` instead of [`REFERENCE_SPEC`], so a run
    /// judges the same implementation by an earlier text.
    pub fn declaring(spec: impl Into<String>) -> Self {
        Self {
            spec: Some(spec.into()),
            ..Self::default()
        }
    }

    /// Answers one request; every failure is an `{"ok":false}` response, never a panic.
    pub async fn handle(&mut self, request: Value) -> Value {
        let result = match decode_request(&request) {
            Ok(decoded) => self.dispatch(decoded.request).await,
            Err(refused) => Err((refused.kind, refused.message)),
        };
        framed(result, request.get("seq"))
    }

    /// [`Self::handle`], the answer written as one JSON text (no newline): what a driver
    /// sends. A built toolkit's answer is encoded straight from the toolkit, without a JSON
    /// value in between (a 5,000-skill catalog is about 1 MB of it).
    pub async fn handle_encoded(&mut self, request: Value) -> Vec<u8> {
        let buf = std::mem::take(&mut self.spare);
        let seq = request.get("seq").cloned();
        let decoded = decode_request(&request);
        // The typed request holds its own copy of every value: the parsed one goes before the
        // work starts, so a request carrying 100 MiB is held once while it is served.
        drop(request);
        let seq = seq.as_ref();
        let result = match decoded {
            Ok(decoded) => match decoded.request {
                Request::Build { id, options, .. } => match self.build_toolkit(&id, &options).await
                {
                    Ok(Built::Ready) => match self.toolkits.get(&id) {
                        Some(tk) => return encode(buf, &Framed::ok(BuildAnswer::of(&id, tk), seq)),
                        None => Err(unknown_toolkit(&id)),
                    },
                    Ok(Built::Raised(body)) => Ok(body),
                    Err(e) => Err(e),
                },
                other => self.dispatch(other).await,
            },
            Err(refused) => Err((refused.kind, refused.message)),
        };
        encode(buf, &framed(result, seq))
    }

    /// Takes back an answer [`Self::handle_encoded`] gave, once it is sent, to write the next
    /// one in (unless it is larger than any kept).
    pub fn recycle(&mut self, answer: Vec<u8>) {
        if answer.capacity() <= MAX_SPARE {
            self.spare = answer;
        }
    }

    async fn dispatch(&mut self, request: Request) -> Reply {
        match request {
            Request::Hello { .. } => Ok(hello(self.spec.as_deref().unwrap_or(REFERENCE_SPEC))),
            Request::Build { id, options, .. } => self.build(id, &options).await,
            Request::Tools { toolkit, .. } => {
                let tk = self.toolkit(&toolkit)?;
                Ok(json!({"tools": describe_tools(tk)}))
            }
            Request::Execute {
                toolkit,
                name,
                args,
                context,
                abort_after_ms,
                ..
            } => {
                let answer = context.and_then(|c| c.answer);
                self.execute(&toolkit, &name, args, answer, abort_after_ms)
                    .await
            }
            Request::Adapter {
                toolkit, format, ..
            } => self.adapter(&toolkit, &format),
            Request::SkillsPrompt { toolkit, .. } => {
                Ok(json!({"prompt": self.toolkit(&toolkit)?.skills_prompt()}))
            }
            Request::ListSkills { options, .. } => list_skills(&options),
            Request::ListMcpTools { config, .. } => {
                list_mcp_tools(&config.map_or(Value::Null, |c| c.to_value())).await
            }
            Request::SelectBuiltins { config, .. } => {
                Ok(select(&config.map_or(Value::Null, |c| c.to_value())))
            }
            Request::Sanitize { value, .. } => Ok(json!({"value": sanitize(&value)})),
            Request::ContentPart { from, .. } => content_part(&from),
            Request::Close { toolkit, .. } => self.close(toolkit).await,
            Request::Shutdown { .. } => {
                self.serves.stop_all().await;
                self.agents.close_all().await;
                Ok(json!({}))
            }
            Request::Client { id, options, .. } => self.clients.create(id, &options),
            Request::Classifier { id, options, .. } => {
                self.classifiers.create(id, &options, &self.clients)
            }
            Request::Evaluate {
                classifier,
                state,
                questions,
                ..
            } => {
                self.classifiers
                    .evaluate(&classifier, state, questions)
                    .await
            }
            r @ (Request::AgentRuntime { .. }
            | Request::AgentSpawn { .. }
            | Request::AgentPost { .. }
            | Request::AgentWake { .. }
            | Request::AgentWait { .. }
            | Request::AgentInterrupt { .. }
            | Request::AgentClose { .. }
            | Request::AgentList { .. }
            | Request::AgentInspect { .. }
            | Request::AgentRun { .. }
            | Request::AgentResume { .. }
            | Request::AgentExecute { .. }
            | Request::AgentClock { .. }
            | Request::AgentHeartbeat { .. }
            | Request::AgentStoreGet { .. }
            | Request::AgentStoreSave { .. }
            | Request::AgentTrace { .. }
            | Request::AgentCloseRuntime { .. }) => self.agents.handle(r, &self.tool_cancels).await,
            Request::Run {
                client,
                toolkit,
                prompt,
                history,
                cancel_after_ms,
                ..
            } => {
                let command = LoopCommand::Run {
                    prompt: crate::client_port::prompt_of(prompt)
                        .map_err(|e| (ErrorKind::BadRequest, e))?,
                    history: history.unwrap_or_default(),
                    cancel_after_ms,
                };
                self.client_loop(&client, toolkit, command).await
            }
            Request::Stream {
                client,
                toolkit,
                prompt,
                id,
                history,
                cancel_after_ms,
                ..
            } => {
                let command = LoopCommand::Stream {
                    prompt: crate::client_port::prompt_of(prompt)
                        .map_err(|e| (ErrorKind::BadRequest, e))?,
                    id,
                    history: history.unwrap_or_default(),
                    cancel_after_ms,
                };
                self.client_loop(&client, toolkit, command).await
            }
            Request::Ask {
                client,
                toolkit,
                prompt,
                id,
                on_text,
                ..
            } => {
                let command = LoopCommand::Ask {
                    prompt: crate::client_port::prompt_of(prompt)
                        .map_err(|e| (ErrorKind::BadRequest, e))?,
                    id,
                    on_text: on_text.unwrap_or(false),
                };
                self.client_loop(&client, toolkit, command).await
            }
            Request::Conversation {
                client,
                toolkit,
                steps,
                ..
            } => {
                let command = LoopCommand::Conversation { steps };
                self.client_loop(&client, toolkit, command).await
            }
            Request::StoreGet { client, id, .. } => self.clients.store_get(&client, &id).await,
            Request::StoreSave {
                client,
                id,
                messages,
                ..
            } => self.clients.store_save(&client, &id, messages).await,
            Request::Metrics { client, .. } => self.clients.metrics(&client),
            Request::Translate {
                client,
                toolkit,
                request,
                ..
            } => {
                let tk = match &toolkit {
                    Some(id) => Some(self.toolkit(id)?),
                    None => None,
                };
                self.clients.translate(&client, tk, *request).await
            }
            Request::RunWithAnswer {
                client,
                toolkit,
                history,
                pending,
                answer,
                ..
            } => {
                let command = LoopCommand::RunWithAnswer {
                    history,
                    pending,
                    answer,
                };
                self.client_loop(&client, toolkit, command).await
            }
            Request::AskWithAnswer {
                client,
                toolkit,
                id,
                pending,
                answer,
                ..
            } => {
                let command = LoopCommand::AskWithAnswer {
                    id,
                    pending,
                    answer,
                };
                self.client_loop(&client, toolkit, command).await
            }
            Request::Serve {
                id,
                toolkit,
                client,
                a2a,
                mcp,
                on_task,
                on_call,
                ..
            } => {
                self.toolkit(&toolkit)?;
                let client = client.map(|c| self.clients.reference(&c)).transpose()?;
                let request = ServeRequest {
                    id,
                    toolkit_id: toolkit.clone(),
                    client,
                    a2a,
                    mcp,
                    on_task,
                    on_call,
                    text_only: self.spec.as_deref().is_some_and(before_parts),
                };
                match self.toolkits.get(&toolkit) {
                    Some(tk) => self.serves.serve(tk, request).await,
                    None => Err(unknown_toolkit(&toolkit)),
                }
            }
            Request::ServeStop { serve, .. } => self.serves.stop(&serve).await,
            Request::ServeRecords { serve, .. } => {
                let cancels = self
                    .tool_cancels
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone();
                self.serves.records(&serve, cancels)
            }
            Request::Compact {
                messages, options, ..
            } => compact(messages, &options).await,
        }
    }

    async fn build(&mut self, id: String, options: &ProtoOptions) -> Reply {
        match self.build_toolkit(&id, options).await? {
            Built::Ready => {
                let tk = self.toolkit(&id)?;
                serde_json::to_value(BuildAnswer::of(&id, tk)).map_err(cannot_encode)
            }
            Built::Raised(body) => Ok(body),
        }
    }

    /// Builds a toolkit and keeps it under `id`, replacing (and closing) any before it.
    async fn build_toolkit(
        &mut self,
        id: &str,
        options: &ProtoOptions,
    ) -> Result<Built, (ErrorKind, String)> {
        // `toolCancels` holds the calls since the latest build (PROTOCOL.md §5.25), so one
        // scenario never reads another's.
        self.tool_cancels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
        let opts = options::toolkit_options(options, &self.tool_cancels).map_err(bad_request)?;
        // The relay collision guard (SPEC §10 addendum) is the one construction failure: the
        // port's createToolkit throws, which is `raised` (PROTOCOL.md §5.2), not a driver error.
        let tk = match Toolkit::try_build(opts).await {
            Ok(tk) => tk,
            Err(collision) => {
                // As a build that succeeded would have replaced it, nothing stays under `id`.
                self.close(id.to_string()).await?;
                return Ok(Built::Raised(json!({ "raised": collision.to_string() })));
            }
        };
        if let Some(mut old) = self.toolkits.insert(id.to_string(), tk) {
            old.close().await;
        }
        Ok(Built::Ready)
    }

    /// A loop command on a client, with its toolkit (an unknown toolkit id is an error,
    /// as for every toolkit command).
    async fn client_loop(
        &self,
        client: &str,
        toolkit: Option<String>,
        command: LoopCommand,
    ) -> Reply {
        let tk = match &toolkit {
            Some(id) => Some(self.toolkit(id)?),
            None => None,
        };
        self.clients.run_loop(client, tk, command).await
    }

    fn toolkit(&self, id: &str) -> Result<&Toolkit, (ErrorKind, String)> {
        self.toolkits.get(id).ok_or_else(|| unknown_toolkit(id))
    }

    async fn execute(
        &self,
        toolkit: &str,
        name: &str,
        args: Value,
        answer: Option<ProtoAnswer>,
        abort_after_ms: Option<u64>,
    ) -> Reply {
        let tk = self.toolkit(toolkit)?;
        let ctx = Context {
            answer: answer.map(behaviours::reference_answer),
            cancel: crate::client_port::cancel_after(abort_after_ms),
            ..Context::default()
        };
        let result = tk.execute(name, args, &ctx).await;
        let result = result_value(result)
            .map_err(|e| (ErrorKind::Internal, format!("cannot serialise result: {e}")))?;
        Ok(json!({ "result": result }))
    }

    fn adapter(&self, toolkit: &str, format: &str) -> Reply {
        let tk = self.toolkit(toolkit)?;
        let format = Format::parse(format)
            .ok_or_else(|| bad_request(format!("unknown adapter format \"{format}\"")))?;
        Ok(json!({ "output": tk.adapter(format) }))
    }

    async fn close(&mut self, id: String) -> Reply {
        // Closing is idempotent: an id already closed (or never built) is not an error.
        self.serves.stop_toolkit(&id).await;
        if let Some(mut tk) = self.toolkits.remove(&id) {
            tk.close().await;
            // Its connections are closed; freeing the rest (a catalog of thousands of skills
            // is a millisecond of `free`) need not hold up the answer.
            tokio::task::spawn_blocking(move || drop(tk));
        }
        Ok(json!({}))
    }

    /// Closes every toolkit (end of session).
    pub async fn close_all(&mut self) {
        self.serves.stop_all().await;
        for tk in self.toolkits.values_mut() {
            tk.close().await;
        }
    }
}

/// How a `build` ended, short of a driver error.
enum Built {
    /// The toolkit is kept under its id.
    Ready,
    /// The port's constructor threw: the `{"raised": …}` answer.
    Raised(Value),
}

/// The success envelope around `body`, or the error envelope; `seq` is echoed from the raw
/// request, so even an undecodable request keeps it.
fn framed(result: Reply, seq: Option<&Value>) -> Value {
    let mut response = match result {
        Ok(Value::Object(mut body)) => {
            let mut out = Map::new();
            out.insert("ok".into(), Value::Bool(true));
            out.append(&mut body);
            Value::Object(out)
        }
        Ok(other) => json!({"ok": true, "value": other}),
        Err((kind, message)) => error_response(&kind, message),
    };
    if let Some(seq) = seq {
        response["seq"] = seq.clone();
    }
    response
}

/// A success answer encoded as [`framed`] writes it: `ok`, the body's fields, then `seq`.
#[derive(Serialize)]
struct Framed<'a, T: Serialize> {
    ok: bool,
    #[serde(flatten)]
    body: T,
    #[serde(skip_serializing_if = "Option::is_none")]
    seq: Option<&'a Value>,
}

impl<'a, T: Serialize> Framed<'a, T> {
    fn ok(body: T, seq: Option<&'a Value>) -> Self {
        Framed {
            ok: true,
            body,
            seq,
        }
    }
}

/// One answer's JSON text, written into `buf` (emptied first). Encoding a value or a plain
/// struct cannot fail; should it ever, the answer says so instead.
fn encode(mut buf: Vec<u8>, answer: &impl Serialize) -> Vec<u8> {
    buf.clear();
    if let Err(e) = serde_json::to_writer(&mut buf, answer) {
        let (kind, message) = cannot_encode(e);
        buf.clear();
        let _ = serde_json::to_writer(&mut buf, &error_response(&kind, message));
    }
    buf
}

fn cannot_encode(e: serde_json::Error) -> (ErrorKind, String) {
    (
        ErrorKind::Internal,
        format!("cannot encode the answer: {e}"),
    )
}

/// The `build` answer (PROTOCOL.md §5.2), borrowed from the toolkit.
#[derive(Serialize)]
struct BuildAnswer<'a> {
    toolkit: &'a str,
    tools: Vec<Value>,
    names: Vec<String>,
    statuses: &'a BTreeMap<String, String>,
    errors: &'a BTreeMap<String, String>,
    skills: SkillList<'a>,
    warnings: &'a [String],
}

impl<'a> BuildAnswer<'a> {
    fn of(id: &'a str, tk: &'a Toolkit) -> Self {
        BuildAnswer {
            toolkit: id,
            tools: describe_tools(tk),
            names: tk.tool_names(),
            statuses: tk.statuses(),
            errors: tk.errors(),
            skills: SkillList(tk.skills()),
            warnings: tk.warnings(),
        }
    }
}

/// The protocol's `skills` array, written from the catalog as it is.
struct SkillList<'a>(&'a [SkillInfo]);

impl Serialize for SkillList<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(SkillEntry))
    }
}

/// One skill as the protocol lists it: `name`, `description` (null when absent), then
/// `location` (directory skills) or `base` (data skills).
struct SkillEntry<'a>(&'a SkillInfo);

impl Serialize for SkillEntry<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let s = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &s.name)?;
        map.serialize_entry("description", &s.description)?;
        if let Some(loc) = &s.location {
            map.serialize_entry("location", &loc.to_string_lossy())?;
        }
        if let SkillOrigin::Data { base, .. } = &s.origin {
            map.serialize_entry("base", base)?;
        }
        map.end()
    }
}

/// `content_part` (PROTOCOL.md §5.28): the part one of the reference's constructors makes, and
/// what it renders of it; a construction error is the port's own, answered `raised`.
fn content_part(from: &ContentPartSource) -> Result<Value, (ErrorKind, String)> {
    use toolnexus_reference::content::{ContentPart, MediaKind};
    let bad = |m: String| (ErrorKind::BadRequest, m);
    let kind = match from.kind {
        None => None,
        Some(k) => {
            let name = serde_json::to_value(k).map_err(|e| bad(e.to_string()))?;
            match MediaKind::parse(name.as_str().unwrap_or("")) {
                Some(k) => Some(k),
                None => return Err(bad(format!("content_part: no constructor for type {name}"))),
            }
        }
    };
    let mime = from.mime_type.as_deref();
    let made: Result<ContentPart, String> = match (&from.path, &from.bytes, &from.url, &from.part) {
        (Some(path), None, None, None) => {
            ContentPart::from_path(path, mime).map_err(|e| e.to_string())
        }
        (None, Some(b64), None, None) => {
            let bytes = toolnexus_reference::content::decode_base64(b64)
                .map_err(|e| bad(format!("content_part: bytes: {e}")))?;
            ContentPart::from_bytes(&bytes, mime.unwrap_or(""), kind).map_err(|e| e.to_string())
        }
        (None, None, Some(url), None) => {
            ContentPart::from_url(url, mime).map_err(|e| e.to_string())
        }
        // The raw type's own construction: its rules are checked as it is read.
        (None, None, None, Some(raw)) => {
            serde_json::from_value::<ContentPart>(raw.clone()).map_err(|e| e.to_string())
        }
        _ => {
            return Err(bad(
                "content_part: `from` needs exactly one of path, bytes, url, part".into(),
            ))
        }
    };
    Ok(match made {
        Err(message) => json!({"raised": message}),
        Ok(part) => json!({
            "part": part,
            "bytes": part.decoded_bytes(),
            "descriptor": part.descriptor(),
            "described": part.described(),
            "placeholder": part.placeholder(),
            "tokens": part.token_estimate(),
        }),
    })
}

fn unknown_toolkit(id: &str) -> (ErrorKind, String) {
    (ErrorKind::UnknownToolkit, format!("no toolkit \"{id}\""))
}

/// Whether a declared SPEC comes before 0.17.0, whose §7C first answers a result's parts
/// as blocks after the text (a label that is no `X.Y…` release, such as the newest text's,
/// does not).
fn before_parts(spec: &str) -> bool {
    let mut numbers = spec.split('.').map(|n| n.parse::<u64>());
    match (numbers.next(), numbers.next()) {
        (Some(Ok(major)), Some(Ok(minor))) => (major, minor) < (0, 17),
        _ => false,
    }
}

/// The `hello` answer: who this port is and what it implements (SPEC `spec`).
pub fn hello(spec: &str) -> Value {
    json!({
        "protocol": PROTOCOL_VERSION,
        "spec": spec,
        "port": {"name": "reference", "language": "rust", "version": env!("CARGO_PKG_VERSION")},
        "implements": IMPLEMENTS,
    })
}

fn describe_tools(tk: &Toolkit) -> Vec<Value> {
    tk.tools().iter().map(describe_tool).collect()
}

/// A tool's description as protocol JSON.
fn describe_tool(t: &Tool) -> Value {
    json!(t.describe())
}

fn list_skills(options: &SkillSourceOptions) -> Reply {
    let sources = options::skill_sources(options).map_err(bad_request)?;
    let inv = skills::load(&sources);
    let mut body = json!({
        "skills": SkillList(&inv.skills),
        "skipped": inv.skipped,
    });
    if let Some(err) = inv.provider_error {
        body["errors"] =
            json!({ SKILL_PROVIDER_ERROR_KEY: format!("skill provider failed: {err}") });
    }
    Ok(body)
}

/// §2 Gap 6: list every enabled server's tools (original names, unfiltered), then disconnect.
async fn list_mcp_tools(config: &Value) -> Reply {
    let parsed = match mcp::parse_config(config) {
        Ok(parsed) => parsed,
        Err(e) => {
            return Ok(json!({
                "statuses": {}, "tools": {},
                "errors": { mcp::config::CONFIG_ERROR_KEY: e.to_string() },
            }))
        }
    };
    let inv = mcp::inventory(&parsed).await;
    let tools: Map<String, Value> = inv
        .tools
        .iter()
        .map(|(server, infos)| (server.clone(), json!(infos)))
        .collect();
    Ok(json!({"statuses": inv.statuses, "tools": tools, "errors": inv.errors}))
}

fn select(config: &Value) -> Value {
    let cfg = Some(config).filter(|v| !v.is_null());
    let tools: Vec<Value> = select_builtins(cfg).iter().map(describe_tool).collect();
    json!({ "tools": tools })
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

/// A tool result's wire form with each part's base64 moved into it, not copied: an answer
/// carrying a 64 MiB image holds it once until it is written.
fn result_value(mut result: ToolResult) -> Result<Value, serde_json::Error> {
    let payloads: Vec<Option<String>> = result
        .parts
        .iter_mut()
        .flatten()
        .map(|p| match p {
            ContentPart::Media(MediaPart {
                body: PartBody::Data(data),
                ..
            }) => Some(std::mem::take(data)),
            _ => None,
        })
        .collect();
    let mut value = serde_json::to_value(&result)?;
    drop(result);
    if let Some(parts) = value.get_mut("parts").and_then(Value::as_array_mut) {
        for (part, payload) in parts.iter_mut().zip(payloads) {
            if let (Some(payload), Some(slot)) = (payload, part.get_mut("data")) {
                *slot = Value::String(payload);
            }
        }
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stdio path encodes a build's answer straight from the toolkit; it must be the
    /// very bytes of the in-process answer, for every kind of skill and every outcome.
    /// A buffer handed back after a long answer holds nothing of it in the next one.
    #[tokio::test]
    async fn a_recycled_buffer_starts_each_answer_afresh() {
        let mut session = ReferenceSession::new();
        let long = session
            .handle_encoded(json!({"cmd": "sanitize", "seq": 1, "value": "x".repeat(10_000)}))
            .await;
        session.recycle(long);
        let short = json!({"cmd": "sanitize", "seq": 2, "value": "y"});
        let expected = serde_json::to_vec(&session.handle(short.clone()).await).unwrap();
        let answer = session.handle_encoded(short).await;
        assert_eq!(
            String::from_utf8_lossy(&answer),
            String::from_utf8_lossy(&expected)
        );
        session.close_all().await;
    }

    #[tokio::test]
    async fn an_encoded_build_answer_is_the_value_answer_byte_for_byte() {
        let skills = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../conformance/fixtures/skills/basic"
        );
        let requests = [
            json!({"cmd": "build", "seq": 7, "id": "tk1", "options": {
                "builtins": false,
                "skillsDir": skills,
                "skills": [
                    {"name": "data", "description": "Data", "content": "x"},
                    {"name": "bare", "content": "y", "base": "mem://bare/"},
                    {"name": "data", "content": "duplicate"},
                ],
                "skillsFilter": {"nope": false},
            }}),
            json!({"cmd": "build", "id": "tk2", "options": {"builtins": ["read"]}}),
            json!({"cmd": "build", "seq": 3, "id": "tk3", "options": {
                "builtins": false,
                "relayTools": [{"name": "read"}],
                "extraTools": [{"name": "read", "behaviour": {"text": "x"}}],
            }}),
            json!({"cmd": "build", "seq": 9, "id": "tk4", "options": {"skilsDir": "/tmp"}}),
        ];
        for request in requests {
            let mut by_value = ReferenceSession::new();
            let mut encoded = ReferenceSession::new();
            let value = serde_json::to_vec(&by_value.handle(request.clone()).await).unwrap();
            let bytes = encoded.handle_encoded(request.clone()).await;
            assert_eq!(
                String::from_utf8_lossy(&bytes),
                String::from_utf8_lossy(&value),
                "{request}"
            );
            by_value.close_all().await;
            encoded.close_all().await;
        }
    }
}

#[cfg(test)]
mod result_value_tests {
    use super::*;

    #[test]
    fn a_result_moved_into_its_wire_form_reads_as_serialised() {
        let parts: Vec<ContentPart> = serde_json::from_value(json!([
            {"type": "text", "text": "t"},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw=="},
            {"type": "file", "mimeType": "application/pdf", "url": "https://x.test/a.pdf"},
            {"type": "file", "mimeType": "application/pdf", "data": "AAE=", "name": "a.pdf"}
        ]))
        .unwrap();
        let result = ToolResult::ok("out")
            .with_parts(parts)
            .with_meta("server", json!("s"));
        let want = serde_json::to_value(&result).unwrap();
        assert_eq!(result_value(result).unwrap(), want);
        let plain = ToolResult::error("no");
        let want = serde_json::to_value(&plain).unwrap();
        assert_eq!(result_value(plain).unwrap(), want);
    }
}
