//! §10 suspension data: `Request`, `Answer`, and the `waitFor` host slot.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// §10 Request: keys byte-identical across ports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// Correlation key, unique per suspension.
    pub id: String,
    /// Open vocabulary: `authorization`, `approval`, `input`, `question`, ...
    pub kind: String,
    /// What is asked, in human words.
    pub prompt: String,
    /// Where the action happens, when it happens at a link.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub url: Option<String>,
    /// Kind-specific extra data.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub data: Option<Value>,
    /// RFC3339 staleness bound.
    #[serde(rename = "expiresAt", skip_serializing_if = "Option::is_none", default)]
    pub expires_at: Option<String>,
}

/// §10 Answer: keys byte-identical across ports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// Echoes `Request.id`.
    pub id: String,
    /// Satisfied or not.
    pub ok: bool,
    /// Kind-specific payload.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub data: Option<Value>,
    /// Advisory reason when `ok` is false.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
}

/// The one §10 host slot: `waitFor(request) -> answer`.
pub type WaitFor = Arc<dyn Fn(Request) -> BoxFuture<'static, Answer> + Send + Sync>;

/// A fresh suspension id; unique within the process.
pub fn new_request_id(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{prefix}-{nanos:x}-{n}")
}

/// §10: the `Request` of a suspension — `metadata.pending` present and a `Request`.
pub fn pending_of(metadata: Option<&serde_json::Map<String, Value>>) -> Option<Request> {
    let pending = metadata?.get("pending")?;
    serde_json::from_value(pending.clone()).ok()
}
