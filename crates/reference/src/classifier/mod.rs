//! SPEC §8B: typed decisions. A `Classifier` is a sibling of the §8 client, not a style of
//! it: a state plus pre-declared typed questions (`noul`, `choice`, `score`) in, one
//! calibrated answer per question out, with no free text, no tools and no loop.
//!
//! A classifier interprets; it never authorises. Its answers are readings inside a boundary
//! that code keeps, never the boundary: nothing here is a security control.
//!
//! ```
//! use serde_json::json;
//! use toolnexus_reference::classifier::{
//!     Answer, Classifier, ClassifierOptions, Question, Questions, RecordedDecision, Style,
//! };
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let mut questions = Questions::new();
//! questions.insert(
//!     "move".into(),
//!     Question::choice("Pick a move", [("left", "turn away from the wall"), ("right", "turn into it")]),
//! );
//! let recorded = json!({"model": "jev-1.13.0", "answers": {"move": {"type": "choice",
//!     "choice": "left", "probabilities": {"left": 0.8, "right": 0.2}, "confidence": 0.7}}});
//! let classifier = Classifier::new(ClassifierOptions {
//!     style: Style::Static,
//!     decisions: vec![RecordedDecision {
//!         questions: questions.clone(),
//!         state: json!(null),
//!         response: recorded,
//!     }],
//!     ..ClassifierOptions::default()
//! })
//! .unwrap();
//! let decision = classifier.evaluate(&json!({"hp": 3}), &questions).await.unwrap();
//! assert!(decision.calibrated);
//! match &decision.answers["move"] {
//!     Answer::Choice { choice, near_uniform, .. } => assert_eq!((choice.as_str(), *near_uniform), ("left", false)),
//!     other => panic!("{other:?}"),
//! }
//! # });
//! ```

pub mod canonical;
mod corpus;
pub mod decision;
pub mod degenerate;
pub mod error;
pub mod limits;
mod llm;
pub mod options;
pub mod question;
mod systemone;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;

use crate::client::{Client, MetricEvent};

pub use canonical::canonical_request;
pub use decision::{near_uniform, Answer, Decision, DecisionUsage, NEAR_UNIFORM_TOLERANCE};
pub use error::ClassifierError;
pub use options::{ClassifierOptions, EvaluateFn, RecordedDecision, Style};
pub use question::{NoulCriteria, Question, Questions};
pub use systemone::request_body;

/// The most question keys a classifier remembers having warned about; past it, further
/// degenerate keys are not reported (bounded memory, and the sink already holds as many
/// warnings).
pub const MAX_WARNED_KEYS: usize = 4096;

/// Where answers come from, fixed at construction.
enum Backend {
    SystemOne(reqwest::Client),
    Llm(Client),
    Custom(EvaluateFn),
    Static(corpus::Corpus),
}

struct Inner {
    options: ClassifierOptions,
    backend: Backend,
    /// The question keys already warned about (degenerate criteria), at most
    /// [`MAX_WARNED_KEYS`].
    warned: Mutex<HashSet<String>>,
}

/// A §8B classifier; cheap to clone (clones share the warned-key memory).
#[derive(Clone)]
pub struct Classifier {
    inner: Arc<Inner>,
}

impl Classifier {
    /// `createClassifier(options)`: a style missing its required option is an error here,
    /// before any evaluation.
    pub fn new(options: ClassifierOptions) -> Result<Classifier, ClassifierError> {
        let backend = match options.style {
            Style::SystemOne => Backend::SystemOne(
                options
                    .http_client
                    .clone()
                    .unwrap_or_else(crate::http_client::llm_client),
            ),
            Style::Llm => Backend::Llm(
                options
                    .client
                    .clone()
                    .ok_or(ClassifierError::MissingClient)?,
            ),
            Style::Custom => Backend::Custom(
                options
                    .evaluate
                    .clone()
                    .ok_or(ClassifierError::MissingEvaluate)?,
            ),
            Style::Static => {
                Backend::Static(corpus::Corpus::new(&options.model, &options.decisions))
            }
        };
        Ok(Classifier {
            inner: Arc::new(Inner {
                options,
                backend,
                warned: Mutex::new(HashSet::new()),
            }),
        })
    }

    /// The options the classifier was created with.
    pub fn options(&self) -> &ClassifierOptions {
        &self.inner.options
    }

    /// `classifier.evaluate(state, questions)`: the limits are checked first (an error
    /// names the key and nothing is sent), degenerate choices are reported once per key,
    /// then the backend answers. `state` travels as given; it is outside the byte claim.
    /// Every call emits one `classifier.evaluate` record.
    pub async fn evaluate(
        &self,
        state: &Value,
        questions: &Questions,
    ) -> Result<Decision, ClassifierError> {
        let started = Instant::now();
        let outcome = self.answer(state, questions).await;
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let event = match &outcome {
            Ok(d) => MetricEvent::ClassifierEvaluate {
                model: d.model.clone(),
                status: "ok".into(),
                ms,
                input_tokens: d.usage.and_then(|u| u.input_tokens),
                output_tokens: d.usage.and_then(|u| u.output_tokens),
                error: None,
            },
            Err(e) => MetricEvent::ClassifierEvaluate {
                model: self.inner.options.model.clone(),
                status: "error".into(),
                ms,
                input_tokens: None,
                output_tokens: None,
                error: Some(e.to_string()),
            },
        };
        self.metric(&event);
        outcome
    }

    async fn answer(
        &self,
        state: &Value,
        questions: &Questions,
    ) -> Result<Decision, ClassifierError> {
        limits::check(questions)?;
        self.warn_degenerate(questions);
        let o = &self.inner.options;
        match &self.inner.backend {
            Backend::SystemOne(http) => systemone::evaluate(o, http, state, questions).await,
            Backend::Llm(client) => llm::evaluate(client, &o.model, state, questions).await,
            Backend::Custom(evaluate) => evaluate(state.clone(), questions.clone())
                .await
                .map_err(|message| ClassifierError::Custom { message }),
            Backend::Static(corpus) => corpus.lookup(&o.model, state, questions),
        }
    }

    /// One `classifier.warning` per degenerate choice key this classifier has not warned
    /// about yet; the request itself is never changed.
    fn warn_degenerate(&self, questions: &Questions) {
        for (key, question) in questions {
            let Question::Choice { criteria, .. } = question else {
                continue;
            };
            let Some(rule) = degenerate::detect(criteria) else {
                continue;
            };
            let first = {
                let mut warned = self.inner.warned.lock().unwrap_or_else(|p| p.into_inner());
                // `insert` is false for a key warned about before.
                warned.len() < MAX_WARNED_KEYS && warned.insert(key.clone())
            };
            if first {
                self.metric(&MetricEvent::ClassifierWarning {
                    question: key.clone(),
                    warning: rule.warning(key),
                });
            }
        }
    }

    fn metric(&self, event: &MetricEvent) {
        if let Some(sink) = &self.inner.options.on_metric {
            sink(event);
        }
    }
}

#[cfg(test)]
mod tests;
