//! What a scenario sets up or inspects beside the port: files on disk, processes the port
//! started, and local HTTP servers (wiremock) a tool can be pointed at.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use toolnexus_process_group as process_group;

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

/// The most a recording answer may hold: the mock LLM keeps at most 1,000 requests of at
/// most 1 MiB each, so anything larger is not a mock's answer.
const MAX_JSON_ANSWER: usize = 1 << 30;

/// `GET base+path` answered JSON (the mocks listen on `http://127.0.0.1:<port>`), with
/// `headers`, bounded in time (10 s) and size ([`MAX_JSON_ANSWER`]). Any status but 200 is an
/// error naming it.
pub async fn get_json(base: &str, path: &str, headers: &[(&str, String)]) -> Result<Value, String> {
    let url = format!("{}{path}", base.trim_end_matches('/'));
    let client = toolnexus_ports::tls::client_builder()
        .timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
    let mut request = client.get(&url).header("accept", "application/json");
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    let mut answer = request
        .send()
        .await
        .map_err(|e| format!("GET {path} on {base} failed: {e}"))?;
    if answer.status() != reqwest::StatusCode::OK {
        return Err(format!("GET {path} answered HTTP {}", answer.status()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = answer
        .chunk()
        .await
        .map_err(|e| format!("cannot read the answer to GET {path}: {e}"))?
    {
        if body.len() + chunk.len() > MAX_JSON_ANSWER {
            return Err(format!(
                "GET {path}: the answer exceeds {MAX_JSON_ANSWER} bytes; not read further"
            ));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| format!("GET {path}: the body is not JSON ({e})"))
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
