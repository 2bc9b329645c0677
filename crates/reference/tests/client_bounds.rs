//! The §8 client under hostile LLM servers: endless or giant bodies are cut at a cap with
//! a message naming it, error bodies are read only in part, the API key never shows, and
//! no server answer can panic the client.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use toolnexus_reference::client::{Client, ClientError, ClientOptions, RunOptions, Style};

const KEY: &str = "sk-hostile-0123456789";
const CAP: &str = "33554432";

/// What the hand-rolled server does with one request.
#[derive(Clone)]
enum Reply {
    /// A complete answer: status, content type, body.
    Whole(u16, &'static str, String),
    /// `head` as the first chunk of a chunked body, then `filler` chunks until the client
    /// hangs up.
    Endless {
        status: u16,
        content_type: &'static str,
        head: String,
        filler: String,
    },
    /// Announces `Content-Length: len` and writes zeros until the client hangs up.
    Huge(u64),
    /// Announces 1000 bytes, sends `part`, and closes.
    Cut(String),
}

/// A server answering the n-th request with `script(n)`, one connection per request.
async fn serve(script: fn(usize, &str) -> Reply) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            let n = seen.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let _ = answer(sock, n, script).await;
            });
        }
    });
    (format!("http://{addr}"), count)
}

async fn answer(
    mut sock: TcpStream,
    n: usize,
    script: fn(usize, &str) -> Reply,
) -> std::io::Result<()> {
    // Read the head, then the body its Content-Length announces.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let got = sock.read(&mut chunk).await?;
        if got == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..got]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let got = sock.read(&mut chunk).await?;
        if got == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..got]);
    }
    let status_line = |s: u16| format!("HTTP/1.1 {s} Whatever\r\nConnection: close\r\n");
    match script(n, &head) {
        Reply::Whole(status, ct, body) => {
            let out = format!(
                "{}Content-Type: {ct}\r\nContent-Length: {}\r\n\r\n{body}",
                status_line(status),
                body.len()
            );
            sock.write_all(out.as_bytes()).await?;
        }
        Reply::Endless {
            status,
            content_type,
            head,
            filler,
        } => {
            let out = format!(
                "{}Content-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\r\n",
                status_line(status)
            );
            sock.write_all(out.as_bytes()).await?;
            sock.write_all(format!("{:x}\r\n{head}\r\n", head.len()).as_bytes())
                .await?;
            let piece = format!("{:x}\r\n{filler}\r\n", filler.len());
            loop {
                sock.write_all(piece.as_bytes()).await?;
            }
        }
        Reply::Huge(len) => {
            let out = format!(
                "{}Content-Type: application/json\r\nContent-Length: {len}\r\n\r\n",
                status_line(200)
            );
            sock.write_all(out.as_bytes()).await?;
            let zeros = vec![b' '; 64 * 1024];
            loop {
                sock.write_all(&zeros).await?;
            }
        }
        Reply::Cut(part) => {
            let out = format!(
                "{}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{part}",
                status_line(200)
            );
            sock.write_all(out.as_bytes()).await?;
        }
    }
    sock.shutdown().await
}

fn options(base: &str, style: Style) -> ClientOptions {
    ClientOptions {
        base_url: base.to_string(),
        style,
        model: "m-1".into(),
        api_key: Some(KEY.into()),
        retry_base_ms: 1,
        ..ClientOptions::default()
    }
}

/// Each hostile case must end well within this (no hang, no slow crawl through memory).
const QUICK: Duration = Duration::from_secs(60);

async fn run(client: &Client) -> Result<String, ClientError> {
    tokio::time::timeout(QUICK, client.run("hi", RunOptions::default()))
        .await
        .expect("the run ended in time")
        .map(|r| r.text)
}

/// The raised error of a `stream()`, after at most `QUICK`.
async fn stream_error(client: &Client) -> String {
    let drained = async {
        let mut s = client.stream("hi", RunOptions::default(), None);
        let mut raised = None;
        while let Some(item) = s.next().await {
            if let Err(e) = item {
                raised = Some(e.message());
            }
        }
        raised
    };
    tokio::time::timeout(QUICK, drained)
        .await
        .expect("the stream ended in time")
        .expect("the stream raised")
}

fn filler() -> String {
    " ".repeat(64 * 1024)
}

#[tokio::test]
async fn an_endless_answer_is_cut_at_the_cap_and_not_retried() {
    let (base, count) = serve(|_, _| Reply::Endless {
        status: 200,
        content_type: "application/json",
        head: "{\"choices\": [".into(),
        filler: filler(),
    })
    .await;
    let client = Client::new(options(&base, Style::OpenAi));
    let err = run(&client).await.unwrap_err();
    assert_eq!(
        err.message(),
        format!("LLM answer exceeds {CAP} bytes; not read further")
    );
    assert_eq!(count.load(Ordering::SeqCst), 1, "a too-big answer is final");
    assert!(client
        .metrics()
        .contains("toolnexus_llm_requests_total{model=\"m-1\",status=\"error\"} 1\n"));
}

#[tokio::test]
async fn an_announced_40_mib_answer_is_refused_unread() {
    let (base, _) = serve(|_, _| Reply::Huge(40 * 1024 * 1024)).await;
    let client = Client::new(options(&base, Style::Anthropic));
    let err = run(&client).await.unwrap_err();
    assert!(
        err.message().contains(&format!("exceeds {CAP} bytes")),
        "{err}"
    );
}

#[tokio::test]
async fn an_endless_sse_stream_fails_naming_the_cap() {
    // Comment lines forever: no event ever completes, the bytes just keep coming.
    let (base, _) = serve(|_, _| Reply::Endless {
        status: 200,
        content_type: "text/event-stream",
        head: "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n".into(),
        filler: ": keep-alive\n".repeat(4096),
    })
    .await;
    let client = Client::new(options(&base, Style::OpenAi));
    let err = stream_error(&client).await;
    assert!(
        err.contains(&format!("LLM stream exceeds {CAP} bytes; not read further")),
        "{err}"
    );
}

#[tokio::test]
async fn one_giant_sse_event_fails_naming_the_cap() {
    let (base, _) = serve(|_, _| Reply::Endless {
        status: 200,
        content_type: "text/event-stream",
        head: "data: {\"type\": \"".into(),
        filler: "x".repeat(64 * 1024),
    })
    .await;
    let client = Client::new(options(&base, Style::Anthropic));
    let err = stream_error(&client).await;
    assert!(err.contains(&format!("exceeds {CAP} bytes")), "{err}");
}

#[tokio::test]
async fn an_endless_error_body_is_read_in_part_and_never_shows_the_key() {
    // The server echoes the credentials it got, then never stops.
    let (base, count) = serve(|_, head| Reply::Endless {
        status: 500,
        content_type: "text/plain",
        head: format!("bad request, your headers were: {head}"),
        filler: filler(),
    })
    .await;
    let mut o = options(&base, Style::OpenAi);
    o.retries = 1;
    let client = Client::new(o);
    let err = run(&client).await.unwrap_err();
    assert_eq!(err.status(), Some(500));
    assert!(err.message().contains("HTTP 500"), "{err}");
    assert!(err.message().contains("[redacted]"), "{err}");
    assert!(!err.message().contains(KEY), "{err}");
    assert!(
        err.message()
            .contains("the body exceeds 65536 bytes, the rest was not read"),
        "{err}"
    );
    assert!(err.message().chars().count() < 1000, "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 2, "a 500 is still retried");
}

#[tokio::test]
async fn a_key_echoed_in_a_500_or_a_stream_error_is_redacted() {
    let (base, _) = serve(|_, head| Reply::Whole(500, "text/plain", format!("echo: {head}"))).await;
    let mut o = options(&base, Style::OpenAi);
    o.retries = 0;
    // A credential in an extra header is a secret too.
    o.headers
        .insert("X-Goog-Api-Key".into(), "goog-secret-42".into());
    let err = run(&Client::new(o)).await.unwrap_err();
    assert!(err.message().contains("bearer [redacted]"), "{err}");
    assert!(!err.message().contains(&KEY.to_ascii_lowercase()), "{err}");
    assert!(!err.message().contains("goog-secret-42"), "{err}");

    let (base, _) = serve(|_, _| {
        let ev = json!({"type": "error", "error": {"message": format!("bad key {KEY}")}});
        Reply::Whole(200, "text/event-stream", format!("data: {ev}\n\n"))
    })
    .await;
    let err = stream_error(&Client::new(options(&base, Style::Anthropic))).await;
    assert_eq!(err, "LLM stream failed: bad key [redacted]");
}

#[tokio::test]
async fn an_answer_cut_mid_body_is_a_network_error_and_retried() {
    let (base, count) = serve(|n, _| match n {
        0 => Reply::Cut("{\"choi".into()),
        _ => Reply::Whole(
            200,
            "application/json",
            json!({"choices": [{"message": {"role": "assistant", "content": "ok"}}]}).to_string(),
        ),
    })
    .await;
    let client = Client::new(options(&base, Style::OpenAi));
    assert_eq!(run(&client).await.unwrap(), "ok");
    assert_eq!(count.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn hostile_shapes_and_counts_do_not_panic() {
    // A non-object content block followed by a text delta, and usage at u64::MAX.
    let (base, _) = serve(|_, _| {
        let events = [
            json!({"type": "message_start", "message": {"usage": {"input_tokens": u64::MAX}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": 7}),
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": "hi"}}),
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                   "usage": {"output_tokens": u64::MAX}}),
            json!({"type": "message_stop"}),
        ];
        let body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        Reply::Whole(200, "text/event-stream", body)
    })
    .await;
    let client = Client::new(options(&base, Style::Anthropic));
    let mut s = client.stream("hi", RunOptions::default(), None);
    let mut done = None;
    while let Some(item) = s.next().await {
        if let Ok(toolnexus_reference::client::StreamEvent::Done { result }) = item {
            done = Some(result);
        }
    }
    let result = done.expect("the run finished");
    assert_eq!(result.text, "hi");
    assert_eq!(
        result.usage.total_tokens,
        u64::MAX,
        "saturated, not wrapped"
    );
    drop(s);
    // Two turns' worth of u64::MAX usage (a tool call, then text) saturates in the run's
    // sum and in the metrics too.
    let (base, _) = serve(|n, _| {
        let message = if n % 2 == 0 {
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c1",
                   "type": "function", "function": {"name": "nope", "arguments": "{}"}}]})
        } else {
            json!({"role": "assistant", "content": "x"})
        };
        Reply::Whole(
            200,
            "application/json",
            json!({"choices": [{"message": message}],
                   "usage": {"prompt_tokens": u64::MAX, "completion_tokens": u64::MAX}})
            .to_string(),
        )
    })
    .await;
    let client = Client::new(options(&base, Style::OpenAi));
    let result = client.run("hi", RunOptions::default()).await.unwrap();
    assert_eq!((result.turns, result.text.as_str()), (2, "x"));
    assert_eq!(result.usage.prompt_tokens, u64::MAX);
    assert_eq!(result.usage.total_tokens, u64::MAX);
    assert!(client.metrics().contains(&format!(
        "toolnexus_llm_tokens_total{{type=\"prompt\"}} {}\n",
        u64::MAX
    )));
}
