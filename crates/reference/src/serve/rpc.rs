//! §7B routes: the Agent Card and the JSON-RPC 2.0 endpoint (`SendMessage`, `GetTask`).

use std::sync::Arc;

use axum::body::Bytes;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use super::{card, fulfil, uuid_v4, Shared};

/// JSON-RPC: the body is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: JSON, but not a request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the params do not fit the method.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the server failed (a store error).
pub const INTERNAL_ERROR: i64 = -32603;
/// A2A: `GetTask` for an id the store does not know.
pub const TASK_NOT_FOUND: i64 = -32001;

/// `GET /.well-known/agent-card.json`.
pub(crate) async fn card(shared: Arc<Shared>) -> Response {
    let Some(a2a) = &shared.a2a else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let url = format!("{}/", shared.base_url);
    json_response(&card::agent_card(
        &a2a.config,
        shared.toolkit.skills(),
        &url,
    ))
}

/// `POST /`: one JSON-RPC request; every failure is a JSON-RPC error, never a panic.
pub(crate) async fn handle(shared: Arc<Shared>, body: Bytes) -> Response {
    let reply = match serde_json::from_slice::<Value>(&body) {
        Err(e) => error(Value::Null, PARSE_ERROR, &format!("Parse error: {e}")),
        Ok(rpc) => dispatch(&shared, rpc).await,
    };
    json_response(&reply)
}

async fn dispatch(shared: &Arc<Shared>, rpc: Value) -> Value {
    let Value::Object(rpc) = rpc else {
        return error(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: not an object",
        );
    };
    // An id of the wrong type cannot be echoed; the error then carries null.
    let id = match rpc.get("id") {
        Some(v @ (Value::String(_) | Value::Number(_) | Value::Null)) => v.clone(),
        None => Value::Null,
        Some(_) => {
            return error(Value::Null, INVALID_REQUEST, "Invalid Request: bad id");
        }
    };
    if rpc.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return error(
            id,
            INVALID_REQUEST,
            "Invalid Request: jsonrpc must be \"2.0\"",
        );
    }
    let Some(method) = rpc.get("method").and_then(Value::as_str) else {
        return error(id, INVALID_REQUEST, "Invalid Request: no method");
    };
    let params = rpc.get("params").unwrap_or(&Value::Null);
    match method {
        "SendMessage" => send_message(shared, id, params).await,
        "GetTask" => get_task(shared, id, params).await,
        other => error(id, METHOD_NOT_FOUND, &format!("Method not found: {other}")),
    }
}

async fn send_message(shared: &Arc<Shared>, id: Value, params: &Value) -> Value {
    let Some(a2a) = &shared.a2a else {
        return error(id, METHOD_NOT_FOUND, "Method not found: SendMessage");
    };
    let Some(message) = params.get("message").and_then(Value::as_object) else {
        return error(
            id,
            INVALID_PARAMS,
            "Invalid params: params.message is required",
        );
    };
    let Some(text) = message_text(message) else {
        return error(
            id,
            INVALID_PARAMS,
            "Invalid params: params.message.parts has no text part",
        );
    };
    let context_id = message
        .get("contextId")
        .and_then(Value::as_str)
        .map(str::to_string);
    let task_id = uuid_v4();
    let submitted = fulfil::task(
        &task_id,
        context_id.as_deref(),
        json!({"state": "submitted"}),
    );
    if let Err(e) = a2a.store.save(&submitted).await {
        return error(id, INTERNAL_ERROR, &format!("task store failed: {e}"));
    }
    fulfil::spawn(Arc::clone(shared), task_id, text, context_id);
    ok(id, submitted)
}

async fn get_task(shared: &Arc<Shared>, id: Value, params: &Value) -> Value {
    let Some(a2a) = &shared.a2a else {
        return error(id, METHOD_NOT_FOUND, "Method not found: GetTask");
    };
    let Some(task_id) = params.get("id").and_then(Value::as_str) else {
        return error(
            id,
            INVALID_PARAMS,
            "Invalid params: params.id must be a string",
        );
    };
    match a2a.store.get(task_id).await {
        Ok(Some(task)) => ok(id, task),
        Ok(None) => error(id, TASK_NOT_FOUND, &format!("Task not found: {task_id}")),
        Err(e) => error(id, INTERNAL_ERROR, &format!("task store failed: {e}")),
    }
}

/// The text parts joined with nothing between them (as Python joins them); `None` when
/// the message has no text part at all. A part counts when `kind` is `"text"` or absent.
fn message_text(message: &Map<String, Value>) -> Option<String> {
    let parts = message.get("parts")?.as_array()?;
    let texts: Vec<&str> = parts
        .iter()
        .filter(|p| matches!(p.get("kind"), None | Some(Value::String(_))))
        .filter(|p| p.get("kind").is_none_or(|k| k == "text"))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.concat())
}

fn ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn json_response(body: &Value) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_parts_join_without_separator() {
        let m = json!({"parts": [
            {"kind": "text", "text": "a"}, {"kind": "data", "data": {}},
            {"text": "b"}, {"kind": "file", "text": "no"}, {"kind": "text", "text": "c"}]});
        let m = m.as_object().unwrap();
        assert_eq!(message_text(m).as_deref(), Some("abc"));
        let none = json!({"parts": [{"kind": "data", "data": {}}]});
        assert_eq!(message_text(none.as_object().unwrap()), None);
        let no_parts = json!({"role": "user"});
        assert_eq!(message_text(no_parts.as_object().unwrap()), None);
    }
}
