//! The HTTP side: the card at `/.well-known/agent-card.json`, JSON-RPC at `/rpc` and `/`,
//! on an ephemeral loopback port announced as the first stdout line, optionally behind a
//! required-header check.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{Map, Value};

use super::rpc::{Endpoint, Reply};
use super::scenario::{CardAnswer, Scenario, STALLABLE};
use crate::loopback;

/// The card path every A2A client looks at.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";

/// What the scenario's `{{SELF}}` stands for.
pub const SELF: &str = "{{SELF}}";

/// Headers with their resolved expected values.
pub use crate::loopback::Guard;

struct Agent {
    card: Reply,
    endpoint: Endpoint,
    stall: Vec<(String, std::time::Duration)>,
}

/// Serves until the process is killed; stdin is ignored, so a closed pipe does not stop it.
pub async fn serve(scenario: Scenario, guard: Guard) -> Result<(), String> {
    let (listener, addr) = loopback::bind().await?;
    let base = format!("http://{addr}");
    let stall = STALLABLE
        .iter()
        .map(|m| (m.to_string(), scenario.stall_for(m)))
        .filter(|(_, d)| !d.is_zero())
        .collect();
    let agent = Arc::new(Agent {
        card: card_reply(&scenario.card, &base),
        endpoint: Endpoint::new(scenario.rpc),
        stall,
    });
    let router = Router::new()
        .route(CARD_PATH, get(card))
        .route("/rpc", post(rpc))
        // The fallback a client uses when the card has no `url`: the card URL's origin.
        .route("/", post(rpc))
        .with_state(agent);
    let router = loopback::guarded(router, guard, "mock-a2a");
    loopback::announce(&base)?;
    axum::serve(listener, router)
        .await
        .map_err(|e| format!("http server stopped: {e}"))
}

/// The card answer, computed once: the port is known only after binding, and never
/// changes after.
fn card_reply(answer: &CardAnswer, base: &str) -> Reply {
    match answer {
        CardAnswer::Card(card) => Reply::json(&substitute(Value::Object(card.clone()), base)),
        CardAnswer::Fail(f) => Reply {
            status: f.status,
            // A 2xx failure claims JSON and is not: that is the malformed-card case.
            content_type: if f.status.is_success() {
                "application/json"
            } else {
                "text/plain; charset=utf-8"
            },
            body: f.body.clone(),
        },
    }
}

/// Replaces `{{SELF}}` in every string of the card (keys stay as written).
pub fn substitute(value: Value, base: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace(SELF, base)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| substitute(v, base)).collect())
        }
        Value::Object(obj) => Value::Object(
            obj.into_iter()
                .map(|(k, v)| (k, substitute(v, base)))
                .collect::<Map<String, Value>>(),
        ),
        other => other,
    }
}

fn respond(reply: &Reply) -> Response<Body> {
    let mut response = Response::new(Body::from(reply.body.clone()));
    *response.status_mut() = reply.status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(reply.content_type),
    );
    response
}

async fn card(State(agent): State<Arc<Agent>>) -> Response<Body> {
    eprintln!("mock-a2a: GET {CARD_PATH} → {}", agent.card.status.as_u16());
    respond(&agent.card)
}

async fn rpc(State(agent): State<Arc<Agent>>, request: Request) -> Response<Body> {
    let path = request.uri().path().to_string();
    // Read here rather than with the `Bytes` extractor so a too-large or broken body is
    // still answered as JSON-RPC, not with axum's plain-text rejection.
    let body = axum::body::to_bytes(request.into_body(), 4 << 20)
        .await
        .unwrap_or_else(|_| Bytes::new());
    // `stallMs`: the method's answer is held back, the request left in flight.
    if !agent.stall.is_empty() {
        let method = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|r| r.get("method").and_then(Value::as_str).map(str::to_string));
        if let Some((m, d)) = agent
            .stall
            .iter()
            .find(|(m, _)| Some(m.as_str()) == method.as_deref())
        {
            eprintln!("mock-a2a: POST {path} {m}: stalled {} ms", d.as_millis());
            tokio::time::sleep(*d).await;
        }
    }
    let (reply, note) = agent.endpoint.handle(&body);
    eprintln!("mock-a2a: POST {path} {note}");
    respond(&reply)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn self_is_replaced_in_every_string_but_not_in_keys() {
        let card = json!({"url": "{{SELF}}/rpc", "{{SELF}}": 1,
                          "skills": [{"examples": ["see {{SELF}} and {{SELF}}"]}], "n": 2});
        assert_eq!(
            substitute(card, "http://127.0.0.1:9"),
            json!({"url": "http://127.0.0.1:9/rpc", "{{SELF}}": 1,
                   "skills": [{"examples": ["see http://127.0.0.1:9 and http://127.0.0.1:9"]}],
                   "n": 2})
        );
    }
}
