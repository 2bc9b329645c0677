//! The `systemone` backend: one `POST {baseUrl}/systemone` whose body is the canonical JSON
//! of `{model, questions, state}` after the `requestParams` merge and `bodyTransform`,
//! through the §8 client's retry loop (one retry policy: `onError`, `Retry-After`,
//! bounded by `retries`) with the classifier's retryable set, no jitter and a per-request
//! timeout.
//!
//! The credential is read from the environment variable the options NAME, at call time, and
//! `${ENV}` header references expand at call time too; neither value reaches an error: a
//! 401/403 names its status and the endpoint only, and every other text a server or the
//! network chose is redacted first.

use serde_json::{Map, Value};

use super::canonical::{canonical_body, encode};
use super::decision::Decision;
use super::error::ClassifierError;
use super::options::{ClassifierOptions, CLASSIFIER_RETRYABLE_STATUSES};
use super::question::{questions_wire, Questions};
use crate::client::http::{retryable_set, Answer, Secrets, Transport};
use crate::client::ClientError;
use crate::env_expand::expand;

/// The body as it is sent: base body → `request_params` merge (a params key wins) →
/// `body_transform` → canonical JSON. Without either, the canonical text is written straight
/// from the borrowed parts: the state, which may be the largest thing the host has, is never
/// copied into a JSON value first.
pub fn request_body(o: &ClassifierOptions, state: &Value, questions: &Questions) -> String {
    if o.request_params.is_empty() && o.body_transform.is_none() {
        return canonical_body(&o.model, questions, state);
    }
    let mut body = Map::new();
    body.insert("model".into(), Value::from(o.model.as_str()));
    body.insert("questions".into(), questions_wire(questions));
    body.insert("state".into(), state.clone());
    body.extend(o.request_params.clone());
    let mut body = Value::Object(body);
    if let Some(transform) = &o.body_transform {
        body = transform(body);
    }
    encode(&body)
}

/// The headers to send (an extra header replaces a same-named default, names compared
/// without case) and every value that must stay out of errors.
fn headers(o: &ClassifierOptions) -> (Vec<(String, String)>, Secrets) {
    let api_key = std::env::var(&o.api_key_env).ok().filter(|k| !k.is_empty());
    let mut hidden: Vec<String> = api_key.iter().cloned().collect();
    let mut out: Vec<(String, String)> = api_key
        .iter()
        .map(|k| ("Authorization".to_string(), format!("Bearer {k}")))
        .filter(|(name, _)| !o.headers.keys().any(|e| e.eq_ignore_ascii_case(name)))
        .collect();
    for (name, value) in &o.headers {
        let (expanded, substituted) = expand(value);
        if !substituted.is_empty() {
            // Every expanded value is hidden, whatever the header's name (SPEC §8B).
            hidden.extend(substituted);
            hidden.push(expanded.clone());
        }
        out.push((name.clone(), expanded));
    }
    (out, Secrets::from_values(hidden))
}

/// One evaluation over the wire, decoded.
pub async fn evaluate(
    o: &ClassifierOptions,
    http: &reqwest::Client,
    state: &Value,
    questions: &Questions,
) -> Result<Decision, ClassifierError> {
    let endpoint = o.endpoint();
    let (headers, secrets) = headers(o);
    let retryable = retryable_set(&CLASSIFIER_RETRYABLE_STATUSES, &o.retryable_statuses);
    let transport = Transport {
        client: http,
        url: endpoint.clone(),
        headers,
        retries: o.retries,
        retry_base_ms: o.effective_retry_base_ms(),
        retryable_statuses: &retryable,
        jitter: false,
        timeout: Some(o.timeout),
        on_error: o.on_error.as_ref(),
        secrets: &secrets,
    };
    let body = request_body(o, state, questions).into_bytes();
    let (answer, _) = transport
        .send(body, false, &|_| {})
        .await
        .map_err(|e| classify(e, &endpoint))?;
    let Answer::Json(wire) = answer else {
        // `send` with `stream: false` always reads the answer.
        return Err(ClassifierError::Answer {
            detail: "the answer was not read".into(),
        });
    };
    Decision::from_wire(&wire, questions, &o.model).map_err(|e| redact(e, &secrets))
}

/// The client loop's error as the classifier's: an authentication failure loses its body.
fn classify(e: ClientError, endpoint: &str) -> ClassifierError {
    match e {
        ClientError::Http {
            status: status @ (401 | 403),
            ..
        } => ClassifierError::Auth {
            status,
            endpoint: endpoint.to_string(),
        },
        ClientError::Http { status, body } => ClassifierError::Http { status, body },
        ClientError::Network { detail } => ClassifierError::Network { detail },
        ClientError::Unbuildable { detail } => ClassifierError::Unbuildable { detail },
        ClientError::NotResendable => ClassifierError::Unbuildable {
            detail: "the request body cannot be re-sent".into(),
        },
        ClientError::AnswerNotJson { detail } => ClassifierError::Answer {
            detail: format!("not JSON: {detail}"),
        },
        ClientError::AnswerTooBig { cap, .. } => ClassifierError::Answer {
            detail: format!("exceeds {cap} bytes; not read further"),
        },
        other => ClassifierError::Answer {
            detail: other.to_string(),
        },
    }
}

/// A decoding error whose texts came from the server, redacted.
fn redact(e: ClassifierError, secrets: &Secrets) -> ClassifierError {
    match e {
        ClassifierError::MalformedAnswer { key, detail } => ClassifierError::MalformedAnswer {
            key: secrets.redact(&key),
            detail: secrets.redact(&detail),
        },
        ClassifierError::Decision { detail } => ClassifierError::Decision {
            detail: secrets.redact(&detail),
        },
        other => other,
    }
}
