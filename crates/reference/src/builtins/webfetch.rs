//! §4A `webfetch`: HTTP GET a URL and return the body as text, markdown or html.
//!
//! The client is `reqwest` (rustls, so `https://` works with no system TLS library).
//! Behaviour, mirroring the Python port where the SPEC is silent:
//! - `format` is `text`, `markdown` (the default) or `html`; any other value is an `isError`
//!   (§4A declares exactly these three). `html` is the body verbatim; `text` is the
//!   tag-stripped text (Python's `_strip_html`); `markdown` is real Markdown from `htmd`
//!   (headings, links, lists and paragraph breaks survive; NOTES #141), where the Python port
//!   returns the same stripped text as for `text`.
//! - Every output is cut to a head and a tail ([`cap_text`], NOTES #140) with a note that
//!   counts what was left out.
//! - `timeout` is in seconds (default 30) and bounds the whole call: DNS, connect, TLS,
//!   redirects and reading the body. A negative or non-finite value is an `isError`.
//! - Redirects are followed, at most [`MAX_REDIRECTS`] of them.
//! - A non-2xx final status is `isError` with the output `HTTP <status>` and `status` in the
//!   metadata; a success carries `status` and `format`.
//! - A body over [`MAX_BODY`] bytes is **refused** (an `isError` that names the limit), not
//!   truncated: a cut-off page, or cut-off HTML run through the tag stripper, would read as
//!   if it were the whole document. opencode's webfetch refuses at the same 5 MiB. The limit
//!   is checked against `Content-Length` first and again while the body streams in, so an
//!   undeclared or lying length never buffers more than the limit.
//! - Every transport failure (bad URL, refused connection, DNS, TLS, timeout, too many
//!   redirects, a broken body) is an `isError` starting with `webfetch:`; nothing panics.

use std::error::Error as _;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use async_trait::async_trait;
use regex::Regex;
use reqwest::{redirect, Url};
use serde_json::{json, Value};

use super::cap::cap_text;
use super::write::{args_object, opt_num, opt_str, req_str, Step};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub(super) const NAME: &str = "webfetch";

/// Redirects followed before giving up (reqwest's and urllib's default bound).
const MAX_REDIRECTS: usize = 10;

/// The largest body accepted: 5 MiB (opencode's `MAX_RESPONSE_SIZE`). Larger ones are refused.
const MAX_BODY: usize = 5 * 1024 * 1024;

const USER_AGENT: &str = concat!("toolnexus-conformance/", env!("CARGO_PKG_VERSION"));

/// An HTTP answer: the final status (2xx or not) and, only for a 2xx, the body.
struct Response {
    status: u16,
    body: Vec<u8>,
}

/// The error chain of a reqwest error, without reqwest's own "error sending request for url"
/// prefix: `tcp connect error: Connection refused (os error 111)`.
fn chain(e: &reqwest::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        // hyper-util's "client error (Connect)" wrapper says nothing its cause does not, and
        // some layers repeat their cause in their own message; keep each text once.
        let wrapper = text.starts_with("client error (") && s.source().is_some();
        if !wrapper && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    if parts.is_empty() {
        e.to_string()
    } else {
        parts.join(": ")
    }
}

/// A transport failure as an `isError` message that says what failed and where.
fn describe(e: &reqwest::Error, url: &Url) -> String {
    let at = e.url().unwrap_or(url);
    let what = if e.is_redirect() {
        format!("too many redirects (more than {MAX_REDIRECTS})")
    } else if e.is_timeout() {
        "timed out".to_string()
    } else if e.is_connect() {
        format!("could not connect: {}", chain(e))
    } else if e.is_body() || e.is_decode() {
        format!("reading the response body failed: {}", chain(e))
    } else {
        format!("request failed: {}", chain(e))
    };
    format!("webfetch: {what} ({at})")
}

fn too_large(cap: usize, url: &Url) -> String {
    const MIB: usize = 1024 * 1024;
    let limit = if cap % MIB == 0 {
        format!("{} MiB", cap / MIB)
    } else {
        format!("{cap} bytes")
    };
    format!("webfetch: response body exceeds the {limit} limit; refused, not truncated ({url})")
}

/// GET `url`, following redirects; the body is read only for a 2xx and only up to `cap` bytes.
async fn fetch(url: &Url, cap: usize) -> Result<Response, String> {
    let client = crate::http_client::builder()
        .redirect(redirect::Policy::limited(MAX_REDIRECTS))
        .user_agent(USER_AGENT)
        // A client per call: nothing pooled outlives the call (or the runtime it ran on).
        .pool_max_idle_per_host(0)
        .build()
        .map_err(|e| format!("webfetch: could not set up the HTTP client: {}", chain(&e)))?;
    let mut resp = client
        .get(url.clone())
        .send()
        .await
        .map_err(|e| describe(&e, url))?;
    let status = resp.status().as_u16();
    if !resp.status().is_success() {
        return Ok(Response {
            status,
            body: Vec::new(),
        });
    }
    let final_url = resp.url().clone();
    if resp
        .content_length()
        .is_some_and(|n| n > u64::try_from(cap).unwrap_or(u64::MAX))
    {
        return Err(too_large(cap, &final_url));
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| describe(&e, &final_url))? {
        if body.len() + chunk.len() > cap {
            return Err(too_large(cap, &final_url));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Response { status, body })
}

/// Python's `_strip_html`: drop scripts/styles and tags, trim trailing blanks on lines,
/// squeeze 3+ newlines to 2, strip the ends: the `text` format (and `markdown` in Python).
fn strip_html(html: &str) -> String {
    static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
        [
            (r"(?i)<script[\s\S]*?</script>", ""),
            (r"(?i)<style[\s\S]*?</style>", ""),
            (r"<[^>]+>", ""),
            (r"[ \t]+\n", "\n"),
            (r"\n{3,}", "\n\n"),
        ]
        .into_iter()
        .filter_map(|(pattern, with)| Regex::new(pattern).ok().map(|re| (re, with)))
        .collect()
    });
    let mut text = html.to_string();
    for (re, with) in RULES.iter() {
        text = re.replace_all(&text, *with).into_owned();
    }
    text.trim().to_string()
}

/// The markdown format: headings, links, lists, emphasis and paragraph breaks survive as
/// Markdown (`htmd`, a turndown-style converter). Scripts, styles and the document head are
/// not content. Should the converter fail, the tag-stripped text still carries the words.
fn markdown(html: &str) -> String {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec!["script", "style", "noscript", "template", "head"])
        .build();
    match converter.convert(html) {
        Ok(md) => md.trim().to_string(),
        Err(_) => strip_html(html),
    }
}

/// An absolute `http://` or `https://` URL.
fn parse_url(raw: &str) -> Step<Url> {
    let url = Url::parse(raw)
        .map_err(|e| ToolResult::error(format!("webfetch: invalid URL {raw:?}: {e}")))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(ToolResult::error(format!(
            "webfetch: unsupported URL scheme {other:?} (only http and https)"
        ))),
    }
}

async fn run(args: Value, ctx: &Context) -> Step<ToolResult> {
    let args = args_object("webfetch", args)?;
    let raw_url = req_str("webfetch", &args, "url")?;
    let format = match opt_str("webfetch", &args, "format")? {
        None => "markdown",
        Some(f @ ("text" | "markdown" | "html")) => f,
        Some(other) => {
            return Err(ToolResult::error(format!(
                "webfetch: format must be one of text, markdown, html, got {other:?}"
            )))
        }
    };
    let secs = opt_num("webfetch", &args, "timeout")?.unwrap_or(30.0);
    if !secs.is_finite() || secs < 0.0 {
        return Err(ToolResult::error(format!(
            "webfetch: timeout must be a non-negative number of seconds, got {secs}"
        )));
    }
    // Beyond `Duration`'s range is "no bound" in practice; tokio caps the deadline itself.
    let timeout = Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX);
    let url = parse_url(raw_url)?;
    let resp = tokio::select! {
        r = tokio::time::timeout(timeout, fetch(&url, MAX_BODY)) => match r {
            Ok(r) => r.map_err(ToolResult::error)?,
            Err(_) => return Err(ToolResult::error(format!(
                "webfetch: timed out after {secs} s ({url})"
            ))),
        },
        _ = ctx.cancelled() => return Err(ToolResult::error("webfetch: cancelled")),
    };
    if !(200..300).contains(&resp.status) {
        return Ok(ToolResult::error(format!("HTTP {}", resp.status))
            .with_meta("status", json!(resp.status)));
    }
    // Python's `decode("utf-8", "replace")`.
    let body = String::from_utf8_lossy(&resp.body);
    let output = match format {
        "html" => body.into_owned(),
        "markdown" => markdown(&body),
        _ => strip_html(&body),
    };
    Ok(ToolResult::ok(cap_text(output))
        .with_meta("status", json!(resp.status))
        .with_meta("format", json!(format)))
}

struct WebFetch;

#[async_trait]
impl ToolExec for WebFetch {
    async fn execute(&self, args: Value, ctx: &Context) -> ToolResult {
        run(args, ctx).await.unwrap_or_else(|e| e)
    }
}

/// The §4A `webfetch` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "HTTP GET a URL and return its body as text, markdown, or html.",
        json!({
            "type": "object",
            "properties": {
                "url": {"type": "string", "description": "URL to fetch"},
                "format": {
                    "type": "string",
                    "enum": ["text", "markdown", "html"],
                    "description": "Response format (default markdown)"
                },
                "timeout": {"type": "number", "description": "Timeout in seconds (default 30)"}
            },
            "required": ["url"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(WebFetch),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read as _, Write as _};
    use std::time::Instant;
    use tokio_util::sync::CancellationToken;
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    const PAGE: &str = "<html><head><style>x{}</style><script>var a;</script></head><body><h1>Title</h1>\n<p>Hello   <b>world</b></p>   \n\n\n\n<p>end</p></body></html>";
    const STRIPPED: &str = "Title\nHello   world\n\nend";
    const MARKDOWN: &str = "# Title\n\nHello **world**\n\nend";

    async fn server() -> MockServer {
        let server = MockServer::start().await;
        let routes = [
            (
                "/index.html",
                ResponseTemplate::new(200).set_body_raw(PAGE, "text/html"),
            ),
            (
                "/moved",
                ResponseTemplate::new(302).insert_header("Location", "/index.html"),
            ),
            (
                "/loop",
                ResponseTemplate::new(302).insert_header("Location", "/loop"),
            ),
            ("/redirect-nowhere", ResponseTemplate::new(301)),
            (
                "/missing",
                ResponseTemplate::new(404).set_body_string("not found"),
            ),
            ("/broken", ResponseTemplate::new(500)),
            ("/empty", ResponseTemplate::new(204)),
            (
                "/latin1",
                ResponseTemplate::new(200).set_body_raw(b"caf\xe9".to_vec(), "text/plain"),
            ),
            (
                "/slow",
                ResponseTemplate::new(200)
                    .set_body_string("late")
                    .set_delay(Duration::from_secs(3)),
            ),
            (
                "/big",
                ResponseTemplate::new(200).set_body_raw(vec![b'a'; MAX_BODY + 1], "text/plain"),
            ),
            (
                "/just-fits",
                ResponseTemplate::new(200).set_body_raw(vec![b'a'; MAX_BODY], "text/plain"),
            ),
        ];
        for (p, answer) in routes {
            Mock::given(method("GET"))
                .and(path(p))
                .respond_with(answer)
                .mount(&server)
                .await;
        }
        server
    }

    async fn call(args: Value) -> ToolResult {
        tool().execute(args, &Context::default()).await
    }

    fn meta(r: &ToolResult) -> Value {
        Value::Object(r.metadata.clone().unwrap_or_default())
    }

    /// A port on which nothing listens (bound, then released).
    fn closed_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or(9)
    }

    #[tokio::test]
    async fn formats_like_python() {
        let s = server().await;
        let url = format!("{}/index.html", s.uri());
        let r = call(json!({ "url": url })).await;
        assert!(!r.is_error, "{r:?}");
        assert_eq!(r.output, MARKDOWN);
        assert_eq!(meta(&r), json!({"status": 200, "format": "markdown"}));
        let r = call(json!({"url": url, "format": "markdown"})).await;
        assert_eq!(r.output, MARKDOWN);
        let r = call(json!({"url": url, "format": "text"})).await;
        assert_eq!(r.output, STRIPPED);
        assert_eq!(meta(&r), json!({"status": 200, "format": "text"}));
        let r = call(json!({"url": url, "format": "html"})).await;
        assert_eq!(r.output, PAGE);
        let r = call(json!({"url": format!("{}/empty", s.uri())})).await;
        assert!(!r.is_error && r.output.is_empty(), "{r:?}");
        assert_eq!(meta(&r)["status"], json!(204));
        let r = call(json!({"url": format!("{}/latin1", s.uri()), "format": "html"})).await;
        assert_eq!(r.output, "caf\u{fffd}");
    }

    #[tokio::test]
    async fn redirects_are_followed_and_bounded() {
        let s = server().await;
        let r = call(json!({"url": format!("{}/moved", s.uri())})).await;
        assert!(!r.is_error, "{r:?}");
        assert_eq!(r.output, MARKDOWN);
        let r = call(json!({"url": format!("{}/loop", s.uri())})).await;
        assert!(
            r.is_error && r.output.contains("too many redirects"),
            "{r:?}"
        );
        // A 3xx without a Location is the final answer, and not a 2xx.
        let r = call(json!({"url": format!("{}/redirect-nowhere", s.uri())})).await;
        assert!(r.is_error, "{r:?}");
        assert_eq!(r.output, "HTTP 301");
    }

    #[tokio::test]
    async fn non_2xx_is_an_error_naming_the_status() {
        let s = server().await;
        for (p, status) in [("/missing", 404), ("/broken", 500), ("/unrouted", 404)] {
            let r = call(json!({"url": format!("{}{p}", s.uri())})).await;
            assert!(r.is_error, "{r:?}");
            assert_eq!(r.output, format!("HTTP {status}"));
            assert_eq!(meta(&r), json!({ "status": status }));
        }
    }

    #[tokio::test]
    async fn the_timeout_bounds_the_whole_call() {
        let s = server().await;
        let started = Instant::now();
        let r = call(json!({"url": format!("{}/slow", s.uri()), "timeout": 0.5})).await;
        assert!(
            r.is_error && r.output.contains("timed out after 0.5 s"),
            "{r:?}"
        );
        assert!(started.elapsed() < Duration::from_millis(2500));
        let r = call(json!({"url": format!("{}/slow", s.uri()), "timeout": 10})).await;
        assert_eq!(r.output, "late");
    }

    #[tokio::test]
    async fn a_body_over_the_cap_is_refused() {
        let s = server().await;
        let r = call(json!({"url": format!("{}/big", s.uri()), "format": "html"})).await;
        assert!(r.is_error, "{}", r.output.len());
        assert!(
            r.output.contains("exceeds the 5 MiB limit; refused"),
            "{}",
            r.output
        );
        let r = call(json!({"url": format!("{}/just-fits", s.uri()), "format": "html"})).await;
        // Accepted, and then cut to a head and a tail like any large output.
        assert!(!r.is_error);
        assert!(r
            .output
            .contains("bytes of output omitted (5242880 bytes in all"));
    }

    /// A body with no Content-Length (delimited by EOF) is counted as it streams in.
    #[tokio::test]
    async fn an_undeclared_body_is_capped_while_streaming() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(2) {
                let Ok(mut s) = stream else { continue };
                let mut buf = [0u8; 4096];
                let _ = s.read(&mut buf);
                let _ = s.write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
                for _ in 0..64 {
                    if s.write_all(&[b'x'; 1024]).is_err() {
                        break;
                    }
                }
            }
        });
        let url =
            Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap_or_else(|e| panic!("{e}"));
        match fetch(&url, 10_000).await {
            Err(e) => assert!(e.contains("exceeds the 10000 bytes limit"), "{e}"),
            Ok(r) => panic!("not capped: {} bytes", r.body.len()),
        }
        let r = fetch(&url, 1 << 20).await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.body.len(), 64 * 1024);
    }

    #[tokio::test]
    async fn transport_failures_are_clean_errors() {
        let port = closed_port();
        for scheme in ["http", "https"] {
            let r =
                call(json!({"url": format!("{scheme}://127.0.0.1:{port}/"), "timeout": 5})).await;
            assert!(r.is_error, "{r:?}");
            assert!(
                r.output.starts_with("webfetch: could not connect")
                    && r.output.contains("Connection refused"),
                "{}",
                r.output
            );
        }
        // https spoken to a plain-HTTP server: the TLS handshake fails, cleanly.
        let s = server().await;
        let https = s.uri().replacen("http://", "https://", 1);
        let r = call(json!({"url": format!("{https}/index.html"), "timeout": 5})).await;
        assert!(r.is_error && r.output.starts_with("webfetch: "), "{r:?}");
        // `.invalid` never resolves (RFC 6761); without a resolver this may time out instead.
        let r = call(json!({"url": "http://no-such-host.invalid/", "timeout": 3})).await;
        assert!(r.is_error && r.output.starts_with("webfetch: "), "{r:?}");
    }

    #[tokio::test]
    async fn bad_input_is_an_error() {
        let cases = [
            (json!({}), "webfetch: url is required"),
            (json!({"url": ""}), "webfetch: url is required"),
            (
                json!({"url": 7}),
                "webfetch: url must be a string, got number",
            ),
            (
                json!([1]),
                "webfetch: arguments must be a JSON object, got array",
            ),
            (
                json!({"url": "http://x/", "format": "pdf"}),
                "format must be one of",
            ),
            (
                json!({"url": "http://x/", "format": 1}),
                "format must be a string",
            ),
            (
                json!({"url": "http://x/", "timeout": "5"}),
                "timeout must be a number",
            ),
            (
                json!({"url": "http://x/", "timeout": -1}),
                "timeout must be a non-negative",
            ),
            (json!({"url": "ftp://x/"}), "unsupported URL scheme \"ftp\""),
            (json!({"url": "not a url"}), "webfetch: invalid URL"),
            (json!({"url": "http://[::1/"}), "webfetch: invalid URL"),
        ];
        for (args, expected) in cases {
            let r = call(args.clone()).await;
            assert!(r.is_error, "{args} ⇒ {r:?}");
            assert!(r.output.contains(expected), "{args} ⇒ {}", r.output);
        }
    }

    #[tokio::test]
    async fn cancellation_ends_the_call() {
        let s = server().await;
        let token = CancellationToken::new();
        let ctx = Context {
            cancel: Some(token.clone()),
            ..Context::default()
        };
        let canceller = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            token.cancel();
        });
        let started = Instant::now();
        let r = tool()
            .execute(json!({"url": format!("{}/slow", s.uri())}), &ctx)
            .await;
        let _ = canceller.await;
        assert!(r.is_error && r.output == "webfetch: cancelled", "{r:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
    }

    const DOC: &str = "<html><head><title>T</title><style>p{}</style></head><body>\
        <h1>Main Title</h1><p>Para with a <a href=\"https://example.test/x\">link</a>.</p>\
        <ul><li>one</li><li>two</li></ul><script>var a;</script></body></html>";

    #[test]
    fn markdown_keeps_headings_links_lists_and_spacing() {
        let md = markdown(DOC);
        assert!(md.contains("# Main Title\n"), "{md}");
        assert!(
            md.contains("Para with a [link](https://example.test/x)."),
            "{md}"
        );
        assert!(md.contains("one\n") && md.contains("two"), "{md}");
        assert!(
            regex::Regex::new(r"(?m)^[*+-] +one$")
                .unwrap()
                .is_match(&md),
            "{md}"
        );
        for gone in ["var a", "p{}", "<"] {
            assert!(!md.contains(gone), "{gone} in {md}");
        }
        assert!(!md.contains("TitlePara"), "{md}");
    }

    #[tokio::test]
    async fn a_large_page_keeps_its_head_and_tail() {
        use crate::builtins::cap::{KEEP_HEAD, KEEP_TAIL};
        let s = server().await;
        for format in ["html", "text", "markdown"] {
            let url = format!("{}/just-fits", s.uri());
            let r = call(json!({"url": url, "format": format})).await;
            assert!(!r.is_error, "{format}");
            assert!(
                r.output.len() < KEEP_HEAD + KEEP_TAIL + 200,
                "{format}: {}",
                r.output.len()
            );
            assert!(
                r.output.starts_with("aaaa") && r.output.ends_with("aaaa"),
                "{format}"
            );
            assert!(
                r.output
                    .contains("bytes of output omitted (5242880 bytes in all"),
                "{format}"
            );
        }
    }

    #[test]
    fn strips_like_python() {
        assert_eq!(strip_html(PAGE), STRIPPED);
        assert_eq!(strip_html("<SCRIPT>x</SCRIPT>a <i>b</i>  \n"), "a b");
    }
}
