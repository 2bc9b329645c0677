//! The HTTP side: both providers' chat routes, the systemone classifier route and the
//! recording endpoint on an ephemeral loopback port announced as the first stdout line,
//! optionally behind a required-header check.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Response, StatusCode};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::Router;
use serde_json::{json, Map, Value};

use super::request::Facts;
use super::scenario::{Answer, Failure, Reply, Scenario, Style, Turn};
use super::sse::{Rendered, RenderedCall};
use super::{anthropic, openai, systemone};
use crate::loopback::{self, Guard};

/// Where the recorded requests are read.
pub const REQUESTS_PATH: &str = "/_mock/requests";
/// Where the in-flight counts and the recording's size and caps are read.
pub const STATS_PATH: &str = "/_mock/stats";
/// The canary secret: a header carrying it is recorded as `<redacted>`.
pub const SECRET_ENV: &str = "TOOLNEXUS_CONFORMANCE_SECRET";
/// How many requests the recording keeps (the oldest go first).
pub const MAX_RECORDED: usize = 1000;
/// How much of one body the recording keeps.
pub const MAX_RECORDED_BODY: usize = 1 << 20;
/// How many bytes the whole recording keeps (the oldest go first), so it is bounded like
/// every other buffer rather than by count alone (1,000 × 1 MiB, about 1 GiB). 64 MiB still
/// holds all 1,000 entries of an agent loop's requests up to 64 KiB each, or the last 64
/// bodies cut at [`MAX_RECORDED_BODY`]; a test reads the recent requests, not a gigabyte.
pub const MAX_RECORDED_BYTES: usize = 64 << 20;
/// What a redacted header value reads as.
pub const REDACTED: &str = "<redacted>";

/// Bodies larger than this are refused with a 413: room for a prompt carrying a 64 MiB
/// attached part (85.4 MiB of base64, and the data URL or block around it), whose recording
/// is still cut at [`MAX_RECORDED_BODY`].
const MAX_BODY: usize = 128 << 20;

struct Mock {
    scenario: Scenario,
    /// How often each reply was used, for `times`.
    used: Mutex<Vec<u64>>,
    recorded: Mutex<Recording>,
    secret: Option<String>,
    next_id: AtomicU64,
    /// Model-route requests being handled now.
    in_flight: AtomicU64,
    /// The most ever handled at once.
    peak_in_flight: AtomicU64,
}

/// Counts one model-route request as in flight until dropped, so a handler axum drops
/// on a client disconnect (mid-`delayMs`) stops counting too.
struct InFlight<'a>(&'a Mock);

impl<'a> InFlight<'a> {
    fn enter(mock: &'a Mock) -> Self {
        let now = mock.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        mock.peak_in_flight.fetch_max(now, Ordering::SeqCst);
        Self(mock)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The recorded requests, oldest first, and what they hold: bounded by
/// [`MAX_RECORDED`] entries and [`MAX_RECORDED_BYTES`] bytes.
#[derive(Default)]
struct Recording {
    entries: VecDeque<Recorded>,
    /// The sum of the entries' [`Recorded::cost`], kept as they come and go.
    bytes: usize,
    /// How many entries were dropped (or never kept) to stay within the caps.
    evicted: u64,
}

impl Recording {
    /// Keeps `entry`, dropping the oldest first while either cap would be exceeded.
    fn push(&mut self, entry: Recorded) {
        let cost = entry.cost();
        while !self.entries.is_empty()
            && (self.entries.len() >= MAX_RECORDED || self.bytes + cost > MAX_RECORDED_BYTES)
        {
            if let Some(old) = self.entries.pop_front() {
                self.bytes -= old.cost();
                self.evicted += 1;
            }
        }
        if cost > MAX_RECORDED_BYTES {
            // Cannot happen with a body cut at 1 MiB and hyper's header limits, but the
            // cap is a promise: an entry too big for it alone is counted, not kept.
            self.evicted += 1;
            return;
        }
        self.bytes += cost;
        self.entries.push_back(entry);
    }
}

/// One request as received, kept raw: its JSON entry is built only when
/// `GET /_mock/requests` asks, so serving a request never parses its body twice.
struct Recorded {
    method: String,
    path: String,
    /// Name and shown (joined or redacted) value, in the request's order.
    headers: Vec<(String, String)>,
    /// At most [`MAX_RECORDED_BODY`] bytes of the body, in its own allocation.
    body: Bytes,
    /// The whole body's length.
    len: usize,
    /// Also show the body as received (`bodyText`): systemone requests only, so every chat
    /// entry stays as it was.
    text: bool,
}

impl Recorded {
    /// The bytes this entry holds, for [`MAX_RECORDED_BYTES`]: its strings' capacities,
    /// the body (an exact copy, so its length is what it holds) and the fixed parts.
    /// Allocator rounding aside, every byte the entry holds is counted.
    fn cost(&self) -> usize {
        let headers: usize = self
            .headers
            .iter()
            .map(|(name, shown)| name.capacity() + shown.capacity())
            .sum();
        std::mem::size_of::<Self>()
            + self.method.capacity()
            + self.path.capacity()
            + self.headers.capacity() * std::mem::size_of::<(String, String)>()
            + headers
            + self.body.len()
    }

    /// The entry as `GET /_mock/requests` shows it.
    fn entry(&self) -> Value {
        let mut recorded_headers = Map::new();
        for (name, shown) in &self.headers {
            recorded_headers.insert(name.clone(), Value::String(shown.clone()));
        }
        let mut entry = Map::new();
        entry.insert("method".into(), json!(self.method));
        entry.insert("path".into(), json!(self.path));
        entry.insert("headers".into(), Value::Object(recorded_headers));
        if self.len > MAX_RECORDED_BODY {
            let kept = String::from_utf8_lossy(&self.body).into_owned();
            entry.insert("body".into(), Value::String(kept));
            entry.insert(
                "note".into(),
                json!(format!(
                    "body truncated to {MAX_RECORDED_BODY} of {} bytes",
                    self.len
                )),
            );
        } else {
            match serde_json::from_slice::<Value>(&self.body) {
                Ok(v) => {
                    entry.insert("body".into(), v);
                }
                Err(_) => {
                    let text = String::from_utf8_lossy(&self.body).into_owned();
                    entry.insert("body".into(), Value::String(text));
                    entry.insert("note".into(), json!("body is not JSON"));
                }
            }
        }
        if self.text {
            // Made from the kept bytes when asked for, so it costs the recording nothing and
            // is cut where the body is (the truncation note covers both).
            let text = String::from_utf8_lossy(&self.body).into_owned();
            entry.insert("bodyText".into(), Value::String(text));
        }
        Value::Object(entry)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking holder cannot leave these half-updated: keep serving.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The router without the guard; `run` adds it.
pub(super) fn router(scenario: Scenario, secret: Option<String>) -> Router {
    let used = vec![0; scenario.replies.len()];
    let mock = Arc::new(Mock {
        scenario,
        used: Mutex::new(used),
        recorded: Mutex::new(Recording::default()),
        secret,
        next_id: AtomicU64::new(1),
        in_flight: AtomicU64::new(0),
        peak_in_flight: AtomicU64::new(0),
    });
    Router::new()
        .route("/chat/completions", post(openai_route))
        .route("/v1/chat/completions", post(openai_route))
        .route("/v1/messages", post(anthropic_route))
        .route("/messages", post(anthropic_route))
        .route("/systemone", post(systemone_route))
        .route("/v1/systemone", post(systemone_route))
        .route(REQUESTS_PATH, get(requests))
        .route(STATS_PATH, get(stats))
        .with_state(mock)
}

/// Serves until the process is killed; stdin is ignored, as by the other HTTP mocks.
pub async fn serve(scenario: Scenario, guard: Guard) -> Result<(), String> {
    let secret = std::env::var(SECRET_ENV).ok().filter(|s| !s.is_empty());
    let (listener, addr) = loopback::bind().await?;
    let router = loopback::guarded(router(scenario, secret), guard, "mock-llm");
    loopback::announce(&format!("http://{addr}"))?;
    // Answers go out at once rather than waiting on Nagle for the client's ACK.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router)
        .await
        .map_err(|e| format!("http server stopped: {e}"))
}

async fn openai_route(State(mock): State<Arc<Mock>>, request: Request) -> Response<Body> {
    handle(&mock, Style::Openai, request).await
}

async fn anthropic_route(State(mock): State<Arc<Mock>>, request: Request) -> Response<Body> {
    handle(&mock, Style::Anthropic, request).await
}

async fn systemone_route(State(mock): State<Arc<Mock>>, request: Request) -> Response<Body> {
    handle(&mock, Style::Systemone, request).await
}

async fn requests(State(mock): State<Arc<Mock>>) -> Response<Body> {
    let all: Vec<Value> = lock(&mock.recorded)
        .entries
        .iter()
        .map(Recorded::entry)
        .collect();
    json_response(StatusCode::OK, &Value::Array(all))
}

async fn stats(State(mock): State<Arc<Mock>>) -> Response<Body> {
    json_response(StatusCode::OK, &mock.stats())
}

fn json_response(status: StatusCode, body: &Value) -> Response<Body> {
    raw_response(status, "application/json", body.to_string())
}

fn raw_response(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Body>,
) -> Response<Body> {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn error_response(style: Style, status: StatusCode, message: &str) -> Response<Body> {
    let body = match style {
        Style::Openai => openai::error(status.as_u16(), message),
        Style::Anthropic => anthropic::error(status.as_u16(), message),
        Style::Systemone => systemone::error(status.as_u16(), message),
    };
    json_response(status, &body)
}

async fn handle(mock: &Mock, style: Style, request: Request) -> Response<Body> {
    let _in_flight = InFlight::enter(mock);
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_string();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        eprintln!("mock-llm: POST {path} → 413");
        return error_response(
            style,
            StatusCode::PAYLOAD_TOO_LARGE,
            "mock-llm: body too large",
        );
    };
    let text = style == Style::Systemone;
    mock.record(parts.method.as_str(), &path, &parts.headers, &bytes, text);
    if let Some(only) = mock.scenario.style.filter(|s| *s != style) {
        eprintln!(
            "mock-llm: POST {path} → 404 (scenario serves {} only)",
            only.as_str()
        );
        let message = format!(
            "mock-llm: this scenario serves the {} style only",
            only.as_str()
        );
        return error_response(style, StatusCode::NOT_FOUND, &message);
    }
    let Some(facts) = Facts::read(style, &bytes) else {
        eprintln!("mock-llm: POST {path} → 400 (body is not a JSON object)");
        let message = "mock-llm: the request body is not a JSON object";
        return error_response(style, StatusCode::BAD_REQUEST, message);
    };
    let summary = Summary(&facts);
    let Some((index, reply)) = mock.choose(&facts) else {
        eprintln!("mock-llm: POST {path} {summary} → 500 (no reply matches)");
        let message = if style == Style::Systemone {
            format!(
                "mock-llm: no reply matches (or every match is used up): model={:?}, questions={:?}",
                facts.model, facts.question_keys
            )
        } else {
            format!(
                "mock-llm: no reply matches (or every match is used up): model={:?}, toolMsgs={}, lastUserText={:?}",
                facts.model,
                facts.tool_results.len(),
                facts.last_user_text
            )
        };
        return error_response(style, StatusCode::INTERNAL_SERVER_ERROR, &message);
    };
    if reply.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(reply.delay_ms)).await;
    }
    let response = match &reply.answer {
        Answer::Turn(turn) => mock.turn(&facts, turn, &bytes),
        // `Bytes` clones share the scenario's copy.
        Answer::Decision(body) => raw_response(StatusCode::OK, "application/json", body.clone()),
        Answer::Fail(failure) => fail(style, facts.stream, failure),
    };
    eprintln!(
        "mock-llm: POST {path} {summary} → reply {index} ({})",
        response.status().as_u16()
    );
    response
}

/// The log line's request summary, written straight into the line.
struct Summary<'a>(&'a Facts);

impl std::fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.style == Style::Systemone {
            // The count only: question keys are the caller's content.
            return write!(
                f,
                "model={:?} questions={}",
                self.0.model,
                self.0.question_keys.len()
            );
        }
        write!(
            f,
            "model={:?} toolMsgs={} stream={}",
            self.0.model,
            self.0.tool_results.len(),
            self.0.stream
        )
    }
}

impl Mock {
    /// The first matching reply not used up, counted as used; only a reply whose kind
    /// serves the request's wire is considered (a turn never answers a systemone request,
    /// a decision never a chat request).
    fn choose(&self, facts: &Facts) -> Option<(usize, &Reply)> {
        let mut used = lock(&self.used);
        for (i, reply) in self.scenario.replies.iter().enumerate() {
            let count = used.get(i).copied().unwrap_or(0);
            if reply.times.is_some_and(|t| count >= t)
                || !reply.answer.serves(facts.style)
                || !facts.matches(&reply.when)
            {
                continue;
            }
            if let Some(c) = used.get_mut(i) {
                *c += 1;
            }
            return Some((i, reply));
        }
        None
    }

    /// Keeps the request; `text` adds its `bodyText` to the entry.
    fn record(&self, method: &str, path: &str, headers: &HeaderMap, bytes: &Bytes, text: bool) {
        let mut shown_headers = Vec::with_capacity(headers.keys_len());
        for name in headers.keys() {
            let values: Vec<String> = headers
                .get_all(name)
                .iter()
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
                .collect();
            let secret = matches!(name.as_str(), "authorization" | "x-api-key")
                || self
                    .secret
                    .as_ref()
                    .is_some_and(|s| values.iter().any(|v| v.contains(s.as_str())));
            let shown = if secret {
                REDACTED.to_string()
            } else {
                values.join(", ")
            };
            shown_headers.push((name.as_str().to_string(), shown));
        }
        // Always a copy: a shared slice would pin the whole (up to 128 MiB) body, or for a
        // small body hyper's connection read buffer it was cut from (up to ~400 KiB), and
        // the byte cap would count far less than the recording holds.
        let body = Bytes::copy_from_slice(&bytes[..bytes.len().min(MAX_RECORDED_BODY)]);
        let entry = Recorded {
            method: method.to_string(),
            path: path.to_string(),
            headers: shown_headers,
            body,
            len: bytes.len(),
            text,
        };
        lock(&self.recorded).push(entry);
    }

    /// What `GET /_mock/stats` answers: the in-flight counts, and the recording's size
    /// next to its caps.
    fn stats(&self) -> Value {
        let recording = lock(&self.recorded);
        json!({
            "peakInFlight": self.peak_in_flight.load(Ordering::SeqCst),
            "inFlight": self.in_flight.load(Ordering::SeqCst),
            "recorded": recording.entries.len(),
            "recordedCap": MAX_RECORDED,
            "recordedBytes": recording.bytes,
            "recordedBytesCap": MAX_RECORDED_BYTES,
            "recordedEvicted": recording.evicted,
        })
    }

    fn turn(&self, facts: &Facts, turn: &Turn, body: &[u8]) -> Response<Body> {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        // Only chat requests reach a turn (`Answer::serves`): Anthropic, or else OpenAI.
        let anthropic = facts.style == Style::Anthropic;
        let call_prefix = if anthropic {
            "toolu_mock_"
        } else {
            "call_mock_"
        };
        let tool_calls = turn
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, c)| RenderedCall {
                id: c
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("{call_prefix}{n}_{i}")),
                name: c.name.clone(),
                args: c.args.clone(),
                arguments: c.raw.clone().unwrap_or_else(|| c.args.to_string()),
            })
            .collect();
        let rendered = Rendered {
            id: if anthropic {
                format!("msg_mock_{n}")
            } else {
                format!("chatcmpl-mock-{n}")
            },
            created: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            model: facts.model.clone(),
            text: turn.text.as_ref().map(|t| facts.render(t, body)),
            tool_calls,
            finish_reason: turn.finish_reason.clone(),
            usage: turn.usage.unwrap_or(self.scenario.usage_per_call),
        };
        match (anthropic, facts.stream) {
            (false, false) => json_response(StatusCode::OK, &openai::completion(&rendered)),
            (true, false) => json_response(StatusCode::OK, &anthropic::message(&rendered)),
            (false, true) => sse(openai::stream(&rendered, facts.include_usage)),
            (true, true) => sse(anthropic::stream(&rendered)),
        }
    }
}

fn sse(events: Vec<String>) -> Response<Body> {
    let stream = futures::stream::iter(events.into_iter().map(Ok::<_, Infallible>));
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn fail(style: Style, stream: bool, failure: &Failure) -> Response<Body> {
    match failure {
        Failure::Status {
            status,
            retry_after,
            body,
        } => {
            let mut response = match body {
                Some(b) => raw_response(*status, "application/json", b.clone()),
                None => error_response(
                    style,
                    *status,
                    &format!("mock-llm: scripted {} failure", status.as_u16()),
                ),
            };
            if let Some(r) = retry_after {
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, r.clone());
            }
            response
        }
        Failure::Drop => {
            // A body that fails before its first byte: hyper closes the connection
            // without finishing the answer.
            let broken = futures::stream::once(async {
                Err::<Bytes, std::io::Error>(std::io::Error::other("mock-llm: scripted drop"))
            });
            let mut response = Response::new(Body::from_stream(broken));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        }
        Failure::Malformed if style == Style::Systemone => {
            raw_response(StatusCode::OK, "application/json", systemone::MALFORMED)
        }
        Failure::Malformed if stream => raw_response(
            StatusCode::OK,
            "text/event-stream",
            "data: {\"id\": \"chatcmpl-broken\", \"choices\": [\n\n",
        ),
        Failure::Malformed => raw_response(
            StatusCode::OK,
            "application/json",
            "{\"id\": \"broken\", \"choices\": [",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::scenario::parse_scenario;

    fn mock(secret: Option<&str>) -> Mock {
        Mock {
            scenario: parse_scenario(r#"{"replies": [{"text": "x"}]}"#).unwrap(),
            used: Mutex::new(vec![0]),
            recorded: Mutex::new(Recording::default()),
            secret: secret.map(String::from),
            next_id: AtomicU64::new(1),
            in_flight: AtomicU64::new(0),
            peak_in_flight: AtomicU64::new(0),
        }
    }

    fn entries(m: &Mock) -> Vec<Value> {
        lock(&m.recorded)
            .entries
            .iter()
            .map(Recorded::entry)
            .collect()
    }

    #[test]
    fn the_recording_is_bounded_in_count_and_body_size() {
        let m = mock(None);
        let headers = HeaderMap::new();
        for i in 0..MAX_RECORDED + 5 {
            m.record(
                "POST",
                &format!("/r{i}"),
                &headers,
                &Bytes::from_static(b"{}"),
                false,
            );
        }
        let recorded: Vec<Value> = entries(&m);
        assert_eq!(recorded.len(), MAX_RECORDED);
        assert_eq!(recorded[0]["path"], "/r5", "the oldest go first");

        let m = mock(None);
        let big = Bytes::from(vec![b'a'; MAX_RECORDED_BODY + 10]);
        m.record("POST", "/big", &headers, &big, false);
        let recorded: Vec<Value> = entries(&m);
        assert_eq!(
            recorded[0]["body"].as_str().map(str::len),
            Some(MAX_RECORDED_BODY)
        );
        assert!(recorded[0]["note"].as_str().unwrap().contains("truncated"));
    }

    /// The recount the running total stands in for.
    fn recount(m: &Mock) -> usize {
        lock(&m.recorded).entries.iter().map(Recorded::cost).sum()
    }

    #[test]
    fn the_recording_is_bounded_in_bytes_keeping_the_newest() {
        let m = mock(None);
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        // One 4 MB buffer, sliced per request: the body each request brings.
        let big = Bytes::from(vec![b'a'; 4_000_000]);
        for i in 0..100 {
            m.record("POST", &format!("/r{i}"), &headers, &big, false);
            let held = lock(&m.recorded).bytes;
            assert!(held <= MAX_RECORDED_BYTES, "request {i}: {held} bytes held");
            assert_eq!(held, recount(&m), "request {i}: the running total drifted");
        }
        let recorded = entries(&m);
        let kept = recorded.len();
        // Each entry costs a little over 1 MiB: fewer than 64 fit, and most of them do.
        assert!(
            (MAX_RECORDED_BYTES / MAX_RECORDED_BODY / 2..64).contains(&kept),
            "{kept}"
        );
        assert_eq!(recorded[kept - 1]["path"], "/r99", "the newest is kept");
        assert_eq!(
            recorded[0]["path"],
            format!("/r{}", 100 - kept),
            "the oldest go first"
        );
        let stats = m.stats();
        assert_eq!(stats["recordedEvicted"], 100 - kept);
        // The count cap still holds alongside the byte cap, and small bodies are counted
        // by what they hold, not by a shared buffer.
        for i in 0..MAX_RECORDED {
            m.record("POST", &format!("/s{i}"), &headers, &big.slice(..2), false);
        }
        assert_eq!(entries(&m).len(), MAX_RECORDED);
        let held = lock(&m.recorded).bytes;
        assert_eq!(held, recount(&m));
        assert!(entries(&m)
            .iter()
            .all(|e| e["body"].as_str().map(str::len) == Some(2)));
        let pinned = lock(&m.recorded)
            .entries
            .iter()
            .filter(|e| big.as_ptr_range().contains(&e.body.as_ptr()))
            .count();
        assert_eq!(pinned, 0, "kept bodies share the received buffer");
    }

    #[test]
    fn stats_state_the_recording_next_to_its_caps() {
        let m = mock(None);
        let empty = json!({
            "peakInFlight": 0, "inFlight": 0,
            "recorded": 0, "recordedCap": MAX_RECORDED,
            "recordedBytes": 0, "recordedBytesCap": MAX_RECORDED_BYTES,
            "recordedEvicted": 0,
        });
        assert_eq!(m.stats(), empty);
        m.record(
            "POST",
            "/one",
            &HeaderMap::new(),
            &Bytes::from_static(b"{}"),
            false,
        );
        let stats = m.stats();
        assert_eq!(stats["recorded"], 1);
        let held = stats["recordedBytes"].as_u64().unwrap();
        assert_eq!(held as usize, recount(&m));
        assert!(
            held >= 2 + 4 + 4,
            "body, path and method are all counted: {held}"
        );
        assert_eq!(
            MAX_RECORDED_BYTES,
            64 << 20,
            "the cap mock-servers/README.md states"
        );
    }

    #[test]
    fn secrets_are_redacted_in_any_header() {
        let m = mock(Some("s3cret"));
        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_static("Bearer abc"));
        headers.insert("x-other", HeaderValue::from_static("token s3cret"));
        headers.insert("x-plain", HeaderValue::from_static("fine"));
        m.record(
            "POST",
            "/chat/completions",
            &headers,
            &Bytes::from_static(b"nope"),
            false,
        );
        let recorded: Vec<Value> = entries(&m);
        let h = &recorded[0]["headers"];
        assert_eq!(h["authorization"], REDACTED);
        assert_eq!(h["x-other"], REDACTED);
        assert_eq!(h["x-plain"], "fine");
        assert_eq!(recorded[0]["body"], "nope");
        assert_eq!(recorded[0]["note"], "body is not JSON");
    }

    /// `bodyText` is the body as received, for systemone entries only; cut (and said to be)
    /// where the body is, and decoded lossily only where the bytes are not UTF-8.
    #[test]
    fn body_text_is_kept_for_systemone_entries_only() {
        let m = mock(None);
        let headers = HeaderMap::new();
        let sent = "{\"questions\":{\"z\":1,\"é\":2},  \"model\":\"m\"}";
        m.record(
            "POST",
            "/chat/completions",
            &headers,
            &Bytes::from(sent),
            false,
        );
        m.record("POST", "/systemone", &headers, &Bytes::from(sent), true);
        m.record(
            "POST",
            "/systemone",
            &headers,
            &Bytes::from_static(b"{\xff"),
            true,
        );
        let big = Bytes::from(vec![b'a'; MAX_RECORDED_BODY + 10]);
        m.record("POST", "/systemone", &headers, &big, true);
        let recorded = entries(&m);
        let keys = |e: &Value| -> Vec<String> {
            e.as_object()
                .map_or(Vec::new(), |o| o.keys().cloned().collect())
        };
        assert_eq!(keys(&recorded[0]), ["method", "path", "headers", "body"]);
        assert_eq!(
            keys(&recorded[1]),
            ["method", "path", "headers", "body", "bodyText"]
        );
        assert_eq!(recorded[1]["bodyText"], sent);
        assert_eq!(recorded[1]["body"]["model"], "m");
        assert_eq!(recorded[2]["bodyText"], "{\u{fffd}");
        assert_eq!(recorded[2]["note"], "body is not JSON");
        assert_eq!(
            recorded[3]["bodyText"].as_str().map(str::len),
            Some(MAX_RECORDED_BODY)
        );
        assert!(recorded[3]["note"].as_str().unwrap().contains("truncated"));
    }
}
