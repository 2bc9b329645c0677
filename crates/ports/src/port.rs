//! The port boundary: one trait every implementation is driven through.

use std::fmt;

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use toolnexus_protocol::source_options::{Builtins, McpConfig};
use toolnexus_protocol::{
    decode_response, Command, ErrorKind, Request, TypedResponse, PROTOCOL_VERSION,
};

/// Who a port is, from its `hello` (the protocol's typed `port`).
pub use toolnexus_protocol::messages::PortInfo;

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
        /// The error kind the driver gave (any string a driver sends is kept).
        kind: ErrorKind,
        /// Its message.
        message: String,
    },
    /// The transport failed otherwise (a driver that cannot start, a restart that failed, an
    /// answer of the wrong shape): the driver's fault, not the port's answer.
    Transport(String),
    /// The port did not answer a request within the harness's request limit (a driver is then
    /// killed): the port not answering, not a driver that crashed or spoke garbage.
    NoAnswer {
        /// The command that got no answer.
        command: String,
        /// The request limit in force, in milliseconds.
        limit_ms: u64,
        /// What happened, with the driver's exit status and stderr excerpt when known, and
        /// any SPEC default the request left in force that is longer than the limit.
        message: String,
    },
    /// The driver process exited (closed its stdout, or stopped reading its stdin) while a
    /// request was open: it crashed.
    Exited {
        /// The command being answered.
        command: String,
        /// What happened, with the exit status and stderr excerpt.
        message: String,
    },
    /// The driver printed a line that is not a protocol answer (not UTF-8, not one JSON
    /// object, too long, or out of step): garbage on the protocol's channel.
    Garbage {
        /// The command being answered (the scenario's, for a stray line after it).
        command: String,
        /// What was printed (cut), with the exit status and stderr excerpt.
        message: String,
    },
    /// The port's answer breaks a SPEC data type (an unsanitized tool name, a ToolResult with
    /// a key the SPEC's has not, ...): what a faithful driver passes on, so the port's failure,
    /// not the driver's (PROTOCOL.md §9 "Typed decoding").
    Spec {
        /// The SPEC rule broken (`SPEC §1 Tool (…)`).
        rule: String,
        /// Which answer, the field at fault and the answer, as for a protocol violation.
        message: String,
    },
    /// `build` or `serve` answered `raised` (PROTOCOL.md §5.2, §5.23): the port's own
    /// `createToolkit` / `serve` threw this message.
    Raised(String),
}

impl PortError {
    /// Whether the error is the transport's (a driver that hung, crashed, printed garbage or
    /// failed otherwise), not an answer of the port's.
    pub fn is_transport(&self) -> bool {
        matches!(
            self,
            PortError::Transport(_)
                | PortError::NoAnswer { .. }
                | PortError::Exited { .. }
                | PortError::Garbage { .. }
        )
    }
}

impl fmt::Display for PortError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortError::Unsupported(m) => write!(f, "unsupported by the port: {m}"),
            PortError::Driver { kind, message } => write!(f, "driver error ({kind}): {message}"),
            PortError::Transport(m) => write!(f, "driver failure: {m}"),
            PortError::NoAnswer { message, .. } => write!(f, "port not answering: {message}"),
            PortError::Exited { message, .. } => write!(f, "driver crashed: {message}"),
            PortError::Garbage { message, .. } => {
                write!(f, "driver broke the protocol: {message}")
            }
            PortError::Spec { rule, message } => write!(f, "the port breaks {rule}: {message}"),
            PortError::Raised(m) => write!(f, "the port raised: {m}"),
        }
    }
}

/// One implementation under test. Transports implement `call` (one protocol message in,
/// one out); scenarios use the typed operations, which every port gets from `call`.
#[async_trait]
pub trait Port: Send {
    /// Sends one request and returns the raw response object.
    async fn call(&mut self, request: Value) -> Result<Value, PortError>;

    /// Sends one request and returns its answer's text, checked only as far as the transport
    /// needs (one JSON object echoing the request's `seq`): the bench times a large answer
    /// without the harness's parse of it, and parses it after. A transport without answer
    /// lines writes the parsed answer back out.
    async fn call_unparsed(&mut self, request: Value) -> Result<String, PortError> {
        self.call(request).await.map(|v| v.to_string())
    }

    /// Makes sure the port can take requests (restarting a dead driver); called before
    /// each scenario so one crash fails one scenario, not the rest of the run.
    async fn ensure_ready(&mut self) -> Result<(), PortError> {
        Ok(())
    }

    /// Ends the port (closes the driver).
    async fn shutdown(&mut self) {}

    /// Records every later exchange in `tracer` (`run --trace`); a port that cannot trace
    /// ignores it.
    fn set_tracer(&mut self, _tracer: crate::trace::Tracer) {}

    /// Called as each scenario starts, so a trace can name the scenario its lines belong to.
    fn begin_scenario(&mut self, _name: &str) {}

    /// Called when a scenario's steps are done, before its clean-up (the `close` of its
    /// toolkit, the end of its agent runtime), whose answers the harness ignores: what
    /// `porting` records stops here.
    fn steps_done(&mut self) {}

    /// Watches the port's log (a driver's stderr) for `needle` for the rest of the scenario;
    /// a port whose log the harness does not read (an in-process one) ignores it, and
    /// [`Self::log_mentioned`] then answers `None`.
    fn watch_log(&mut self, _needle: &str) {}

    /// Whether the log mentioned a watched `needle` since it was watched, once the log has
    /// settled; `None` when the harness reads no log of this port, or `needle` is not watched.
    async fn log_mentioned(&mut self, _needle: &str) -> Option<bool> {
        None
    }

    /// Called after each scenario's clean-up: a protocol violation seen since the last call
    /// (an out-of-step or unasked-for line, even one answering the ignored end-of-scenario
    /// `close`), which fails the scenario.
    async fn end_scenario(&mut self) -> Option<String> {
        None
    }

    /// `build`: a toolkit from protocol options; the response carries `tools`, `names`,
    /// `statuses`, `errors` and `skills` (the typed decode checked each). The options are the
    /// scenario's JSON, sent typed or as written by [`send_object`] (unknown keys, nulls,
    /// another key order: a typo'd key is a scenario's way to ask for `bad_request`).
    async fn build(&mut self, id: &str, options: &Value) -> Result<Value, PortError> {
        let fields = Map::from_iter([
            ("id".into(), id.into()),
            ("options".into(), options.clone()),
        ]);
        send_object(self, Command::Build, fields)
            .await
            .map(|(raw, _)| raw)
    }

    /// `tools`: the toolkit's tool descriptions in `tools()` order.
    async fn tools(&mut self, toolkit: &str) -> Result<Value, PortError> {
        let toolkit = toolkit.to_string();
        let (r, _) = send(self, Request::Tools { toolkit }).await?;
        field(r, "tools")
    }

    /// `execute`: the ToolResult of one call, optionally with `Context.answer`. An answer that
    /// is not a SPEC §10 Answer written the way the type writes it (a scenario's deliberate
    /// mistake, a `null` member) is sent as written ([`send_object`]).
    async fn execute(
        &mut self,
        toolkit: &str,
        name: &str,
        args: &Value,
        answer: Option<&Value>,
    ) -> Result<Value, PortError> {
        let Some(answer) = answer else {
            // `args` is any JSON value, which the typed request writes back as it is: typed
            // at once, without `send_object`'s faithfulness round trip on every call.
            let execute = Request::Execute {
                toolkit: toolkit.to_string(),
                name: name.to_string(),
                args: args.clone(),
                context: None,
                abort_after_ms: None,
            };
            let (r, _) = send(self, execute).await?;
            return field(r, "result");
        };
        let fields = Map::from_iter([
            ("toolkit".into(), toolkit.into()),
            ("name".into(), name.into()),
            ("args".into(), args.clone()),
            ("context".into(), json!({ "answer": answer })),
        ]);
        let (r, _) = send_object(self, Command::Execute, fields).await?;
        field(r, "result")
    }

    /// `execute` with `abortAfterMs`: the call's abort signal fires that many ms after it
    /// starts (PROTOCOL.md §5.4); a driver without it answers `unsupported`.
    async fn execute_aborted(
        &mut self,
        toolkit: &str,
        name: &str,
        args: &Value,
        abort_after_ms: u64,
    ) -> Result<Value, PortError> {
        let execute = Request::Execute {
            toolkit: toolkit.to_string(),
            name: name.to_string(),
            args: args.clone(),
            context: None,
            abort_after_ms: Some(abort_after_ms),
        };
        let (r, _) = send(self, execute).await?;
        field(r, "result")
    }

    /// `adapter`: the provider schema array (`openai`, `anthropic`, `gemini`).
    async fn adapter(&mut self, toolkit: &str, format: &str) -> Result<Value, PortError> {
        let adapter = Request::Adapter {
            toolkit: toolkit.to_string(),
            format: format.to_string(),
        };
        let (r, _) = send(self, adapter).await?;
        field(r, "output")
    }

    /// `skills_prompt`: the system-prompt catalog.
    async fn skills_prompt(&mut self, toolkit: &str) -> Result<String, PortError> {
        let toolkit = toolkit.to_string();
        match send(self, Request::SkillsPrompt { toolkit }).await? {
            (_, TypedResponse::SkillsPrompt(r)) => Ok(r.prompt),
            _ => Err(other_shape(Command::SkillsPrompt)),
        }
    }

    /// `list_skills`: the unfiltered inventory `{skills, skipped}`. The options are the
    /// scenario's JSON, typed or sent as written as for [`Port::build`].
    async fn list_skills(&mut self, options: &Value) -> Result<Value, PortError> {
        let fields = Map::from_iter([("options".into(), options.clone())]);
        let (r, _) = send_object(self, Command::ListSkills, fields).await?;
        Ok(json!({"skills": field(r.clone(), "skills")?, "skipped": field(r, "skipped")?}))
    }

    /// `list_mcp_tools` (§2 Gap 6): `{statuses, tools, errors}` for an MCP config.
    async fn list_mcp_tools(&mut self, config: &Value) -> Result<Value, PortError> {
        let config = Some(config.clone())
            .filter(|c| !c.is_null())
            .map(McpConfig::from);
        let (r, _) = send(self, Request::ListMcpTools { config }).await?;
        let mut inventory = json!({
            "statuses": field(r.clone(), "statuses")?,
            "tools": field(r.clone(), "tools")?,
        });
        // An absent `errors` stays absent, never `{}`: a driver may leave it out, and the step
        // that reads it then skips naming it (NOTES #423).
        if let (Some(errors), Some(map)) = (r.get("errors"), inventory.as_object_mut()) {
            map.insert("errors".into(), errors.clone());
        }
        Ok(inventory)
    }

    /// `select_builtins`: the builtin tools a config selects.
    async fn select_builtins(&mut self, config: &Value) -> Result<Value, PortError> {
        let config = Some(config.clone())
            .filter(|c| !c.is_null())
            .map(Builtins::from);
        let (r, _) = send(self, Request::SelectBuiltins { config }).await?;
        field(r, "tools")
    }

    /// `sanitize` (§0.2).
    async fn sanitize(&mut self, value: &str) -> Result<String, PortError> {
        let value = value.to_string();
        match send(self, Request::Sanitize { value }).await? {
            (_, TypedResponse::Sanitize(r)) => Ok(r.value),
            _ => Err(other_shape(Command::Sanitize)),
        }
    }

    /// `close`: idempotent.
    async fn close(&mut self, toolkit: &str) -> Result<(), PortError> {
        let toolkit = toolkit.to_string();
        send(self, Request::Close { toolkit }).await.map(|_| ())
    }
}

/// Sends a request the scenario wrote, `command` with `fields`: as a typed [`Request`] when
/// the type writes it back faithfully ([`faithful`]), else as written, so a scenario's
/// deliberate oddity (an unknown key, a `null` member, another key order inside a value)
/// reaches the driver unchanged.
pub async fn send_object<P: Port + ?Sized>(
    port: &mut P,
    command: Command,
    fields: Map<String, Value>,
) -> Result<(Value, TypedResponse), PortError> {
    let mut object = Map::new();
    object.insert("cmd".into(), Value::from(command.as_str()));
    object.extend(fields.into_iter().filter(|(key, _)| key != "cmd"));
    match faithful(&object) {
        Some(typed) => send(port, typed).await,
        None => typed_request(port, Value::Object(object)).await,
    }
}

/// `raw` as a typed [`Request`] when the type writes back the same fields, each to exactly
/// the same JSON text (so the driver receives every value as the scenario wrote it; only the
/// order of the request's own fields may change); `None` when it does not.
fn faithful(raw: &Map<String, Value>) -> Option<Request> {
    let typed = serde_json::from_value::<Request>(Value::Object(raw.clone())).ok()?;
    let Ok(Value::Object(back)) = serde_json::to_value(&typed) else {
        return None;
    };
    let text = |v: &Value| serde_json::to_string(v).ok();
    let same = back.len() == raw.len()
        && raw.iter().all(|(key, value)| {
            back.get(key)
                .and_then(text)
                .is_some_and(|t| Some(t) == text(value))
        });
    same.then_some(typed)
}

/// A decoded answer of another command's shape (the decoder picks the shape by command, so
/// only a decoder bug gets here).
fn other_shape(command: Command) -> PortError {
    PortError::Transport(format!(
        "`{}` answered with another command's shape",
        command.as_str()
    ))
}

/// Sends a typed request and decodes its answer as [`typed_request`] does: the raw answer
/// (for the scenarios to compare) and its typed form. The transport numbers it (§2).
pub async fn send<P: Port + ?Sized>(
    port: &mut P,
    request: Request,
) -> Result<(Value, TypedResponse), PortError> {
    let command = request.command();
    let wire = serde_json::to_value(&request).map_err(|e| {
        PortError::Transport(format!(
            "cannot encode the `{}` request: {e}",
            command.as_str()
        ))
    })?;
    let response = port.call(wire).await?;
    let typed = decode(command.as_str(), &response)?;
    Ok((response, typed))
}

/// The error kind the harness gives a driver answer of the wrong shape.
pub const MALFORMED: &str = "malformed_response";

fn malformed(message: String) -> PortError {
    PortError::Driver {
        kind: ErrorKind::Other(MALFORMED.to_string()),
        message,
    }
}

fn field(mut response: Value, key: &str) -> Result<Value, PortError> {
    response.get_mut(key).map(Value::take).ok_or_else(|| {
        PortError::Transport(format!(
            "response lacks \"{key}\": {}",
            truncate(&response.to_string(), 200)
        ))
    })
}

/// Sends `request`, decodes the answer into its typed form (PROTOCOL.md §5, §8) and unwraps
/// the envelope: `ok:false` becomes a `PortError`, `raised` from `build`/`serve` a
/// [`PortError::Raised`], an answer whose SPEC data type is broken a [`PortError::Spec`] (the
/// port's fault) and one that breaks only the protocol a `malformed_response` (the driver's),
/// each naming the field at fault. The raw answer is returned for the scenarios to compare (the
/// typed decode only vouches for its shape).
pub async fn request<P: Port + ?Sized>(port: &mut P, request: Value) -> Result<Value, PortError> {
    typed_request(port, request).await.map(|(raw, _)| raw)
}

/// [`request`], also returning the typed answer.
pub async fn typed_request<P: Port + ?Sized>(
    port: &mut P,
    request: Value,
) -> Result<(Value, TypedResponse), PortError> {
    let cmd = request
        .get("cmd")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let response = port.call(request).await?;
    let typed = decode(&cmd, &response)?;
    Ok((response, typed))
}

/// The typed form of a `cmd` answer, or the `PortError` it amounts to.
fn decode(cmd: &str, response: &Value) -> Result<TypedResponse, PortError> {
    // The transport already checked `seq` (a subprocess port restarts a driver out of step).
    match decode_response(cmd, response, None) {
        Ok(TypedResponse::Failure(e)) if e.kind == ErrorKind::Unsupported => {
            Err(PortError::Unsupported(e.message))
        }
        Ok(TypedResponse::Failure(e)) => Err(PortError::Driver {
            kind: e.kind,
            message: e.message,
        }),
        Ok(TypedResponse::Raised(message)) => Err(PortError::Raised(message)),
        Ok(typed) => Ok(typed),
        Err(violation) => {
            // Quoted without its `seq` (checked already): that counter depends on how many
            // requests the driver process answered before, so on `--jobs`, not on the port.
            let mut quoted = response.clone();
            if let Some(m) = quoted.as_object_mut() {
                m.remove("seq");
            }
            let quoted = truncate(&quoted.to_string(), 200);
            match violation.spec_rule {
                // Inside a SPEC data type: the port's value, passed on by the driver.
                Some(rule) => Err(PortError::Spec {
                    rule: rule.to_string(),
                    message: format!("in the `{cmd}` answer, {violation}; answer was {quoted}"),
                }),
                None => Err(malformed(format!(
                    "the `{cmd}` answer breaks the protocol: {violation}; answer was {quoted}"
                ))),
            }
        }
    }
}

/// Performs the `hello` handshake.
pub async fn hello(port: &mut dyn Port) -> Result<Hello, PortError> {
    let hello = Request::Hello {
        protocol: Some(PROTOCOL_VERSION),
    };
    let wire = serde_json::to_value(&hello)
        .map_err(|e| PortError::Transport(format!("cannot encode `hello`: {e}")))?;
    let response = port.call(wire).await?;
    // Another protocol version is said first: the rest of its greeting may differ.
    if response.get("ok") == Some(&Value::Bool(true)) {
        match response.get("protocol").and_then(Value::as_u64) {
            Some(PROTOCOL_VERSION) => {}
            other => {
                return Err(PortError::Transport(format!(
                    "driver speaks protocol {}, this harness speaks {PROTOCOL_VERSION}",
                    other.map_or_else(|| "(none given)".to_string(), |v| v.to_string())
                )))
            }
        }
    }
    let TypedResponse::Hello(h) = decode(Command::Hello.as_str(), &response)? else {
        return Err(other_shape(Command::Hello));
    };
    Ok(Hello {
        port: h.port,
        implements: h.implements,
        spec: h.spec,
    })
}

/// Shortens text for messages, on a character boundary; the run's secret is redacted first,
/// so no cut can leave a piece of it that redaction would no longer recognise.
pub fn truncate(text: &str, max: usize) -> String {
    let text = &crate::secret::redact(text);
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}… ({} chars)", text.chars().count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn scenario_json_is_typed_only_when_written_back_the_same() {
        let build = |options: Value| object(json!({"cmd": "build", "id": "t", "options": options}));
        let plain = json!({"builtins": false, "disableTools": ["skill"]});
        assert!(faithful(&build(plain)).is_some());
        for odd in [
            json!({"disableTools": ["skill"], "builtins": false}),
            json!({"builtins": false, "skillsDir": null}),
            json!({"skilsDir": "/"}),
            Value::Null,
        ] {
            assert!(faithful(&build(odd.clone())).is_none(), "{odd}");
        }
        let execute = |answer: Value| {
            object(
                json!({"cmd": "execute", "toolkit": "t", "name": "n", "args": {},
                "context": {"answer": answer}}),
            )
        };
        assert!(faithful(&execute(json!({"id": "r1", "ok": true}))).is_some());
        assert!(faithful(&execute(json!({"id": "r1", "ok": true, "data": null}))).is_none());
        // The request's own fields may come in any order: only values are held to their text.
        let reordered = object(json!({"options": {"builtins": false}, "id": "t", "cmd": "build"}));
        assert!(faithful(&reordered).is_some());
    }
}
