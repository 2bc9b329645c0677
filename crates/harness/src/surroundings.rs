//! What a scenario sets up or inspects beside the port: files on disk, processes the port
//! started, and local HTTP servers (wiremock) a tool can be pointed at.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::process_group;

/// Every regular file under `dir` with its bytes, keyed by relative path (symlinks not
/// followed): a byte-exact record to compare a tree against later.
pub fn record_tree(dir: &Path) -> Result<BTreeMap<PathBuf, Vec<u8>>, String> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| format!("cannot walk {}: {e}", dir.display()))?;
        if entry.file_type().is_file() {
            let bytes = std::fs::read(entry.path())
                .map_err(|e| format!("cannot read {}: {e}", entry.path().display()))?;
            let rel = entry
                .path()
                .strip_prefix(dir)
                .unwrap_or(entry.path())
                .to_path_buf();
            out.insert(rel, bytes);
        }
    }
    Ok(out)
}

/// Describes how two tree records differ, or `None` when they are identical.
pub fn tree_difference(
    before: &BTreeMap<PathBuf, Vec<u8>>,
    after: &BTreeMap<PathBuf, Vec<u8>>,
) -> Option<String> {
    let mut changes = Vec::new();
    for (p, bytes) in before {
        match after.get(p) {
            None => changes.push(format!("{} was removed", p.display())),
            Some(b) if b != bytes => changes.push(format!("{} changed", p.display())),
            _ => {}
        }
    }
    for p in after.keys().filter(|p| !before.contains_key(*p)) {
        changes.push(format!("{} was created", p.display()));
    }
    (!changes.is_empty()).then(|| changes.join("; "))
}

/// Waits up to `within` for the process whose pid is written in `pid_file` to be gone.
pub fn process_gone(pid_file: &Path, within: Duration) -> Result<(), String> {
    let text = std::fs::read_to_string(pid_file)
        .map_err(|e| format!("cannot read pid file {}: {e}", pid_file.display()))?;
    let pid: i32 = text.trim().parse().map_err(|_| {
        format!(
            "pid file {} holds {:?}, not a pid",
            pid_file.display(),
            text.trim()
        )
    })?;
    if pid <= 1 {
        return Err(format!(
            "pid file {} holds an unusable pid {pid}",
            pid_file.display()
        ));
    }
    let started = Instant::now();
    loop {
        // A zombie counts as gone: it no longer runs, only its parent has yet to reap it.
        if process_group::is_gone(pid) {
            return Ok(());
        }
        if started.elapsed() > within {
            return Err(format!(
                "process {pid} is still running {} ms later",
                within.as_millis()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts a local HTTP server (127.0.0.1, ephemeral port) answering each `"METHOD /path"`
/// key of `routes` with `{status?, body?, headers?, delayMs?}`.
pub async fn http_server(routes: &Value) -> Result<MockServer, String> {
    let routes = routes
        .as_object()
        .ok_or("the HTTP routes must be an object of \"METHOD /path\" → response")?;
    let server = MockServer::start().await;
    for (route, answer) in routes {
        let (m, p) = route
            .split_once(' ')
            .ok_or_else(|| format!("route {route:?} must read \"METHOD /path\""))?;
        // wiremock panics on a bad method, path or header; a typo must fail one scenario.
        if http::Method::from_bytes(m.as_bytes()).is_err() || !p.starts_with('/') || p.contains('?')
        {
            return Err(format!(
                "route {route:?} must read \"METHOD /path\" (no query)"
            ));
        }
        if let Some(headers) = answer.get("headers").and_then(Value::as_object) {
            for (k, v) in headers {
                let value = v.as_str().unwrap_or("");
                if http::HeaderName::try_from(k.as_str()).is_err()
                    || http::HeaderValue::try_from(value).is_err()
                {
                    return Err(format!("route {route:?}: invalid header {k:?}"));
                }
            }
        }
        let status = answer.get("status").and_then(Value::as_u64).unwrap_or(200);
        let status = u16::try_from(status).map_err(|_| format!("bad status {status}"))?;
        let mut template = ResponseTemplate::new(status);
        if let Some(body) = answer.get("body").and_then(Value::as_str) {
            template = template.set_body_raw(body.as_bytes().to_vec(), content_type(answer));
        }
        if let Some(headers) = answer.get("headers").and_then(Value::as_object) {
            for (k, v) in headers {
                template = template.insert_header(k.as_str(), v.as_str().unwrap_or(""));
            }
        }
        if let Some(ms) = answer.get("delayMs").and_then(Value::as_u64) {
            template = template.set_delay(Duration::from_millis(ms));
        }
        Mock::given(method(m))
            .and(path(p))
            .respond_with(template)
            .mount(&server)
            .await;
    }
    Ok(server)
}

/// The last request `server` received as `{method, path, query, headers, body, json?}`:
/// query pairs decoded (last wins), header names lower-cased (first value), the body as
/// text and, when it parses, as JSON.
pub async fn last_request(server: &MockServer) -> Option<Value> {
    let request = server.received_requests().await?.pop()?;
    let query: serde_json::Map<String, Value> = request
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
        .collect();
    let mut headers = serde_json::Map::new();
    for (name, value) in request.headers.iter() {
        let key = name.as_str().to_ascii_lowercase();
        if !headers.contains_key(&key) {
            headers.insert(
                key,
                Value::String(String::from_utf8_lossy(value.as_bytes()).into_owned()),
            );
        }
    }
    let body = String::from_utf8_lossy(&request.body).into_owned();
    let mut out = serde_json::json!({
        "method": request.method.as_str(),
        "path": request.url.path(),
        "query": query,
        "headers": headers,
        "body": body,
    });
    if let Ok(json) = serde_json::from_slice::<Value>(&request.body) {
        out["json"] = json;
    }
    Some(out)
}

/// `GET base+path` over plain HTTP/1.0 (the mocks listen on `http://127.0.0.1:<port>`), with
/// `headers`, answered JSON; a tiny client so the harness needs no HTTP client crate. Any
/// status but 200 is an error naming it.
pub async fn get_json(base: &str, path: &str, headers: &[(&str, String)]) -> Result<Value, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authority = base
        .strip_prefix("http://")
        .map(|a| a.trim_end_matches('/'))
        .filter(|a| !a.contains('/'))
        .ok_or_else(|| format!("{base} is not a plain http://host:port base URL"))?;
    let within = Duration::from_secs(10);
    let mut stream = tokio::time::timeout(within, tokio::net::TcpStream::connect(authority))
        .await
        .map_err(|_| format!("connecting to {base} timed out"))?
        .map_err(|e| format!("cannot connect to {base}: {e}"))?;
    let mut request =
        format!("GET {path} HTTP/1.0\r\nHost: {authority}\r\nAccept: application/json\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| format!("cannot send GET {path}: {e}"))?;
    let mut raw = Vec::new();
    tokio::time::timeout(within, stream.read_to_end(&mut raw))
        .await
        .map_err(|_| format!("GET {path} got no complete answer within 10 s"))?
        .map_err(|e| format!("cannot read the answer to GET {path}: {e}"))?;
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("GET {path}: no HTTP answer"))?;
    let status_line = head.lines().next().unwrap_or_default();
    if status_line.split_whitespace().nth(1) != Some("200") {
        return Err(format!("GET {path} answered `{status_line}`"));
    }
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_string()
    };
    serde_json::from_str(&body).map_err(|e| format!("GET {path}: the body is not JSON ({e})"))
}

/// The payload of a chunked body (an HTTP/1.0 request should not get one; kept for safety).
fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        let (Some(chunk), Some(next)) = (after.get(..n), after.get(n..)) else {
            break;
        };
        if n == 0 {
            break;
        }
        out.push_str(chunk);
        rest = next.trim_start_matches("\r\n");
    }
    out
}

fn content_type(answer: &Value) -> &str {
    answer
        .get("contentType")
        .and_then(Value::as_str)
        .unwrap_or("text/plain; charset=utf-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_records_notice_every_change() {
        let d = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(d.path().join("a"), "1").unwrap_or_else(|e| panic!("{e}"));
        let before = record_tree(d.path()).unwrap_or_default();
        assert_eq!(
            tree_difference(&before, &record_tree(d.path()).unwrap_or_default()),
            None
        );
        std::fs::write(d.path().join("a"), "2").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(d.path().join("b"), "").unwrap_or_else(|e| panic!("{e}"));
        let diff = tree_difference(&before, &record_tree(d.path()).unwrap_or_default())
            .unwrap_or_default();
        assert!(
            diff.contains("a changed") && diff.contains("b was created"),
            "{diff}"
        );
    }

    #[test]
    fn a_live_process_is_not_gone() {
        let d = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let f = d.path().join("pid");
        std::fs::write(&f, std::process::id().to_string()).unwrap_or_else(|e| panic!("{e}"));
        assert!(process_gone(&f, Duration::from_millis(100)).is_err());
        std::fs::write(&f, "999999999").unwrap_or_else(|e| panic!("{e}"));
        assert!(process_gone(&f, Duration::from_millis(100)).is_ok());
    }
}
