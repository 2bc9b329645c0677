//! Requests the bench sends without the harness's typed decode of the answer: the answer's
//! shape is the features' business, and decoding a large answer (a 5,000-skill catalog is
//! about 1 MB) would be timed as the port's.

use serde_json::Value;

use crate::port::{Port, PortError};
use toolnexus_protocol::messages::ErrorBody;
use toolnexus_protocol::{ErrorKind, Request};

/// Sends one request and unwraps the envelope itself: `unsupported` must skip and any other
/// `ok:false` is a note.
pub(super) async fn send(port: &mut dyn Port, request: Request) -> Result<Value, PortError> {
    let command = request.command().as_str();
    let request = serde_json::to_value(&request)
        .map_err(|e| PortError::Transport(format!("cannot encode `{command}`: {e}")))?;
    let response = port.call(request).await?;
    if response.get("ok") == Some(&Value::Bool(true)) {
        return Ok(response);
    }
    let ErrorBody { kind, message } = ErrorBody::of_response(&response);
    if kind == ErrorKind::Unsupported {
        return Err(PortError::Unsupported(message));
    }
    Err(PortError::Driver { kind, message })
}
