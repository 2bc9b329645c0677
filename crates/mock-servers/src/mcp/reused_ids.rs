//! Requests that reuse a JSON-RPC id still in flight in their session. rmcp routes each
//! answer to a POST by its id, so two live requests sharing one would share a route: one
//! answer lands on the wrong stream and the other request hangs. The mock instead answers
//! each POST on its own stream: a reused id is swapped for a unique one on the way in and
//! swapped back in that POST's own response on the way out.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use futures::StreamExt;
use serde_json::Value;

/// As rmcp's own cap on a request body, so buffering here refuses nothing rmcp would take.
const BODY_LIMIT: usize = 4 * 1024 * 1024;

/// The wire ids (raw or substituted) of requests whose response is still streaming.
#[derive(Default)]
struct InFlight {
    live: HashSet<(String, String)>,
    next: u64,
}

type Shared = Arc<Mutex<InFlight>>;

/// `router` with reused in-flight ids answered on their own streams.
pub fn separate(router: Router) -> Router {
    router.layer(middleware::from_fn_with_state(
        Shared::default(),
        route_reused,
    ))
}

/// Leaves the live set when the response body is done or dropped (a client hanging up).
struct Live {
    shared: Shared,
    key: (String, String),
}

impl Drop for Live {
    fn drop(&mut self) {
        lock(&self.shared).live.remove(&self.key);
    }
}

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, InFlight> {
    // A panic elsewhere cannot leave the set half-updated: every change is one insert/remove.
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn route_reused(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let session = request
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let (Method::POST, Some(session)) = (request.method().clone(), session) else {
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "request body too large").into_response();
    };
    let mut message = match serde_json::from_slice::<Value>(&bytes) {
        // Only requests: a response or notification carries no answer to route.
        Ok(Value::Object(m)) if m.contains_key("method") && m.contains_key("id") => m,
        _ => {
            return next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
    };
    let original = message.get("id").cloned().unwrap_or(Value::Null);
    let (wire, live) = {
        let mut state = lock(&shared);
        let mut wire = original.clone();
        while state.live.contains(&(session.clone(), wire.to_string())) {
            state.next += 1;
            wire = Value::from(format!("toolnexus-mock:reused-id:{}", state.next));
        }
        let key = (session, wire.to_string());
        state.live.insert(key.clone());
        (
            wire,
            Live {
                shared: shared.clone(),
                key,
            },
        )
    };
    let rewritten = wire != original;
    let body = if rewritten {
        message.insert("id".into(), wire.clone());
        Body::from(Value::Object(message).to_string())
    } else {
        Body::from(bytes)
    };
    let response = next.run(Request::from_parts(parts, body)).await;
    let swap = rewritten.then_some((wire, original));
    let (parts, body) = response.into_parts();
    let sse = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    Response::from_parts(parts, restore(body, swap, sse, live))
}

/// The response body with the substituted id put back, holding `live` until it ends.
fn restore(body: Body, swap: Option<(Value, Value)>, sse: bool, live: Live) -> Body {
    let state = (body.into_data_stream(), Vec::<u8>::new(), Some(live));
    let stream = futures::stream::unfold(state, move |(mut data, mut pending, live)| {
        let swap = swap.clone();
        async move {
            // `live` is dropped on the step after the last chunk (or with the body).
            live.as_ref()?;
            let Some((wire, original)) = &swap else {
                return data
                    .next()
                    .await
                    .map(|chunk| (chunk, (data, pending, live)));
            };
            match data.next().await {
                Some(Ok(chunk)) => {
                    pending.extend_from_slice(&chunk);
                    let done = if sse {
                        complete_events(&mut pending)
                    } else {
                        Vec::new()
                    };
                    let out = swap_ids(&done, wire, original, sse);
                    Some((Ok(Bytes::from(out)), (data, pending, live)))
                }
                Some(Err(e)) => Some((Err(e), (data, pending, None))),
                None => {
                    let out = swap_ids(&pending, wire, original, sse);
                    Some((Ok(Bytes::from(out)), (data, Vec::new(), None)))
                }
            }
        }
    });
    Body::from_stream(stream)
}

/// Takes the complete SSE events (up to the last blank line) off the front of `pending`.
fn complete_events(pending: &mut Vec<u8>) -> Vec<u8> {
    match pending.windows(2).rposition(|w| w == b"\n\n") {
        Some(end) => pending.drain(..end + 2).collect(),
        None => Vec::new(),
    }
}

/// Puts `original` back wherever a message's own `id` is `wire`: in each SSE `data:` line,
/// or in the whole body when it is plain JSON.
fn swap_ids(text: &[u8], wire: &Value, original: &Value, sse: bool) -> Vec<u8> {
    let swap_one = |json: &str| -> Option<String> {
        let mut message = serde_json::from_str::<Value>(json).ok()?;
        let object = message.as_object_mut()?;
        if object.get("id") != Some(wire) {
            return None;
        }
        object.insert("id".into(), original.clone());
        Some(message.to_string())
    };
    let text = String::from_utf8_lossy(text);
    if !sse {
        return swap_one(&text)
            .unwrap_or_else(|| text.into_owned())
            .into_bytes();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let swapped = line.strip_prefix("data:").and_then(|rest| {
            let json = rest.trim();
            swap_one(json).map(|m| format!("data: {m}\n"))
        });
        out.push_str(swapped.as_deref().unwrap_or(line));
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_substituted_id_is_swapped_back() {
        let wire = json!("toolnexus-mock:reused-id:1");
        let sse = b"id: 0/1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"toolnexus-mock:reused-id:1\",\"result\":{}}\n\n: ping\n\ndata: {\"id\":8}\n\n";
        let out = String::from_utf8(swap_ids(sse, &wire, &json!(7), true)).unwrap_or_default();
        assert_eq!(
            out,
            "id: 0/1\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n: ping\n\ndata: {\"id\":8}\n\n"
        );
        let plain = br#"{"id":"toolnexus-mock:reused-id:1","error":{}}"#;
        let out = String::from_utf8(swap_ids(plain, &wire, &json!(7), false)).unwrap_or_default();
        assert_eq!(out, r#"{"id":7,"error":{}}"#);
    }

    #[test]
    fn an_event_split_across_chunks_waits_for_its_end() {
        let mut pending = b"data: {\"id\":1}\n\ndata: {\"i".to_vec();
        assert_eq!(complete_events(&mut pending), b"data: {\"id\":1}\n\n");
        assert_eq!(pending, b"data: {\"i");
        assert!(complete_events(&mut pending).is_empty());
    }
}
