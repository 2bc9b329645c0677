//! A failed step as data: which kind of expectation broke (pinned, or lenient and why), where
//! in the output (JSON paths), what was expected and what came instead, and the diff. The
//! JSON, JUnit and HTML reports render from these fields; `Display` gives the one text that
//! the text report and cucumber print, unchanged from when failures were plain messages.

use std::fmt;
use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compare::expectation::{ExpectationKind, Kind};
use crate::compare::matchers::{present, Mismatch};
use crate::compare::time_bound::Bound;

/// Why a step failed, as data: its fields are `FailureData`'s, boxed so that every
/// `Result<_, Failure>` stays one pointer wide on the path where nothing failed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Failure(Box<FailureData>);

/// The fields of a `Failure`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FailureData {
    /// The kind of expectation that broke (`kind`, and `reason` when lenient).
    #[serde(flatten)]
    pub kind: ExpectationKind,
    /// The headline, without the kind label: `$.a: expected 1, got 2`, `text differs`.
    pub message: String,
    /// The step that failed (`Then the output is:`), when a step did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Every mismatch with its path, expected and actual value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mismatches: Vec<Mismatch>,
    /// The unified expected-vs-actual diff, when one helps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// The whole expected JSON document, for JSON comparisons.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub expected: Option<Value>,
    /// The whole actual JSON document (normalised), for JSON comparisons.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub actual: Option<Value>,
    /// Context lines shown after the diff (the statuses a status check looked at).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The harness time bound that broke, when one did (its label leads `message`, as
    /// reports have always shown it). Not serialised: it steers the retry of this run only.
    #[serde(skip)]
    pub bound: Option<Bound>,
}

impl Deref for Failure {
    type Target = FailureData;
    fn deref(&self) -> &FailureData {
        &self.0
    }
}

impl DerefMut for Failure {
    fn deref_mut(&mut self) -> &mut FailureData {
        &mut self.0
    }
}

impl From<FailureData> for Failure {
    fn from(data: FailureData) -> Self {
        Failure(Box::new(data))
    }
}

impl Failure {
    /// A failure that broke no expectation (a port error, a missing input).
    pub fn other(message: impl Into<String>) -> Failure {
        Failure::of_kind(ExpectationKind::Other, message)
    }

    /// A failure of the given kind with `message` as headline.
    pub fn of_kind(kind: ExpectationKind, message: impl Into<String>) -> Failure {
        Failure::from(FailureData {
            kind,
            message: message.into(),
            ..FailureData::default()
        })
    }

    /// A failure of the kind a step declares: a pinned or lenient one breaks that
    /// expectation; a time bound breaks none of the SPEC's, and its label leads the message.
    pub fn checked(kind: Kind, message: impl Into<String>) -> Failure {
        let message = message.into();
        match kind.bound() {
            Some(bound) => Failure::from(FailureData {
                message: format!("[{}] {message}", bound.label()),
                bound: Some(bound),
                ..FailureData::default()
            }),
            None => Failure::of_kind(kind.expectation(), message),
        }
    }

    /// The same failure with `ctx` in front of its text, its kind (and label) kept first; the
    /// diff and notes fold into the message, as they read in the text.
    pub fn within(self, ctx: &str) -> Failure {
        match self.bound {
            Some(bound) => {
                let text = self.to_string();
                let label = format!("[{}] ", bound.label());
                let rest = text.strip_prefix(&label).unwrap_or(&text);
                Failure::from(FailureData {
                    message: format!("{label}{ctx}: {rest}"),
                    bound: Some(bound),
                    ..FailureData::default()
                })
            }
            None => {
                let kind = self.kind.clone();
                let body = Failure::from(FailureData {
                    kind: ExpectationKind::Other,
                    ..*self.0
                });
                Failure::of_kind(kind, format!("{ctx}: {body}"))
            }
        }
    }

    /// Whether a harness time bound broke it (a step's upper bound, a port answer that came
    /// too late), which the machine's load alone can do.
    pub fn broke_a_time_bound(&self) -> bool {
        self.bound == Some(Bound::Upper) || toolnexus_ports::late::late_answer(&self.message)
    }

    /// The same failure with a context line after the diff.
    pub fn with_note(mut self, note: impl Into<String>) -> Failure {
        self.notes.push(note.into());
        self
    }

    /// The same failure, naming the step it happened in.
    pub fn in_step(mut self, step: impl Into<String>) -> Failure {
        self.step = Some(step.into());
        self
    }

    /// The one-text form with the step first, as the run report's `message` carries it.
    pub fn report_text(&self) -> String {
        match &self.step {
            Some(step) => format!("step `{step}`: {self}"),
            None => self.to_string(),
        }
    }

    /// The same failure with `redact` applied to every text in it, values included, so a
    /// report never repeats what the port should not have shown.
    pub fn redacted(self, redact: &dyn Fn(&str) -> String) -> Failure {
        let value = |v: Option<Value>| v.map(|v| redact_value(v, redact));
        let f = *self.0;
        Failure::from(FailureData {
            kind: match f.kind {
                ExpectationKind::Lenient { reason } => ExpectationKind::Lenient {
                    reason: redact(&reason),
                },
                other => other,
            },
            message: redact(&f.message),
            step: f.step.as_deref().map(redact),
            mismatches: f
                .mismatches
                .into_iter()
                .map(|m| Mismatch {
                    path: redact(&m.path),
                    problem: m.problem,
                    expected: value(m.expected),
                    actual: value(m.actual),
                    detail: m.detail.as_deref().map(redact),
                })
                .collect(),
            diff: f.diff.as_deref().map(redact),
            expected: value(f.expected),
            actual: value(f.actual),
            notes: f.notes.iter().map(|n| redact(n)).collect(),
            bound: f.bound,
        })
    }
}

fn redact_value(v: Value, redact: &dyn Fn(&str) -> String) -> Value {
    match v {
        Value::String(s) => Value::String(redact(&s)),
        Value::Array(a) => Value::Array(a.into_iter().map(|x| redact_value(x, redact)).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| (redact(&k), redact_value(x, redact)))
                .collect(),
        ),
        other => other,
    }
}

/// `[kind] headline`, then the diff and the notes, each on lines of their own: the text
/// failures have always had.
impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(label) = self.kind.label() {
            write!(f, "[{label}] ")?;
        }
        f.write_str(&self.message)?;
        if let Some(diff) = &self.diff {
            write!(f, "\n{diff}")?;
        }
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

/// A message that breaks no expectation; a step declares a kind with [`Failure::checked`].
impl From<String> for Failure {
    fn from(text: String) -> Self {
        Failure::other(text)
    }
}

/// As `From<String>`.
impl From<&str> for Failure {
    fn from(text: &str) -> Self {
        Failure::other(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::matchers::Problem;
    use serde_json::json;

    fn pinned() -> Failure {
        Failure::from(FailureData {
            kind: ExpectationKind::Pinned,
            message: "$.tools[2].name: expected \"a\", got \"b\"".into(),
            step: Some("Then the tools are:".into()),
            mismatches: vec![Mismatch {
                path: "$.tools[2].name".into(),
                problem: Problem::Differs,
                expected: Some(json!("a")),
                actual: Some(json!("b")),
                detail: None,
            }],
            diff: Some("--- expected\n+++ actual\n@@ -1 +1 @@\n-\"a\"\n+\"b\"\n".into()),
            expected: Some(json!({"x": null})),
            actual: Some(json!({})),
            notes: vec!["statuses: {}".into()],
            bound: None,
        })
    }

    #[test]
    fn display_is_the_text_failures_always_had() {
        assert_eq!(
            pinned().to_string(),
            "[pinned] $.tools[2].name: expected \"a\", got \"b\"\n--- expected\n+++ actual\n\
             @@ -1 +1 @@\n-\"a\"\n+\"b\"\n\nstatuses: {}"
        );
        assert_eq!(
            pinned().report_text(),
            format!("step `Then the tools are:`: {}", pinned())
        );
        let lenient = Failure::of_kind(
            ExpectationKind::Lenient {
                reason: "contains, partial".into(),
            },
            "$.a: expected $contains \"x\", got \"y\"",
        );
        assert_eq!(
            lenient.to_string(),
            "[lenient (contains, partial)] $.a: expected $contains \"x\", got \"y\""
        );
        assert_eq!(
            Failure::other("driver crashed").to_string(),
            "driver crashed"
        );
    }

    #[test]
    fn a_declared_kind_renders_the_label_messages_always_had() {
        for (kind, text) in [
            (Kind::Pinned, "[pinned] the secret appears in output"),
            (
                Kind::Lenient("contains"),
                "[lenient (contains)] expected an error",
            ),
            (Kind::UpperBound, "[bound] the build took 9 ms"),
            (
                Kind::LowerBound,
                "[lower bound] the run 1 ms, less than 5 ms",
            ),
        ] {
            let rest = text.split_once("] ").map_or(text, |(_, r)| r);
            assert_eq!(Failure::checked(kind, rest).to_string(), text);
        }
        assert_eq!(
            Failure::checked(Kind::Pinned, "x").kind,
            ExpectationKind::Pinned
        );
        assert_eq!(
            Failure::checked(Kind::Lenient("contains"), "x").kind,
            ExpectationKind::Lenient {
                reason: "contains".into()
            }
        );
        let bound = Failure::checked(Kind::UpperBound, "x");
        assert_eq!(bound.kind, ExpectationKind::Other);
        assert_eq!(bound.message, "[bound] x");
        assert_eq!(bound.bound, Some(Bound::Upper));
        // A plain message is only a message, whatever it starts with.
        assert_eq!(Failure::from("[pinned] x").kind, ExpectationKind::Other);
        assert_eq!(Failure::from("[pinned] x").to_string(), "[pinned] x");
    }

    #[test]
    fn context_goes_after_the_label_and_the_kind_stays() {
        let f = Failure::checked(Kind::Pinned, "a differs").with_note("seen");
        let w = f.within("child c");
        assert_eq!(w.to_string(), "[pinned] child c: a differs\nseen");
        assert_eq!(w.kind, ExpectationKind::Pinned);
        let b = Failure::checked(Kind::UpperBound, "9 ms").within("child c");
        assert_eq!(b.to_string(), "[bound] child c: 9 ms");
        assert_eq!(b.bound, Some(Bound::Upper));
        assert_eq!(Failure::other("boom").within("c").to_string(), "c: boom");
    }

    #[test]
    fn the_json_shape_carries_kind_reason_paths_and_values() {
        let v = serde_json::to_value(pinned()).unwrap();
        assert_eq!(
            v,
            json!({
                "kind": "pinned",
                "message": "$.tools[2].name: expected \"a\", got \"b\"",
                "step": "Then the tools are:",
                "mismatches": [{"path": "$.tools[2].name", "problem": "differs",
                                "expected": "a", "actual": "b"}],
                "diff": "--- expected\n+++ actual\n@@ -1 +1 @@\n-\"a\"\n+\"b\"\n",
                "expected": {"x": null},
                "actual": {},
                "notes": ["statuses: {}"]
            })
        );
        let back: Failure = serde_json::from_value(v).unwrap();
        assert_eq!(back, pinned());

        let lenient = Failure::of_kind(
            ExpectationKind::Lenient {
                reason: "regex".into(),
            },
            "m",
        );
        let v = serde_json::to_value(&lenient).unwrap();
        assert_eq!(
            v,
            json!({"kind": "lenient", "reason": "regex", "message": "m"})
        );
        assert_eq!(serde_json::from_value::<Failure>(v).unwrap(), lenient);
        assert_eq!(
            serde_json::to_value(Failure::other("boom")).unwrap(),
            json!({"kind": "other", "message": "boom"})
        );
    }

    #[test]
    fn a_null_value_stays_a_value_after_a_round_trip() {
        let m = Mismatch {
            path: "$.a".into(),
            problem: Problem::Differs,
            expected: Some(Value::Null),
            actual: Some(json!(1)),
            detail: None,
        };
        let back: Mismatch = serde_json::from_value(serde_json::to_value(&m).unwrap()).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.to_string(), "$.a: expected null, got 1");
    }

    #[test]
    fn redaction_reaches_every_text_and_value() {
        let mut f = pinned();
        f.mismatches[0].actual = Some(json!({"k": ["SECRET here"]}));
        f.notes.push("SECRET".into());
        let r = f.redacted(&|s: &str| s.replace("SECRET", "***"));
        let text = serde_json::to_string(&r).unwrap();
        assert!(!text.contains("SECRET"), "{text}");
        assert_eq!(r.mismatches[0].actual, Some(json!({"k": ["*** here"]})));
    }
}
