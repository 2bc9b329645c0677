//! JSON-RPC 2.0 for the SPEC's A2A subset (`SendMessage`, `GetTask`), strict on purpose:
//! anything but the exact wire shape of §7A is an error naming what is wrong, so the mock
//! checks a client as well as serving it.

use axum::http::StatusCode;
use serde_json::{json, Map, Value};

use super::scenario::{RpcAnswer, RpcFailure};
use super::tasks::Tasks;

/// JSON-RPC: the body is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the params are not what the method takes.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the server failed (`rpcFailure: "error"`).
pub const INTERNAL_ERROR: i64 = -32603;
/// A2A `TaskNotFoundError`.
pub const TASK_NOT_FOUND: i64 = -32001;

/// The text of `rpcFailure: "malformed"` answers.
pub const MALFORMED_BODY: &str = "this is not JSON-RPC";

/// An HTTP answer, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The status.
    pub status: StatusCode,
    /// The `content-type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

impl Reply {
    /// A 200 `application/json` answer.
    pub fn json(value: &Value) -> Self {
        Self {
            status: StatusCode::OK,
            content_type: "application/json",
            body: value.to_string(),
        }
    }
}

/// The JSON-RPC endpoint: its tasks, or the way it fails.
#[derive(Debug)]
pub enum Endpoint {
    /// Serves tasks.
    Tasks(Tasks),
    /// Fails every POST this way.
    Fail(RpcFailure),
}

impl Endpoint {
    /// The endpoint a scenario's `rpc` describes.
    pub fn new(rpc: RpcAnswer) -> Self {
        match rpc {
            RpcAnswer::Tasks(script) => Self::Tasks(Tasks::new(script)),
            RpcAnswer::Fail(f) => Self::Fail(f),
        }
    }

    /// Answers one POST body, with a one-line summary for the log (method and outcome,
    /// never the body: a client may put anything in it).
    pub fn handle(&self, body: &[u8]) -> (Reply, String) {
        let request = serde_json::from_slice::<Value>(body);
        match self {
            Self::Fail(RpcFailure::Http500) => (
                Reply {
                    status: StatusCode::INTERNAL_SERVER_ERROR,
                    content_type: "text/plain; charset=utf-8",
                    body: "internal server error".into(),
                },
                "→ HTTP 500 (rpcFailure)".into(),
            ),
            Self::Fail(RpcFailure::Malformed) => (
                Reply {
                    status: StatusCode::OK,
                    content_type: "application/json",
                    body: MALFORMED_BODY.into(),
                },
                "→ non-JSON body (rpcFailure)".into(),
            ),
            Self::Fail(RpcFailure::Error) => {
                let id = request
                    .ok()
                    .and_then(|r| r.get("id").cloned())
                    .filter(|id| id.is_string() || id.is_number())
                    .unwrap_or(Value::Null);
                let reply = error(&id, INTERNAL_ERROR, "mock failure");
                (reply, format!("→ {INTERNAL_ERROR} (rpcFailure)"))
            }
            Self::Tasks(tasks) => match request {
                Err(_) => (
                    error(
                        &Value::Null,
                        PARSE_ERROR,
                        "parse error: the body is not JSON",
                    ),
                    format!("→ {PARSE_ERROR} (not JSON)"),
                ),
                Ok(request) => dispatch(tasks, &request),
            },
        }
    }
}

fn error(id: &Value, code: i64, message: &str) -> Reply {
    Reply::json(&json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    }))
}

fn result(id: &Value, result: Value) -> Reply {
    Reply::json(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// A client's string, short and escaped, for the log.
fn shown(s: &str) -> String {
    let short: String = s.chars().take(64).collect();
    format!("{short:?}")
}

fn dispatch(tasks: &Tasks, request: &Value) -> (Reply, String) {
    let invalid = |why: &str| {
        (
            error(
                &Value::Null,
                INVALID_REQUEST,
                &format!("invalid request: {why}"),
            ),
            format!("→ {INVALID_REQUEST} ({why})"),
        )
    };
    let Some(obj) = request.as_object() else {
        return invalid("not a JSON object (batches are not part of the subset)");
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("jsonrpc must be \"2.0\"");
    }
    let id = match obj.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        // A notification gets no answer in JSON-RPC; the subset has none, so it is an error.
        None => return invalid("id missing (notifications are not part of the subset)"),
        Some(_) => return invalid("id must be a string or a number"),
    };
    let Some(method) = obj.get("method").and_then(Value::as_str) else {
        return invalid("method must be a string");
    };
    if let Some(k) = obj
        .keys()
        .find(|k| !["jsonrpc", "id", "method", "params"].contains(&k.as_str()))
    {
        return invalid(&format!("unknown member {}", shown(k)));
    }
    let params = obj.get("params");
    let outcome = match method {
        "SendMessage" => send_message(params).map(|text| {
            let task = tasks.submit(text);
            let id = task["id"].as_str().unwrap_or_default().to_string();
            (task, format!("→ {id} submitted"))
        }),
        "GetTask" => get_task(params).and_then(|task_id| {
            tasks
                .poll(&task_id)
                .map(|p| {
                    let note = format!("{task_id} → {} (poll {})", p.state, p.polls);
                    (p.task, note)
                })
                .ok_or((TASK_NOT_FOUND, "task not found".to_string()))
        }),
        other => {
            let hint = match other {
                "message/send" => " (this subset calls it SendMessage)",
                "tasks/get" => " (this subset calls it GetTask)",
                _ => "",
            };
            Err((
                METHOD_NOT_FOUND,
                format!("method not found: {}{hint}", shown(other)),
            ))
        }
    };
    let method = shown(method);
    match outcome {
        Ok((value, note)) => (result(&id, value), format!("{method} {note}")),
        Err((code, message)) => (error(&id, code, &message), format!("{method} → {code}")),
    }
}

type Invalid = (i64, String);

fn bad(message: String) -> Invalid {
    (INVALID_PARAMS, message)
}

fn params_object<'a>(
    params: Option<&'a Value>,
    keys: &[&str],
) -> Result<&'a Map<String, Value>, Invalid> {
    let obj = params
        .and_then(Value::as_object)
        .ok_or_else(|| bad("params: must be an object".into()))?;
    exactly(obj, keys, "params")?;
    Ok(obj)
}

/// Every key of `obj` is in `keys`, or the error names the first one that is not.
fn exactly(obj: &Map<String, Value>, keys: &[&str], at: &str) -> Result<(), Invalid> {
    match obj.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(bad(format!("{at}: unexpected member {}", shown(k)))),
        None => Ok(()),
    }
}

/// `SendMessage` params as §7A sends them; answers the task text (text parts joined by
/// newlines).
fn send_message(params: Option<&Value>) -> Result<String, Invalid> {
    let obj = params_object(params, &["message", "configuration"])?;
    let message = obj
        .get("message")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("params.message: must be an object".into()))?;
    // `kind: "message"` is what A2A SDK types serialize; allowed, never required.
    exactly(
        message,
        &["kind", "role", "messageId", "parts"],
        "params.message",
    )?;
    if message.get("kind").is_some_and(|k| k != "message") {
        return Err(bad("params.message.kind: must be \"message\"".into()));
    }
    if message.get("role").and_then(Value::as_str) != Some("user") {
        return Err(bad("params.message.role: must be \"user\"".into()));
    }
    match message.get("messageId") {
        Some(Value::String(s)) if !s.is_empty() => {}
        Some(_) => {
            return Err(bad(
                "params.message.messageId: must be a non-empty string".into()
            ))
        }
        None => return Err(bad("params.message.messageId: missing".into())),
    }
    let Some(Value::Array(parts)) = message.get("parts") else {
        return Err(bad("params.message.parts: must be an array".into()));
    };
    if parts.is_empty() {
        return Err(bad("params.message.parts: needs a text part".into()));
    }
    let mut texts = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        let at = format!("params.message.parts[{i}]");
        let part = part
            .as_object()
            .ok_or_else(|| bad(format!("{at}: must be an object")))?;
        exactly(part, &["kind", "text"], &at)?;
        if part.get("kind").and_then(Value::as_str) != Some("text") {
            return Err(bad(format!("{at}.kind: must be \"text\"")));
        }
        let text = part
            .get("text")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(format!("{at}.text: must be a string")))?;
        texts.push(text);
    }
    let configuration = obj
        .get("configuration")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("params.configuration: must be {\"blocking\": false}".into()))?;
    exactly(configuration, &["blocking"], "params.configuration")?;
    if configuration.get("blocking") != Some(&Value::Bool(false)) {
        return Err(bad(
            "params.configuration.blocking: must be false (submit, then poll GetTask)".into(),
        ));
    }
    Ok(texts.join("\n"))
}

/// `GetTask` params: `{"id": <task id>}`.
fn get_task(params: Option<&Value>) -> Result<String, Invalid> {
    let obj = params_object(params, &["id"])?;
    obj.get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| bad("params.id: must be the task id string".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a::scenario::{FinalState, TaskScript};

    fn endpoint(polls: u32, echo: bool) -> Endpoint {
        Endpoint::Tasks(Tasks::new(TaskScript {
            polls,
            state: FinalState::Completed,
            artifacts: None,
            echo,
            history: None,
            message: None,
        }))
    }

    fn call(e: &Endpoint, body: &Value) -> Value {
        let (reply, _) = e.handle(body.to_string().as_bytes());
        assert_eq!(reply.status, StatusCode::OK);
        serde_json::from_str(&reply.body).unwrap_or_else(|err| panic!("{err}: {}", reply.body))
    }

    fn send(id: Value, text: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "SendMessage", "params": {
            "message": {"role": "user", "messageId": "m-1", "parts": [{"kind": "text", "text": text}]},
            "configuration": {"blocking": false}}})
    }

    fn get(id: Value, task: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "GetTask", "params": {"id": task}})
    }

    /// Sets (or, with `None`, removes) the member at `path` of a good SendMessage and
    /// answers the error's code and message.
    fn send_error(path: &[&str], value: Option<Value>) -> (i64, String) {
        let mut request = send(json!(1), "x");
        let (last, parents) = path.split_last().unwrap_or_else(|| panic!("empty path"));
        let mut at = &mut request;
        for key in parents {
            at = match key.parse::<usize>() {
                Ok(i) => &mut at[i],
                Err(_) => &mut at[*key],
            };
        }
        let Some(obj) = at.as_object_mut() else {
            panic!("{path:?} is not inside an object");
        };
        match value {
            Some(v) => obj.insert(last.to_string(), v),
            None => obj.remove(*last),
        };
        let answer = call(&endpoint(0, false), &request);
        assert_eq!(answer["id"], 1, "{answer}");
        (
            answer["error"]["code"].as_i64().unwrap_or_default(),
            answer["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    }

    #[test]
    fn send_then_poll_echoes_ids_and_the_text() {
        let e = endpoint(1, true);
        let sent = call(&e, &send(json!("req-a"), "hello"));
        assert_eq!(
            sent,
            json!({"jsonrpc": "2.0", "id": "req-a", "result": {"kind": "task", "id": "task-1",
                   "contextId": "ctx-1", "status": {"state": "submitted"}}})
        );
        let first = call(&e, &get(json!(7), "task-1"));
        assert_eq!(first["id"], 7);
        assert_eq!(first["result"]["status"]["state"], "working");
        let done = call(&e, &get(json!(8.5), "task-1"));
        assert_eq!(done["id"], 8.5);
        assert_eq!(done["result"]["status"]["state"], "completed");
        assert_eq!(done["result"]["artifacts"][0]["parts"][0]["text"], "hello");
    }

    #[test]
    fn the_wire_shape_is_checked() {
        let blocking = ["params", "configuration", "blocking"];
        let message = |key| ["params", "message", key];
        let cases: &[(&[&str], Option<Value>, i64, &str)] = &[
            (
                &["method"],
                Some(json!("message/send")),
                METHOD_NOT_FOUND,
                "SendMessage",
            ),
            (
                &["method"],
                Some(json!("SendMessages")),
                METHOD_NOT_FOUND,
                "SendMessages",
            ),
            (&blocking, Some(json!(true)), INVALID_PARAMS, "blocking"),
            (&blocking, None, INVALID_PARAMS, "blocking"),
            (
                &["params", "configuration"],
                None,
                INVALID_PARAMS,
                "configuration",
            ),
            (&message("messageId"), None, INVALID_PARAMS, "messageId"),
            (
                &message("messageId"),
                Some(json!("")),
                INVALID_PARAMS,
                "messageId",
            ),
            (
                &message("role"),
                Some(json!("agent")),
                INVALID_PARAMS,
                "role",
            ),
            (
                &message("parts"),
                Some(json!([])),
                INVALID_PARAMS,
                "text part",
            ),
            (
                &message("parts"),
                Some(json!([{"kind": "data", "data": {}}])),
                INVALID_PARAMS,
                "parts[0]",
            ),
            (
                &["params", "message", "parts", "0", "type"],
                Some(json!("text")),
                INVALID_PARAMS,
                "\"type\"",
            ),
            (
                &message("contextId"),
                Some(json!("c")),
                INVALID_PARAMS,
                "\"contextId\"",
            ),
            (
                &["params", "metadata"],
                Some(json!({})),
                INVALID_PARAMS,
                "\"metadata\"",
            ),
        ];
        for (path, value, code, needle) in cases {
            let (got, message) = send_error(path, value.clone());
            assert_eq!(got, *code, "{message}");
            assert!(message.contains(needle), "{message:?} lacks {needle:?}");
        }
        // `kind: "message"` is the A2A SDKs' own shape and passes.
        let mut ok = send(json!(1), "x");
        ok["params"]["message"]["kind"] = json!("message");
        assert_eq!(
            call(&endpoint(0, false), &ok)["result"]["status"]["state"],
            "submitted"
        );
    }

    #[test]
    fn bad_envelopes_answer_with_a_null_id() {
        let e = endpoint(0, false);
        let (reply, note) = e.handle(b"{not json");
        let answer: Value = serde_json::from_str(&reply.body).unwrap_or_default();
        assert_eq!(answer["error"]["code"], PARSE_ERROR);
        assert_eq!(answer["id"], Value::Null);
        assert!(note.contains("-32700"), "{note}");
        for bad in [
            json!([send(json!(1), "x")]),
            json!({"jsonrpc": "1.0", "id": 1, "method": "GetTask", "params": {"id": "t"}}),
            json!({"jsonrpc": "2.0", "method": "GetTask", "params": {"id": "t"}}),
            json!({"jsonrpc": "2.0", "id": null, "method": "GetTask", "params": {"id": "t"}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": 3}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t"}, "x": 1}),
        ] {
            let answer = call(&e, &bad);
            assert_eq!(answer["error"]["code"], INVALID_REQUEST, "{bad}");
            assert_eq!(answer["id"], Value::Null, "{bad}");
        }
    }

    #[test]
    fn get_task_checks_its_params_and_the_id() {
        let e = endpoint(0, false);
        let answer = call(&e, &get(json!(1), "task-9"));
        assert_eq!(
            answer["error"],
            json!({"code": TASK_NOT_FOUND, "message": "task not found"})
        );
        let answer = call(
            &e,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"taskId": "task-1"}}),
        );
        assert_eq!(answer["error"]["code"], INVALID_PARAMS);
        let answer = call(
            &e,
            &json!({"jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": 1}}),
        );
        assert_eq!(answer["error"]["code"], INVALID_PARAMS);
    }

    #[test]
    fn failures_answer_every_post_alike() {
        let request = send(json!("r"), "x").to_string();
        let (reply, _) = Endpoint::Fail(RpcFailure::Http500).handle(request.as_bytes());
        assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
        let (reply, _) = Endpoint::Fail(RpcFailure::Malformed).handle(request.as_bytes());
        assert_eq!(
            (reply.status, reply.body.as_str()),
            (StatusCode::OK, MALFORMED_BODY)
        );
        let (reply, _) = Endpoint::Fail(RpcFailure::Error).handle(request.as_bytes());
        assert_eq!(
            serde_json::from_str::<Value>(&reply.body).unwrap_or_default(),
            json!({"jsonrpc": "2.0", "id": "r", "error": {"code": INTERNAL_ERROR, "message": "mock failure"}})
        );
        let (reply, _) = Endpoint::Fail(RpcFailure::Error).handle(b"nope");
        assert!(reply.body.contains("\"id\":null"), "{}", reply.body);
    }

    #[test]
    fn the_log_line_names_the_method_not_the_text() {
        let e = endpoint(0, false);
        let (_, note) = e.handle(send(json!(1), "secret-ish text").to_string().as_bytes());
        assert_eq!(note, "\"SendMessage\" → task-1 submitted");
        let (_, note) = e.handle(get(json!(1), "task-1").to_string().as_bytes());
        assert_eq!(note, "\"GetTask\" task-1 → completed (poll 1)");
    }
}
