//! Expectation kinds as values: what a failure broke (`pinned`, `lenient (why)`, or no
//! expectation at all) and what a step declares it checks, a time bound included. The labels
//! that messages and reports show (`[pinned] `, `[bound] `) are rendered from these values;
//! nothing parses them back out of text.

use serde::{Deserialize, Serialize};

use crate::compare::time_bound::Bound;

/// The kind of expectation a failure broke.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ExpectationKind {
    /// The SPEC pins the bytes: compared exactly.
    Pinned,
    /// The SPEC pins meaning: compared with matchers, which `reason` names (`contains, partial`).
    Lenient {
        /// The matchers or relaxations that applied.
        reason: String,
    },
    /// No expectation broke: the port failed, an input was missing, a step was misused.
    #[default]
    Other,
}

impl ExpectationKind {
    /// The label messages carry in brackets (`pinned`, `lenient (contains)`); none for `Other`.
    pub fn label(&self) -> Option<String> {
        match self {
            ExpectationKind::Pinned => Some("pinned".to_string()),
            ExpectationKind::Lenient { reason } => Some(format!("lenient ({reason})")),
            ExpectationKind::Other => None,
        }
    }

    /// The kind without its reason: `pinned`, `lenient` or `other` (the JSON `kind`).
    pub fn tag(&self) -> &'static str {
        match self {
            ExpectationKind::Pinned => "pinned",
            ExpectationKind::Lenient { .. } => "lenient",
            ExpectationKind::Other => "other",
        }
    }
}

/// The kind of check a step declares: the label its failure message starts with and the
/// expectation it records when it holds are both rendered from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The SPEC pins the bytes.
    Pinned,
    /// The SPEC pins meaning; the relaxation that applied (`contains`, `regex`, ...).
    Lenient(&'static str),
    /// A harness upper time bound ("below N ms"): load can break it, so it is retried.
    UpperBound,
    /// A lower time bound ("at least N ms"): load only lengthens a wait; never retried.
    LowerBound,
}

impl Kind {
    /// The label in brackets and in the recorded expectations: `pinned`,
    /// `lenient (contains)`, `bound`, `lower bound`.
    pub fn label(self) -> String {
        match self {
            Kind::Pinned => "pinned".to_string(),
            Kind::Lenient(reason) => format!("lenient ({reason})"),
            Kind::UpperBound => Bound::Upper.label().to_string(),
            Kind::LowerBound => Bound::Lower.label().to_string(),
        }
    }

    /// The expectation a failure of this kind broke (a time bound is none of the SPEC's).
    pub fn expectation(self) -> ExpectationKind {
        match self {
            Kind::Pinned => ExpectationKind::Pinned,
            Kind::Lenient(reason) => ExpectationKind::Lenient {
                reason: reason.to_string(),
            },
            Kind::UpperBound | Kind::LowerBound => ExpectationKind::Other,
        }
    }

    /// The time bound this kind is, if it is one.
    pub fn bound(self) -> Option<Bound> {
        match self {
            Kind::UpperBound => Some(Bound::Upper),
            Kind::LowerBound => Some(Bound::Lower),
            Kind::Pinned | Kind::Lenient(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_ones_messages_always_carried() {
        assert_eq!(Kind::Pinned.label(), "pinned");
        assert_eq!(Kind::Lenient("contains").label(), "lenient (contains)");
        assert_eq!(Kind::UpperBound.label(), "bound");
        assert_eq!(Kind::LowerBound.label(), "lower bound");
        assert_eq!(
            Kind::Lenient("regex").expectation().label().as_deref(),
            Some("lenient (regex)")
        );
        assert_eq!(Kind::UpperBound.expectation(), ExpectationKind::Other);
    }
}
