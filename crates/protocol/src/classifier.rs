//! The §8B classifier commands' typed parts (PROTOCOL.md §5.29–§5.30, §6B): the options a
//! driver builds a `Classifier` from, the questions an `evaluate` carries, and the `Decision`
//! it answers.
//!
//! Maps here are [`IndexMap`]s: they keep the order the harness wrote. The SPEC makes sorting
//! the canonical request's keys the port's job, so the harness sends them unsorted on purpose
//! and a driver must pass them on in that order.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::client::{BodyTransformBehaviour, Observed, OnErrorBehaviour, OnMetricBehaviour};

/// Every classifier option key (§6B), the fields of [`ClassifierOptions`]; an unknown key is a
/// `bad_request`. For drivers that read the options as JSON.
pub const CLASSIFIER_OPTION_KEYS: [&str; 16] = [
    "style",
    "baseUrl",
    "model",
    "apiKeyEnv",
    "headers",
    "timeoutMs",
    "retries",
    "retryBaseMs",
    "retryableStatuses",
    "onError",
    "requestParams",
    "bodyTransform",
    "onMetric",
    "client",
    "evaluate",
    "decisions",
];

/// `createClassifier` options, the SPEC's JS spelling (§6B). Host code (`onError`,
/// `bodyTransform`, `evaluate`) is named by behaviours, as the client's is.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClassifierOptions {
    /// `systemone` | `llm` | `custom` | `static`, kept as text so an unknown one is the
    /// port's own error; absent ⇒ the port's default (`systemone`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    /// The System One endpoint base; the port POSTs `{baseUrl}/systemone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The model id, sent in the canonical request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The NAME of the environment variable holding the credential.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// Extra request headers; values expand `${ENV_VAR}` at call time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// The per-request timeout in milliseconds (the driver converts to its port's unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The retry budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
    /// The backoff base; zero or negative ⇒ the default 500.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_base_ms: Option<i64>,
    /// Statuses added to the default retryable set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable_statuses: Option<Vec<u16>>,
    /// The retry-vs-fail classifier (the client's behaviour; each `info` lands in
    /// `onErrorCalls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_error: Option<OnErrorBehaviour>,
    /// Gap 1: merged into the body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_params: Option<Map<String, Value>>,
    /// Gap 1: the last rewrite before marshal (the client's behaviour).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_transform: Option<BodyTransformBehaviour>,
    /// Collect the `onMetric` records (`classifier.evaluate`, `classifier.warning`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_metric: Option<OnMetricBehaviour>,
    /// `style: "llm"`: the id of a §5.14 client to emulate over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
    /// `style: "custom"`: the host's `evaluate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluate: Option<EvaluateBehaviour>,
    /// `style: "static"`: the recorded corpus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decisions: Option<Vec<RecordedDecision>>,
}

/// The host's `evaluate` for `style: "custom"` (§7 "Classifier behaviours"); every call is
/// recorded in `evaluateCalls` as `{state, questions}` before it acts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum EvaluateBehaviour {
    /// Returns this decision, given in the SPEC's wire form (the systemone response shape).
    Decision(Value),
    /// Raises this message.
    Fail(String),
}

/// One entry of a `static` corpus: the request it answers and the recorded response body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordedDecision {
    /// The questions of the recorded request (the model is the classifier's).
    pub questions: IndexMap<String, Question>,
    /// The recorded request's state (a port that keys its corpus on the state too uses it).
    #[serde(default)]
    pub state: Value,
    /// The backend's response body, verbatim (a systemone wire decision).
    pub response: Value,
}

/// One SPEC §8B question, in its wire form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Question {
    /// The probability that a statement holds.
    Noul {
        /// What is asked.
        instructions: String,
        /// The true and false cases; absent and empty are different values.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criteria: Option<NoulCriteria>,
    },
    /// One option from a named set.
    Choice {
        /// What is asked.
        instructions: String,
        /// Option id → what picking it means, in the order the harness wrote.
        criteria: IndexMap<String, String>,
    },
    /// A rating against an ordered rubric; the order is the level numbering.
    Score {
        /// What is asked.
        instructions: String,
        /// The levels, in order.
        criteria: Vec<String>,
    },
}

/// A noul question's criteria. Each case may be absent: the protocol carries what the
/// scenario wrote, so an empty `{}` reaches the port as the empty value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoulCriteria {
    /// The true case.
    #[serde(default, rename = "true", skip_serializing_if = "Option::is_none")]
    pub true_case: Option<String>,
    /// The false case.
    #[serde(default, rename = "false", skip_serializing_if = "Option::is_none")]
    pub false_case: Option<String>,
}

/// SPEC §8B `Decision`, as a driver answers it (JS spelling; `type` discriminates each answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// The model that answered (echoed; may be more specific than the option).
    pub model: String,
    /// One answer per question, under the caller's keys.
    pub answers: IndexMap<String, DecisionAnswer>,
    /// The port's usage record, in its own fields (the SPEC names none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// Whether the numbers are calibrated probabilities.
    pub calibrated: bool,
}

/// One typed answer of a [`Decision`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum DecisionAnswer {
    /// A noul answer: the probability, no confidence.
    Noul {
        /// In `0..1`.
        noul: f64,
    },
    /// A choice answer.
    #[serde(rename_all = "camelCase")]
    Choice {
        /// The selected option id.
        choice: String,
        /// A probability per option, as returned.
        probabilities: IndexMap<String, f64>,
        /// The confidence.
        confidence: f64,
        /// Derived from `probabilities` (0.05, inclusive).
        near_uniform: bool,
    },
    /// A score answer.
    Score {
        /// May fall between levels.
        score: f64,
        /// A probability per level index (`"0"`, `"1"`, …).
        probabilities: IndexMap<String, f64>,
        /// The rubric echoed back, per level index.
        legend: IndexMap<String, String>,
        /// The confidence.
        confidence: f64,
    },
}

/// §5.30 `evaluate` success body: the decision or the raised message, and what the host
/// code saw.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluateResponse {
    /// The decision, or the message `evaluate` raised.
    pub outcome: EvaluateOutcome,
    /// `onMetric` records, `onError` infos (the shared §5.13 lists).
    pub observed: Observed,
    /// Every call of a `custom` backend's `evaluate`: `{state, questions}`.
    pub evaluate_calls: Option<Vec<Value>>,
    /// The whole answer, for JSON-path checks.
    pub raw: Value,
}

/// An evaluation's outcome.
#[derive(Debug, Clone, PartialEq)]
pub enum EvaluateOutcome {
    /// `evaluate` returned.
    Decision(Box<Decision>),
    /// `evaluate` raised this message.
    Raised(String),
}

/// The schema of `evaluate`'s answer (the typed form is [`EvaluateResponse`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateAnswer {
    /// One of `decision` / `raised`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// The message `evaluate` raised.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raised: Option<String>,
    /// Every `custom` `evaluate` call, `{state, questions}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluate_calls: Option<Vec<Value>>,
    /// `metricEvents`, `onErrorCalls`, `elapsedMs` (§5.13).
    #[serde(flatten)]
    pub observed: Observed,
}
