//! The port protocol: line-delimited JSON requests and responses (conformance/PROTOCOL.md).
//!
//! This crate is the only thing the harness and the implementations share: the harness drives
//! a port through it and never links an implementation. Every message has a typed form
//! ([`messages`], [`options`]); [`decode`] turns a driver's answer (or a harness request) into it,
//! naming the field at fault when the JSON breaks the protocol.

#![warn(missing_docs)]

use async_trait::async_trait;

#[macro_use]
mod command_table;

pub mod agent;
pub mod classifier;
pub mod client;
pub mod compact;
pub mod decode;
pub mod error_kind;
pub mod messages;
pub mod options;
pub mod schema;
pub mod source_options;

pub use decode::{check_seq, decode_request, decode_response, ProtocolViolation};
pub use error_kind::ErrorKind;
pub use messages::{Command, Framed, Request, TypedResponse};

/// The protocol version this harness speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// The SPEC version the scenarios pin.
pub const SPEC_VERSION: &str = "0.16.0";

/// The SPEC text the reference implements and declares in `hello`: the newest in reach (the
/// spec crate's `texts::NEWEST`; a test keeps the two equal).
pub const REFERENCE_SPEC: &str = "main-after-0.17.0";

use serde_json::{json, Value};

/// A failure response.
pub fn error_response(kind: &ErrorKind, message: impl Into<String>) -> Value {
    json!({"ok": false, "error": {"kind": kind.as_str(), "message": message.into()}})
}

/// Something that answers protocol requests in-process (the reference's driver implements it;
/// the harness wraps it as a port without a pipe).
#[async_trait]
pub trait Handler: Send {
    /// Answers one request object with one response object.
    async fn handle(&mut self, request: Value) -> Value;

    /// Closes every toolkit the session holds.
    async fn close_all(&mut self);
}
