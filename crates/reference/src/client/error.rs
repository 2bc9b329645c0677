//! The one error type a client run raises.

use std::fmt;

/// Why a run raised: its message (never carrying the API key) and, for an HTTP failure,
/// the status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientError {
    /// Human-readable message.
    pub message: String,
    /// The HTTP status of the final failed attempt.
    pub status: Option<u16>,
    /// Whether a timeout or cancel stopped the run.
    pub aborted: bool,
}

impl ClientError {
    /// A plain failure.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            status: None,
            aborted: false,
        }
    }

    /// A non-ok HTTP answer.
    pub fn http(message: impl Into<String>, status: u16) -> Self {
        Self {
            status: Some(status),
            ..Self::new(message)
        }
    }

    /// A timeout or cancel.
    pub fn aborted(message: impl Into<String>) -> Self {
        Self {
            aborted: true,
            ..Self::new(message)
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ClientError {}
