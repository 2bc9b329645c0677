//! The `static` backend's corpus: recorded decisions keyed by the canonical request
//! (`model` + `questions`), so CI runs with no network and no credential. Entries sharing
//! one canonical request are told apart by the canonical JSON of their state; an unmatched
//! request is an error naming its question keys, never a live call.
//!
//! Each recorded response is decoded once, at construction, against its recorded
//! questions: a request that finds it is canonically the same questions (the same keys,
//! types and offered options), so decoding it again per evaluation would give the same
//! decision, `nearUniform` included, or the same error.

use std::collections::HashMap;

use serde_json::Value;

use super::canonical::{canonical_request, encode};
use super::decision::Decision;
use super::error::ClassifierError;
use super::options::RecordedDecision;
use super::question::Questions;

/// One recorded answer: its state's canonical JSON and the response body, decoded.
struct Entry {
    state: String,
    decision: Result<Decision, ClassifierError>,
}

/// The corpus, indexed once at construction.
pub struct Corpus {
    by_request: HashMap<String, Vec<Entry>>,
}

impl Corpus {
    /// Indexes `decisions` for the classifier's `model`.
    pub fn new(model: &str, decisions: &[RecordedDecision]) -> Self {
        let mut by_request: HashMap<String, Vec<Entry>> = HashMap::new();
        for d in decisions {
            by_request
                .entry(canonical_request(model, &d.questions))
                .or_default()
                .push(Entry {
                    state: encode(&d.state),
                    decision: Decision::from_wire(&d.response, &d.questions, model),
                });
        }
        Corpus { by_request }
    }

    /// The recorded decision for this request (or the error decoding its response gave):
    /// the only entry of its canonical request, else the one whose state is canonically
    /// equal (the first such).
    pub fn lookup(
        &self,
        model: &str,
        state: &Value,
        questions: &Questions,
    ) -> Result<Decision, ClassifierError> {
        let unmatched = || ClassifierError::Unmatched {
            keys: questions.keys().cloned().collect(),
        };
        let entries = self
            .by_request
            .get(&canonical_request(model, questions))
            .ok_or_else(unmatched)?;
        let entry = match entries.as_slice() {
            [only] => only,
            _ => {
                let state = encode(state);
                entries
                    .iter()
                    .find(|e| e.state == state)
                    .ok_or_else(unmatched)?
            }
        };
        entry.decision.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classifier::question::Question;
    use serde_json::json;

    fn qs(key: &str, instructions: &str) -> Questions {
        let mut q = Questions::new();
        q.insert(key.into(), Question::noul(instructions));
        q
    }

    /// A recorded decision told apart by its `model`, `tag` (the questions are nouls).
    fn entry(questions: Questions, state: Value, tag: &str) -> RecordedDecision {
        let answers: serde_json::Map<String, Value> = questions
            .keys()
            .map(|k| (k.clone(), json!({"type": "noul", "noul": 0.5})))
            .collect();
        RecordedDecision {
            questions,
            state,
            response: json!({ "model": tag, "answers": answers }),
        }
    }

    #[test]
    fn matches_by_canonical_request_then_state() {
        let corpus = Corpus::new(
            "m",
            &[
                entry(qs("a", "one?"), json!({"x": 1}), "only"),
                entry(qs("b", "two?"), json!({"y": 1, "x": 2}), "x2"),
                entry(qs("b", "two?"), json!({"x": 3}), "x3"),
            ],
        );
        // A single entry answers whatever the state.
        assert_eq!(
            corpus
                .lookup("m", &json!("any"), &qs("a", "one?"))
                .unwrap()
                .model,
            "only"
        );
        // Shared requests: the state's canonical JSON decides (key order does not matter).
        assert_eq!(
            corpus
                .lookup("m", &json!({"x": 2, "y": 1}), &qs("b", "two?"))
                .unwrap()
                .model,
            "x2"
        );
        assert_eq!(
            corpus
                .lookup("m", &json!({"x": 3}), &qs("b", "two?"))
                .unwrap()
                .model,
            "x3"
        );
    }

    #[test]
    fn an_unmatched_request_names_its_keys() {
        let corpus = Corpus::new("m", &[entry(qs("a", "one?"), json!(null), "t")]);
        let other_model = corpus.lookup("other", &json!(null), &qs("a", "one?"));
        assert_eq!(
            other_model.unwrap_err(),
            ClassifierError::Unmatched {
                keys: vec!["a".into()]
            }
        );
        let err = corpus
            .lookup("m", &json!(null), &qs("a", "changed?"))
            .unwrap_err();
        assert!(err.to_string().contains("\"a\""), "{err}");
        let shared = Corpus::new(
            "m",
            &[
                entry(qs("a", "one?"), json!(1), "1"),
                entry(qs("a", "one?"), json!(2), "2"),
            ],
        );
        assert!(shared.lookup("m", &json!(3), &qs("a", "one?")).is_err());
    }
}
