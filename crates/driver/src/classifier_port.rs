//! The §8B classifier commands (PROTOCOL.md §5.29–§5.30) answered by the reference
//! classifier: protocol options → the reference's `ClassifierOptions`, every host callback
//! (`onError`, `onMetric`, a custom `evaluate`) recording what it saw.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use toolnexus_protocol::classifier::{
    ClassifierOptions as ProtoOptions, Decision as ProtoDecision, DecisionAnswer,
    EvaluateBehaviour, Question as ProtoQuestion,
};
use toolnexus_protocol::ErrorKind;
use toolnexus_reference::classifier::question::questions_wire;
use toolnexus_reference::classifier::{
    Answer, Classifier, ClassifierError, ClassifierOptions, Decision, EvaluateFn, NoulCriteria,
    Question, Questions, RecordedDecision, Style,
};

use crate::client_behaviours::{body_transform, collected_metrics, recorded_on_error};
use crate::client_port::Clients;
use crate::recorder::{push_capped, Recorder};
use crate::reply::{bad_request, Reply};

/// The classifiers of a session, by id.
#[derive(Default)]
pub struct Classifiers {
    classifiers: BTreeMap<String, DriverClassifier>,
}

/// A classifier as the driver keeps it: the reference classifier plus what it records.
struct DriverClassifier {
    classifier: Classifier,
    /// `metricEvents` and `onErrorCalls`.
    recorder: Arc<Recorder>,
    /// `evaluateCalls`, when a custom `evaluate` was given.
    evaluate_calls: Option<Arc<Mutex<Vec<Value>>>>,
    /// Which of the recorder's lists this classifier answers: `metricEvents`, `onErrorCalls`.
    answers: (bool, bool),
}

impl Classifiers {
    /// §5.29: creates (or replaces) the classifier `id`; the constructor's own error is the
    /// port's outcome (`raised`), a request outside the catalogue a `bad_request`.
    pub fn create(&mut self, id: String, o: &ProtoOptions, clients: &Clients) -> Reply {
        let recorder = Arc::new(Recorder::default());
        let evaluate_calls = o.evaluate.as_ref().map(|_| Arc::default());
        let options = options(o, clients, &recorder, evaluate_calls.as_ref())?;
        let built = options.and_then(Classifier::new);
        match built {
            Ok(classifier) => {
                let answers = (o.on_metric.is_some(), o.on_error.is_some());
                self.classifiers.insert(
                    id.clone(),
                    DriverClassifier {
                        classifier,
                        recorder,
                        evaluate_calls,
                        answers,
                    },
                );
                Ok(json!({ "classifier": id }))
            }
            Err(e) => Ok(json!({ "raised": e.to_string() })),
        }
    }

    /// §5.30: one evaluation, with what the host callbacks recorded and `elapsedMs`.
    pub async fn evaluate(
        &self,
        id: &str,
        state: Value,
        questions: impl IntoIterator<Item = (String, ProtoQuestion)>,
    ) -> Reply {
        let c = self
            .classifiers
            .get(id)
            .ok_or_else(|| bad_request(format!("no classifier \"{id}\"")))?;
        let questions = reference_questions(questions);
        c.recorder.reset();
        if let Some(calls) = &c.evaluate_calls {
            calls.lock().unwrap_or_else(|p| p.into_inner()).clear();
        }
        let started = Instant::now();
        let outcome = c.classifier.evaluate(&state, &questions).await;
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let mut body = Map::new();
        match outcome {
            Ok(d) => body.insert("decision".into(), decision_json(d)),
            Err(e) => body.insert("raised".into(), json!(e.to_string())),
        };
        for (field, entries) in c.recorder.take() {
            let on = match field {
                "metricEvents" => c.answers.0,
                "onErrorCalls" => c.answers.1,
                _ => false,
            };
            if on {
                body.insert(field.to_string(), Value::Array(entries));
            }
        }
        if let Some(calls) = &c.evaluate_calls {
            let calls = std::mem::take(&mut *calls.lock().unwrap_or_else(|p| p.into_inner()));
            body.insert("evaluateCalls".into(), Value::Array(calls));
        }
        body.insert("elapsedMs".into(), json!(ms));
        Ok(Value::Object(body))
    }
}

/// The reference's options, or the constructor-time error the port raises (an unknown
/// style); `Err` for what the protocol itself refuses.
fn options(
    o: &ProtoOptions,
    clients: &Clients,
    recorder: &Arc<Recorder>,
    evaluate_calls: Option<&Arc<Mutex<Vec<Value>>>>,
) -> Result<Result<ClassifierOptions, ClassifierError>, (ErrorKind, String)> {
    let style = match o.style.as_deref().map(str::parse::<Style>).transpose() {
        Ok(style) => style.unwrap_or_default(),
        Err(e) => return Ok(Err(e)),
    };
    let mut options = ClassifierOptions {
        style,
        headers: o.headers.clone().unwrap_or_default(),
        retryable_statuses: o.retryable_statuses.clone().unwrap_or_default(),
        request_params: o.request_params.clone().unwrap_or_default(),
        ..ClassifierOptions::default()
    };
    if let Some(u) = &o.base_url {
        options.base_url = u.clone();
    }
    if let Some(m) = &o.model {
        options.model = m.clone();
    }
    if let Some(k) = &o.api_key_env {
        options.api_key_env = k.clone();
    }
    if let Some(ms) = o.timeout_ms {
        options.timeout = Duration::from_millis(ms);
    }
    if let Some(n) = o.retries {
        options.retries =
            u32::try_from(n).map_err(|_| bad_request(format!("retries {n} is too large")))?;
    }
    if let Some(b) = o.retry_base_ms {
        options.retry_base_ms = b;
    }
    if let Some(b) = &o.on_error {
        options.on_error = Some(recorded_on_error(b, recorder.clone()));
    }
    if let Some(b) = &o.body_transform {
        options.body_transform = Some(body_transform(b.clone()));
    }
    if let Some(b) = &o.on_metric {
        options.on_metric = Some(collected_metrics(b, recorder.clone()).map_err(bad_request)?);
    }
    if let Some(id) = &o.client {
        options.client = Some(clients.reference(id)?);
    }
    if let (Some(b), Some(calls)) = (&o.evaluate, evaluate_calls) {
        options.evaluate = Some(custom_evaluate(
            b.clone(),
            calls.clone(),
            options.model.clone(),
        ));
    }
    if let Some(decisions) = &o.decisions {
        options.decisions = decisions
            .iter()
            .map(|d| RecordedDecision {
                questions: reference_questions(d.questions.clone()),
                state: d.state.clone(),
                response: d.response.clone(),
            })
            .collect();
    }
    Ok(Ok(options))
}

/// The custom `evaluate` behaviour: each call recorded as `{state, questions}` (the
/// questions in their wire form) before it acts; a `decision` is decoded by the
/// reference's own decoder, so `nearUniform` and `calibrated` are the reference's.
fn custom_evaluate(
    b: EvaluateBehaviour,
    calls: Arc<Mutex<Vec<Value>>>,
    model: String,
) -> EvaluateFn {
    Arc::new(move |state: Value, questions: Questions| {
        let entry = json!({"state": state, "questions": questions_wire(&questions)});
        push_capped(&mut calls.lock().unwrap_or_else(|p| p.into_inner()), entry);
        let outcome = match &b {
            EvaluateBehaviour::Decision(d) => {
                Decision::from_wire(d, &questions, &model).map_err(|e| e.to_string())
            }
            EvaluateBehaviour::Fail(m) => Err(m.clone()),
        };
        Box::pin(async move { outcome })
    })
}

/// The protocol's questions as the reference's (the same wire form), in the order given,
/// their texts moved over (a wide request is thousands of strings; no serde round trip).
fn reference_questions(q: impl IntoIterator<Item = (String, ProtoQuestion)>) -> Questions {
    q.into_iter()
        .map(|(key, question)| (key, reference_question(question)))
        .collect()
}

/// One protocol question as the reference's: the same three shapes.
fn reference_question(q: ProtoQuestion) -> Question {
    match q {
        ProtoQuestion::Noul {
            instructions,
            criteria,
        } => Question::Noul {
            instructions,
            criteria: criteria.map(|c| NoulCriteria {
                true_case: c.true_case,
                false_case: c.false_case,
            }),
        },
        ProtoQuestion::Choice {
            instructions,
            criteria,
        } => Question::Choice {
            instructions,
            criteria,
        },
        ProtoQuestion::Score {
            instructions,
            criteria,
        } => Question::Score {
            instructions,
            criteria,
        },
    }
}

/// A reference `Decision` in the protocol's shape (§8 "Decision"), its texts and maps moved.
fn decision_json(d: Decision) -> Value {
    let answers = d
        .answers
        .into_iter()
        .map(|(key, a)| {
            let a = match a {
                Answer::Noul { noul } => DecisionAnswer::Noul { noul },
                Answer::Choice {
                    choice,
                    probabilities,
                    confidence,
                    near_uniform,
                } => DecisionAnswer::Choice {
                    choice,
                    probabilities,
                    confidence,
                    near_uniform,
                },
                Answer::Score {
                    score,
                    probabilities,
                    legend,
                    confidence,
                } => DecisionAnswer::Score {
                    score,
                    probabilities,
                    legend,
                    confidence,
                },
            };
            (key, a)
        })
        .collect();
    let usage = d.usage.map(|u| {
        let mut v = Map::new();
        if let Some(n) = u.input_tokens {
            v.insert("inputTokens".into(), json!(n));
        }
        if let Some(n) = u.output_tokens {
            v.insert("outputTokens".into(), json!(n));
        }
        Value::Object(v)
    });
    let decision = ProtoDecision {
        model: d.model,
        answers,
        usage,
        calibrated: d.calibrated,
    };
    serde_json::to_value(decision).unwrap_or(Value::Null)
}
