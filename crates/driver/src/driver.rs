//! The reference's own driver: the port protocol over stdin/stdout.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use crate::reference_port::ReferenceSession;
use toolnexus_protocol::{error_response, ErrorKind};

/// Serves protocol requests from stdin until EOF, `shutdown`, or SIGTERM/SIGINT/SIGHUP;
/// logs go to stderr only. On every one of these it closes what it started (MCP servers,
/// bash calls), and the servers are armed to die with it even on SIGKILL. Returns the
/// signal that stopped it, if one did.
pub fn serve_stdio() -> std::pin::Pin<
    Box<dyn std::future::Future<Output = std::io::Result<Option<&'static str>>> + Send>,
> {
    Box::pin(async {
        toolnexus_reference::mcp::stdio::die_with_this_process();
        serve_until(
            BufReader::new(toolnexus_stdio::stdin()),
            toolnexus_stdio::stdout(),
            termination(),
        )
        .await
    })
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
///
/// While a request runs, stdin is still read: a `shutdown` line ends the session at once
/// (the work in flight is dropped unanswered, the shutdown answered), so a run held by a
/// silent model never keeps the driver from its host's shutdown. Any other line read
/// meanwhile waits its turn (the protocol has one request in flight; a host that sends more
/// is served in order); EOF lets the request in flight finish, then ends the session.
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
    // The bytes read and not yet served: at most one line (and the start of the next, read
    // while a request ran) — reading stops once a whole line waits.
    let mut pending: Vec<u8> = Vec::new();
    let mut stopped = None;
    tokio::pin!(stop);
    loop {
        if !pending.ends_with(b"\n") {
            let read = tokio::select! {
                read = input.read_until(b'\n', &mut pending) => read,
                signal = &mut stop => {
                    stopped = Some(signal);
                    break;
                }
            };
            // EOF: a last line without its newline is still served, then the loop ends.
            if read? == 0 && pending.is_empty() {
                break;
            }
        }
        let raw = std::mem::take(&mut pending);
        // A line that is not UTF-8 is a bad request like any other, not the end of the
        // session: read as bytes, it is answered and the next line is served.
        let line = match std::str::from_utf8(&raw) {
            Ok(line) => line,
            Err(e) => {
                let response =
                    error_response(&ErrorKind::BadRequest, format!("request is not UTF-8: {e}"));
                write_line(&mut output, encode_value(&response)).await?;
                continue;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let parsed = serde_json::from_str::<Value>(line);
        // The line is not needed once parsed: a request carrying a 64 MiB part is held once
        // while it is served, not twice.
        drop(raw);
        let (response, shutdown) = match parsed {
            Ok(request) => {
                let stop_after = is_shutdown(&request);
                let ahead = &mut pending;
                let mut eof = false;
                let outcome = {
                    let work = session.handle_encoded(request);
                    tokio::pin!(work);
                    loop {
                        tokio::select! {
                            answer = &mut work => break Outcome::Answered(answer),
                            signal = &mut stop => break Outcome::Signal(signal),
                            read = input.read_until(b'\n', ahead), if !eof && !ahead.ends_with(b"\n") => {
                                match read {
                                    // The host closed stdin: this answer is still owed (a
                                    // piped batch of requests ends this way), then the end.
                                    Ok(0) | Err(_) => eof = true,
                                    Ok(_) if ahead.ends_with(b"\n") && line_is_shutdown(ahead) => {
                                        break Outcome::Shutdown
                                    }
                                    Ok(_) => {}
                                }
                            }
                        }
                    }
                };
                match outcome {
                    Outcome::Answered(answer) => (answer, stop_after),
                    Outcome::Signal(signal) => {
                        stopped = Some(signal);
                        break;
                    }
                    // The work in flight is dropped unanswered; the shutdown, waiting in
                    // `pending`, is served next.
                    Outcome::Shutdown => continue,
                }
            }
            Err(e) => (
                encode_value(&error_response(
                    &ErrorKind::BadRequest,
                    format!("request is not JSON: {e}"),
                )),
                false,
            ),
        };
        let sent = write_line(&mut output, response).await?;
        session.recycle(sent);
        if shutdown {
            break;
        }
    }
    session.close_all().await;
    Ok(stopped)
}

/// How a request in flight ended.
enum Outcome {
    Answered(Vec<u8>),
    Signal(&'static str),
    Shutdown,
}

fn is_shutdown(request: &Value) -> bool {
    request.get("cmd").and_then(Value::as_str) == Some("shutdown")
}

fn line_is_shutdown(line: &[u8]) -> bool {
    serde_json::from_slice::<Value>(line).is_ok_and(|v| is_shutdown(&v))
}

/// A value's JSON text. Straight into bytes: `to_string` goes through `fmt::Display`, a
/// formatter call per piece. (A JSON value always encodes: its keys are strings.)
fn encode_value(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

/// Writes one answer (its JSON text) as a line; gives the buffer back for the next answer.
async fn write_line<W: AsyncWrite + Unpin>(
    output: &mut W,
    mut text: Vec<u8>,
) -> std::io::Result<Vec<u8>> {
    text.push(b'\n');
    output.write_all(&text).await?;
    output.flush().await?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt as _;

    /// Issue 28 item 3: a request that hangs (here a bash call sleeping 30 s) does not keep
    /// the driver from its host's `shutdown`: the shutdown is answered and the session ends,
    /// long before the call would. The 20 s guard is the test's own, far above the normal
    /// answer time, so load cannot break it.
    #[tokio::test]
    async fn a_shutdown_sent_while_a_request_hangs_is_answered_at_once() {
        let (mut host, driver_in) = tokio::io::duplex(1 << 16);
        let (driver_out, mut from_driver) = tokio::io::duplex(1 << 16);
        let served = tokio::spawn(serve(BufReader::new(driver_in), driver_out));
        let lines = [
            r#"{"cmd":"build","id":"tk1","seq":1,"options":{"builtins":true}}"#,
            r#"{"cmd":"execute","toolkit":"tk1","name":"bash","args":{"command":"sleep 30"},"seq":2}"#,
        ];
        host.write_all(format!("{}\n", lines[0]).as_bytes())
            .await
            .unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while !got.ends_with(b"\n") {
            let n = from_driver.read(&mut buf).await.unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        host.write_all(format!("{}\n", lines[1]).as_bytes())
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        host.write_all(b"{\"cmd\":\"shutdown\",\"seq\":3}\n")
            .await
            .unwrap();
        let ended = tokio::time::timeout(std::time::Duration::from_secs(20), served).await;
        assert!(ended.is_ok(), "the driver kept serving the hung request");
        let mut rest = String::new();
        from_driver.read_to_string(&mut rest).await.unwrap();
        let answers: Vec<Value> = rest
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        assert_eq!(answers.len(), 1, "only the shutdown is answered: {rest}");
        assert_eq!(
            (answers[0]["ok"].clone(), answers[0]["seq"].clone()),
            (Value::Bool(true), 3.into()),
            "{rest}"
        );
    }

    #[tokio::test]
    async fn at_eof_the_request_in_flight_is_still_answered() {
        let input: &[u8] = b"{\"cmd\":\"hello\",\"protocol\":1,\"seq\":0}\n{\"cmd\":\"sanitize\",\"value\":\"a-b\",\"seq\":1}";
        let mut output = Vec::new();
        serve(input, &mut output).await.unwrap();
        let text = String::from_utf8(output).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.lines().all(|l| l.contains("\"ok\":true")), "{text}");
    }

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
            ErrorKind::BadRequest.as_str(),
            "{text}"
        );
        assert_eq!(answers[1]["ok"], true, "{text}");
    }
}
