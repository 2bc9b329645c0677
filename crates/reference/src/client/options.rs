//! `ClientOptions` (SPEC §8 `createClient`) and the host-supplied callbacks it carries.

use std::collections::BTreeMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Map, Value};

use super::hooks::Hooks;
use super::metrics::MetricEvent;
use super::store::ConversationStore;
use crate::suspension::WaitFor;

/// The wire a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `POST {baseUrl}/chat/completions`.
    OpenAi,
    /// `POST {baseUrl}[/v1]/messages`.
    Anthropic,
}

impl Style {
    /// Parses the SPEC spelling (`openai`, `anthropic`).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "openai" => Some(Style::OpenAi),
            "anthropic" => Some(Style::Anthropic),
            _ => None,
        }
    }
}

/// `bodyTransform` (Gap 1): the assembled body in, the body to send out.
pub type BodyTransform = Arc<dyn Fn(Value) -> Value + Send + Sync>;

/// `onError`: classifies one failed LLM attempt.
pub type OnError = Arc<dyn Fn(&ErrorInfo) -> ErrorDecision + Send + Sync>;

/// `onMetric`: receives every semantic metric record.
pub type OnMetric = Arc<dyn Fn(&MetricEvent) + Send + Sync>;

/// `generate` of an in-process client: the OpenAI-shaped request body in, one assistant
/// message out; an `Err` is final (no retry).
pub type Generate =
    Arc<dyn Fn(Value) -> BoxFuture<'static, Result<Generated, String>> + Send + Sync>;

/// What `onError` is told about a failed attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorInfo {
    /// The transport error's message (network failures only).
    pub error: Option<String>,
    /// The HTTP status of a non-ok answer.
    pub status: Option<u16>,
    /// Zero-based attempt number.
    pub attempt: u32,
    /// Whether the default classifier would retry: the status is in the enumerated set
    /// (429/500/502/503/504/529, plus what `retryable_statuses` added) or a network error.
    pub retryable: bool,
}

/// `onError`'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorDecision {
    /// Retry (still bounded by `retries`).
    Retry,
    /// Surface the error now.
    Fail,
}

/// One assistant message from an in-process `generate`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Generated {
    /// The text answer (`{content}`).
    pub content: Option<String>,
    /// Tool calls (`{toolCalls}`), crossing flat.
    pub tool_calls: Vec<GeneratedCall>,
    /// Optional OpenAI-shaped usage (`prompt_tokens`, ...).
    pub usage: Option<Value>,
}

/// A flat tool call from `generate`.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedCall {
    /// The call id; generated when absent.
    pub id: Option<String>,
    /// The tool name.
    pub name: String,
    /// An object, or a string passed as it is.
    pub arguments: Value,
}

/// Everything `createClient` accepts.
#[derive(Clone)]
pub struct ClientOptions {
    /// The endpoint (ignored by an in-process client).
    pub base_url: String,
    /// The wire (ignored by an in-process client).
    pub style: Style,
    /// Sent verbatim on every turn.
    pub model: String,
    /// Absent ⇒ read from the environment at call time, see [`ClientOptions::resolved_api_key`].
    pub api_key: Option<String>,
    /// Extra request headers.
    pub headers: BTreeMap<String, String>,
    /// Prepended to the toolkit's `skillsPrompt()`.
    pub system_prompt: Option<String>,
    /// LLM round trips at most (default 10).
    pub max_turns: u32,
    /// Retries after the first attempt (default 2).
    pub retries: u32,
    /// Backoff base in ms (default 500).
    pub retry_base_ms: u64,
    /// Statuses added to the default retryable set
    /// ([`super::http::DEFAULT_RETRYABLE_STATUSES`]); never removes one.
    pub retryable_statuses: Vec<u16>,
    /// Whole-run deadline.
    pub timeout_ms: Option<u64>,
    /// Gap 1: shallow-merged into every body (`messages`/`tools`/`stream` stripped).
    pub request_params: Map<String, Value>,
    /// Gap 1: the last word on the body before marshal.
    pub body_transform: Option<BodyTransform>,
    /// §8 lifecycle hooks.
    pub hooks: Option<Arc<dyn Hooks>>,
    /// Host retry-vs-fail classifier.
    pub on_error: Option<OnError>,
    /// Semantic metric records.
    pub on_metric: Option<OnMetric>,
    /// The conversation provider; absent ⇒ a per-client in-memory store.
    pub store: Option<Arc<dyn ConversationStore>>,
    /// Gap 2: the HTTP client for LLM requests; absent ⇒ [`crate::http_client::llm_client`]
    /// (a connect and an idle bound, so a silent model cannot hold a run for ever).
    pub http_client: Option<reqwest::Client>,
    /// §10: resolves a suspension inline; absent ⇒ a suspension halts the run (`pending`).
    pub wait_for: Option<WaitFor>,
    /// §7D: what an agent runtime adds to the loop of a handle's turn; `None` ⇒ the plain
    /// §8 client, byte for byte.
    pub agent: Option<AgentSeams>,
    /// §8A `onUnsupportedPart`: absent ⇒ by provenance.
    pub on_unsupported_part: Option<super::parts::OnUnsupportedPart>,
    /// §1B `maxPartBytes` (decoded bytes), enforced at request assembly.
    pub max_part_bytes: Option<u64>,
}

/// The §7D seams an agent runtime hands the loop (never set by a host).
#[derive(Clone, Default)]
pub struct AgentSeams {
    /// The global turn gate: held across each LLM call (retries included) and nothing else.
    pub turn_gate: Option<Arc<TurnGate>>,
    /// The live budget walk before each turn: `Some(limit)` stops the run `incomplete`.
    pub guard: Option<TurnGuard>,
    /// Runs a turn's tool calls concurrently (results still in call order), so parallel
    /// `task` calls overlap (§7D "Parallel task calls in one turn run concurrently").
    pub concurrent_tools: bool,
}

/// §7D's before-turn budget check; it sees what the run has used so far.
pub type TurnGuard = Arc<dyn Fn(&TurnProgress) -> Option<String> + Send + Sync>;

/// What a run has used when the guard is asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct TurnProgress {
    /// LLM round trips so far.
    pub turns: u32,
    /// Tool calls so far.
    pub tool_calls: usize,
    /// Tokens so far.
    pub usage: super::wire::Usage,
}

/// §7D gate 3: at most `max` LLM calls in flight runtime-wide. A permit is an owned value,
/// so a dropped (aborted) call frees its slot: the gate releases on acquirer death.
pub struct TurnGate {
    slots: Option<Arc<tokio::sync::Semaphore>>,
    in_flight: std::sync::atomic::AtomicUsize,
    peak: std::sync::atomic::AtomicUsize,
}

/// One held slot of the turn gate.
pub struct TurnPermit {
    _slot: Option<tokio::sync::OwnedSemaphorePermit>,
    gate: Arc<TurnGate>,
}

impl TurnGate {
    /// A gate of `max` slots; `None` ⇒ unbounded (it still counts the peak).
    pub fn new(max: Option<usize>) -> Arc<Self> {
        Arc::new(Self {
            slots: max.map(|m| Arc::new(tokio::sync::Semaphore::new(m.max(1)))),
            in_flight: std::sync::atomic::AtomicUsize::new(0),
            peak: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    /// Waits for a slot.
    pub async fn enter(self: &Arc<Self>) -> TurnPermit {
        use std::sync::atomic::Ordering;
        let slot = match &self.slots {
            // The semaphore is never closed, so acquiring only fails if it were.
            Some(s) => s.clone().acquire_owned().await.ok(),
            None => None,
        };
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        TurnPermit {
            _slot: slot,
            gate: self.clone(),
        }
    }

    /// The most LLM calls ever in flight at once.
    pub fn peak(&self) -> usize {
        self.peak.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Drop for TurnPermit {
    fn drop(&mut self) {
        self.gate
            .in_flight
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        Self {
            base_url: String::new(),
            style: Style::OpenAi,
            model: String::new(),
            api_key: None,
            headers: BTreeMap::new(),
            system_prompt: None,
            max_turns: 10,
            retries: 2,
            retry_base_ms: 500,
            retryable_statuses: Vec::new(),
            timeout_ms: None,
            request_params: Map::new(),
            body_transform: None,
            hooks: None,
            on_error: None,
            on_metric: None,
            store: None,
            http_client: None,
            wait_for: None,
            agent: None,
            on_unsupported_part: None,
            max_part_bytes: None,
        }
    }
}

impl ClientOptions {
    /// The key to send: the option, else the style's environment variable
    /// (`OPENAI_API_KEY` then `OPENROUTER_API_KEY` for openai, `ANTHROPIC_API_KEY` for
    /// anthropic); an empty variable counts as absent.
    pub fn resolved_api_key(&self) -> Option<String> {
        if let Some(k) = &self.api_key {
            return Some(k.clone());
        }
        let vars: &[&str] = match self.style {
            Style::OpenAi => &["OPENAI_API_KEY", "OPENROUTER_API_KEY"],
            Style::Anthropic => &["ANTHROPIC_API_KEY"],
        };
        vars.iter()
            .filter_map(|v| std::env::var(v).ok())
            .find(|k| !k.is_empty())
    }
}
