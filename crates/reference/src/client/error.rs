//! The one error type a client run raises: one kind per way a run fails, with what makes
//! it specific. The `Display` text is the run's error message (what `run` raises); no kind
//! carries the API key, because every text a server or the network chose is redacted before
//! it is put into one.

use std::fmt;

use super::wire::AnswerError;

/// Why a run (or a `translate`) raised.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientError {
    /// The provider answered with a non-2xx status (after the retries, if any).
    Http {
        /// The HTTP status of the final failed attempt.
        status: u16,
        /// The answer's body text, redacted and cut to a snippet.
        body: String,
    },
    /// The connection failed (before or while reading the answer); redacted.
    Network {
        /// The error chain.
        detail: String,
    },
    /// The request could not be built (a malformed URL or header value); redacted.
    Unbuildable {
        /// The error chain.
        detail: String,
    },
    /// The built request could not be cloned for an attempt (unreachable for a byte body).
    NotResendable,
    /// The request body could not be serialized.
    RequestBody {
        /// The serializer's message.
        detail: String,
    },
    /// A 2xx answer whose body is not JSON.
    AnswerNotJson {
        /// The parser's message.
        detail: String,
    },
    /// A 2xx answer larger than the cap; not read further.
    AnswerTooBig {
        /// What was read ("LLM answer").
        what: &'static str,
        /// The cap in bytes.
        cap: usize,
    },
    /// A streamed answer failed midway (a transport error, a non-JSON event, the cap, or
    /// the server's own `error` event); redacted and cut to a snippet.
    Stream {
        /// The stream's failure text.
        message: String,
    },
    /// A JSON answer the loop cannot read as a provider turn.
    Answer(AnswerError),
    /// The in-process model's `generate` failed.
    Generate {
        /// What `generate` raised.
        message: String,
    },
    /// A `beforeLlm` hook raised.
    Hook {
        /// What the hook raised.
        message: String,
    },
    /// `stream`, or `ask` with `onText`, on an in-process client.
    InProcessCannotStream,
    /// A resume whose answer is for another pending request.
    AnswerIdMismatch {
        /// The answer's id.
        answer: String,
        /// The pending request's id.
        pending: String,
    },
    /// A resume whose history does not end with a tool-calling assistant turn.
    NothingToResume,
    /// The host refused the run before it started (e.g. the agent runtime has no such
    /// handle or agent).
    Refused {
        /// The host's reason.
        reason: String,
    },
    /// A content part refused at request assembly (§8A / §1B `maxPartBytes`), before any
    /// HTTP call; its message names the part by its descriptor, never its data.
    Part(super::parts::PartError),
    /// The external cancel stopped the run.
    Cancelled,
    /// The whole-run `timeoutMs` passed.
    TimedOut {
        /// The timeout in milliseconds.
        ms: u64,
    },
    /// The `translate` call's `timeoutMs` passed.
    TranslateTimedOut {
        /// The timeout in milliseconds.
        ms: u64,
    },
}

impl ClientError {
    /// The message a run raises (the `Display` text).
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// The HTTP status of the final failed attempt, for a non-ok HTTP answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Http { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether a timeout or cancel stopped the run.
    pub fn aborted(&self) -> bool {
        matches!(
            self,
            ClientError::Cancelled
                | ClientError::TimedOut { .. }
                | ClientError::TranslateTimedOut { .. }
        )
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Http { status, body } => {
                write!(f, "LLM request failed: HTTP {status}: {body}")
            }
            ClientError::Network { detail } | ClientError::Unbuildable { detail } => {
                write!(f, "LLM request failed: {detail}")
            }
            ClientError::NotResendable => f.write_str("LLM request body cannot be re-sent"),
            ClientError::RequestBody { detail } => write!(f, "request body: {detail}"),
            ClientError::AnswerNotJson { detail } => write!(f, "LLM answer is not JSON: {detail}"),
            ClientError::AnswerTooBig { what, cap } => {
                write!(f, "{what} exceeds {cap} bytes; not read further")
            }
            ClientError::Stream { message } => f.write_str(message),
            ClientError::Answer(e) => e.fmt(f),
            ClientError::Generate { message } => write!(f, "generate failed: {message}"),
            ClientError::Hook { message } => f.write_str(message),
            ClientError::InProcessCannotStream => {
                f.write_str("an in-process client cannot stream: generate returns a whole answer")
            }
            ClientError::AnswerIdMismatch { answer, pending } => write!(
                f,
                "answer id {answer:?} does not match the pending request id {pending:?}"
            ),
            ClientError::NothingToResume => f.write_str(
                "nothing to resume: the history does not end with an assistant turn that called tools",
            ),
            ClientError::Refused { reason } => f.write_str(reason),
            ClientError::Part(e) => e.fmt(f),
            ClientError::Cancelled => f.write_str("LLM run cancelled"),
            ClientError::TimedOut { ms } => write!(f, "LLM run timed out after {ms} ms"),
            ClientError::TranslateTimedOut { ms } => {
                write!(f, "LLM translate timed out after {ms} ms")
            }
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Answer(e) => Some(e),
            _ => None,
        }
    }
}

impl From<super::parts::PartError> for ClientError {
    fn from(e: super::parts::PartError) -> Self {
        ClientError::Part(e)
    }
}

impl From<AnswerError> for ClientError {
    fn from(e: AnswerError) -> Self {
        ClientError::Answer(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The texts the kinds replaced, as they were written at the construction sites: the
    /// conformance scenarios observe them.
    #[test]
    fn each_kind_displays_the_old_text() {
        let cases = [
            (
                ClientError::Http {
                    status: 503,
                    body: "busy [redacted]".into(),
                },
                "LLM request failed: HTTP 503: busy [redacted]",
            ),
            (
                ClientError::Network {
                    detail: "reading the answer failed: reset".into(),
                },
                "LLM request failed: reading the answer failed: reset",
            ),
            (
                ClientError::AnswerTooBig {
                    what: "LLM answer",
                    cap: 8,
                },
                "LLM answer exceeds 8 bytes; not read further",
            ),
            (
                ClientError::AnswerIdMismatch {
                    answer: "a".into(),
                    pending: "b\"".into(),
                },
                "answer id \"a\" does not match the pending request id \"b\\\"\"",
            ),
            (
                ClientError::Generate {
                    message: "boom".into(),
                },
                "generate failed: boom",
            ),
            (ClientError::Cancelled, "LLM run cancelled"),
            (
                ClientError::NothingToResume,
                "nothing to resume: the history does not end with an assistant turn that called tools",
            ),
            (
                ClientError::TimedOut { ms: 50 },
                "LLM run timed out after 50 ms",
            ),
            (
                ClientError::TranslateTimedOut { ms: 7 },
                "LLM translate timed out after 7 ms",
            ),
            (
                ClientError::InProcessCannotStream,
                "an in-process client cannot stream: generate returns a whole answer",
            ),
            (
                ClientError::Answer(AnswerError::NoMessage),
                "LLM answer has no choices[0].message",
            ),
        ];
        for (err, text) in cases {
            assert_eq!(err.to_string(), text, "{err:?}");
            assert_eq!(err.message(), text);
        }
    }

    #[test]
    fn status_and_abort_follow_the_kind() {
        let http = ClientError::Http {
            status: 429,
            body: String::new(),
        };
        assert_eq!(http.status(), Some(429));
        assert!(!http.aborted());
        assert!(ClientError::Cancelled.aborted());
        assert!(ClientError::TimedOut { ms: 1 }.aborted());
        assert!(ClientError::TranslateTimedOut { ms: 1 }.aborted());
        assert_eq!(ClientError::Cancelled.status(), None);
        let net = ClientError::Network { detail: "x".into() };
        assert!(!net.aborted() && net.status().is_none());
    }
}
