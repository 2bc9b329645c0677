//! The classifier operations (issue 47; SPEC §8B, PROTOCOL §5.29–§5.30): one `evaluate` per
//! round on a `static` classifier whose corpus holds one recorded decision for exactly the
//! request sent. A `static` backend finds a recorded decision by the canonical request
//! (`model` + `questions`, keys sorted recursively, compact), so what is timed is the port
//! taking the request in, encoding it canonically, finding the entry and decoding the
//! recorded answer, and the answer's way back.
//!
//! - `classifier_static`: one choice of 3 options and one noul, a small request.
//! - `classifier_canonical_255`: 10 choices of 255 options each, every description a few
//!   dozen characters (186 kB of request), the question keys and option ids written
//!   out of order on purpose (PROTOCOL §5.30: sorting is the port's job), so every round the
//!   port sorts and encodes the whole request again to find it.
//!
//! Python and the crate key their corpus by request and state, so the recorded decision
//! carries the very state every evaluation sends.

use std::time::Instant;

use indexmap::IndexMap;
use serde_json::{json, Value};

use crate::measure::{note, Go, Measured, Unit};
pub(crate) use crate::options::Case;
use crate::raw::{answer, send};
use crate::stats::ms;
use toolnexus_ports::port::{truncate, Port, PortError};
use toolnexus_protocol::classifier::{ClassifierOptions, NoulCriteria, Question, RecordedDecision};
use toolnexus_protocol::Request;

/// The classifier id every port creates.
const CLASSIFIER: &str = "bench-classifier";
/// The classifier's model: part of the canonical request.
pub(crate) const MODEL: &str = "jev-bench";
/// Questions of the wide case.
pub(crate) const WIDE_QUESTIONS: usize = 10;
/// Options of each wide question: SPEC §8B's largest choice.
pub(crate) const WIDE_OPTIONS: usize = 255;
/// The probability the recorded answer gives its choice, and each other option.
const CHOSEN_P: f64 = 0.6;
const OTHER_P: f64 = 0.0016;

/// What a classifier operation sends and expects back.
pub(crate) struct Recorded {
    /// The questions, in the order written (unsorted).
    pub(crate) questions: IndexMap<String, Question>,
    /// The state every evaluation sends, and the recorded decision's.
    pub(crate) state: Value,
    /// The recorded backend response (systemone wire).
    pub(crate) response: Value,
    /// What the decision must say: question key → the recorded choice, or the noul.
    pub(crate) expected: Vec<(String, Expected)>,
}

/// One answer a decision must carry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expected {
    /// A choice answer selecting this option.
    Choice(String),
    /// A noul answer of this value.
    Noul(f64),
}

/// The recorded request of `case`.
pub(crate) fn recorded(case: Case) -> Recorded {
    match case {
        Case::Small => small(),
        Case::Wide255 => wide(),
    }
}

/// One choice of 3 options and one noul, both written out of order.
fn small() -> Recorded {
    let mut questions = IndexMap::new();
    questions.insert(
        "urgent".to_string(),
        Question::Noul {
            instructions: "The customer needs an answer today.".into(),
            criteria: Some(NoulCriteria {
                true_case: Some("a deadline or an outage is named".into()),
                false_case: Some("nothing in the ticket is time-bound".into()),
            }),
        },
    );
    let criteria: IndexMap<String, String> = [
        ("support", "a product question or a bug report"),
        (
            "billing",
            "a question about an invoice, a charge or a refund",
        ),
        ("sales", "a question about plans, prices or a new contract"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    questions.insert(
        "route".to_string(),
        Question::Choice {
            instructions: "Which team handles the ticket?".into(),
            criteria,
        },
    );
    let response = json!({"model": MODEL, "answers": {
        "route": {"type": "choice", "choice": "billing",
                  "probabilities": {"billing": 0.81, "sales": 0.11, "support": 0.08},
                  "confidence": 0.7},
        "urgent": {"type": "noul", "noul": 0.12}},
        "usage": {"input_tokens": 96, "output_tokens": 4}});
    Recorded {
        questions,
        state: json!({"ticket": "I was charged twice for May", "customer": {"tier": "gold", "open": 2}}),
        response,
        expected: vec![
            ("route".into(), Expected::Choice("billing".into())),
            ("urgent".into(), Expected::Noul(0.12)),
        ],
    }
}

/// Words of the wide case's option ids: upper case, lower case, a digit and `_` first, so
/// the canonical (byte) order interleaves them differently from the order written.
const ID_WORDS: [&str; 8] = [
    "north", "East", "south", "West", "up", "Down", "2nd", "_wait",
];
/// Verbs and things of the descriptions.
const VERBS: [&str; 6] = ["step", "slide", "jump", "turn", "dash", "creep"];
const THINGS: [&str; 5] = ["apple", "wall", "corner", "tail", "door"];

/// Option `k` of the wide questions: its id and its description (a few dozen characters).
fn wide_option(k: usize) -> (String, String) {
    let id = format!("{}_{k:03}", ID_WORDS[k % ID_WORDS.len()]);
    let description = format!(
        "{} {} squares toward the {} and keep clear of the {}",
        VERBS[k % VERBS.len()],
        k % 7 + 1,
        THINGS[k % THINGS.len()],
        THINGS[(k / 5) % THINGS.len()]
    );
    (id, description)
}

/// The written position `i` of option ids in question `q`: a permutation of 0..255 (97 is
/// prime to 255), different per question, so the ids are never written sorted.
fn wide_index(q: usize, i: usize) -> usize {
    (i * 97 + q * 13) % WIDE_OPTIONS
}

/// Ten choices of 255 options, question keys written in descending order.
fn wide() -> Recorded {
    let mut questions = IndexMap::new();
    let mut answers = serde_json::Map::new();
    let mut expected = Vec::new();
    for q in (0..WIDE_QUESTIONS).rev() {
        let key = format!("judge_{q:02}");
        let criteria: IndexMap<String, String> = (0..WIDE_OPTIONS)
            .map(|i| wide_option(wide_index(q, i)))
            .collect();
        let chosen = wide_option((q * 31 + 7) % WIDE_OPTIONS).0;
        let probabilities: serde_json::Map<String, Value> = criteria
            .keys()
            .map(|id| {
                let p = if *id == chosen { CHOSEN_P } else { OTHER_P };
                (id.clone(), json!(p))
            })
            .collect();
        answers.insert(
            key.clone(),
            json!({"type": "choice", "choice": chosen, "probabilities": probabilities,
                   "confidence": 0.55}),
        );
        questions.insert(
            key.clone(),
            Question::Choice {
                instructions: format!("Which move does the snake make next? (view {q})"),
                criteria,
            },
        );
        expected.push((key, Expected::Choice(chosen)));
    }
    let response = json!({"model": MODEL, "answers": answers,
                          "usage": {"input_tokens": 31_000, "output_tokens": 40}});
    Recorded {
        questions,
        state: json!({"board": "apple at (3, 4), tail at (7, 1), wall to the north", "turn": 17}),
        response,
        expected,
    }
}

/// The `classifier` request: a `static` classifier with the one recorded decision.
fn create_request(r: &Recorded) -> Request {
    Request::Classifier {
        id: CLASSIFIER.into(),
        options: Box::new(ClassifierOptions {
            style: Some("static".into()),
            model: Some(MODEL.into()),
            decisions: Some(vec![RecordedDecision {
                questions: r.questions.clone(),
                state: r.state.clone(),
                response: r.response.clone(),
            }]),
            ..ClassifierOptions::default()
        }),
    }
}

/// The `evaluate` request of `r`, as the JSON a port gets (its keys in the order written).
pub(crate) fn evaluate_value(r: &Recorded) -> Result<Value, PortError> {
    let request = Request::Evaluate {
        classifier: CLASSIFIER.into(),
        state: r.state.clone(),
        questions: r.questions.clone(),
    };
    serde_json::to_value(&request)
        .map_err(|e| PortError::Transport(format!("cannot encode `evaluate`: {e}")))
}

/// A classifier operation's state on a set-up port.
pub(crate) struct ClassifierState {
    /// The `evaluate` request, encoded once; each round sends a copy made before the clock.
    request: Value,
    expected: Vec<(String, Expected)>,
}

/// Creates the `static` classifier; a constructor that raises is a note and no numbers (a
/// port without classifiers answers `unsupported`, which the caller notes).
pub(crate) async fn setup(
    port: &mut dyn Port,
    case: Case,
    m: &mut Measured,
) -> Result<Option<ClassifierState>, PortError> {
    let r = recorded(case);
    let created = send(port, create_request(&r)).await?;
    if let Some(raised) = created.get("raised").and_then(Value::as_str) {
        note(
            &mut m.notes,
            format!("the classifier raised: {}", truncate(raised, 300)),
        );
        return Ok(None);
    }
    Ok(Some(ClassifierState {
        request: evaluate_value(&r)?,
        expected: r.expected,
    }))
}

/// One `evaluate`, timed from the request line to its answer line (read unparsed: the
/// harness's parse of the decision is not the port's time); the decision is checked after
/// the clock stops, and a wrong one stops the lane.
pub(crate) async fn step(
    port: &mut dyn Port,
    state: &mut ClassifierState,
    unit: Unit,
    m: &mut Measured,
) -> Result<Go, PortError> {
    let request = state.request.clone();
    let started = Instant::now();
    let text = port.call_unparsed(request).await?;
    let elapsed = ms(started);
    let response = answer(&text)?;
    if let Err(why) = check_decision(&response, &state.expected) {
        note(&mut m.notes, why);
        return Ok(Go::Stop);
    }
    if unit.counted {
        m.samples.push(elapsed);
    }
    Ok(Go::On)
}

/// An `evaluate` answer: a decision whose answers under the expected keys are the recorded
/// ones; otherwise why not.
pub(crate) fn check_decision(
    response: &Value,
    expected: &[(String, Expected)],
) -> Result<(), String> {
    let Some(decision) = response.get("decision") else {
        return Err(match response.get("raised").and_then(Value::as_str) {
            Some(m) => format!("evaluate raised: {}", truncate(m, 300)),
            None => format!(
                "evaluate answered neither decision nor raised: {}",
                truncate(&response.to_string(), 300)
            ),
        });
    };
    for (key, want) in expected {
        let a = &decision["answers"][key.as_str()];
        let ok = match want {
            Expected::Choice(c) => a["type"] == "choice" && a["choice"] == c.as_str(),
            Expected::Noul(n) => a["type"] == "noul" && a["noul"].as_f64() == Some(*n),
        };
        if !ok {
            return Err(format!(
                "the decision's {key:?} is {}, expected {want:?}",
                truncate(&a.to_string(), 200)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wide_request_is_ten_unsorted_questions_of_255_distinct_options() {
        let r = recorded(Case::Wide255);
        let keys: Vec<&String> = r.questions.keys().collect();
        assert_eq!(keys.len(), WIDE_QUESTIONS);
        assert_eq!(keys[0], "judge_09");
        assert_eq!(keys[9], "judge_00");
        for (key, q) in &r.questions {
            let Question::Choice { criteria, .. } = q else {
                panic!("{key} is not a choice");
            };
            assert_eq!(criteria.len(), WIDE_OPTIONS, "{key}");
            let ids: Vec<&String> = criteria.keys().collect();
            let mut sorted = ids.clone();
            sorted.sort();
            assert_ne!(ids, sorted, "{key} is written sorted");
            assert!(criteria.values().all(|d| (30..=80).contains(&d.len())));
            // The recorded answer picks one of the offered options.
            let chosen = r.response["answers"][key]["choice"].as_str().unwrap();
            assert!(criteria.contains_key(chosen), "{key}: {chosen}");
        }
        let size = evaluate_value(&r).unwrap().to_string().len();
        assert!((100_000..200_000).contains(&size), "{size} bytes");
    }

    #[test]
    fn a_decision_is_checked_against_the_recorded_answers() {
        let expected = recorded(Case::Small).expected;
        let good = json!({"ok": true, "decision": {"model": MODEL, "calibrated": true, "answers": {
            "route": {"type": "choice", "choice": "billing"}, "urgent": {"type": "noul", "noul": 0.12}}}});
        assert_eq!(check_decision(&good, &expected), Ok(()));
        let mut wrong = good.clone();
        wrong["decision"]["answers"]["route"]["choice"] = json!("sales");
        assert!(check_decision(&wrong, &expected)
            .unwrap_err()
            .contains("\"route\""));
        let raised = json!({"ok": true, "raised": "no recorded decision for [\"route\"]"});
        assert!(check_decision(&raised, &expected)
            .unwrap_err()
            .starts_with("evaluate raised: no recorded decision"));
    }
}
