//! The one error type of the §8B classifier: one kind per way constructing a classifier or an
//! evaluation fails. Every text a server, the network or the host chose is redacted before it
//! is put into a kind, so no `Display` text carries the credential or an expanded header value.

use std::fmt;

/// The most options a `choice` may offer (SPEC §8B).
pub const MAX_CHOICE_OPTIONS: usize = 255;

/// The fewest levels a `score` rubric may have.
pub const MIN_SCORE_LEVELS: usize = 2;

/// The most levels a `score` rubric may have.
pub const MAX_SCORE_LEVELS: usize = 10;

/// Why constructing a classifier, or one `evaluate`, failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClassifierError {
    /// `style` is none of `systemone`, `llm`, `custom`, `static`.
    UnknownStyle {
        /// The style as given.
        style: String,
    },
    /// `style: "llm"` without a `client`.
    MissingClient,
    /// `style: "custom"` without an `evaluate`.
    MissingEvaluate,
    /// `evaluate` was given no question.
    NoQuestions,
    /// A `choice` offers no option or more than [`MAX_CHOICE_OPTIONS`].
    ChoiceOptions {
        /// The question's key.
        key: String,
        /// How many options it offers.
        got: usize,
    },
    /// A `score` rubric has fewer than [`MIN_SCORE_LEVELS`] or more than [`MAX_SCORE_LEVELS`].
    ScoreLevels {
        /// The question's key.
        key: String,
        /// How many levels it has.
        got: usize,
    },
    /// The backend refused the credential (401/403): status and endpoint, never the body.
    Auth {
        /// 401 or 403.
        status: u16,
        /// The URL posted to.
        endpoint: String,
    },
    /// Any other non-2xx answer (after the retries, if any), with the backend's own words.
    Http {
        /// The final attempt's status.
        status: u16,
        /// The answer's body, redacted and cut to a snippet.
        body: String,
    },
    /// The connection failed (or an attempt passed the per-request timeout); redacted.
    Network {
        /// The error chain.
        detail: String,
    },
    /// The request could not be built (a malformed URL or header value); redacted.
    Unbuildable {
        /// The error chain.
        detail: String,
    },
    /// A 2xx answer whose body is not JSON, or that was too big to read.
    Answer {
        /// What was wrong with it.
        detail: String,
    },
    /// The decision as a whole is malformed (not an object, `answers` missing, …).
    Decision {
        /// What was wrong with it.
        detail: String,
    },
    /// One answer is malformed; it names the answer's key and is never repaired.
    MalformedAnswer {
        /// The answer's key.
        key: String,
        /// What was wrong with it.
        detail: String,
    },
    /// `style: "static"`: no recorded decision for this request.
    Unmatched {
        /// The request's question keys, in the caller's order.
        keys: Vec<String>,
    },
    /// `style: "custom"`: the host's `evaluate` raised.
    Custom {
        /// What it raised.
        message: String,
    },
    /// `style: "llm"`: the §8 client's run raised.
    Llm {
        /// The run's error message (the client redacts its own secrets).
        message: String,
    },
    /// `style: "llm"`: the model's reply holds no JSON object.
    LlmReply {
        /// What was wrong with it.
        detail: String,
    },
}

impl fmt::Display for ClassifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("classifier: ")?;
        match self {
            ClassifierError::UnknownStyle { style } => write!(
                f,
                "unknown style {style:?} (systemone | llm | custom | static)"
            ),
            ClassifierError::MissingClient => {
                f.write_str("style \"llm\" needs a client to emulate over")
            }
            ClassifierError::MissingEvaluate => {
                f.write_str("style \"custom\" needs an evaluate function")
            }
            ClassifierError::NoQuestions => f.write_str("evaluate needs at least one question"),
            ClassifierError::ChoiceOptions { key, got } => write!(
                f,
                "question {key:?}: a choice takes 1..{MAX_CHOICE_OPTIONS} options, got {got}"
            ),
            ClassifierError::ScoreLevels { key, got } => write!(
                f,
                "question {key:?}: a score takes {MIN_SCORE_LEVELS}..{MAX_SCORE_LEVELS} levels, got {got}"
            ),
            ClassifierError::Auth { status, endpoint } => {
                write!(f, "authentication failed: HTTP {status} from {endpoint}")
            }
            ClassifierError::Http { status, body } => {
                write!(f, "systemone request failed: HTTP {status}: {body}")
            }
            ClassifierError::Network { detail } | ClassifierError::Unbuildable { detail } => {
                write!(f, "systemone request failed: {detail}")
            }
            ClassifierError::Answer { detail } => write!(f, "systemone answer: {detail}"),
            ClassifierError::Decision { detail } => write!(f, "malformed decision: {detail}"),
            ClassifierError::MalformedAnswer { key, detail } => {
                write!(f, "answer {key:?}: {detail}")
            }
            ClassifierError::Unmatched { keys } => {
                let keys: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
                write!(
                    f,
                    "no recorded decision for the request of question(s) {}",
                    keys.join(", ")
                )
            }
            ClassifierError::Custom { message } => write!(f, "evaluate failed: {message}"),
            ClassifierError::Llm { message } => write!(f, "llm backend failed: {message}"),
            ClassifierError::LlmReply { detail } => write!(f, "llm backend reply: {detail}"),
        }
    }
}

impl std::error::Error for ClassifierError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limit errors name the question key and the limit (SPEC §8B "Limits").
    #[test]
    fn limit_errors_name_the_key_and_the_limit() {
        let e = ClassifierError::ChoiceOptions {
            key: "moves".into(),
            got: 256,
        };
        assert_eq!(
            e.to_string(),
            "classifier: question \"moves\": a choice takes 1..255 options, got 256"
        );
        let e = ClassifierError::ScoreLevels {
            key: "grade".into(),
            got: 11,
        };
        assert_eq!(
            e.to_string(),
            "classifier: question \"grade\": a score takes 2..10 levels, got 11"
        );
        let e = ClassifierError::Unmatched {
            keys: vec!["b".into(), "a".into()],
        };
        assert_eq!(
            e.to_string(),
            "classifier: no recorded decision for the request of question(s) \"b\", \"a\""
        );
    }
}
