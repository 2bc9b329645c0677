//! §4A `webfetch`: HTTP GET a URL and return the body as text, markdown or html.
//!
//! A deliberately minimal HTTP/1.1 client over `std::net` (plain `http://` only, run on a
//! blocking thread because the crate's tokio has no `net` feature); a later issue replaces it
//! with a real client and https.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs as _};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use regex::Regex;
use serde_json::{json, Value};

use super::write::{args_object, opt_num, opt_str, req_str, Step};
use crate::reference::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// urllib's redirect bound (`HTTPRedirectHandler.max_redirections`).
const MAX_REDIRECTS: usize = 10;

const HTTPS_UNSUPPORTED: &str = "webfetch: https is not supported by this reference yet";

/// A parsed `http://` URL.
#[derive(Debug, PartialEq)]
struct Url {
    host: String,
    port: u16,
    /// Path plus query, never empty.
    target: String,
}

fn parse_url(url: &str) -> Result<Url, String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("webfetch: unsupported URL: {url}"))?;
    match scheme.to_ascii_lowercase().as_str() {
        "http" => {}
        "https" => return Err(HTTPS_UNSUPPORTED.to_string()),
        other => return Err(format!("webfetch: unsupported URL scheme: {other}")),
    }
    let rest = rest.split('#').next().unwrap_or("");
    let split = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, target) = rest.split_at(split);
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let target = match target {
        "" => "/".to_string(),
        t if t.starts_with('?') => format!("/{t}"),
        t => t.to_string(),
    };
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (h, tail) = v6
            .split_once(']')
            .ok_or_else(|| format!("webfetch: invalid host in URL: {url}"))?;
        (h.to_string(), tail.strip_prefix(':'))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (authority.to_string(), None),
        }
    };
    if host.is_empty() {
        return Err(format!("webfetch: no host in URL: {url}"));
    }
    let port = match port {
        None | Some("") => 80,
        Some(p) => p
            .parse()
            .map_err(|_| format!("webfetch: invalid port in URL: {url}"))?,
    };
    Ok(Url { host, port, target })
}

/// Resolves a `Location` header against the URL that sent it.
fn resolve_location(base: &Url, location: &str) -> String {
    // Absolute when a scheme comes before any path/query character (so `/a?u=http://x` is not).
    let first_sep = location.find(['/', '?', '#']).unwrap_or(location.len());
    if location.find("://").is_some_and(|i| i > 0 && i < first_sep) {
        return location.to_string();
    }
    let host = if base.host.contains(':') {
        format!("[{}]", base.host)
    } else {
        base.host.clone()
    };
    let origin = format!("http://{host}:{}", base.port);
    if let Some(rest) = location.strip_prefix("//") {
        return format!("http://{rest}");
    }
    if location.starts_with('/') {
        return format!("{origin}{location}");
    }
    let path = base.target.split('?').next().unwrap_or("/");
    let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
    format!("{origin}{dir}{location}")
}

struct Response {
    status: u16,
    location: Option<String>,
    body: Vec<u8>,
}

/// A connect-phase failure in urllib's shape (`<urlopen error [Errno 111] Connection refused>`).
fn connect_err(e: std::io::Error) -> String {
    let detail = match (e.kind(), e.raw_os_error()) {
        (std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock, _) => {
            "timed out".to_string()
        }
        (_, Some(code)) => {
            let text = e.to_string();
            let text = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text)
                .to_string();
            format!("[Errno {code}] {text}")
        }
        _ => {
            let text = e.to_string();
            text.strip_prefix("failed to lookup address information: ")
                .unwrap_or(&text)
                .to_string()
        }
    };
    format!("webfetch: <urlopen error {detail}>")
}

fn io_err(e: std::io::Error) -> String {
    if matches!(
        e.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    ) {
        "webfetch: timed out".to_string()
    } else {
        format!("webfetch: {e}")
    }
}

/// One GET with `Connection: close`; the body is framed by chunking, Content-Length or EOF.
fn get_once(url: &Url, deadline: Instant) -> Result<Response, String> {
    let remaining = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
            .ok_or_else(|| "webfetch: timed out".to_string())
    };
    let addrs: Vec<_> = (url.host.as_str(), url.port)
        .to_socket_addrs()
        .map_err(connect_err)?
        .collect();
    let mut last = format!("webfetch: could not resolve {}", url.host);
    let mut stream = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, remaining()?) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = connect_err(e),
        }
    }
    let mut stream = stream.ok_or(last)?;
    stream
        .set_read_timeout(Some(remaining()?))
        .map_err(io_err)?;
    stream
        .set_write_timeout(Some(remaining()?))
        .map_err(io_err)?;
    let host_header = match (url.host.contains(':'), url.port) {
        (true, 80) => format!("[{}]", url.host),
        (true, p) => format!("[{}]:{p}", url.host),
        (false, 80) => url.host.clone(),
        (false, p) => format!("{}:{p}", url.host),
    };
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {host_header}\r\nUser-Agent: toolnexus-conformance\r\nAccept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n",
        url.target
    );
    stream.write_all(request.as_bytes()).map_err(io_err)?;

    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(io_err)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .filter(|_| line.starts_with("HTTP/"))
        .ok_or_else(|| {
            format!(
                "webfetch: malformed HTTP status line: {:?}",
                line.trim_end()
            )
        })?;
    let mut location = None;
    let mut length: Option<usize> = None;
    let mut chunked = false;
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(io_err)? == 0 {
            break;
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim();
            match name.trim().to_ascii_lowercase().as_str() {
                "location" => location = Some(value.to_string()),
                "content-length" => length = value.parse().ok(),
                "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
                _ => {}
            }
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            line.clear();
            reader.read_line(&mut line).map_err(io_err)?;
            let size_hex = line.trim().split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_hex, 16)
                .map_err(|_| format!("webfetch: malformed chunk size: {size_hex:?}"))?;
            if size == 0 {
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            reader.read_exact(&mut body[start..]).map_err(io_err)?;
            line.clear();
            reader.read_line(&mut line).map_err(io_err)?;
        }
    } else if let Some(n) = length {
        reader
            .take(n as u64)
            .read_to_end(&mut body)
            .map_err(io_err)?;
    } else {
        reader.read_to_end(&mut body).map_err(io_err)?;
    }
    Ok(Response {
        status,
        location,
        body,
    })
}

/// GET following redirects as urllib does; `Ok` carries any final status, 2xx or not.
fn fetch(url: &str, timeout: Duration) -> Result<Response, String> {
    let deadline = Instant::now() + timeout;
    let mut current = url.to_string();
    for _ in 0..=MAX_REDIRECTS {
        let parsed = parse_url(&current)?;
        let resp = get_once(&parsed, deadline)?;
        match (resp.status, &resp.location) {
            (301 | 302 | 303 | 307 | 308, Some(loc)) => current = resolve_location(&parsed, loc),
            _ => return Ok(resp),
        }
    }
    Err(format!(
        "webfetch: too many redirects (more than {MAX_REDIRECTS})"
    ))
}

/// Python's `_strip_html`: drop scripts/styles and tags, trim trailing blanks on lines,
/// squeeze 3+ newlines to 2, strip the ends. (`markdown` is this same text in every port.)
fn strip_html(html: &str) -> String {
    let rules: [(&str, &str); 5] = [
        (r"(?i)<script[\s\S]*?</script>", ""),
        (r"(?i)<style[\s\S]*?</style>", ""),
        (r"<[^>]+>", ""),
        (r"[ \t]+\n", "\n"),
        (r"\n{3,}", "\n\n"),
    ];
    let mut text = html.to_string();
    for (pattern, with) in rules {
        if let Ok(re) = Regex::new(pattern) {
            text = re.replace_all(&text, with).into_owned();
        }
    }
    text.trim().to_string()
}

async fn cancelled(ctx: &Context) {
    match &ctx.cancel {
        Some(token) => token.cancelled().await,
        None => std::future::pending().await,
    }
}

async fn run(args: Value, ctx: &Context) -> Step<ToolResult> {
    let args = args_object("webfetch", args)?;
    let url = req_str("webfetch", &args, "url")?.to_string();
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
    let timeout = Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or(Duration::MAX);
    parse_url(&url).map_err(ToolResult::error)?;
    let job = tokio::task::spawn_blocking(move || fetch(&url, timeout));
    // The socket timeouts bound the thread; this bounds the caller even if DNS stalls.
    let grace = timeout.saturating_add(Duration::from_secs(1));
    let resp = tokio::select! {
        r = tokio::time::timeout(grace, job) => match r {
            Ok(Ok(r)) => r.map_err(ToolResult::error)?,
            Ok(Err(e)) => return Err(ToolResult::error(format!("webfetch: {e}"))),
            Err(_) => return Err(ToolResult::error("webfetch: timed out")),
        },
        _ = cancelled(ctx) => return Err(ToolResult::error("webfetch: cancelled")),
    };
    if !(200..300).contains(&resp.status) {
        return Ok(ToolResult::error(format!("HTTP {}", resp.status))
            .with_meta("status", json!(resp.status)));
    }
    let body = String::from_utf8_lossy(&resp.body);
    let output = if format == "html" {
        body.into_owned()
    } else {
        strip_html(&body)
    };
    Ok(ToolResult::ok(output)
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
        "webfetch",
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
    use std::net::TcpListener;

    const PAGE: &str = "<html><head><style>x{}</style><script>var a;</script></head><body><h1>Title</h1>\n<p>Hello   <b>world</b></p>   \n\n\n\n<p>end</p></body></html>";

    /// Serves canned responses by path, one connection per request, on a background thread.
    fn serve(n: usize) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(n) {
                let Ok(mut s) = stream else { continue };
                let mut reader = BufReader::new(s.try_clone().unwrap());
                let mut first = String::new();
                reader.read_line(&mut first).unwrap();
                loop {
                    let mut l = String::new();
                    if reader.read_line(&mut l).unwrap() == 0 || l == "\r\n" {
                        break;
                    }
                }
                let path = first.split_whitespace().nth(1).unwrap_or("/").to_string();
                let resp = match path.as_str() {
                    "/index.html" => format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{PAGE}",
                        PAGE.len()
                    ),
                    "/chunked" => "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n".to_string(),
                    "/moved" => "HTTP/1.1 302 Found\r\nLocation: /index.html\r\nContent-Length: 0\r\n\r\n".to_string(),
                    _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found".to_string(),
                };
                let _ = s.write_all(resp.as_bytes());
            }
        });
        format!("http://{addr}")
    }

    async fn run(args: Value) -> ToolResult {
        tool().execute(args, &Context::default()).await
    }

    #[tokio::test]
    async fn fetches_like_python() {
        let base = serve(7);
        let r = run(json!({"url": format!("{base}/index.html")})).await;
        assert!(!r.is_error, "{r:?}");
        assert_eq!(r.output, "Title\nHello   world\n\nend");
        assert_eq!(
            r.metadata.unwrap(),
            json!({"status": 200, "format": "markdown"})
                .as_object()
                .unwrap()
                .clone()
        );
        let r = run(json!({"url": format!("{base}/index.html"), "format": "text"})).await;
        assert_eq!(r.output, "Title\nHello   world\n\nend");
        let r = run(json!({"url": format!("{base}/index.html"), "format": "html"})).await;
        assert_eq!(r.output, PAGE);
        let r = run(json!({"url": format!("{base}/chunked"), "format": "html"})).await;
        assert_eq!(r.output, "hello world");
        let r = run(json!({"url": format!("{base}/moved")})).await;
        assert_eq!(r.output, "Title\nHello   world\n\nend");
        let r = run(json!({"url": format!("{base}/nope")})).await;
        assert!(r.is_error);
        assert_eq!(r.output, "HTTP 404");
        assert_eq!(r.metadata.unwrap()["status"], json!(404));
    }

    #[tokio::test]
    async fn failures() {
        let r = run(json!({"url": "https://example.com/"})).await;
        assert!(r.is_error);
        assert_eq!(r.output, HTTPS_UNSUPPORTED);
        assert_eq!(run(json!({})).await.output, "webfetch: url is required");
        let r = run(json!({"url": "http://x/", "format": "pdf"})).await;
        assert!(r.is_error && r.output.contains("format must be one of"));
        let r = run(json!({"url": "http://127.0.0.1:1/", "timeout": 2})).await;
        assert!(r.is_error);
        assert_eq!(
            r.output,
            "webfetch: <urlopen error [Errno 111] Connection refused>"
        );
        let r = run(json!({"url": "ftp://x/"})).await;
        assert!(r.is_error && r.output.contains("unsupported URL scheme"));
    }

    #[test]
    fn url_parsing() {
        assert_eq!(
            parse_url("http://u:p@h:8080?q=1#f").unwrap(),
            Url {
                host: "h".into(),
                port: 8080,
                target: "/?q=1".into()
            }
        );
        assert_eq!(
            parse_url("HTTP://[::1]/a").unwrap(),
            Url {
                host: "::1".into(),
                port: 80,
                target: "/a".into()
            }
        );
        let base = parse_url("http://h:81/a/b?x").unwrap();
        assert_eq!(resolve_location(&base, "c"), "http://h:81/a/c");
        assert_eq!(resolve_location(&base, "/d"), "http://h:81/d");
        assert_eq!(resolve_location(&base, "//o/p"), "http://o/p");
        assert_eq!(
            resolve_location(&base, "/a?u=http://x"),
            "http://h:81/a?u=http://x"
        );
        assert_eq!(resolve_location(&base, "HTTPS://s/"), "HTTPS://s/");
    }
}
