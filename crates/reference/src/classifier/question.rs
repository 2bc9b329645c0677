//! The three §8B question types, in the caller's order (the canonical encoding sorts; memory
//! does not), and their wire form: `{"type", "instructions", "criteria"?}`.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The questions of one `evaluate`: the caller's keys (addressing, never content) in the
/// order written.
pub type Questions = IndexMap<String, Question>;

/// One typed question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Question {
    /// The probability that a statement holds, in `0..1`.
    Noul {
        /// What is asked.
        instructions: String,
        /// The true and false cases. `None` (absent on the wire) and an empty
        /// [`NoulCriteria`] (`{}`) are different values, and both travel as they are.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        criteria: Option<NoulCriteria>,
    },
    /// One option from a named set of 1..255.
    Choice {
        /// What is asked.
        instructions: String,
        /// Option id → what picking it means: the only thing that tells options apart to
        /// the model. Kept in the caller's order.
        criteria: IndexMap<String, String>,
    },
    /// A rating against an ordered rubric of 2..10 levels; the order is the numbering.
    Score {
        /// What is asked.
        instructions: String,
        /// The levels, level 0 first; never reordered.
        criteria: Vec<String>,
    },
}

/// A noul question's criteria; each case may be absent on its own.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoulCriteria {
    /// What the statement holding means.
    #[serde(default, rename = "true", skip_serializing_if = "Option::is_none")]
    pub true_case: Option<String>,
    /// What the statement not holding means.
    #[serde(default, rename = "false", skip_serializing_if = "Option::is_none")]
    pub false_case: Option<String>,
}

impl Question {
    /// A noul question without criteria.
    pub fn noul(instructions: impl Into<String>) -> Self {
        Question::Noul {
            instructions: instructions.into(),
            criteria: None,
        }
    }

    /// A choice over `(id, description)` pairs, in the order given. The ids are used as
    /// they are: never decorated (SPEC §8B "Option ids are the caller's strings").
    pub fn choice<K: Into<String>, D: Into<String>>(
        instructions: impl Into<String>,
        options: impl IntoIterator<Item = (K, D)>,
    ) -> Self {
        Question::Choice {
            instructions: instructions.into(),
            criteria: options
                .into_iter()
                .map(|(k, d)| (k.into(), d.into()))
                .collect(),
        }
    }

    /// A score over the rubric's levels, level 0 first.
    pub fn score<D: Into<String>>(
        instructions: impl Into<String>,
        levels: impl IntoIterator<Item = D>,
    ) -> Self {
        Question::Score {
            instructions: instructions.into(),
            criteria: levels.into_iter().map(Into::into).collect(),
        }
    }

    /// The type's wire name.
    pub fn kind(&self) -> &'static str {
        match self {
            Question::Noul { .. } => "noul",
            Question::Choice { .. } => "choice",
            Question::Score { .. } => "score",
        }
    }

    /// The wire form as JSON, keys in the caller's order (the canonical encoder sorts them).
    pub fn to_wire(&self) -> Value {
        let mut v = serde_json::Map::new();
        v.insert("type".into(), Value::from(self.kind()));
        match self {
            Question::Noul {
                instructions,
                criteria,
            } => {
                v.insert("instructions".into(), Value::from(instructions.as_str()));
                if let Some(c) = criteria {
                    let mut m = serde_json::Map::new();
                    if let Some(t) = &c.true_case {
                        m.insert("true".into(), Value::from(t.as_str()));
                    }
                    if let Some(f) = &c.false_case {
                        m.insert("false".into(), Value::from(f.as_str()));
                    }
                    v.insert("criteria".into(), Value::Object(m));
                }
            }
            Question::Choice {
                instructions,
                criteria,
            } => {
                v.insert("instructions".into(), Value::from(instructions.as_str()));
                let m = criteria
                    .iter()
                    .map(|(k, d)| (k.clone(), Value::from(d.as_str())))
                    .collect();
                v.insert("criteria".into(), Value::Object(m));
            }
            Question::Score {
                instructions,
                criteria,
            } => {
                v.insert("instructions".into(), Value::from(instructions.as_str()));
                let levels = criteria.iter().map(|d| Value::from(d.as_str())).collect();
                v.insert("criteria".into(), Value::Array(levels));
            }
        }
        Value::Object(v)
    }
}

/// Every question's wire form under its key, in the caller's order.
pub fn questions_wire(questions: &Questions) -> Value {
    Value::Object(
        questions
            .iter()
            .map(|(k, q)| (k.clone(), q.to_wire()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_wire_form_round_trips_through_serde() {
        let qs: Questions = serde_json::from_value(json!({
            "z": {"type": "noul", "instructions": "i"},
            "a": {"type": "noul", "instructions": "i", "criteria": {}},
            "m": {"type": "choice", "instructions": "i", "criteria": {"b": "B", "a": "A"}},
            "s": {"type": "score", "instructions": "i", "criteria": ["lo", "hi"]}
        }))
        .unwrap();
        // The caller's order, kept.
        assert_eq!(qs.keys().collect::<Vec<_>>(), ["z", "a", "m", "s"]);
        assert_eq!(qs["z"], Question::noul("i"));
        assert_eq!(
            qs["a"],
            Question::Noul {
                instructions: "i".into(),
                criteria: Some(NoulCriteria::default())
            }
        );
        assert_eq!(qs["m"], Question::choice("i", [("b", "B"), ("a", "A")]));
        for q in qs.values() {
            assert_eq!(q.to_wire(), serde_json::to_value(q).unwrap());
        }
        assert_eq!(
            qs["a"].to_wire(),
            json!({"type": "noul", "instructions": "i", "criteria": {}})
        );
        assert!(qs["z"].to_wire().get("criteria").is_none());
    }
}
