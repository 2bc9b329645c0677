//! The reference's own driver: the port protocol over stdin/stdout.

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::reference_port::ReferenceSession;
use toolnexus_protocol::{error_kind, error_response};

/// Serves protocol requests from stdin until EOF or `shutdown`; logs go to stderr only.
pub async fn serve_stdio() -> std::io::Result<()> {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    let mut session = ReferenceSession::new();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let (response, stop) = match serde_json::from_str::<Value>(&line) {
            Ok(request) => {
                let stop = request.get("cmd").and_then(Value::as_str) == Some("shutdown");
                (session.handle(request).await, stop)
            }
            Err(e) => (
                error_response(error_kind::BAD_REQUEST, format!("request is not JSON: {e}")),
                false,
            ),
        };
        let mut text = response.to_string();
        text.push('\n');
        stdout.write_all(text.as_bytes()).await?;
        stdout.flush().await?;
        if stop {
            break;
        }
    }
    session.close_all().await;
    Ok(())
}
