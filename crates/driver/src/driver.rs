//! The reference's own driver: the port protocol over stdin/stdout.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use crate::reference_port::ReferenceSession;
use toolnexus_protocol::{error_kind, error_response};

/// Serves protocol requests from stdin until EOF, `shutdown`, or SIGTERM/SIGINT/SIGHUP;
/// logs go to stderr only. On every one of these it closes what it started (MCP servers,
/// bash calls), and the servers are armed to die with it even on SIGKILL. Returns the
/// signal that stopped it, if one did.
pub async fn serve_stdio() -> std::io::Result<Option<&'static str>> {
    toolnexus_reference::mcp::stdio::die_with_this_process();
    serve_until(
        BufReader::new(toolnexus_stdio::stdin()),
        toolnexus_stdio::stdout(),
        termination(),
    )
    .await
}

/// The first of SIGTERM, SIGINT, SIGHUP (never, when they cannot be watched).
async fn termination() -> &'static str {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) {
        (Ok(mut term), Ok(mut int), Ok(mut hup)) => tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
            _ = hup.recv() => "SIGHUP",
        },
        _ => std::future::pending().await,
    }
}

/// Serves protocol requests from `input` to `output` until EOF or `shutdown`.
pub async fn serve<R, W>(input: R, output: W) -> std::io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    serve_until(input, output, std::future::pending::<&'static str>())
        .await
        .map(|_| ())
}

/// [`serve`], also stopping when `stop` completes, even mid-request (the request's work is
/// dropped: a bash call's group is killed with it); returns `stop`'s value if it did.
pub async fn serve_until<R, W, S>(
    mut input: R,
    mut output: W,
    stop: S,
) -> std::io::Result<Option<&'static str>>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
    S: std::future::Future<Output = &'static str>,
{
    let mut session = ReferenceSession::new();
    let mut raw = Vec::new();
    let mut stopped = None;
    tokio::pin!(stop);
    loop {
        raw.clear();
        let read = tokio::select! {
            read = input.read_until(b'\n', &mut raw) => read,
            signal = &mut stop => {
                stopped = Some(signal);
                break;
            }
        };
        if read? == 0 {
            break;
        }
        // A line that is not UTF-8 is a bad request like any other, not the end of the
        // session: read as bytes, it is answered and the next line is served.
        let line = match std::str::from_utf8(&raw) {
            Ok(line) => line,
            Err(e) => {
                let response = error_response(
                    error_kind::BAD_REQUEST,
                    format!("request is not UTF-8: {e}"),
                );
                write_line(&mut output, &response).await?;
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let (response, shutdown) = match serde_json::from_str::<Value>(line) {
            Ok(request) => {
                let stop_after = request.get("cmd").and_then(Value::as_str) == Some("shutdown");
                let answer = tokio::select! {
                    answer = session.handle(request) => answer,
                    signal = &mut stop => {
                        stopped = Some(signal);
                        break;
                    }
                };
                (answer, stop_after)
            }
            Err(e) => (
                error_response(error_kind::BAD_REQUEST, format!("request is not JSON: {e}")),
                false,
            ),
        };
        write_line(&mut output, &response).await?;
        if shutdown {
            break;
        }
    }
    session.close_all().await;
    Ok(stopped)
}

async fn write_line<W: AsyncWrite + Unpin>(
    output: &mut W,
    response: &Value,
) -> std::io::Result<()> {
    let mut text = response.to_string();
    text.push('\n');
    output.write_all(text.as_bytes()).await?;
    output.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn invalid_utf8_is_a_bad_request_and_the_session_goes_on() {
        let input: &[u8] =
            b"{\"cmd\":\"sanitize\",\"value\":\"a\xff\"}\n{\"cmd\":\"hello\",\"protocol\":1,\"seq\":0}\n";
        let mut output = Vec::new();
        serve(input, &mut output).await.unwrap();
        let text = String::from_utf8(output).unwrap();
        let answers: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(answers.len(), 2, "{text}");
        assert_eq!(answers[0]["ok"], false, "{text}");
        assert_eq!(
            answers[0]["error"]["kind"],
            error_kind::BAD_REQUEST,
            "{text}"
        );
        assert_eq!(answers[1]["ok"], true, "{text}");
    }
}
