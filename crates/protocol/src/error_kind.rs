//! The error kinds of a failure envelope (`{"ok":false,"error":{"kind",...}}`, PROTOCOL.md §4).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What kind of failure a driver reports. Decoding is lenient: a kind protocol 1 does not name
/// (a driver in another language may send any string) is kept verbatim as [`ErrorKind::Other`],
/// never refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `unsupported`: the port does not implement this command or option (reported as skipped).
    Unsupported,
    /// `bad_request`: the request was malformed.
    BadRequest,
    /// `unknown_toolkit`: the request named a toolkit that does not exist.
    UnknownToolkit,
    /// `internal`: the driver itself failed.
    Internal,
    /// Any other kind string, as the driver sent it (empty when it sent none).
    Other(String),
}

impl ErrorKind {
    /// The kinds protocol 1 names.
    pub const KNOWN: [ErrorKind; 4] = [
        ErrorKind::Unsupported,
        ErrorKind::BadRequest,
        ErrorKind::UnknownToolkit,
        ErrorKind::Internal,
    ];

    /// The wire string (`"bad_request"`, ...).
    pub fn as_str(&self) -> &str {
        match self {
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::BadRequest => "bad_request",
            ErrorKind::UnknownToolkit => "unknown_toolkit",
            ErrorKind::Internal => "internal",
            ErrorKind::Other(kind) => kind,
        }
    }

    /// The kind a wire string names; an unknown string is [`ErrorKind::Other`].
    pub fn parse(kind: &str) -> ErrorKind {
        Self::KNOWN
            .into_iter()
            .find(|k| k.as_str() == kind)
            .unwrap_or_else(|| ErrorKind::Other(kind.to_string()))
    }
}

impl Default for ErrorKind {
    /// No kind given: the empty string, as a lenient decode reads a missing `kind`.
    fn default() -> Self {
        ErrorKind::Other(String::new())
    }
}

impl From<&str> for ErrorKind {
    fn from(kind: &str) -> Self {
        ErrorKind::parse(kind)
    }
}

impl From<String> for ErrorKind {
    fn from(kind: String) -> Self {
        ErrorKind::parse(&kind)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for ErrorKind {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for ErrorKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(ErrorKind::from)
    }
}

impl schemars::JsonSchema for ErrorKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ErrorKind".into()
    }

    /// Any string: a failure envelope is read leniently (the kinds protocol 1 names are listed
    /// where the schema states what a driver must send, the failure envelope).
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string"})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_kinds_round_trip_and_unknown_ones_are_kept() {
        for kind in ErrorKind::KNOWN {
            assert_eq!(ErrorKind::parse(kind.as_str()), kind);
            let wire = serde_json::to_value(&kind).unwrap();
            assert_eq!(serde_json::from_value::<ErrorKind>(wire).unwrap(), kind);
        }
        assert_eq!(ErrorKind::BadRequest.as_str(), "bad_request");
        let foreign: ErrorKind = serde_json::from_str(r#""ENOENT""#).unwrap();
        assert_eq!(foreign, ErrorKind::Other("ENOENT".into()));
        assert_eq!(serde_json::to_string(&foreign).unwrap(), r#""ENOENT""#);
        assert_eq!(ErrorKind::default(), "");
    }
}
