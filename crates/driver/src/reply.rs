//! The driver's shared answer vocabulary: what a command handler returns and the error kinds
//! it refuses with. The bottom of the crate: it imports no sibling.

use serde_json::Value;

use toolnexus_protocol::ErrorKind;

/// A command's success body, or the error envelope's `(kind, message)`.
pub type Reply = Result<Value, (ErrorKind, String)>;

/// A `bad_request` refusal (§4).
pub fn bad_request(message: impl Into<String>) -> (ErrorKind, String) {
    (ErrorKind::BadRequest, message.into())
}

/// An `unsupported` refusal: the reference does not implement this (the scenario is skipped).
pub fn unsupported(message: impl Into<String>) -> (ErrorKind, String) {
    (ErrorKind::Unsupported, message.into())
}
