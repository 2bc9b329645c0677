//! Requests the bench sends without the harness's typed decode of the answer: the answer's
//! shape is the features' business, and decoding a large answer (a 5,000-skill catalog is
//! about 1 MB) would be timed as the port's.

use serde_json::Value;

use toolnexus_ports::port::{Port, PortError};
use toolnexus_protocol::messages::ErrorBody;
use toolnexus_protocol::{ErrorKind, Request};

/// Sends one request and unwraps the envelope itself: `unsupported` must skip and any other
/// `ok:false` is a note.
pub(crate) async fn send(port: &mut dyn Port, request: Request) -> Result<Value, PortError> {
    let response = port.call(encode(&request)?).await?;
    unwrap(response)
}

/// Sends one request and returns its answer's text, checked by the transport only as far as
/// it needs (one JSON object echoing the request's `seq`); [`answer`] reads it after the clock
/// stops. For the answers of a megabyte, whose full parse would be timed as the port's.
pub(crate) async fn send_unparsed(
    port: &mut dyn Port,
    request: Request,
) -> Result<String, PortError> {
    port.call_unparsed(encode(&request)?).await
}

/// Reads an answer [`send_unparsed`] returned, as [`send`] does.
pub(crate) fn answer(text: &str) -> Result<Value, PortError> {
    let response = serde_json::from_str(text)
        .map_err(|e| PortError::Transport(format!("the answer is not JSON: {e}")))?;
    unwrap(response)
}

fn encode(request: &Request) -> Result<Value, PortError> {
    serde_json::to_value(request).map_err(|e| {
        let command = request.command().as_str();
        PortError::Transport(format!("cannot encode `{command}`: {e}"))
    })
}

/// The answer of an `ok:true` envelope, or its error.
fn unwrap(response: Value) -> Result<Value, PortError> {
    if response.get("ok") == Some(&Value::Bool(true)) {
        return Ok(response);
    }
    let ErrorBody { kind, message } = ErrorBody::of_response(&response);
    if kind == ErrorKind::Unsupported {
        return Err(PortError::Unsupported(message));
    }
    Err(PortError::Driver { kind, message })
}
