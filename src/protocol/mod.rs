//! The port protocol: line-delimited JSON requests and responses (conformance/PROTOCOL.md).
//!
//! `reference_port` answers protocol requests with the reference implementation; the
//! in-process port and the `driver` subcommand both go through it, so the two paths differ
//! only in serialisation.

pub mod behaviours;
pub mod driver;
pub mod options;
pub mod reference_port;

/// The protocol version this harness speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// The SPEC version the scenarios pin.
pub const SPEC_VERSION: &str = "0.16.0";

/// Error kinds a driver may return in `{"ok":false,"error":{"kind",...}}`.
pub mod error_kind {
    /// The port does not implement this command or option (reported as skipped).
    pub const UNSUPPORTED: &str = "unsupported";
    /// The request was malformed.
    pub const BAD_REQUEST: &str = "bad_request";
    /// The request named a toolkit that does not exist.
    pub const UNKNOWN_TOOLKIT: &str = "unknown_toolkit";
    /// The driver itself failed.
    pub const INTERNAL: &str = "internal";
}

use serde_json::{json, Value};

/// A failure response.
pub fn error_response(kind: &str, message: impl Into<String>) -> Value {
    json!({"ok": false, "error": {"kind": kind, "message": message.into()}})
}
