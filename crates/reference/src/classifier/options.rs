//! `ClassifierOptions` (SPEC §8B `createClassifier`): mirrors the §8 client's options field
//! for field where one makes sense, and reuses its callback types (`onError`, `onMetric`,
//! `bodyTransform`) so a host configures both the same way.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use super::decision::Decision;
use super::error::ClassifierError;
use super::question::Questions;
use crate::client::{BodyTransform, Client, OnError, OnMetric};

/// The default System One endpoint base.
pub const DEFAULT_BASE_URL: &str = "https://api.typesafe.ai/v1";

/// The default model.
pub const DEFAULT_MODEL: &str = "jev-latest";

/// The default name of the credential's environment variable.
pub const DEFAULT_API_KEY_ENV: &str = "TYPESAFE_API_KEY";

/// The default per-request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The backoff base used when `retry_base_ms` is zero or negative.
pub const DEFAULT_RETRY_BASE_MS: u64 = 500;

/// The classifier's default retryable statuses: the §8 client's set plus `408` (network
/// errors are retryable too).
pub const CLASSIFIER_RETRYABLE_STATUSES: [u16; 7] = [408, 429, 500, 502, 503, 504, 529];

/// Which backend answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// One `POST {baseUrl}/systemone` with the canonical body.
    #[default]
    SystemOne,
    /// One structured-output run of a §8 [`Client`]; reports `calibrated: false`.
    Llm,
    /// The host's own [`EvaluateFn`]; every wire option is ignored.
    Custom,
    /// Recorded decisions keyed by the canonical request: no network, no credential.
    Static,
}

impl std::str::FromStr for Style {
    type Err = ClassifierError;

    /// The SPEC spelling (`systemone`, `llm`, `custom`, `static`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "systemone" => Ok(Style::SystemOne),
            "llm" => Ok(Style::Llm),
            "custom" => Ok(Style::Custom),
            "static" => Ok(Style::Static),
            other => Err(ClassifierError::UnknownStyle {
                style: other.to_string(),
            }),
        }
    }
}

/// `style: "custom"`: the host's `evaluate(state, questions)`; an `Err` is raised as it is
/// (in [`ClassifierError::Custom`]).
pub type EvaluateFn =
    Arc<dyn Fn(Value, Questions) -> BoxFuture<'static, Result<Decision, String>> + Send + Sync>;

/// One recorded `static` entry: the request it answers and the backend's response body.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedDecision {
    /// The recorded request's questions (the model is the classifier's).
    pub questions: Questions,
    /// The recorded request's state; tells apart entries sharing one canonical request.
    pub state: Value,
    /// The backend's response body, a systemone wire decision.
    pub response: Value,
}

/// Everything `createClassifier` accepts. [`Default`] gives the SPEC's defaults.
#[derive(Clone)]
pub struct ClassifierOptions {
    /// The backend (default `systemone`).
    pub style: Style,
    /// The System One endpoint base; a trailing `/` is trimmed.
    pub base_url: String,
    /// Sent in the canonical request; pin it once thresholds are tuned.
    pub model: String,
    /// The NAME of the environment variable holding the credential, read at call time.
    pub api_key_env: String,
    /// Extra headers; values expand `${ENV_VAR}` at call time and never reach an error.
    pub headers: BTreeMap<String, String>,
    /// Per request, not per evaluation.
    pub timeout: Duration,
    /// Retries after the first attempt.
    pub retries: u32,
    /// Backoff base in ms: the delay is `base · 2^attempt`, no jitter; zero or negative ⇒
    /// [`DEFAULT_RETRY_BASE_MS`]. A `Retry-After` delay-seconds value wins.
    pub retry_base_ms: i64,
    /// Statuses added to [`CLASSIFIER_RETRYABLE_STATUSES`]; never removes one.
    pub retryable_statuses: Vec<u16>,
    /// The §8 retry-vs-fail classifier, asked per failed attempt; a retry is bounded by
    /// `retries`. Absent ⇒ retry exactly the retryable failures.
    pub on_error: Option<OnError>,
    /// Merged into the body (a key here wins).
    pub request_params: Map<String, Value>,
    /// The last rewrite of the body, after the merge.
    pub body_transform: Option<BodyTransform>,
    /// The §8 metric sink: `classifier.evaluate` and `classifier.warning` records.
    pub on_metric: Option<OnMetric>,
    /// The HTTP client of the `systemone` requests (Gap 2); absent ⇒ the shared one.
    pub http_client: Option<reqwest::Client>,
    /// `style: Llm`: the §8 client to emulate over.
    pub client: Option<Client>,
    /// `style: Custom`: the host's function.
    pub evaluate: Option<EvaluateFn>,
    /// `style: Static`: the recorded corpus.
    pub decisions: Vec<RecordedDecision>,
}

impl Default for ClassifierOptions {
    fn default() -> Self {
        Self {
            style: Style::SystemOne,
            base_url: DEFAULT_BASE_URL.to_string(),
            model: DEFAULT_MODEL.to_string(),
            api_key_env: DEFAULT_API_KEY_ENV.to_string(),
            headers: BTreeMap::new(),
            timeout: DEFAULT_TIMEOUT,
            retries: 2,
            retry_base_ms: DEFAULT_RETRY_BASE_MS as i64,
            retryable_statuses: Vec::new(),
            on_error: None,
            request_params: Map::new(),
            body_transform: None,
            on_metric: None,
            http_client: None,
            client: None,
            evaluate: None,
            decisions: Vec::new(),
        }
    }
}

impl ClassifierOptions {
    /// The backoff base actually used.
    pub fn effective_retry_base_ms(&self) -> u64 {
        u64::try_from(self.retry_base_ms)
            .ok()
            .filter(|b| *b > 0)
            .unwrap_or(DEFAULT_RETRY_BASE_MS)
    }

    /// `POST` target: `{base_url without a trailing /}/systemone`.
    pub fn endpoint(&self) -> String {
        format!("{}/systemone", self.base_url.trim_end_matches('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_specs() {
        let o = ClassifierOptions::default();
        assert_eq!(o.style, Style::SystemOne);
        assert_eq!(o.endpoint(), "https://api.typesafe.ai/v1/systemone");
        assert_eq!(o.model, "jev-latest");
        assert_eq!(o.api_key_env, "TYPESAFE_API_KEY");
        assert_eq!((o.timeout, o.retries), (Duration::from_secs(10), 2));
        assert_eq!(o.effective_retry_base_ms(), 500);
    }

    #[test]
    fn retry_base_zero_or_negative_is_500() {
        for (given, used) in [(0, 500), (-7, 500), (1, 1), (250, 250)] {
            let o = ClassifierOptions {
                retry_base_ms: given,
                ..ClassifierOptions::default()
            };
            assert_eq!(o.effective_retry_base_ms(), used, "{given}");
        }
    }

    #[test]
    fn styles_parse_and_an_unknown_one_is_an_error() {
        assert_eq!("static".parse::<Style>(), Ok(Style::Static));
        assert_eq!("llm".parse::<Style>(), Ok(Style::Llm));
        let err = "openai".parse::<Style>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "classifier: unknown style \"openai\" (systemone | llm | custom | static)"
        );
    }

    #[test]
    fn the_endpoint_trims_one_or_more_trailing_slashes() {
        let o = ClassifierOptions {
            base_url: "http://h:1/v1//".into(),
            ..ClassifierOptions::default()
        };
        assert_eq!(o.endpoint(), "http://h:1/v1/systemone");
    }
}
