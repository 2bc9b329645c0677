//! SPEC §8: the unified LLM client — the tool-calling agent loop over an OpenAI- or
//! Anthropic-style endpoint (or an in-process `generate`), with hooks, retries,
//! streaming, conversation memory and metrics.
//!
//! Hook turns are numbered from 1.

mod body;
pub mod error;
pub mod hooks;
pub(crate) mod http;
pub mod metrics;
pub mod options;
pub mod parts;
pub mod result;
mod resume;
mod run;
mod sse;
pub mod store;
pub mod translate;
pub mod wire;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use futures::stream::BoxStream;
use futures::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::suspension::{Answer, Request};
use crate::toolkit::Toolkit;

pub use error::ClientError;
pub use hooks::{AfterLlm, AfterTool, BeforeLlm, BeforeTool, Hooks, LlmOverride, ToolOverride};
pub use http::{parse_retry_after, DEFAULT_RETRYABLE_STATUSES};
pub use metrics::MetricEvent;
pub use options::{
    AgentSeams, BodyTransform, ClientOptions, ErrorDecision, ErrorInfo, Generate, Generated,
    GeneratedCall, OnError, OnMetric, Style, TurnGate, TurnGuard, TurnPermit, TurnProgress,
};
pub use parts::{OnUnsupportedPart, PartError, Prompt};
pub use result::{RunResult, RunStatus, StreamEvent, ToolCallRecord};
pub use store::{ConversationStore, InMemoryStore};
pub use translate::{TranslateRequest, TranslateResult, TranslatedCall};
pub use wire::Usage;

/// Where answers come from.
enum Backend {
    Http(reqwest::Client),
    InProcess(Generate),
}

struct Inner {
    options: ClientOptions,
    backend: Backend,
    store: Arc<dyn ConversationStore>,
    registry: metrics::Registry,
    warned_params: AtomicBool,
    warned_parts: AtomicBool,
}

/// A §8 client; cheap to clone (clones share the store and the metrics).
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

/// `ask`'s `on_text`: each assistant text delta.
pub type OnText = Arc<dyn Fn(&str) + Send + Sync>;

/// `run(prompt, { toolkit, history, signal })`.
#[derive(Default, Clone)]
pub struct RunOptions<'a> {
    /// The tools and skills; `None` ⇒ no tools and an empty skills prompt.
    pub toolkit: Option<&'a Toolkit>,
    /// A prior transcript to continue.
    pub history: Vec<Value>,
    /// The external cancel signal.
    pub cancel: Option<CancellationToken>,
}

/// `ask(prompt, { toolkit, id, on_text })`.
#[derive(Default, Clone)]
pub struct AskOptions<'a> {
    /// The tools and skills.
    pub toolkit: Option<&'a Toolkit>,
    /// The conversation id; `None` ⇒ stateless.
    pub id: Option<String>,
    /// Receives each assistant text delta (the streaming wire is used then).
    pub on_text: Option<OnText>,
    /// The external cancel signal.
    pub cancel: Option<CancellationToken>,
}

impl Client {
    /// `createClient(options)`.
    pub fn new(options: ClientOptions) -> Client {
        let http = options
            .http_client
            .clone()
            .unwrap_or_else(crate::http_client::llm_client);
        Self::with_backend(options, Backend::Http(http))
    }

    /// The in-process constructor: `generate` instead of a wire. `base_url`, `style` and
    /// `api_key` of `options` are ignored; messages are OpenAI-shaped, failures are final
    /// and streaming raises.
    pub fn in_process(options: ClientOptions, generate: Generate) -> Client {
        let options = ClientOptions {
            style: Style::OpenAi,
            ..options
        };
        Self::with_backend(options, Backend::InProcess(generate))
    }

    fn with_backend(options: ClientOptions, backend: Backend) -> Client {
        let store = options
            .store
            .clone()
            .unwrap_or_else(|| Arc::new(InMemoryStore::new()));
        Client {
            inner: Arc::new(Inner {
                options,
                backend,
                store,
                registry: metrics::Registry::new(),
                warned_params: AtomicBool::new(false),
                warned_parts: AtomicBool::new(false),
            }),
        }
    }

    /// The options the client was created with.
    pub fn options(&self) -> &ClientOptions {
        &self.inner.options
    }

    /// `run(prompt, { toolkit, history, signal })`.
    pub async fn run(
        &self,
        prompt: impl Into<Prompt>,
        opts: RunOptions<'_>,
    ) -> Result<RunResult, ClientError> {
        self.execute(
            run::Entry::Prompt(prompt.into()),
            opts,
            None,
            run::Sinks::default(),
        )
        .await
    }

    /// `stream(prompt, { toolkit, id, history, signal })`: the same loop, incrementally.
    /// The stream ends after `Done`, or after one `Err` item when the run raises.
    pub fn stream<'a>(
        &'a self,
        prompt: impl Into<Prompt>,
        opts: RunOptions<'a>,
        id: Option<String>,
    ) -> BoxStream<'a, Result<StreamEvent, ClientError>> {
        let prompt = prompt.into();
        let (tx, rx) = futures::channel::mpsc::unbounded();
        let driver = async move {
            let send = tx.clone();
            let sink = move |ev: StreamEvent| {
                // The receiver may have been dropped; the run just goes on unobserved.
                let _ = send.unbounded_send(Ok(ev));
            };
            let sinks = run::Sinks {
                events: Some(&sink),
                on_text: None,
            };
            let outcome = if matches!(self.inner.backend, Backend::InProcess(_)) {
                Err(ClientError::InProcessCannotStream)
            } else {
                self.execute(run::Entry::Prompt(prompt), opts, id, sinks)
                    .await
            };
            let item = outcome.map(|result| StreamEvent::Done { result });
            let _ = tx.unbounded_send(item);
        };
        let driver = futures::stream::once(driver).filter_map(|()| async { None });
        Box::pin(futures::stream::select(rx, driver))
    }

    /// `ask(prompt, { toolkit, id, on_text })`: `run` through the conversation store.
    pub async fn ask(
        &self,
        prompt: impl Into<Prompt>,
        opts: AskOptions<'_>,
    ) -> Result<RunResult, ClientError> {
        let prompt = prompt.into();
        let on_text = opts.on_text.clone();
        if on_text.is_some() && matches!(self.inner.backend, Backend::InProcess(_)) {
            return Err(ClientError::InProcessCannotStream);
        }
        let text_sink = on_text.as_deref();
        let sinks = run::Sinks {
            events: None,
            on_text: text_sink,
        };
        let run_opts = RunOptions {
            toolkit: opts.toolkit,
            history: Vec::new(),
            cancel: opts.cancel,
        };
        self.execute(run::Entry::Prompt(prompt), run_opts, opts.id, sinks)
            .await
    }

    /// `runWithAnswer(toolkit, history, pending, answer)` (SPEC §10 preview): resumes a
    /// durable halt. The answer must echo `pending.id`; the halted turn's tool results are
    /// completed (placeholder replaced) and the loop continues with no new user turn.
    pub async fn run_with_answer(
        &self,
        opts: RunOptions<'_>,
        pending: Request,
        answer: Answer,
    ) -> Result<RunResult, ClientError> {
        let entry = run::Entry::Resume(Box::new(pending), Box::new(answer));
        self.execute(entry, opts, None, run::Sinks::default()).await
    }

    /// `askWithAnswer(toolkit, conversationId, pending, answer)` (SPEC §10 preview):
    /// `run_with_answer` on the stored thread, saved back on success.
    pub async fn ask_with_answer(
        &self,
        toolkit: Option<&Toolkit>,
        id: &str,
        pending: Request,
        answer: Answer,
    ) -> Result<RunResult, ClientError> {
        let opts = RunOptions {
            toolkit,
            ..RunOptions::default()
        };
        let entry = run::Entry::Resume(Box::new(pending), Box::new(answer));
        self.execute(entry, opts, Some(id.to_string()), run::Sinks::default())
            .await
    }

    /// `conversation({ toolkit })`: a stateful transcript over `run`.
    pub fn conversation<'a>(&'a self, toolkit: Option<&'a Toolkit>) -> Conversation<'a> {
        Conversation {
            client: self,
            toolkit,
            messages: Vec::new(),
        }
    }

    /// Gap 4: the client's store (the one passed in, else the default in-memory one).
    pub fn conversation_store(&self) -> Arc<dyn ConversationStore> {
        self.inner.store.clone()
    }

    /// The Prometheus text of everything this client did.
    pub fn metrics(&self) -> String {
        self.inner.registry.render()
    }
}

/// `client.conversation(...)`: `send` keeps the transcript between calls.
pub struct Conversation<'a> {
    client: &'a Client,
    toolkit: Option<&'a Toolkit>,
    messages: Vec<Value>,
}

impl Conversation<'_> {
    /// Runs `prompt` on the transcript so far; a failed send leaves the transcript as it was.
    pub async fn send(&mut self, prompt: impl Into<Prompt>) -> Result<RunResult, ClientError> {
        let result = self
            .client
            .run(
                prompt,
                RunOptions {
                    toolkit: self.toolkit,
                    history: self.messages.clone(),
                    cancel: None,
                },
            )
            .await?;
        self.messages = result.messages.clone();
        Ok(result)
    }

    /// The transcript.
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }

    /// Forgets the transcript.
    pub fn reset(&mut self) {
        self.messages.clear();
    }
}
