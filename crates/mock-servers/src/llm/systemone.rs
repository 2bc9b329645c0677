//! The systemone (SPEC §8B classifier) wire's own bodies the mock makes up; a decision
//! itself is always the scenario's, sent as written.

use serde_json::{json, Value};

/// What a `malformed` reply answers on the systemone route: 200 and a decision cut short.
pub const MALFORMED: &str = "{\"model\": \"broken\", \"answers\": {";

/// A systemone error body: `{"error": {"message", "code"}}`, the gateway-style shape
/// (OpenRouter serves this wire), with the HTTP status as the code.
pub fn error(status: u16, message: &str) -> Value {
    json!({"error": {"message": message, "code": status}})
}
