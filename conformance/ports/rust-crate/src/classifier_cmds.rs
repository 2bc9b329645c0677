//! The §8B classifier commands (PROTOCOL.md §5.29–§5.30, §6B, §7 "Classifier behaviours") over
//! the crate's own classifier API: `toolnexus::classifier::{create_classifier,
//! ClassifierOptions, ClassifierStyle, Question, Questions, Decision, DecisionAnswer,
//! RecordedDecision, EvaluateFn}`.
//!
//! Every option maps to a real crate field; what the crate cannot express is answered
//! `unsupported`. A constructor or an `evaluate` that errors is `{"ok":true,"raised":message}`
//! with the crate's own `ClassifierError` text. The crate's `Questions` and `Decision.answers`
//! are `BTreeMap`s: they order the caller's keys themselves, and the driver passes them as they
//! are.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map, Value};

use toolnexus::classifier::{
    create_classifier, ChoiceQuestion, Classifier, ClassifierOptions, ClassifierStyle,
    DecisionAnswer, EvaluateFn, NoulCriteria, NoulQuestion, RecordedDecision, ScoreQuestion,
};
use toolnexus::{Decision, Question, Questions};
use toolnexus_protocol::classifier::{Question as WireQuestion, CLASSIFIER_OPTION_KEYS};

use crate::client_cmds::{self, given_options, push_capped, uint, ClientEntry, Recorder};
use crate::{as_obj, bad, behaviour_key, field, unsupported, Res};

/// One `classifier` of the session and the recorder its host-supplied code writes into.
pub struct ClassifierEntry {
    classifier: Classifier,
    rec: Arc<Recorder>,
}

// ---------------------------------------------------------------------------
// questions and decisions
// ---------------------------------------------------------------------------

/// A protocol question as the crate's own `Question`: a noul's criteria absent stays `None`,
/// given (even `{}`) is a `NoulCriteria`, a case not given being the type's empty default.
fn question(q: WireQuestion) -> Question {
    match q {
        WireQuestion::Noul {
            instructions,
            criteria,
        } => NoulQuestion {
            instructions,
            criteria: criteria.map(|c| NoulCriteria {
                when_true: c.true_case.unwrap_or_default(),
                when_false: c.false_case.unwrap_or_default(),
            }),
        }
        .into(),
        WireQuestion::Choice {
            instructions,
            criteria,
        } => ChoiceQuestion {
            instructions,
            criteria: criteria.into_iter().collect(),
        }
        .into(),
        WireQuestion::Score {
            instructions,
            criteria,
        } => ScoreQuestion {
            instructions,
            criteria,
        }
        .into(),
    }
}

/// The request's questions (checked against the protocol's typed form) as the crate's
/// `Questions`.
fn questions(v: &Value, what: &str) -> Res<Questions> {
    let mut out = Questions::new();
    for (key, q) in as_obj(v, what)? {
        let q: WireQuestion =
            serde_json::from_value(q.clone()).map_err(|e| bad(format!("{what}.{key}: {e}")))?;
        out.insert(key.clone(), question(q));
    }
    Ok(out)
}

/// PROTOCOL.md §8 Decision: each answer in the crate's own wire form
/// (`DecisionAnswer::wire`: its fields plus `type`) with the derived `nearUniform`, which the
/// crate's serde form skips; usage in the protocol's spelling.
fn decision_json(d: &Decision) -> Value {
    let answers: Map<String, Value> = d
        .answers
        .iter()
        .map(|(k, a)| {
            let mut m = a.wire();
            if let DecisionAnswer::Choice(c) = a {
                m.insert("nearUniform".into(), Value::Bool(c.near_uniform));
            }
            (k.clone(), Value::Object(m))
        })
        .collect();
    let mut usage =
        json!({"inputTokens": d.usage.input_tokens, "outputTokens": d.usage.output_tokens});
    if let Some(cost) = d.usage.cost {
        usage["cost"] = json!(cost);
    }
    json!({"model": d.model, "answers": answers, "usage": usage, "calibrated": d.calibrated})
}

// ---------------------------------------------------------------------------
// behaviours and options (§6B, §7 "Classifier behaviours")
// ---------------------------------------------------------------------------

/// `evaluate` (`style: "custom"`): `{"decision": D}` decoded once by the crate's own
/// `Decision::from_value` (so `nearUniform` and `calibrated` are the crate's), `{"fail": M}`;
/// each call recorded in `evaluateCalls` before it acts.
fn evaluate_fn(v: &Value, rec: &Arc<Recorder>) -> Res<EvaluateFn> {
    let outcome: Result<Decision, String> = match behaviour_key(v, "evaluate")? {
        ("decision", d) => {
            Ok(Decision::from_value(d).map_err(|e| bad(format!("evaluate.decision: {e}")))?)
        }
        ("fail", Value::String(m)) => Err(m.clone()),
        (k, _) => return Err(unsupported(format!("unknown evaluate behaviour \"{k}\""))),
    };
    let rec = rec.clone();
    Ok(Arc::new(move |_ctx, state: Value, qs: Questions| {
        let wire: Map<String, Value> = qs.iter().map(|(k, q)| (k.clone(), q.wire())).collect();
        push_capped(
            &rec.evaluate_calls,
            json!({"state": state, "questions": wire}),
        );
        let out = outcome.clone();
        Box::pin(async move { out })
    }))
}

/// `decisions`: the static corpus as the crate's `RecordedDecision`s (`response` its bytes).
fn recorded(v: &Value) -> Res<Vec<RecordedDecision>> {
    let arr = v
        .as_array()
        .ok_or_else(|| bad("decisions must be an array"))?;
    arr.iter()
        .enumerate()
        .map(|(i, d)| {
            let w = format!("decisions[{i}]");
            let m = as_obj(d, &w)?;
            Ok(RecordedDecision {
                state: m.get("state").cloned().unwrap_or(Value::Null),
                questions: questions(field(m, "questions")?, &format!("{w}.questions"))?,
                response: serde_json::to_vec(field(m, "response")?)
                    .map_err(|e| bad(format!("{w}.response: {e}")))?,
            })
        })
        .collect()
}

fn string(v: &Value, key: &str) -> Res<String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| bad(format!("{key} must be a string")))
}

/// `classifier`: the crate classifier from protocol options, or the crate's raise.
pub fn make_classifier(
    opts: &Map<String, Value>,
    clients: &HashMap<String, ClientEntry>,
) -> Res<Result<ClassifierEntry, String>> {
    let opts = given_options(opts, &CLASSIFIER_OPTION_KEYS, "classifier")?;
    let rec = Arc::new(Recorder::for_classifier(
        opts.contains_key("onMetric"),
        opts.contains_key("onError"),
        opts.contains_key("evaluate"),
    ));
    let mut o = ClassifierOptions::default();
    for (k, v) in &opts {
        match k.as_str() {
            // The crate's own parser: an unknown style is its raise, not the driver's.
            "style" => match ClassifierStyle::parse(&string(v, "style")?) {
                Ok(s) => o.style = s,
                Err(e) => return Ok(Err(e.to_string())),
            },
            "baseUrl" => o.base_url = string(v, "baseUrl")?,
            "model" => o.model = string(v, "model")?,
            "apiKeyEnv" => o.api_key_env = string(v, "apiKeyEnv")?,
            "headers" => {
                for (hk, hv) in as_obj(v, "headers")? {
                    o.headers.insert(hk.clone(), string(hv, "headers values")?);
                }
            }
            "timeoutMs" => o.timeout_ms = uint(v, "timeoutMs")?,
            // The crate's idiom, as for the client: 0 ⇒ default 2, -1 ⇒ no retries.
            "retries" => {
                o.retries = match uint(v, "retries")? {
                    0 => -1,
                    n => i32::try_from(n).map_err(|_| bad("retries too large"))?,
                }
            }
            "retryBaseMs" => {
                let n = v
                    .as_i64()
                    .ok_or_else(|| bad("retryBaseMs must be an integer"))?;
                o.retry_base_ms = u64::try_from(n).map_err(|_| {
                    unsupported("retryBaseMs negative: the crate's retry_base_ms is unsigned")
                })?;
            }
            "retryableStatuses" => o.retryable_statuses = client_cmds::statuses(v)?,
            "onError" => o.on_error = Some(client_cmds::on_error(v, &rec)?),
            "requestParams" => o.request_params = as_obj(v, "requestParams")?.clone(),
            "bodyTransform" => o.body_transform = Some(client_cmds::body_transform(v)?),
            "onMetric" => o.on_metric = Some(client_cmds::agent_on_metric(v, &rec)?),
            "client" => {
                let id = string(v, "client")?;
                let entry = clients
                    .get(&id)
                    .ok_or_else(|| bad(format!("no client \"{id}\"")))?;
                o.client = Some(entry.client());
            }
            "evaluate" => o.evaluate = Some(evaluate_fn(v, &rec)?),
            "decisions" => o.decisions = recorded(v)?,
            _ => {}
        }
    }
    Ok(create_classifier(o)
        .map(|classifier| ClassifierEntry { classifier, rec })
        .map_err(|e| e.to_string()))
}

/// `evaluate`: `classifier.evaluate(state, questions)`, the decision or the raise, and what
/// the host code observed.
pub async fn evaluate(req: &Map<String, Value>, e: &ClassifierEntry) -> Res<Map<String, Value>> {
    let qs = questions(field(req, "questions")?, "questions")?;
    let state = req.get("state").cloned().unwrap_or(Value::Null);
    e.rec.reset();
    let t0 = Instant::now();
    let r = e.classifier.evaluate(state, &qs).await;
    let mut out = Map::new();
    match r {
        Ok(d) => out.insert("decision".into(), decision_json(&d)),
        Err(err) => out.insert("raised".into(), Value::String(err.to_string())),
    };
    out.insert("elapsedMs".into(), json!(t0.elapsed().as_millis() as u64));
    e.rec.drain_into(&mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_noul_keeps_absent_and_empty_criteria_apart() {
        let absent = questions(
            &json!({"q": {"type": "noul", "instructions": "I"}}),
            "questions",
        )
        .unwrap();
        assert_eq!(
            absent["q"].wire(),
            json!({"type": "noul", "instructions": "I"})
        );
        let empty = questions(
            &json!({"q": {"type": "noul", "instructions": "I", "criteria": {}}}),
            "questions",
        )
        .unwrap();
        assert_eq!(
            empty["q"].wire(),
            json!({"type": "noul", "instructions": "I", "criteria": {"true": "", "false": ""}})
        );
    }

    #[test]
    fn a_choice_decision_carries_near_uniform_and_camel_case_usage() {
        let d = Decision::from_value(&json!({"model": "m", "answers": {"c": {"type": "choice",
            "choice": "a", "probabilities": {"a": 0.5, "b": 0.5}, "confidence": 0.1}},
            "usage": {"input_tokens": 3, "output_tokens": 1}}))
        .unwrap();
        let v = decision_json(&d);
        assert_eq!(v["answers"]["c"]["nearUniform"], json!(true));
        assert_eq!(v["answers"]["c"]["type"], json!("choice"));
        assert_eq!(v["usage"], json!({"inputTokens": 3, "outputTokens": 1}));
        assert_eq!(v["calibrated"], json!(true));
    }
}
