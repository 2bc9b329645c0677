//! `Decision` and its typed answers, decoded from the systemone wire:
//! `{model, answers: {key: {type: "noul", noul} | {type: "choice", choice, probabilities,
//! confidence} | {type: "score", score, probabilities, legend, confidence}}, usage?,
//! calibrated?}`. A malformed answer is an error naming its key, never repaired; a choice's
//! `nearUniform` is computed here, never read from the wire.

use indexmap::{IndexMap, IndexSet};
use serde_json::{Map, Value};

use super::error::ClassifierError;
use super::question::{Question, Questions};

/// The absolute, inclusive tolerance of [`near_uniform`] (SPEC §8B).
pub const NEAR_UNIFORM_TOLERANCE: f64 = 0.05;

/// One answer per question, under the caller's keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The model that answered (may be more specific than the option).
    pub model: String,
    /// The answers, in the order the backend wrote them.
    pub answers: IndexMap<String, Answer>,
    /// What the backend reported it used, when it did.
    pub usage: Option<DecisionUsage>,
    /// Whether the numbers are calibrated probabilities: absent or `null` on the wire ⇒
    /// `true`, only a literal `false` ⇒ `false`.
    pub calibrated: bool,
}

/// Token counts a backend reported (the SPEC names no fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecisionUsage {
    /// Input tokens (`input_tokens`, `inputTokens`, `prompt_tokens` or `promptTokens`).
    pub input_tokens: Option<u64>,
    /// Output tokens (`output_tokens`, `outputTokens`, `completion_tokens` or
    /// `completionTokens`).
    pub output_tokens: Option<u64>,
}

/// One typed answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The probability that the statement holds; no confidence (the number is the answer).
    Noul {
        /// In `0..1`.
        noul: f64,
    },
    /// One option of the offered set.
    Choice {
        /// The selected option id.
        choice: String,
        /// A probability per option, as returned (never renormalised or rounded).
        probabilities: IndexMap<String, f64>,
        /// How sure the backend is about the question.
        confidence: f64,
        /// Derived by [`near_uniform`]; advisory, not a correctness signal.
        near_uniform: bool,
    },
    /// A rating that may fall between levels.
    Score {
        /// Within the rubric's bounds.
        score: f64,
        /// A probability per level index (`"0"`, `"1"`, …).
        probabilities: IndexMap<String, f64>,
        /// The rubric echoed back per level index.
        legend: IndexMap<String, String>,
        /// How sure the backend is about the question.
        confidence: f64,
    },
}

/// Whether a choice's distribution gave the model nothing to rank on.
///
/// The reference's reading of the SPEC rule: `n` is the number of distinct ids among the
/// offered options and the returned map's keys together, and `p_i` is the returned value
/// (`0` for an offered option the map leaves out). The answer is near-uniform when
/// `max_i |p_i − 1/n| ≤ 0.05`, inclusive, computed in `f64` on the values as returned (no
/// sorting, renormalising or rounding). `n ≤ 1` is near-uniform (a single option is
/// trivially uniform; an empty set has no deviation).
pub fn near_uniform<'a>(
    offered: impl IntoIterator<Item = &'a str>,
    probabilities: &'a IndexMap<String, f64>,
) -> bool {
    let ids: IndexSet<&str> = offered
        .into_iter()
        .chain(probabilities.keys().map(String::as_str))
        .collect();
    if ids.len() <= 1 {
        return true;
    }
    let uniform = 1.0 / ids.len() as f64;
    ids.iter()
        .map(|id| (probabilities.get(*id).copied().unwrap_or(0.0) - uniform).abs())
        .all(|deviation| deviation <= NEAR_UNIFORM_TOLERANCE)
}

impl Decision {
    /// Decodes a wire decision for `questions` (a choice's offered options feed
    /// `nearUniform`; an answer's type must be its question's). `model` absent or `null` ⇒
    /// `fallback_model`.
    pub fn from_wire(
        wire: &Value,
        questions: &Questions,
        fallback_model: &str,
    ) -> Result<Decision, ClassifierError> {
        let bad = |detail: String| ClassifierError::Decision { detail };
        let obj = wire
            .as_object()
            .ok_or_else(|| bad(format!("expected an object, got {}", kind(wire))))?;
        let model = match obj.get("model") {
            None | Some(Value::Null) => fallback_model.to_string(),
            Some(Value::String(m)) => m.clone(),
            Some(other) => return Err(bad(format!("model is {}, not a string", kind(other)))),
        };
        let calibrated = match obj.get("calibrated") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(bad(format!("calibrated is {}, not a boolean", kind(other))))
            }
        };
        let usage = match obj.get("usage") {
            None | Some(Value::Null) => None,
            Some(Value::Object(u)) => Some(usage_of(u).map_err(bad)?),
            Some(other) => return Err(bad(format!("usage is {}, not an object", kind(other)))),
        };
        let answers = match obj.get("answers") {
            Some(Value::Object(a)) => a,
            Some(other) => return Err(bad(format!("answers is {}, not an object", kind(other)))),
            None => return Err(bad("answers is missing".into())),
        };
        let answers = answers
            .iter()
            .map(|(key, a)| {
                answer_of(a, questions.get(key))
                    .map(|a| (key.clone(), a))
                    .map_err(|detail| ClassifierError::MalformedAnswer {
                        key: key.clone(),
                        detail,
                    })
            })
            .collect::<Result<IndexMap<_, _>, _>>()?;
        Ok(Decision {
            model,
            answers,
            usage,
            calibrated,
        })
    }
}

fn answer_of(wire: &Value, question: Option<&Question>) -> Result<Answer, String> {
    let a = wire
        .as_object()
        .ok_or_else(|| format!("expected an object, got {}", kind(wire)))?;
    let ty = match a.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(other) => return Err(format!("type is {}, not a string", kind(other))),
        None => return Err("type is missing".into()),
    };
    if let Some(q) = question.filter(|q| q.kind() != ty) {
        return Err(format!("a {ty} answer to a {} question", q.kind()));
    }
    match ty {
        "noul" => Ok(Answer::Noul {
            noul: number(a, "noul")?,
        }),
        "choice" => {
            let probabilities = numbers(a, "probabilities")?;
            let offered: Vec<&str> = match question {
                Some(Question::Choice { criteria, .. }) => {
                    criteria.keys().map(String::as_str).collect()
                }
                _ => Vec::new(),
            };
            let near_uniform = near_uniform(offered, &probabilities);
            Ok(Answer::Choice {
                choice: string(a, "choice")?,
                confidence: number(a, "confidence")?,
                probabilities,
                near_uniform,
            })
        }
        "score" => Ok(Answer::Score {
            score: number(a, "score")?,
            probabilities: numbers(a, "probabilities")?,
            legend: strings(a, "legend")?,
            confidence: number(a, "confidence")?,
        }),
        other => Err(format!("unknown type {other:?} (noul | choice | score)")),
    }
}

fn usage_of(u: &Map<String, Value>) -> Result<DecisionUsage, String> {
    let count = |names: [&str; 4]| -> Result<Option<u64>, String> {
        for name in names {
            match u.get(name) {
                None | Some(Value::Null) => continue,
                Some(v) => {
                    return v
                        .as_u64()
                        .map(Some)
                        .ok_or_else(|| format!("usage.{name} is not a token count"))
                }
            }
        }
        Ok(None)
    };
    Ok(DecisionUsage {
        input_tokens: count([
            "input_tokens",
            "inputTokens",
            "prompt_tokens",
            "promptTokens",
        ])?,
        output_tokens: count([
            "output_tokens",
            "outputTokens",
            "completion_tokens",
            "completionTokens",
        ])?,
    })
}

fn number(a: &Map<String, Value>, field: &str) -> Result<f64, String> {
    match a.get(field) {
        Some(Value::Number(n)) => n
            .as_f64()
            .ok_or_else(|| format!("{field} is not a finite number")),
        Some(other) => Err(format!("{field} is {}, not a number", kind(other))),
        None => Err(format!("{field} is missing")),
    }
}

fn string(a: &Map<String, Value>, field: &str) -> Result<String, String> {
    match a.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!("{field} is {}, not a string", kind(other))),
        None => Err(format!("{field} is missing")),
    }
}

fn numbers(a: &Map<String, Value>, field: &str) -> Result<IndexMap<String, f64>, String> {
    object(a, field)?
        .iter()
        .map(|(k, v)| match v {
            Value::Number(n) => n
                .as_f64()
                .map(|p| (k.clone(), p))
                .ok_or_else(|| format!("{field}[{k:?}] is not a finite number")),
            other => Err(format!("{field}[{k:?}] is {}, not a number", kind(other))),
        })
        .collect()
}

fn strings(a: &Map<String, Value>, field: &str) -> Result<IndexMap<String, String>, String> {
    object(a, field)?
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            other => Err(format!("{field}[{k:?}] is {}, not a string", kind(other))),
        })
        .collect()
}

fn object<'a>(a: &'a Map<String, Value>, field: &str) -> Result<&'a Map<String, Value>, String> {
    match a.get(field) {
        Some(Value::Object(m)) => Ok(m),
        Some(other) => Err(format!("{field} is {}, not an object", kind(other))),
        None => Err(format!("{field} is missing")),
    }
}

/// A JSON value's kind, for messages (never the value: it may be long).
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn probs(pairs: &[(&str, f64)]) -> IndexMap<String, f64> {
        pairs.iter().map(|(k, p)| (k.to_string(), *p)).collect()
    }

    /// Deviations clearly inside and outside 0.05, never within 1e-9 of it.
    #[test]
    fn near_uniform_boundaries() {
        let four = ["a", "b", "c", "d"];
        // 1/n = 0.25: the undescribed encoding's median top 0.29 (deviation 0.04) is inside.
        assert!(near_uniform(
            four,
            &probs(&[("a", 0.29), ("b", 0.24), ("c", 0.24), ("d", 0.23)])
        ));
        // 0.31 (deviation 0.06) is outside, as is the described encoding's 0.80.
        assert!(!near_uniform(
            four,
            &probs(&[("a", 0.31), ("b", 0.23), ("c", 0.23), ("d", 0.23)])
        ));
        assert!(!near_uniform(
            four,
            &probs(&[("a", 0.80), ("b", 0.1), ("c", 0.05), ("d", 0.05)])
        ));
        // Two options: 0.54/0.46 inside, 0.56/0.44 outside.
        assert!(near_uniform(
            ["l", "r"],
            &probs(&[("l", 0.54), ("r", 0.46)])
        ));
        assert!(!near_uniform(
            ["l", "r"],
            &probs(&[("l", 0.56), ("r", 0.44)])
        ));
    }

    #[test]
    fn near_uniform_counts_missing_options_as_zero_and_extra_keys_in_n() {
        // An offered option left out of the map counts 0: 1/3 away from uniform.
        assert!(!near_uniform(
            ["a", "b", "c"],
            &probs(&[("a", 0.5), ("b", 0.5)])
        ));
        // A returned id that was not offered joins n: with n = 3 this is uniform (it would
        // deviate by 0.16 with n = 2).
        assert!(near_uniform(
            ["a", "b"],
            &probs(&[("a", 0.34), ("b", 0.33), ("x", 0.33)])
        ));
    }

    #[test]
    fn a_single_option_is_near_uniform() {
        assert!(near_uniform(["only"], &probs(&[("only", 1.0)])));
        assert!(near_uniform(["only"], &probs(&[("only", 0.3)])));
    }

    fn questions() -> Questions {
        serde_json::from_value(json!({
            "move": {"type": "choice", "instructions": "Pick", "criteria": {"left": "away", "right": "into"}},
            "safe": {"type": "noul", "instructions": "Safe?"},
            "grade": {"type": "score", "instructions": "Rate", "criteria": ["bad", "good"]}
        }))
        .unwrap()
    }

    fn wire(extra: Value) -> Value {
        let mut w = json!({
            "model": "jev-1.13.0",
            "answers": {
                "move": {"type": "choice", "choice": "left", "probabilities": {"left": 0.8, "right": 0.2},
                         "confidence": 0.7, "nearUniform": true},
                "safe": {"type": "noul", "noul": 0.25},
                "grade": {"type": "score", "score": 1.21, "probabilities": {"0": 0.3, "1": 0.7},
                          "legend": {"0": "bad", "1": "good"}, "confidence": 0.5}
            }
        });
        if let (Some(w), Some(e)) = (w.as_object_mut(), extra.as_object()) {
            w.extend(e.clone());
        }
        w
    }

    #[test]
    fn decodes_every_answer_type() {
        let d = Decision::from_wire(
            &wire(json!({"usage": {"input_tokens": 12, "output_tokens": 3}})),
            &questions(),
            "fallback",
        )
        .unwrap();
        assert_eq!(d.model, "jev-1.13.0");
        assert_eq!(
            d.usage,
            Some(DecisionUsage {
                input_tokens: Some(12),
                output_tokens: Some(3)
            })
        );
        assert_eq!(d.answers["safe"], Answer::Noul { noul: 0.25 });
        // The wire's `nearUniform: true` is ignored: 0.8/0.2 is far from uniform.
        assert_eq!(
            d.answers["move"],
            Answer::Choice {
                choice: "left".into(),
                probabilities: probs(&[("left", 0.8), ("right", 0.2)]),
                confidence: 0.7,
                near_uniform: false
            }
        );
        match &d.answers["grade"] {
            Answer::Score { score, legend, .. } => {
                assert_eq!(*score, 1.21);
                assert_eq!(legend["1"], "good");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn calibrated_absent_or_null_is_true_only_false_is_false() {
        let qs = questions();
        let cal = |extra: Value| Decision::from_wire(&wire(extra), &qs, "m").map(|d| d.calibrated);
        assert_eq!(cal(json!({})), Ok(true));
        assert_eq!(cal(json!({"calibrated": null})), Ok(true));
        assert_eq!(cal(json!({"calibrated": true})), Ok(true));
        assert_eq!(cal(json!({"calibrated": false})), Ok(false));
        for odd in [json!("false"), json!(0), json!({})] {
            assert!(
                matches!(
                    cal(json!({ "calibrated": odd })),
                    Err(ClassifierError::Decision { .. })
                ),
                "{odd}"
            );
        }
    }

    #[test]
    fn a_missing_model_falls_back() {
        let mut w = wire(json!({}));
        w.as_object_mut().unwrap().remove("model");
        assert_eq!(
            Decision::from_wire(&w, &questions(), "opt").unwrap().model,
            "opt"
        );
    }

    #[test]
    fn a_malformed_answer_names_its_key() {
        let qs = questions();
        let cases = [
            json!({"move": {"type": "choice", "choice": "left", "confidence": 0.7}}),
            json!({"move": {"type": "choice", "choice": 3, "probabilities": {}, "confidence": 0.7}}),
            json!({"move": {"type": "noul", "noul": 0.5}}),
            json!({"move": {"choice": "left"}}),
            json!({"move": {"type": "maybe"}}),
            json!({"move": "left"}),
        ];
        for answers in cases {
            let err = Decision::from_wire(&json!({"model": "m", "answers": answers}), &qs, "m")
                .unwrap_err();
            match &err {
                ClassifierError::MalformedAnswer { key, .. } => assert_eq!(key, "move"),
                other => panic!("{other:?}"),
            }
            assert!(err.to_string().contains("answer \"move\""), "{err}");
        }
        let err = Decision::from_wire(&json!({"model": "m"}), &qs, "m").unwrap_err();
        assert!(matches!(err, ClassifierError::Decision { .. }), "{err:?}");
    }
}
