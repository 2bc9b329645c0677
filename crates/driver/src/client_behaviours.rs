//! Client behaviours (PROTOCOL.md §7 "Client behaviours"): protocol client options →
//! the reference's `ClientOptions`, with every host callback recording what it saw.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use toolnexus_protocol::client::{
    self as proto, BodyTransformBehaviour, GenerateBehaviour, HookBehaviour, OnErrorBehaviour,
    OnMetricBehaviour, StoreBehaviour,
};
use toolnexus_reference::client::{
    AfterLlm, AfterTool, BeforeLlm, BeforeTool, ClientOptions, ConversationStore, ErrorDecision,
    ErrorInfo, Generate, Generated, GeneratedCall, Hooks, LlmOverride, MetricEvent, OnError,
    OnMetric, Style, ToolOverride,
};
use toolnexus_reference::tool::ToolResult;

use crate::recorder::{List, Recorder};

/// A client as the driver keeps it: the reference client plus what it records.
pub struct DriverClient {
    /// The reference client.
    pub client: toolnexus_reference::client::Client,
    /// Shared with the installed callbacks.
    pub recorder: Arc<Recorder>,
    /// Which lists this client answers (only those of installed seams).
    answers: [bool; 5],
}

impl DriverClient {
    /// Adds the recorded lists of the installed seams to `body`.
    pub fn observed_into(&self, body: &mut Map<String, Value>) {
        for ((field, entries), on) in self.recorder.take().into_iter().zip(self.answers) {
            if on {
                body.insert(field.to_string(), Value::Array(entries));
            }
        }
    }
}

/// Builds a client from `client` options; a behaviour outside the catalogue is an `Err`.
pub fn build_client(o: &proto::ClientOptions) -> Result<DriverClient, String> {
    let recorder = Arc::new(Recorder::default());
    let mut options = ClientOptions {
        model: o.model.clone().unwrap_or_default(),
        api_key: o.api_key.clone(),
        headers: o.headers.clone().unwrap_or_default(),
        system_prompt: o.system_prompt.clone(),
        timeout_ms: o.timeout_ms,
        request_params: o.request_params.clone().unwrap_or_default(),
        retryable_statuses: o.retryable_statuses.clone().unwrap_or_default(),
        max_part_bytes: o.max_part_bytes,
        ..ClientOptions::default()
    };
    if let Some(mode) = &o.on_unsupported_part {
        options.on_unsupported_part = Some(
            toolnexus_reference::client::OnUnsupportedPart::parse(mode).ok_or_else(|| {
                format!("onUnsupportedPart must be \"error\" or \"text\", got {mode:?}")
            })?,
        );
    }
    if let Some(n) = o.max_turns {
        options.max_turns = u32::try_from(n).map_err(|_| format!("maxTurns {n} is too large"))?;
    }
    if let Some(n) = o.retries {
        options.retries = u32::try_from(n).map_err(|_| format!("retries {n} is too large"))?;
    }
    if let Some(n) = o.retry_base_ms {
        options.retry_base_ms = n;
    }
    if let Some(b) = &o.body_transform {
        options.body_transform = Some(body_transform(b.clone()));
    }
    if let Some(h) = &o.hooks {
        options.hooks = Some(Arc::new(DriverHooks::new(h, recorder.clone())?));
    }
    if let Some(b) = &o.on_error {
        options.on_error = Some(recorded_on_error(b, recorder.clone()));
    }
    if let Some(b) = &o.on_metric {
        options.on_metric = Some(collected_metrics(b, recorder.clone())?);
    }
    if let Some(b) = &o.wait_for {
        options.wait_for = Some(recorded_wait_for(b, recorder.clone())?);
    }
    if let Some(StoreBehaviour::Seeded(seed)) = &o.store {
        options.store = Some(Arc::new(SeededStore {
            threads: Mutex::new(seed.clone()),
        }));
    }
    let answers = [
        o.hooks.is_some(),
        o.on_metric.is_some(),
        o.on_error.is_some(),
        o.generate.is_some(),
        o.wait_for.is_some(),
    ];
    let client = match &o.generate {
        Some(GenerateBehaviour::Script(steps)) => {
            if o.base_url.is_some() || o.style.is_some() || o.api_key.is_some() {
                return Err(
                    "an in-process client (generate) takes no baseUrl, style or apiKey".into(),
                );
            }
            if steps.is_empty() {
                return Err("generate: the script needs at least one step".into());
            }
            let generate = scripted_generate(steps.clone(), recorder.clone());
            toolnexus_reference::client::Client::in_process(options, generate)
        }
        None => {
            options.base_url = o
                .base_url
                .clone()
                .ok_or("a client needs \"baseUrl\" (or \"generate\")")?;
            let style = o.style.as_deref().ok_or("a client needs \"style\"")?;
            options.style = Style::parse(style)
                .ok_or_else(|| format!("unknown style \"{style}\" (openai | anthropic)"))?;
            toolnexus_reference::client::Client::new(options)
        }
    };
    Ok(DriverClient {
        client,
        recorder,
        answers,
    })
}

/// `onError: {"answer": …}`: answers the same for every failed attempt, each `info`
/// recorded in `onErrorCalls` first (the client's and the classifier's).
pub(crate) fn recorded_on_error(b: &OnErrorBehaviour, rec: Arc<Recorder>) -> OnError {
    let OnErrorBehaviour::Answer(decision) = b;
    let decision = match decision {
        proto::ErrorDecision::Retry => ErrorDecision::Retry,
        proto::ErrorDecision::Fail => ErrorDecision::Fail,
    };
    Arc::new(move |info: &ErrorInfo| {
        rec.push(List::OnError, error_info_json(info));
        decision
    })
}

/// `onMetric: {"collect": true}`: every record lands in `metricEvents`, camelCase.
pub(crate) fn collected_metrics(
    b: &OnMetricBehaviour,
    rec: Arc<Recorder>,
) -> Result<OnMetric, String> {
    let OnMetricBehaviour::Collect(on) = b;
    if !on {
        return Err("onMetric: only {\"collect\": true} is in the catalogue".into());
    }
    Ok(Arc::new(move |ev: &MetricEvent| {
        rec.push(List::Metrics, metric_json(ev));
    }))
}

fn error_info_json(info: &ErrorInfo) -> Value {
    let mut v = json!({"attempt": info.attempt, "retryable": info.retryable});
    if let Some(s) = info.status {
        v["status"] = json!(s);
    }
    if let Some(e) = &info.error {
        v["error"] = json!(e);
    }
    v
}

/// A metric record with the protocol's camelCase names.
pub fn metric_json(ev: &MetricEvent) -> Value {
    match ev {
        MetricEvent::Llm {
            model,
            status,
            ms,
            prompt_tokens,
            completion_tokens,
            parts,
        } => {
            let mut v = json!({"event": "llm", "model": model, "status": status, "ms": ms,
                               "promptTokens": prompt_tokens, "completionTokens": completion_tokens});
            // §8: the optional descriptor, present only when the request carried parts.
            if !parts.is_empty() {
                v["parts"] = json!(parts);
            }
            v
        }
        MetricEvent::Tool {
            tool,
            source,
            is_error,
            pending,
            ms,
        } => {
            let mut v = json!({"event": "tool", "tool": tool, "source": source,
                               "isError": is_error, "ms": ms});
            if *pending {
                v["pending"] = json!(true);
            }
            v
        }
        MetricEvent::Run {
            model,
            turns,
            tool_calls,
            total_tokens,
            ms,
            error,
        } => {
            let mut v = json!({"event": "run", "model": model, "turns": turns,
                               "toolCalls": tool_calls, "totalTokens": total_tokens, "ms": ms});
            if let Some(e) = error {
                v["error"] = json!(e);
            }
            v
        }
        MetricEvent::ClassifierEvaluate {
            model,
            status,
            ms,
            input_tokens,
            output_tokens,
            error,
        } => {
            let mut v = json!({"event": "classifier.evaluate", "model": model,
                               "status": status, "ms": ms});
            if let Some(n) = input_tokens {
                v["inputTokens"] = json!(n);
            }
            if let Some(n) = output_tokens {
                v["outputTokens"] = json!(n);
            }
            // Only a failed evaluation carries `error` (PROTOCOL.md §8).
            if let Some(e) = error {
                v["error"] = json!(e);
            }
            v
        }
        MetricEvent::ClassifierWarning { question, warning } => {
            json!({"event": "classifier.warning", "question": question, "warning": warning})
        }
    }
}

/// The client's §10 `waitFor`: the toolkit catalogue's behaviour, each `Request` recorded
/// (byte-identical keys) before it answers.
fn recorded_wait_for(
    b: &toolnexus_protocol::options::WaitForBehaviour,
    rec: Arc<Recorder>,
) -> Result<toolnexus_reference::suspension::WaitFor, String> {
    let inner = crate::behaviours::wait_for(b)?;
    Ok(Arc::new(
        move |request: toolnexus_reference::suspension::Request| {
            rec.push(
                List::WaitFor,
                serde_json::to_value(&request).unwrap_or(Value::Null),
            );
            inner(request)
        },
    ))
}

/// `bodyTransform`: `set` or `copy` top-level keys (the client's and the classifier's).
pub(crate) fn body_transform(
    b: BodyTransformBehaviour,
) -> toolnexus_reference::client::BodyTransform {
    Arc::new(move |mut body: Value| {
        let Some(obj) = body.as_object_mut() else {
            return body;
        };
        match &b {
            BodyTransformBehaviour::Set(keys) => {
                for (k, v) in keys {
                    obj.insert(k.clone(), v.clone());
                }
            }
            BodyTransformBehaviour::Copy(pairs) => {
                // Read every source first, so `{a: b, b: a}` swaps what the transform saw.
                let copies: Vec<(String, Value)> = pairs
                    .iter()
                    .filter_map(|(from, to)| {
                        let to = to.as_str()?.to_string();
                        Some((to, obj.get(from).cloned().unwrap_or(Value::Null)))
                    })
                    .collect();
                obj.extend(copies);
            }
        }
        body
    })
}

/// The `generate` script: the n-th call answers step n, the last one once used up.
fn scripted_generate(steps: Vec<proto::GenerateStep>, rec: Arc<Recorder>) -> Generate {
    let next = Arc::new(AtomicUsize::new(0));
    Arc::new(move |request: Value| {
        rec.push(List::Generate, request);
        let n = next.fetch_add(1, Ordering::SeqCst);
        let step = steps[n.min(steps.len() - 1)].clone();
        Box::pin(async move {
            if let Some(m) = step.fail {
                return Err(m);
            }
            let tool_calls = step
                .tool_calls
                .unwrap_or_default()
                .into_iter()
                .map(|c| GeneratedCall {
                    id: c.id,
                    name: c.name,
                    arguments: c.arguments,
                })
                .collect();
            Ok(Generated {
                content: step.content,
                tool_calls,
                usage: step.usage.map(|u| {
                    json!({"prompt_tokens": u.prompt_tokens,
                           "completion_tokens": u.completion_tokens,
                           "total_tokens": u.total_tokens})
                }),
            })
        })
    })
}

/// `store: {"seeded": …}`: the host's own store, not the reference's default class.
struct SeededStore {
    threads: Mutex<BTreeMap<String, Vec<Value>>>,
}

#[async_trait]
impl ConversationStore for SeededStore {
    async fn get(&self, id: &str) -> Option<Vec<Value>> {
        let t = self.threads.lock().unwrap_or_else(|p| p.into_inner());
        t.get(id).cloned()
    }

    async fn save(&self, id: &str, messages: Vec<Value>) {
        let mut t = self.threads.lock().unwrap_or_else(|p| p.into_inner());
        t.insert(id.to_string(), messages);
    }
}

/// The installed hooks, each recording its call before it acts.
pub(crate) struct DriverHooks {
    before_llm: Option<HookBehaviour>,
    after_llm: Option<HookBehaviour>,
    before_tool: Option<HookBehaviour>,
    after_tool: Option<HookBehaviour>,
    rec: Arc<Recorder>,
}

impl DriverHooks {
    pub(crate) fn new(h: &proto::HookBehaviours, rec: Arc<Recorder>) -> Result<Self, String> {
        use HookBehaviour as B;
        let check = |hook: &str, b: &Option<HookBehaviour>, ok: fn(&HookBehaviour) -> bool| match b
        {
            Some(B::Observe(false)) => Err(format!("{hook}: observe must be true")),
            Some(b) if !ok(b) => Err(format!("{hook}: behaviour {b:?} is not for this hook")),
            _ => Ok(b.clone()),
        };
        Ok(Self {
            before_llm: check("beforeLLM", &h.before_llm, |b| {
                matches!(
                    b,
                    B::Observe(_)
                        | B::ReplaceMessages(_)
                        | B::KeepTools(_)
                        | B::Abort(_)
                        | B::AppendMessage(_)
                        | B::Compactor(_)
                )
            })?,
            after_llm: check("afterLLM", &h.after_llm, |b| matches!(b, B::Observe(_)))?,
            before_tool: check("beforeTool", &h.before_tool, |b| {
                matches!(b, B::Observe(_) | B::Result(_) | B::Args(_))
            })?,
            after_tool: check("afterTool", &h.after_tool, |b| {
                matches!(b, B::Observe(_) | B::Result(_) | B::Prefix(_))
            })?,
            rec,
        })
    }
}

fn reference_result(r: &toolnexus_protocol::messages::ToolResult) -> ToolResult {
    ToolResult {
        output: r.output.clone(),
        is_error: r.is_error,
        parts: r
            .parts
            .as_ref()
            .and_then(|p| serde_json::to_value(p).ok())
            .and_then(|p| serde_json::from_value(p).ok()),
        metadata: r.metadata.as_ref().and_then(|m| m.as_object().cloned()),
    }
}

#[async_trait]
impl Hooks for DriverHooks {
    async fn before_llm(&self, ctx: BeforeLlm) -> Result<Option<LlmOverride>, String> {
        let Some(b) = &self.before_llm else {
            return Ok(None);
        };
        self.rec.push(
            List::Hooks,
            json!({"hook": "beforeLLM", "turn": ctx.turn, "model": ctx.model,
                   "messages": ctx.messages, "tools": ctx.tools}),
        );
        match b {
            HookBehaviour::ReplaceMessages(m) => {
                if self.rec.replaced_already() {
                    return Ok(None);
                }
                Ok(Some(LlmOverride {
                    messages: Some(m.clone()),
                    tools: None,
                }))
            }
            HookBehaviour::KeepTools(names) => {
                let tools = ctx
                    .tools
                    .into_iter()
                    .filter(|t| {
                        let name = t
                            .pointer("/function/name")
                            .or_else(|| t.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        names.iter().any(|n| n == name)
                    })
                    .collect();
                Ok(Some(LlmOverride {
                    messages: None,
                    tools: Some(tools),
                }))
            }
            HookBehaviour::Abort(m) => Err(m.clone()),
            HookBehaviour::Compactor(o) => {
                // The §7F compactor is itself the hook: its answer is the hook's answer.
                let opts = crate::compact_port::compact_options(o, Arc::default());
                let compacted = toolnexus_reference::compact::compact(&ctx.messages, &opts)
                    .await
                    .map_err(|e| format!("compaction failed: {e}"))?;
                Ok(compacted.map(|messages| LlmOverride {
                    messages: Some(messages),
                    tools: None,
                }))
            }
            HookBehaviour::AppendMessage(m) => {
                let mut messages = ctx.messages;
                messages.push(m.clone());
                Ok(Some(LlmOverride {
                    messages: Some(messages),
                    tools: None,
                }))
            }
            _ => Ok(None),
        }
    }

    async fn after_llm(&self, ctx: AfterLlm) {
        if self.after_llm.is_some() {
            self.rec.push(
                List::Hooks,
                json!({"hook": "afterLLM", "turn": ctx.turn, "model": ctx.model,
                       "response": ctx.response}),
            );
        }
    }

    async fn before_tool(&self, ctx: BeforeTool) -> Option<ToolOverride> {
        let b = self.before_tool.as_ref()?;
        self.rec.push(
            List::Hooks,
            json!({"hook": "beforeTool", "name": ctx.name, "args": ctx.args, "id": ctx.id,
                   "turn": ctx.turn}),
        );
        match b {
            HookBehaviour::Result(r) => Some(ToolOverride::Result(reference_result(r))),
            HookBehaviour::Args(a) => Some(ToolOverride::Args(a.clone())),
            _ => None,
        }
    }

    async fn after_tool(&self, ctx: AfterTool) -> Option<ToolResult> {
        let b = self.after_tool.as_ref()?;
        let result = serde_json::to_value(&ctx.result).unwrap_or(Value::Null);
        self.rec.push(
            List::Hooks,
            json!({"hook": "afterTool", "name": ctx.name, "args": ctx.args, "result": result,
                   "id": ctx.id, "turn": ctx.turn}),
        );
        match b {
            HookBehaviour::Result(r) => Some(reference_result(r)),
            HookBehaviour::Prefix(p) => Some(ToolResult {
                output: format!("{p}{}", ctx.result.output),
                ..ctx.result
            }),
            _ => None,
        }
    }
}
