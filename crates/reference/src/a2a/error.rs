//! Why an agent declaration or its Agent Card was refused: one kind per refusal with what
//! makes it specific. The `Display` text is the agent's error entry.

use std::fmt;

use crate::env_expand::Redactor;

/// A §7A agent declaration that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpecError {
    /// No non-empty string `card`.
    MissingCard,
    /// A header value is not a string.
    HeaderNotString {
        /// The header.
        name: String,
    },
    /// `headers` is not an object.
    HeadersNotObject,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::MissingCard => {
                f.write_str("an agent needs a string \"card\" (the Agent Card URL)")
            }
            SpecError::HeaderNotString { name } => {
                write!(f, "agent header \"{name}\" must be a string")
            }
            SpecError::HeadersNotObject => f.write_str("agent headers must be an object"),
        }
    }
}

impl std::error::Error for SpecError {}

/// An Agent Card that cannot be fetched or read.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CardError {
    /// The request failed.
    Fetch {
        /// The transport's reason.
        detail: String,
    },
    /// A non-2xx answer.
    Status {
        /// The HTTP status.
        status: u16,
        /// The body's first 200 characters.
        excerpt: String,
    },
    /// The body is not JSON.
    NotJson {
        /// The parser's reason.
        detail: String,
        /// The body's first 200 characters.
        excerpt: String,
    },
    /// No non-empty string `name`.
    NoName,
    /// `skills` is not an array.
    SkillsNotArray,
    /// No `url`, and the card URL has no origin to fall back on.
    NoOrigin {
        /// The card URL.
        card_url: String,
    },
}

impl CardError {
    /// The same error with the secrets `redactor` knows taken out of its texts (a server may
    /// echo a header back in its error body).
    pub fn redacted(self, redactor: &Redactor) -> CardError {
        match self {
            CardError::Fetch { detail } => CardError::Fetch {
                detail: redactor.redact(&detail),
            },
            CardError::Status { status, excerpt } => CardError::Status {
                status,
                excerpt: redactor.redact(&excerpt),
            },
            CardError::NotJson { detail, excerpt } => CardError::NotJson {
                detail: redactor.redact(&detail),
                excerpt: redactor.redact(&excerpt),
            },
            CardError::NoOrigin { card_url } => CardError::NoOrigin {
                card_url: redactor.redact(&card_url),
            },
            other => other,
        }
    }
}

impl fmt::Display for CardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CardError::Fetch { detail } => write!(f, "cannot fetch the agent card: {detail}"),
            CardError::Status { status, excerpt } => {
                write!(f, "the agent card answered HTTP {status}: {excerpt}")
            }
            CardError::NotJson { detail, excerpt } => {
                write!(f, "the agent card is not JSON ({detail}): {excerpt}")
            }
            CardError::NoName => f.write_str("the agent card has no string \"name\""),
            CardError::SkillsNotArray => f.write_str("the agent card's \"skills\" is not an array"),
            CardError::NoOrigin { card_url } => {
                write!(f, "cannot take the origin of \"{card_url}\"")
            }
        }
    }
}

impl std::error::Error for CardError {}
