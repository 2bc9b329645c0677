//! §8 Resilience: one LLM request with retries, backoff + jitter, `Retry-After` and `onError`.
//! The §8B classifier's `systemone` request goes through the same loop (one retry policy):
//! it passes its own retryable set, no jitter and a per-request timeout.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::body::{error_chain, read_capped, read_prefix, BodyError, ANSWER_CAP, ERROR_BODY_CAP};
use super::error::ClientError;
use super::options::{ErrorDecision, ErrorInfo, OnError};

/// How much of an error body a message carries.
const BODY_SNIPPET_CHARS: usize = 500;

/// The largest `Retry-After` delay-seconds honoured (RFC 9110 / the SPEC pin).
const RETRY_AFTER_MAX: u64 = 2_147_483_647;

/// The §8 client's enumerated retryable statuses (network errors are retryable too). The
/// set is exhaustive: every other status (`501`, `505`, `520`–`527`, …) is terminal unless a
/// host's `retryable_statuses` adds it.
pub const DEFAULT_RETRYABLE_STATUSES: [u16; 6] = [429, 500, 502, 503, 504, 529];

/// The default set plus what a host added; an addition can never remove a default.
pub fn retryable_set(defaults: &[u16], added: &[u16]) -> Vec<u16> {
    let mut set: Vec<u16> = defaults.iter().chain(added).copied().collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// Everything a request needs besides the body.
pub(crate) struct Transport<'a> {
    pub client: &'a reqwest::Client,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub retries: u32,
    pub retry_base_ms: u64,
    /// The statuses `onError`'s `info.retryable` (and the default decision) calls
    /// retryable: [`retryable_set`] of the caller's defaults and the host's additions.
    pub retryable_statuses: &'a [u16],
    /// Adds up to `retry_base_ms` of random delay to each backoff (the §8 client); without
    /// it the delay is exactly `base · 2^attempt` (the §8B classifier).
    pub jitter: bool,
    /// A bound on each attempt, from connecting until the answer is read (§8B's per-request
    /// `timeout`); `None` ⇒ only the HTTP client's own bounds.
    pub timeout: Option<Duration>,
    pub on_error: Option<&'a OnError>,
    /// Redacted from any error text.
    pub secrets: &'a Secrets,
}

/// A failed attempt, reported so the caller can emit an `llm` error record.
pub(crate) type AttemptFailed<'a> = &'a (dyn Fn(Duration) + Send + Sync);

/// What a successful attempt hands back.
pub(crate) enum Answer {
    /// The whole JSON answer, read within [`ANSWER_CAP`].
    Json(Value),
    /// The response, its SSE body still to be read (by `sse`, within the same cap).
    Stream(reqwest::Response),
}

impl Transport<'_> {
    /// Sends `body` until a 2xx answer, a final failure, or the retries run out. With
    /// `stream` false the answer body is read (bounded) inside the retry loop, so a
    /// connection dropped mid-body is a network error like any other. Returns the answer
    /// and when its successful attempt started.
    pub async fn send(
        &self,
        body: Vec<u8>,
        stream: bool,
        failed: AttemptFailed<'_>,
    ) -> Result<(Answer, Instant), ClientError> {
        // Built once; an attempt clones it, which shares the body bytes.
        let request = self.request(body).build();
        let mut attempt: u32 = 0;
        loop {
            let started = Instant::now();
            let sent = match &request {
                Ok(r) => match r.try_clone() {
                    Some(r) => self.client.execute(r).await,
                    // Unreachable for a byte body; a failure, never a panic.
                    None => return Err(ClientError::NotResendable),
                },
                // A request that cannot be built never reaches the wire, so the body does
                // not matter: this answers the same builder error again.
                Err(_) => self.request(Vec::new()).send().await,
            };
            let (info, err, retry_after) = match sent {
                Ok(resp) if resp.status().is_success() && stream => {
                    return Ok((Answer::Stream(resp), started))
                }
                Ok(resp) if resp.status().is_success() => {
                    match read_capped(resp, ANSWER_CAP).await {
                        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                            Ok(v) => return Ok((Answer::Json(v), started)),
                            Err(e) => {
                                failed(started.elapsed());
                                return Err(ClientError::AnswerNotJson {
                                    detail: e.to_string(),
                                });
                            }
                        },
                        // Final, not retried and not shown to `onError`: a 2xx answer that
                        // is too big is a broken or hostile server, not one of the SPEC's
                        // transient failures (429/5xx/network), and asking again would
                        // fetch the same answer. Like a non-JSON answer, it just fails.
                        Err(BodyError::TooBig { what, cap }) => {
                            failed(started.elapsed());
                            return Err(ClientError::AnswerTooBig { what, cap });
                        }
                        // The connection failed mid-body: a network error, retryable.
                        Err(BodyError::Transport(detail)) => {
                            let detail = self
                                .secrets
                                .redact(&format!("reading the answer failed: {detail}"));
                            network_failure(detail, attempt)
                        }
                    }
                }
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    // `HeaderMap` lookups are case-insensitive.
                    let retry_after = resp
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(parse_retry_after);
                    let (bytes, cut) = read_prefix(resp, ERROR_BODY_CAP).await;
                    let text = String::from_utf8_lossy(&bytes);
                    let info = ErrorInfo {
                        error: None,
                        status: Some(status),
                        attempt,
                        retryable: self.retryable_statuses.contains(&status),
                    };
                    // Redact the whole read text before cutting it, so a key straddling
                    // the cut cannot leave a prefix of itself behind.
                    let body = snippet(&self.secrets.redact(&text), cut);
                    (info, ClientError::Http { status, body }, retry_after)
                }
                // A request that could not even be built (a malformed URL or header
                // value) is no network error: retrying cannot help.
                Err(e) if e.is_builder() => {
                    let detail = self.secrets.redact(&error_chain(&e));
                    let info = ErrorInfo {
                        error: Some(detail.clone()),
                        status: None,
                        attempt,
                        retryable: false,
                    };
                    (info, ClientError::Unbuildable { detail }, None)
                }
                Err(e) => network_failure(self.secrets.redact(&error_chain(&e)), attempt),
            };
            failed(started.elapsed());
            let decision = match self.on_error {
                Some(f) => f(&info),
                None if info.retryable => ErrorDecision::Retry,
                None => ErrorDecision::Fail,
            };
            if decision == ErrorDecision::Fail || attempt >= self.retries {
                return Err(err);
            }
            let delay = retry_after.unwrap_or_else(|| {
                if self.jitter {
                    backoff(self.retry_base_ms, attempt)
                } else {
                    exact_backoff(self.retry_base_ms, attempt)
                }
            });
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }
}

impl Transport<'_> {
    /// The request with its content type first (where `RequestBuilder::json` put it), so
    /// extra headers follow it.
    fn request(&self, body: Vec<u8>) -> reqwest::RequestBuilder {
        let mut req = self.client.post(&self.url).header(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_static("application/json"),
        );
        for (k, v) in &self.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        if let Some(t) = self.timeout {
            req = req.timeout(t);
        }
        req.body(body)
    }
}

/// A network error (already redacted): in the default retryable set, no `Retry-After`.
fn network_failure(detail: String, attempt: u32) -> (ErrorInfo, ClientError, Option<Duration>) {
    let info = ErrorInfo {
        error: Some(detail.clone()),
        status: None,
        attempt,
        retryable: true,
    };
    (info, ClientError::Network { detail }, None)
}

/// The secrets a client sends (its API key, and the values of extra headers whose names
/// say they carry credentials), kept out of every error message.
#[derive(Debug, Clone, Default)]
pub(crate) struct Secrets(Vec<String>);

impl Secrets {
    /// The key plus every credential-looking extra header value (and, for
    /// `Authorization: <scheme> <token>`, the token alone too).
    pub fn new<'h>(
        api_key: Option<&str>,
        headers: impl IntoIterator<Item = (&'h String, &'h String)>,
    ) -> Self {
        let mut out: Vec<String> = api_key.into_iter().map(str::to_string).collect();
        for (name, value) in headers {
            let n = name.to_ascii_lowercase();
            let secret = ["auth", "key", "token", "secret", "cookie", "password"]
                .iter()
                .any(|w| n.contains(w));
            if secret {
                out.push(value.clone());
                if let Some((_, token)) = value.split_once(' ') {
                    out.push(token.trim().to_string());
                }
            }
        }
        out.retain(|s| !s.trim().is_empty());
        // Longest first, so a token inside a longer header value is not half-replaced.
        out.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Secrets(out)
    }

    /// Exactly these values (the §8B classifier's credential and expanded header values).
    pub fn from_values(values: impl IntoIterator<Item = String>) -> Self {
        let mut out: Vec<String> = values
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .collect();
        out.sort_by_key(|s| std::cmp::Reverse(s.len()));
        out.dedup();
        Secrets(out)
    }

    /// `text` with every secret replaced by `[redacted]` (a short one only as a whole
    /// token, so a one-letter key does not mangle the words around it: NOTES #335).
    pub fn redact(&self, text: &str) -> String {
        self.0.iter().fold(text.to_string(), |acc, s| {
            crate::env_expand::replace_secret(&acc, s, "[redacted]")
        })
    }
}

/// `Retry-After` in its delay-seconds form only: ASCII digits, `0 ..= 2147483647`, exactly
/// that many whole seconds. Anything else (`1.5`, `-1`, an HTTP date, empty) is `None`.
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Leading zeros are still digits; a run too long for u64 is simply out of range.
    let n: u64 = value.parse().ok()?;
    (n <= RETRY_AFTER_MAX).then(|| Duration::from_secs(n))
}

/// `base · 2^attempt` plus up to `base` of jitter (never zero: at least 1 ms).
pub fn backoff(base_ms: u64, attempt: u32) -> Duration {
    let exp = base_ms.saturating_mul(1u64 << attempt.min(20));
    let jitter = if base_ms > 0 {
        fastrand::u64(0..base_ms)
    } else {
        0
    };
    Duration::from_millis(exp.saturating_add(jitter).max(1))
}

/// `base · 2^attempt` exactly, no jitter (§8B's `retryBaseMs`; never zero: at least 1 ms).
pub fn exact_backoff(base_ms: u64, attempt: u32) -> Duration {
    Duration::from_millis(base_ms.saturating_mul(1u64 << attempt.min(20)).max(1))
}

/// The first characters of an error body (or message), marked when cut; `unread` says
/// the body itself went on past what was read.
pub(crate) fn snippet(body: &str, unread: bool) -> String {
    let total = body.chars().count();
    if total <= BODY_SNIPPET_CHARS && !unread {
        return body.to_string();
    }
    let head: String = body.chars().take(BODY_SNIPPET_CHARS).collect();
    if unread {
        return format!(
            "{head}… (truncated; the body exceeds {ERROR_BODY_CAP} bytes, the rest was not read)"
        );
    }
    format!("{head}… (truncated, {total} characters in all)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_accepts_only_delay_seconds() {
        assert_eq!(parse_retry_after("0"), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_retry_after("2147483647"),
            Some(Duration::from_secs(2_147_483_647))
        );
        for bad in [
            "",
            "1.5",
            "-1",
            "+1",
            " 1",
            "2147483648",
            "99999999999999999999999",
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "١",
        ] {
            assert_eq!(parse_retry_after(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn backoff_grows_and_is_never_zero() {
        assert!(backoff(0, 0) >= Duration::from_millis(1));
        let d = backoff(100, 2);
        assert!(d >= Duration::from_millis(400) && d < Duration::from_millis(500));
        // Huge attempts saturate instead of overflowing.
        let _ = backoff(u64::MAX, 63);
    }

    #[test]
    fn exact_backoff_doubles_without_jitter() {
        assert_eq!(exact_backoff(500, 0), Duration::from_millis(500));
        assert_eq!(exact_backoff(500, 1), Duration::from_millis(1000));
        assert_eq!(exact_backoff(3, 4), Duration::from_millis(48));
        assert_eq!(exact_backoff(0, 0), Duration::from_millis(1));
        let _ = exact_backoff(u64::MAX, 63);
    }

    #[test]
    fn the_retryable_set_only_grows() {
        let set = retryable_set(&DEFAULT_RETRYABLE_STATUSES, &[]);
        assert_eq!(set, [429, 500, 502, 503, 504, 529]);
        for terminal in [400, 401, 501, 505, 520, 527] {
            assert!(!set.contains(&terminal), "{terminal}");
        }
        let added = retryable_set(&DEFAULT_RETRYABLE_STATUSES, &[520, 429, 409]);
        assert_eq!(added, [409, 429, 500, 502, 503, 504, 520, 529]);
    }

    #[test]
    fn long_bodies_are_cut_with_a_note() {
        let s = snippet(&"x".repeat(2000), false);
        assert!(s.starts_with(&"x".repeat(BODY_SNIPPET_CHARS)));
        assert!(s.ends_with("(truncated, 2000 characters in all)"));
        assert_eq!(snippet("short", false), "short");
        assert!(snippet("short", true).ends_with("the rest was not read)"));
    }

    #[test]
    fn secrets_cover_the_key_and_credential_headers() {
        let headers = [
            ("Authorization".to_string(), "Bearer tok-123".to_string()),
            ("X-Trace".to_string(), "plain".to_string()),
        ];
        let s = Secrets::new(Some("sk-1"), headers.iter().map(|(k, v)| (k, v)));
        assert_eq!(
            s.redact("sk-1 tok-123 Bearer tok-123 plain"),
            "[redacted] [redacted] [redacted] plain"
        );
    }

    #[test]
    fn a_one_letter_key_is_redacted_where_it_leaks_and_nowhere_else() {
        let headers = [("X-Api-Key".to_string(), "k".to_string())];
        let s = Secrets::new(Some("k"), headers.iter().map(|(k, v)| (k, v)));
        assert_eq!(
            s.redact("HTTP 401: key must be a string, got k"),
            "HTTP 401: key must be a string, got [redacted]"
        );
    }
}
