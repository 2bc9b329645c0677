//! The `llm` backend: the questions asked of any §8 client in exactly one run with no tools.
//! The prompt renders the state and the canonical questions and asks for one JSON object
//! `{"answers": {…}}` in the systemone wire shapes; the first JSON object of the reply is
//! decoded like a systemone answer. The numbers are the model's own report, so the decision
//! is `calibrated: false`.
//!
//! The caller's keys are addressing, never content, so the model sees stand-in ids (`q1`,
//! `q2`, … in the caller's order, zero-padded so they sort in that order) and never a key.

use serde_json::Value;

use super::canonical::encode;
use super::decision::{Decision, DecisionUsage};
use super::error::ClassifierError;
use super::question::{questions_wire, Questions};
use crate::client::{Client, RunOptions};

/// How many `{` of a reply are tried as the start of its JSON object (a bound on the work a
/// long reply full of braces can cause).
const MAX_OBJECT_STARTS: usize = 64;

/// One evaluation as one client run.
pub async fn evaluate(
    client: &Client,
    fallback_model: &str,
    state: &Value,
    questions: &Questions,
) -> Result<Decision, ClassifierError> {
    let ids = stand_in_ids(questions.len());
    let asked: Questions = ids
        .iter()
        .cloned()
        .zip(questions.values().cloned())
        .collect();
    let result = client
        .run(prompt(state, &asked), RunOptions::default())
        .await
        .map_err(|e| ClassifierError::Llm {
            message: e.message(),
        })?;
    let reply = first_object(&result.text).ok_or_else(|| ClassifierError::LlmReply {
        detail: "the reply holds no JSON object".into(),
    })?;
    let model = if result.model.is_empty() {
        fallback_model
    } else {
        result.model.as_str()
    };
    let decision = Decision::from_wire(&reply, &asked, model)?;
    // Back from stand-in ids to the caller's keys; an id the model made up is no question.
    let mut answers = indexmap::IndexMap::new();
    for (id, key) in ids.iter().zip(questions.keys()) {
        if let Some(a) = decision.answers.get(id) {
            answers.insert(key.clone(), a.clone());
        }
    }
    Ok(Decision {
        model: decision.model,
        answers,
        usage: Some(DecisionUsage {
            input_tokens: Some(result.usage.prompt_tokens),
            output_tokens: Some(result.usage.completion_tokens),
        }),
        calibrated: false,
    })
}

/// `q1` … `qN`, zero-padded to the width of `N`.
fn stand_in_ids(n: usize) -> Vec<String> {
    let width = n.to_string().len();
    (1..=n).map(|i| format!("q{i:0width$}")).collect()
}

/// The one prompt: what to answer, the answer shapes, the state and the questions.
fn prompt(state: &Value, asked: &Questions) -> String {
    let state = match state {
        Value::String(s) => s.clone(),
        other => encode(other),
    };
    format!(
        "You are a classifier. Answer every question below about the state, each on its own \
         (one answer is never context for another). Reply with exactly one JSON object and \
         nothing else: {{\"answers\": {{<question id>: <answer>}}}}, one answer per question \
         id, in the shape of its type:\n\
         - noul: {{\"type\":\"noul\",\"noul\":<probability in 0..1 that the statement holds>}}\n\
         - choice: {{\"type\":\"choice\",\"choice\":<one offered option id>,\
         \"probabilities\":{{<every offered option id>:<probability>}},\"confidence\":<0..1>}}\n\
         - score: {{\"type\":\"score\",\"score\":<number from 0 to the last level index>,\
         \"probabilities\":{{\"0\":<probability>,…}},\"legend\":{{\"0\":<level 0 text>,…}},\
         \"confidence\":<0..1>}}\n\
         A choice's criteria describe what each option means; a score's criteria are its \
         levels, level 0 first.\n\nState:\n{state}\n\nQuestions:\n{}\n",
        encode(&questions_wire(asked))
    )
}

/// The first JSON object in `text`, tried from each of its first [`MAX_OBJECT_STARTS`]
/// `{` (a reply may wrap it in prose or a code fence).
fn first_object(text: &str) -> Option<Value> {
    text.match_indices('{')
        .take(MAX_OBJECT_STARTS)
        .find_map(|(at, _)| {
            let mut values = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
            match values.next() {
                Some(Ok(v @ Value::Object(_))) => Some(v),
                _ => None,
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_sort_in_the_callers_order() {
        assert_eq!(stand_in_ids(3), ["q1", "q2", "q3"]);
        let ids = stand_in_ids(12);
        assert_eq!((ids[0].as_str(), ids[11].as_str()), ("q01", "q12"));
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(sorted, ids);
    }

    #[test]
    fn the_first_object_is_found_in_prose_and_fences() {
        assert_eq!(
            first_object("Sure! ```json\n{\"answers\": {}}\n``` done {\"x\":1}"),
            Some(json!({"answers": {}}))
        );
        assert_eq!(first_object("{broken {\"a\": 1}"), Some(json!({"a": 1})));
        assert_eq!(first_object("no object [1, 2]"), None);
    }

    #[test]
    fn the_prompt_carries_no_caller_key() {
        let mut qs = Questions::new();
        qs.insert(
            "secret_tool_name".into(),
            crate::classifier::Question::noul("Is it raining?"),
        );
        let ids = stand_in_ids(1);
        let asked: Questions = ids.into_iter().zip(qs.values().cloned()).collect();
        let p = prompt(&json!({"sky": "grey"}), &asked);
        assert!(!p.contains("secret_tool_name"), "{p}");
        assert!(
            p.contains(r#"{"q1":{"instructions":"Is it raining?","type":"noul"}}"#),
            "{p}"
        );
        assert!(p.contains(r#"{"sky":"grey"}"#), "{p}");
    }
}
