//! The driver's shared answer vocabulary: what a command handler returns and the error kinds
//! it refuses with. The bottom of the crate: it imports no sibling.

use serde_json::Value;

use toolnexus_protocol::error_kind;

/// A command's success body, or the error envelope's `(kind, message)`.
pub type Reply = Result<Value, (String, String)>;

/// A `bad_request` refusal (§4).
pub fn bad_request(message: impl Into<String>) -> (String, String) {
    (error_kind::BAD_REQUEST.to_string(), message.into())
}

/// An `unsupported` refusal: the reference does not implement this (the scenario is skipped).
pub fn unsupported(message: impl Into<String>) -> (String, String) {
    (error_kind::UNSUPPORTED.to_string(), message.into())
}
