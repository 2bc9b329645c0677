//! §8 Resilience: one LLM request with retries, backoff + jitter, `Retry-After` and `onError`.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::error::ClientError;
use super::options::{ErrorDecision, ErrorInfo, OnError};

/// How much of an error body a message carries.
const BODY_SNIPPET_CHARS: usize = 500;

/// The largest `Retry-After` delay-seconds honoured (RFC 9110 / the SPEC pin).
const RETRY_AFTER_MAX: u64 = 2_147_483_647;

/// Everything a request needs besides the body.
pub(crate) struct Transport<'a> {
    pub client: &'a reqwest::Client,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub retries: u32,
    pub retry_base_ms: u64,
    pub on_error: Option<&'a OnError>,
    /// Redacted from any error text.
    pub api_key: Option<String>,
}

/// A failed attempt, reported so the caller can emit an `llm` error record.
pub(crate) type AttemptFailed<'a> = &'a (dyn Fn(Duration) + Send + Sync);

impl Transport<'_> {
    /// Sends `body` until a 2xx answer, a final failure, or the retries run out. Returns the
    /// response and when its successful attempt started.
    pub async fn send(
        &self,
        body: &Value,
        failed: AttemptFailed<'_>,
    ) -> Result<(reqwest::Response, Instant), ClientError> {
        let mut attempt: u32 = 0;
        loop {
            let started = Instant::now();
            let mut req = self.client.post(&self.url).json(body);
            for (k, v) in &self.headers {
                req = req.header(k.as_str(), v.as_str());
            }
            let (info, err, retry_after) = match req.send().await {
                Ok(resp) if resp.status().is_success() => return Ok((resp, started)),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = resp
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(parse_retry_after);
                    let text = resp.text().await.unwrap_or_default();
                    let info = ErrorInfo {
                        error: None,
                        status: Some(status),
                        attempt,
                        retryable: matches!(status, 429 | 500 | 502 | 503 | 504),
                    };
                    let msg = format!(
                        "LLM request failed: HTTP {status}: {}",
                        self.redact(&snippet(&text))
                    );
                    (info, ClientError::http(msg, status), retry_after)
                }
                Err(e) => {
                    let detail = self.redact(&error_chain(&e));
                    let info = ErrorInfo {
                        error: Some(detail.clone()),
                        status: None,
                        attempt,
                        retryable: true,
                    };
                    (
                        info,
                        ClientError::new(format!("LLM request failed: {detail}")),
                        None,
                    )
                }
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
            let delay = retry_after.unwrap_or_else(|| backoff(self.retry_base_ms, attempt));
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    fn redact(&self, text: &str) -> String {
        match &self.api_key {
            Some(k) if !k.is_empty() => text.replace(k.as_str(), "[redacted]"),
            _ => text.to_string(),
        }
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

/// The first characters of an error body, marked when cut.
fn snippet(body: &str) -> String {
    let total = body.chars().count();
    if total <= BODY_SNIPPET_CHARS {
        return body.to_string();
    }
    let head: String = body.chars().take(BODY_SNIPPET_CHARS).collect();
    format!("{head}… (truncated, {total} characters in all)")
}

/// A transport error with its causes, so "connection refused" is not lost behind
/// "error sending request".
fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
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
    fn long_bodies_are_cut_with_a_note() {
        let s = snippet(&"x".repeat(2000));
        assert!(s.starts_with(&"x".repeat(BODY_SNIPPET_CHARS)));
        assert!(s.ends_with("(truncated, 2000 characters in all)"));
        assert_eq!(snippet("short"), "short");
    }
}
