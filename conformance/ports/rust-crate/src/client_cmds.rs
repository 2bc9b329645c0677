//! The §8 client commands (PROTOCOL.md §5.13–§5.20, §6A, §7 "Client behaviours") over the
//! crate's own client API: `toolnexus::client::{create_client, create_in_process_client,
//! Client, ClientOptions, InProcessOptions, Hooks, ErrorTier, MetricEvent, StreamEvent}` and
//! `toolnexus::store::ConversationStore`.
//!
//! Every option maps to a real crate field; what the crate cannot express is answered
//! `unsupported` (never emulated). A run that errors is `{"ok":true,"raised":message}` with the
//! crate's own `ClientError` text. Where the crate differs from SPEC §8 see CLIENT-NOTES.md.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use toolnexus::client::{
    create_client, create_in_process_client, AfterLlmEvent, AfterToolEvent, BeforeLlmEvent,
    BeforeToolEvent, BoxFuture, Client, ClientError, ClientOptions, ErrorInfo, ErrorTier,
    GenerateFn, Hooks, InProcessOptions, InProcessRequest, InProcessResponse, InProcessToolCall,
    InProcessUsage, LlmOverride, MetricEvent, Prompt, RunResult, StreamEvent, Style, ToolOverride,
    WaitForFn,
};
use toolnexus::store::ConversationStore;
use toolnexus::{Answer, Request, ToolResult, Toolkit};
use toolnexus_protocol::client::CLIENT_OPTION_KEYS;

use crate::{
    as_obj, bad, behaviour_key, field, internal, result_json, str_field, unsupported, Res,
};

/// PROTOCOL.md §5.13: a driver keeps at most 1,000 entries per recorded list.
const CAP: usize = 1000;

pub(crate) fn push_capped(list: &Mutex<Vec<Value>>, v: Value) {
    let mut l = list.lock().unwrap_or_else(|e| e.into_inner());
    if l.len() < CAP {
        l.push(v);
    }
}

/// What the host-supplied code observed during one loop command (or one `evaluate`).
#[derive(Default)]
pub struct Recorder {
    hooks: bool,
    metric: bool,
    on_error: bool,
    generate: bool,
    wait_for: bool,
    evaluate: bool,
    pub(crate) hook_calls: Mutex<Vec<Value>>,
    pub(crate) metric_events: Mutex<Vec<Value>>,
    on_error_calls: Mutex<Vec<Value>>,
    generate_calls: Mutex<Vec<Value>>,
    wait_for_calls: Mutex<Vec<Value>>,
    /// A classifier's `custom` backend calls (PROTOCOL.md §5.30 `evaluateCalls`).
    pub(crate) evaluate_calls: Mutex<Vec<Value>>,
    /// `beforeLLM` calls in the current command (`replaceMessages` acts on the first only).
    before_llm_calls: AtomicUsize,
}

impl Recorder {
    /// A classifier's recorder: the lists of the seams its options installed.
    pub(crate) fn for_classifier(metric: bool, on_error: bool, evaluate: bool) -> Self {
        Recorder {
            metric,
            on_error,
            evaluate,
            ..Default::default()
        }
    }

    pub(crate) fn reset(&self) {
        for l in [
            &self.hook_calls,
            &self.metric_events,
            &self.on_error_calls,
            &self.generate_calls,
            &self.wait_for_calls,
            &self.evaluate_calls,
        ] {
            l.lock().unwrap_or_else(|e| e.into_inner()).clear();
        }
        self.before_llm_calls.store(0, Ordering::SeqCst);
    }

    pub(crate) fn drain_into(&self, out: &mut Map<String, Value>) {
        let take = |l: &Mutex<Vec<Value>>| {
            Value::Array(std::mem::take(
                &mut *l.lock().unwrap_or_else(|e| e.into_inner()),
            ))
        };
        if self.hooks {
            out.insert("hookCalls".into(), take(&self.hook_calls));
        }
        if self.metric {
            out.insert("metricEvents".into(), take(&self.metric_events));
        }
        if self.on_error {
            out.insert("onErrorCalls".into(), take(&self.on_error_calls));
        }
        if self.generate {
            out.insert("generateCalls".into(), take(&self.generate_calls));
        }
        if self.wait_for {
            out.insert("waitForCalls".into(), take(&self.wait_for_calls));
        }
        if self.evaluate {
            out.insert("evaluateCalls".into(), take(&self.evaluate_calls));
        }
    }
}

/// One `client` of the session.
pub struct ClientEntry {
    client: Client,
    rec: Arc<Recorder>,
}

impl ClientEntry {
    /// The crate client, for `serve` (PROTOCOL.md §5.23): cheap to clone.
    pub fn client(&self) -> Client {
        self.client.clone()
    }
}

// ---------------------------------------------------------------------------
// JSON shapes (§8 client data types)
// ---------------------------------------------------------------------------

/// RunResult as the crate serialises it (camelCase already: `toolCalls`, `toolCallCount`,
/// `isError`, `promptTokens`, …; plus its own `status` / `limit` / `pending`, which the open
/// type allows). An empty `metadata` object is dropped (protocol §8 ToolResult rule).
pub(crate) fn run_result_json(r: &RunResult) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    if let Some(calls) = v.get_mut("toolCalls").and_then(Value::as_array_mut) {
        for c in calls {
            if let Some(m) = c.as_object_mut() {
                if matches!(m.get("metadata"), Some(Value::Object(o)) if o.is_empty()) {
                    m.remove("metadata");
                }
            }
        }
    }
    v
}

fn usage_json(u: &toolnexus::client::Usage) -> Value {
    serde_json::to_value(u).unwrap_or(Value::Null)
}

/// A crate `StreamEvent` → protocol stream event; `Err` carries an `error` event's message
/// (the channel's way of raising).
fn stream_event_json(ev: &StreamEvent) -> Result<Value, String> {
    let mut m = Map::new();
    m.insert("type".into(), Value::String(ev.kind.clone()));
    match ev.kind.as_str() {
        "text" => {
            m.insert("delta".into(), Value::String(ev.delta.clone()));
        }
        "tool_call" => {
            m.insert("id".into(), Value::String(ev.id.clone()));
            m.insert("name".into(), Value::String(ev.name.clone()));
            m.insert("args".into(), ev.args.clone());
            if !ev.via.is_empty() {
                m.insert("via".into(), Value::String(ev.via.clone()));
            }
        }
        "tool_result" => {
            m.insert("id".into(), Value::String(ev.id.clone()));
            m.insert("name".into(), Value::String(ev.name.clone()));
            m.insert("output".into(), Value::String(ev.output.clone()));
            m.insert("isError".into(), Value::Bool(ev.is_error));
            if let Some(meta) = ev.metadata.as_ref().filter(|m| !m.is_empty()) {
                m.insert("metadata".into(), Value::Object(meta.clone()));
            }
        }
        "usage" => {
            m.insert(
                "usage".into(),
                ev.usage.as_ref().map(usage_json).unwrap_or(Value::Null),
            );
        }
        "pending" => {
            m.insert(
                "request".into(),
                serde_json::to_value(&ev.request).unwrap_or(Value::Null),
            );
        }
        "done" => {
            m.insert(
                "result".into(),
                ev.result
                    .as_deref()
                    .map(run_result_json)
                    .unwrap_or(Value::Null),
            );
        }
        "error" => {
            return Err(ev
                .error
                .as_ref()
                .map(|e| e.to_string())
                .unwrap_or_else(|| "stream error".into()));
        }
        _ => {}
    }
    Ok(Value::Object(m))
}

/// Metric event with camelCase field names (protocol §8 "Metric event").
fn metric_json(e: &MetricEvent) -> Value {
    match e.event.as_str() {
        "llm" => json!({"event": "llm", "model": e.model, "status": e.status, "ms": e.ms,
            "promptTokens": e.prompt_tokens, "completionTokens": e.completion_tokens}),
        // `pending` is the crate's addition (beyond SPEC 0.16.0); the type is open.
        "tool" => {
            json!({"event": "tool", "tool": e.tool, "source": e.source, "isError": e.is_error,
            "ms": e.ms, "pending": e.pending})
        }
        "run" => {
            let mut v = json!({"event": "run", "model": e.model, "turns": e.turns, "toolCalls": e.tool_calls,
                "totalTokens": e.total_tokens, "ms": e.ms});
            if !e.error.is_empty() {
                v["error"] = Value::String(e.error.clone());
            }
            v
        }
        // SPEC §8B: the classifier's events in the same sink; `error` only on a failed
        // evaluate, a warning's text in `warning`.
        "classifier.evaluate" => {
            let mut v = json!({"event": e.event, "model": e.model, "status": e.status, "ms": e.ms,
                "promptTokens": e.prompt_tokens, "completionTokens": e.completion_tokens});
            if !e.error.is_empty() {
                v["error"] = Value::String(e.error.clone());
            }
            v
        }
        "classifier.warning" => {
            let mut v = json!({"event": e.event, "warning": e.warning});
            if !e.question.is_empty() {
                v["question"] = Value::String(e.question.clone());
            }
            v
        }
        other => json!({"event": other}),
    }
}

fn tool_result_of(v: &Value, what: &str) -> Res<ToolResult> {
    let m = as_obj(v, what)?;
    let output = m
        .get("output")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("{what}.output must be a string")))?;
    let is_error = match m.get("isError") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad(format!("{what}.isError must be a boolean"))),
    };
    let mut r = if is_error {
        ToolResult::error(output)
    } else {
        ToolResult::ok(output)
    };
    match m.get("metadata") {
        None | Some(Value::Null) => {}
        Some(Value::Object(meta)) => r.metadata = Some(meta.clone()),
        Some(_) => return Err(bad(format!("{what}.metadata must be an object"))),
    }
    Ok(r)
}

// ---------------------------------------------------------------------------
// behaviours (§7 "Client behaviours")
// ---------------------------------------------------------------------------

fn boxed<T: Send + 'static>(v: T) -> BoxFuture<T> {
    Box::pin(async move { v })
}

/// The §7 hook behaviours as an agent def's (or the agent runtime's) §8 hooks.
pub(crate) fn agent_hooks(v: &Value, rec: &Arc<Recorder>) -> Res<Hooks> {
    hooks(v, rec)
}

/// `onMetric: {"collect": true}` for an agent def, the agent runtime or a classifier.
pub(crate) fn agent_on_metric(
    v: &Value,
    rec: &Arc<Recorder>,
) -> Res<toolnexus::client::OnMetricFn> {
    if as_obj(v, "onMetric")?.get("collect") != Some(&Value::Bool(true)) {
        return Err(unsupported("onMetric: only {\"collect\": true}"));
    }
    let rec = rec.clone();
    Ok(Arc::new(move |e: &MetricEvent| {
        push_capped(&rec.metric_events, metric_json(e))
    }))
}

fn hooks(v: &Value, rec: &Arc<Recorder>) -> Res<Hooks> {
    let m = as_obj(v, "hooks")?;
    let mut h = Hooks::default();
    for (name, b) in m {
        if b.is_null() {
            continue;
        }
        let what = format!("hooks.{name}");
        let (k, arg) = behaviour_key(b, &what)?;
        let rec = rec.clone();
        match (name.as_str(), k) {
            ("beforeLLM", _) => {
                enum B {
                    Observe,
                    Replace(Vec<Value>),
                    Keep(Vec<String>),
                    Abort(String),
                    Append(Value),
                    Compact(toolnexus::client::BeforeLlmHook),
                }
                let beh = match (k, arg) {
                    // NOTES #300: the agent-run catalogue additions (the transcript received
                    // plus one message; the crate's §7F compactor as the hook itself).
                    ("appendMessage", m @ Value::Object(_)) => B::Append(m.clone()),
                    ("compactor", o) => B::Compact(toolnexus::agents::compactor(
                        crate::agent_cmds::compactor_options(as_obj(
                            o,
                            &format!("{what}.compactor"),
                        )?)?
                        .0,
                    )),
                    ("observe", Value::Bool(true)) => B::Observe,
                    ("replaceMessages", Value::Array(a)) => B::Replace(a.clone()),
                    ("keepTools", Value::Array(_)) => {
                        B::Keep(crate::string_list(arg, &format!("{what}.keepTools"))?)
                    }
                    ("abort", Value::String(s)) => B::Abort(s.clone()),
                    _ => return Err(unsupported(format!("unknown {what} behaviour \"{k}\""))),
                };
                let beh = Arc::new(beh);
                h.before_llm = Some(Arc::new(move |ev: BeforeLlmEvent| {
                    push_capped(
                        &rec.hook_calls,
                        json!({"hook": "beforeLLM", "turn": ev.turn, "model": ev.model, "messages": ev.messages, "tools": ev.tools}),
                    );
                    let n = rec.before_llm_calls.fetch_add(1, Ordering::SeqCst);
                    if let B::Compact(hook) = &*beh {
                        return hook(ev);
                    }
                    let out = match &*beh {
                        B::Append(m) => {
                            let mut msgs = ev.messages.clone();
                            msgs.push(m.clone());
                            Ok(Some(LlmOverride {
                                messages: Some(msgs),
                                ..Default::default()
                            }))
                        }
                        B::Compact(_) => Ok(None),
                        B::Observe => Ok(None),
                        B::Replace(msgs) if n == 0 => Ok(Some(LlmOverride {
                            messages: Some(msgs.clone()),
                            ..Default::default()
                        })),
                        B::Replace(_) => Ok(None),
                        B::Keep(names) => {
                            let kept = ev
                                .tools
                                .iter()
                                .filter(|t| {
                                    let n = t
                                        .pointer("/function/name")
                                        .or_else(|| t.get("name"))
                                        .and_then(Value::as_str);
                                    n.is_some_and(|n| names.iter().any(|k| k == n))
                                })
                                .cloned()
                                .collect();
                            Ok(Some(LlmOverride {
                                tools: Some(kept),
                                ..Default::default()
                            }))
                        }
                        B::Abort(msg) => Err(msg.clone()),
                    };
                    boxed(out)
                }));
            }
            ("afterLLM", "observe") if arg == &Value::Bool(true) => {
                h.after_llm = Some(Arc::new(move |ev: AfterLlmEvent| {
                    push_capped(
                        &rec.hook_calls,
                        json!({"hook": "afterLLM", "turn": ev.turn, "model": ev.model, "response": ev.response}),
                    );
                    boxed(Ok(()))
                }));
            }
            ("beforeTool", _) => {
                let ov: Option<ToolOverride> = match (k, arg) {
                    ("observe", Value::Bool(true)) => None,
                    ("result", r) => Some(ToolOverride {
                        result: Some(tool_result_of(r, &format!("{what}.result"))?),
                        args: None,
                    }),
                    ("args", a @ Value::Object(_)) => Some(ToolOverride {
                        args: Some(a.clone()),
                        result: None,
                    }),
                    _ => return Err(unsupported(format!("unknown {what} behaviour \"{k}\""))),
                };
                h.before_tool = Some(Arc::new(move |ev: BeforeToolEvent| {
                    push_capped(
                        &rec.hook_calls,
                        json!({"hook": "beforeTool", "name": ev.name, "args": ev.args, "id": ev.id, "turn": ev.turn}),
                    );
                    boxed(Ok(ov.clone()))
                }));
            }
            ("afterTool", _) => {
                enum A {
                    Observe,
                    Result(ToolResult),
                    Prefix(String),
                }
                let beh = Arc::new(match (k, arg) {
                    ("observe", Value::Bool(true)) => A::Observe,
                    ("result", r) => A::Result(tool_result_of(r, &format!("{what}.result"))?),
                    ("prefix", Value::String(p)) => A::Prefix(p.clone()),
                    _ => return Err(unsupported(format!("unknown {what} behaviour \"{k}\""))),
                });
                h.after_tool = Some(Arc::new(move |ev: AfterToolEvent| {
                    push_capped(
                        &rec.hook_calls,
                        json!({"hook": "afterTool", "name": ev.name, "args": ev.args, "result": result_json(&ev.result), "id": ev.id, "turn": ev.turn}),
                    );
                    let out = match &*beh {
                        A::Observe => None,
                        A::Result(r) => Some(ToolOverride {
                            result: Some(r.clone()),
                            args: None,
                        }),
                        A::Prefix(p) => {
                            let mut r = ev.result.clone();
                            r.output = format!("{p}{}", r.output);
                            Some(ToolOverride {
                                result: Some(r),
                                args: None,
                            })
                        }
                    };
                    boxed(Ok(out))
                }));
            }
            ("afterLLM", _) => {
                return Err(unsupported(format!("unknown {what} behaviour \"{k}\"")))
            }
            (other, _) => return Err(bad(format!("unknown hook \"{other}\""))),
        }
    }
    Ok(h)
}

pub(crate) fn on_error(v: &Value, rec: &Arc<Recorder>) -> Res<toolnexus::client::OnErrorFn> {
    let tier = match behaviour_key(v, "onError")? {
        ("answer", Value::String(s)) if s == "retry" => ErrorTier::Retry,
        ("answer", Value::String(s)) if s == "fail" => ErrorTier::Fail,
        (k, _) => return Err(unsupported(format!("unknown onError behaviour \"{k}\""))),
    };
    let rec = rec.clone();
    Ok(Arc::new(move |info: &ErrorInfo| {
        // The crate's ErrorInfo always has an `error` text ("LLM 503" for an HTTP status) and
        // `status` 0 for a transport error; both are passed on as the crate gave them.
        let mut m = Map::new();
        if info.status != 0 {
            m.insert("status".into(), json!(info.status));
        }
        m.insert("error".into(), json!(info.error));
        m.insert("attempt".into(), json!(info.attempt));
        m.insert("retryable".into(), json!(info.retryable));
        push_capped(&rec.on_error_calls, Value::Object(m));
        tier
    }))
}

pub(crate) fn body_transform(v: &Value) -> Res<toolnexus::client::BodyTransformFn> {
    match behaviour_key(v, "bodyTransform")? {
        ("set", Value::Object(set)) => {
            let set = set.clone();
            Ok(Arc::new(move |mut body: Value| {
                if let Some(m) = body.as_object_mut() {
                    for (k, v) in &set {
                        m.insert(k.clone(), v.clone());
                    }
                }
                Some(body)
            }))
        }
        ("copy", Value::Object(copy)) => {
            let mut pairs = Vec::new();
            for (from, to) in copy {
                let to = to
                    .as_str()
                    .ok_or_else(|| bad("bodyTransform.copy values must be strings"))?;
                pairs.push((from.clone(), to.to_owned()));
            }
            Ok(Arc::new(move |mut body: Value| {
                if let Some(m) = body.as_object_mut() {
                    for (from, to) in &pairs {
                        let v = m.get(from).cloned().unwrap_or(Value::Null);
                        m.insert(to.clone(), v);
                    }
                }
                Some(body)
            }))
        }
        (k, _) => Err(unsupported(format!(
            "unknown bodyTransform behaviour \"{k}\""
        ))),
    }
}

/// `store: {"seeded": {...}}`: a host `ConversationStore` of the driver's own.
struct SeededStore {
    map: Mutex<HashMap<String, Vec<Value>>>,
}

impl ConversationStore for SeededStore {
    fn get(&self, id: &str) -> Result<Option<Vec<Value>>, String> {
        Ok(self
            .map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned())
    }
    fn save(&self, id: &str, messages: &[Value]) -> Result<(), String> {
        self.map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_owned(), messages.to_vec());
        Ok(())
    }
}

fn store(v: &Value) -> Res<Arc<dyn ConversationStore>> {
    match behaviour_key(v, "store")? {
        ("seeded", Value::Object(seed)) => {
            let mut map = HashMap::new();
            for (id, msgs) in seed {
                let arr = msgs
                    .as_array()
                    .ok_or_else(|| bad(format!("store.seeded.{id} must be an array")))?;
                map.insert(id.clone(), arr.clone());
            }
            Ok(Arc::new(SeededStore {
                map: Mutex::new(map),
            }))
        }
        (k, _) => Err(unsupported(format!("unknown store behaviour \"{k}\""))),
    }
}

enum Step {
    Content(String, Option<InProcessUsage>),
    Calls(Vec<InProcessToolCall>, Option<InProcessUsage>),
    Fail(String),
}

fn in_usage(v: Option<&Value>) -> Res<Option<InProcessUsage>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(u)) => {
            let n = |k: &str| u.get(k).and_then(Value::as_i64).unwrap_or(0);
            Ok(Some(InProcessUsage {
                prompt_tokens: n("prompt_tokens"),
                completion_tokens: n("completion_tokens"),
                total_tokens: n("total_tokens"),
            }))
        }
        Some(_) => Err(bad("generate step usage must be an object")),
    }
}

fn generate(v: &Value, rec: &Arc<Recorder>) -> Res<GenerateFn> {
    let script = match behaviour_key(v, "generate")? {
        ("script", Value::Array(s)) if !s.is_empty() => s,
        ("script", _) => return Err(bad("generate.script must be a non-empty array")),
        (k, _) => return Err(unsupported(format!("unknown generate behaviour \"{k}\""))),
    };
    let mut steps = Vec::new();
    for (i, s) in script.iter().enumerate() {
        let w = format!("generate.script[{i}]");
        let m = as_obj(s, &w)?;
        let step = if let Some(c) = m.get("content") {
            Step::Content(
                c.as_str()
                    .ok_or_else(|| bad(format!("{w}.content must be a string")))?
                    .to_owned(),
                in_usage(m.get("usage"))?,
            )
        } else if let Some(tc) = m.get("toolCalls") {
            let arr = tc
                .as_array()
                .ok_or_else(|| bad(format!("{w}.toolCalls must be an array")))?;
            let mut calls = Vec::new();
            for (j, c) in arr.iter().enumerate() {
                let cm = as_obj(c, &format!("{w}.toolCalls[{j}]"))?;
                calls.push(InProcessToolCall {
                    id: cm
                        .get("id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    name: cm
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    arguments: cm.get("arguments").cloned().unwrap_or(Value::Null),
                });
            }
            Step::Calls(calls, in_usage(m.get("usage"))?)
        } else if let Some(f) = m.get("fail") {
            Step::Fail(
                f.as_str()
                    .ok_or_else(|| bad(format!("{w}.fail must be a string")))?
                    .to_owned(),
            )
        } else {
            return Err(bad(format!("{w}: expected content, toolCalls or fail")));
        };
        steps.push(step);
    }
    let steps = Arc::new(steps);
    let calls = Arc::new(AtomicUsize::new(0));
    let rec = rec.clone();
    Ok(Arc::new(move |req: InProcessRequest| {
        push_capped(
            &rec.generate_calls,
            json!({"messages": req.messages, "tools": req.tools, "model": req.model}),
        );
        let n = calls.fetch_add(1, Ordering::SeqCst);
        let step = &steps[n.min(steps.len() - 1)];
        let out = match step {
            Step::Content(c, u) => Ok(InProcessResponse {
                content: c.clone(),
                tool_calls: Vec::new(),
                usage: *u,
            }),
            Step::Calls(c, u) => Ok(InProcessResponse {
                content: String::new(),
                tool_calls: c.clone(),
                usage: *u,
            }),
            Step::Fail(m) => Err(m.clone()),
        };
        boxed(out)
    }))
}

/// The client's §10 `wait_for`: the toolkit catalogue's `waitFor` behaviour, each Request
/// recorded in `waitForCalls` (as the crate serialises it: absent optionals omitted) first.
fn client_wait_for(v: &Value, rec: &Arc<Recorder>) -> Res<WaitForFn> {
    let inner = crate::wait_for(v)?;
    let rec = rec.clone();
    Ok(Arc::new(move |req: Request| {
        push_capped(
            &rec.wait_for_calls,
            serde_json::to_value(&req).unwrap_or(Value::Null),
        );
        inner(req)
    }))
}

// ---------------------------------------------------------------------------
// options (§6A) → ClientOptions / InProcessOptions
// ---------------------------------------------------------------------------

/// `v` as a non-negative integer, else a `bad_request` naming `what`.
pub(crate) fn uint(v: &Value, what: &str) -> Res<u64> {
    v.as_u64()
        .ok_or_else(|| bad(format!("{what} must be a non-negative integer")))
}

/// `retryableStatuses`: the statuses as the crate's `u16`s.
pub(crate) fn statuses(v: &Value) -> Res<Vec<u16>> {
    serde_json::from_value(v.clone())
        .map_err(|_| bad("retryableStatuses must be an array of integers 0..=65535"))
}

/// The given options (a `null` value is absent), or `bad_request` naming the first key
/// outside `known` (`what`: "client", "classifier").
pub fn given_options(
    opts: &Map<String, Value>,
    known: &[&str],
    what: &str,
) -> Res<Map<String, Value>> {
    let opts: Map<String, Value> = opts
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    match opts.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(bad(format!("unknown {what} option \"{k}\""))),
        None => Ok(opts),
    }
}

/// `client`: build the crate client from protocol options.
pub fn make_client(opts: &Map<String, Value>) -> Res<ClientEntry> {
    let opts = given_options(opts, &CLIENT_OPTION_KEYS, "client")?;
    let in_process = opts.contains_key("generate");
    let rec = Recorder {
        hooks: opts.contains_key("hooks"),
        metric: opts.contains_key("onMetric"),
        on_error: opts.contains_key("onError"),
        generate: in_process,
        wait_for: opts.contains_key("waitFor"),
        ..Default::default()
    };
    let rec = Arc::new(rec);
    let mut o = ClientOptions::default();
    let mut gen = None;
    for (k, v) in &opts {
        match k.as_str() {
            "baseUrl" => {
                o.base_url = v
                    .as_str()
                    .ok_or_else(|| bad("baseUrl must be a string"))?
                    .to_owned()
            }
            "style" => {
                o.style = match v.as_str() {
                    Some("openai") => Style::OpenAI,
                    Some("anthropic") => Style::Anthropic,
                    Some(s) => {
                        return Err(unsupported(format!("the crate has no wire style \"{s}\"")))
                    }
                    None => return Err(bad("style must be a string")),
                }
            }
            "model" => {
                o.model = v
                    .as_str()
                    .ok_or_else(|| bad("model must be a string"))?
                    .to_owned()
            }
            "apiKey" => {
                o.api_key = v
                    .as_str()
                    .ok_or_else(|| bad("apiKey must be a string"))?
                    .to_owned()
            }
            "headers" => {
                for (hk, hv) in as_obj(v, "headers")? {
                    let hv = hv
                        .as_str()
                        .ok_or_else(|| bad("headers values must be strings"))?;
                    o.headers.insert(hk.clone(), hv.to_owned());
                }
            }
            "systemPrompt" => {
                o.system_prompt = v
                    .as_str()
                    .ok_or_else(|| bad("systemPrompt must be a string"))?
                    .to_owned()
            }
            "maxTurns" => {
                // The crate reads 0 as "default 10"; a literal 0 cannot be expressed.
                match uint(v, "maxTurns")? {
                    0 => {
                        return Err(unsupported(
                            "maxTurns 0: the crate reads 0 as the default (10)",
                        ))
                    }
                    n => o.max_turns = n as usize,
                }
            }
            "retries" => {
                // The crate's idiom: 0 ⇒ default 2, -1 ⇒ no retries.
                o.retries = match uint(v, "retries")? {
                    0 => -1,
                    n => i32::try_from(n).map_err(|_| bad("retries too large"))?,
                }
            }
            "retryBaseMs" => match uint(v, "retryBaseMs")? {
                0 => {
                    return Err(unsupported(
                        "retryBaseMs 0: the crate reads 0 as the default (500 ms)",
                    ))
                }
                n => o.retry_base_ms = n,
            },
            "retryableStatuses" => o.retryable_statuses = statuses(v)?,
            "timeoutMs" => o.timeout_ms = uint(v, "timeoutMs")?,
            "requestParams" => o.request_params = as_obj(v, "requestParams")?.clone(),
            "bodyTransform" => o.body_transform = Some(body_transform(v)?),
            "hooks" => o.hooks = hooks(v, &rec)?,
            "onError" => o.on_error = Some(on_error(v, &rec)?),
            "onMetric" => {
                if as_obj(v, "onMetric")?.get("collect") != Some(&Value::Bool(true)) {
                    return Err(unsupported("onMetric: only {\"collect\": true}"));
                }
                let rec = rec.clone();
                o.on_metric = Some(Arc::new(move |e: &MetricEvent| {
                    push_capped(&rec.metric_events, metric_json(e))
                }));
            }
            "store" => o.store = Some(store(v)?),
            "generate" => gen = Some(generate(v, &rec)?),
            "waitFor" => o.wait_for = Some(client_wait_for(v, &rec)?),
            // SPEC 0.17.0 §1B / §8A: the crate's own options (0 ⇒ no cap; "" ⇒ by provenance).
            "maxPartBytes" => match uint(v, "maxPartBytes")? {
                0 => return Err(unsupported("maxPartBytes 0: the crate reads 0 as no cap")),
                n => o.max_part_bytes = n as usize,
            },
            "onUnsupportedPart" => {
                o.on_unsupported_part = v
                    .as_str()
                    .ok_or_else(|| bad("onUnsupportedPart must be a string"))?
                    .to_owned()
            }
            _ => {}
        }
    }
    let client = match gen {
        None => {
            if !opts.contains_key("baseUrl") {
                return Err(bad("baseUrl is required (without generate)"));
            }
            create_client(o)
        }
        Some(g) => {
            // SPEC §8 "In-process models": no baseUrl / apiKey / style; the crate's
            // InProcessOptions has no retries / retryBaseMs / retryableStatuses either
            // (failures are final).
            for k in [
                "baseUrl",
                "style",
                "apiKey",
                "retries",
                "retryBaseMs",
                "retryableStatuses",
                "maxPartBytes",
                "onUnsupportedPart",
            ] {
                if opts.contains_key(k) {
                    return Err(unsupported(format!(
                        "{k} with generate: the crate's in-process client takes no {k}"
                    )));
                }
            }
            let ip = InProcessOptions {
                model: o.model,
                generate: Some(g),
                generate_stream: None,
                on_error: o.on_error,
                system_prompt: o.system_prompt,
                max_turns: o.max_turns,
                hooks: o.hooks,
                timeout_ms: o.timeout_ms,
                store: o.store,
                on_metric: o.on_metric,
                wait_for: o.wait_for,
                wait_for_ctx: None,
                request_params: o.request_params,
                body_transform: o.body_transform,
                headers: o.headers,
            };
            // create_in_process_client asserts a generate fn; one is always given, but a
            // panic must never take the driver down.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                create_in_process_client(ip)
            }))
            .map_err(|p| {
                internal(format!(
                    "create_in_process_client panicked: {}",
                    crate::panic_message(&*p)
                ))
            })?
        }
    };
    Ok(ClientEntry { client, rec })
}

// ---------------------------------------------------------------------------
// loop commands
// ---------------------------------------------------------------------------

fn history(req: &Map<String, Value>) -> Res<Vec<Value>> {
    match req.get("history") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => Ok(a.clone()),
        Some(_) => Err(bad("history must be an array")),
    }
}

/// The external cancel signal of `cancelAfterMs`, fired by a timer task.
fn cancel_token(req: &Map<String, Value>) -> Res<CancellationToken> {
    let token = CancellationToken::new();
    match req.get("cancelAfterMs") {
        None | Some(Value::Null) => {}
        Some(v) => {
            let ms = uint(v, "cancelAfterMs")?;
            let t = token.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                t.cancel();
            });
        }
    }
    Ok(token)
}

fn outcome(out: &mut Map<String, Value>, r: Result<RunResult, ClientError>) {
    match r {
        Ok(res) => {
            out.insert("result".into(), run_result_json(&res));
        }
        Err(e) => {
            out.insert("raised".into(), Value::String(e.to_string()));
        }
    }
}

/// PROTOCOL.md §5.21: SPEC §11 `client.translate(TranslateRequest)`.
async fn translate(
    req: &Map<String, Value>,
    e: &ClientEntry,
    tk: Option<&Toolkit>,
    out: &mut Map<String, Value>,
) -> Res<()> {
    let r = as_obj(field(req, "request")?, "request")?;
    let list = |key: &str| -> Res<Vec<Value>> {
        match r.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(_) => Err(bad(format!("request.{key} must be an array"))),
        }
    };
    let request = toolnexus::client::TranslateRequest {
        messages: list("messages")?,
        tools: list("tools")?,
        toolkit: tk.cloned(),
        tool_choice: r.get("toolChoice").filter(|v| !v.is_null()).cloned(),
        system: r
            .get("system")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        max_tokens: match r.get("maxTokens") {
            None | Some(Value::Null) => 0,
            Some(v) => uint(v, "request.maxTokens")? as usize,
        },
    };
    e.rec.reset();
    let t0 = Instant::now();
    let res = e.client.translate(request).await;
    elapsed(out, t0);
    match res {
        Ok(t) => {
            let calls: Vec<Value> = t
                .tool_calls
                .iter()
                .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
                .collect();
            let mut result = json!({"text": t.text, "toolCalls": calls, "finishReason": t.finish_reason,
                                    "usage": usage_json(&t.usage), "model": t.model});
            if let Some(raw) = t.raw {
                result["raw"] = raw;
            }
            out.insert("result".into(), result);
        }
        Err(err) => {
            out.insert("raised".into(), Value::String(err.to_string()));
        }
    }
    e.rec.drain_into(out);
    Ok(())
}

fn elapsed(out: &mut Map<String, Value>, t0: Instant) {
    out.insert("elapsedMs".into(), json!(t0.elapsed().as_millis() as u64));
}

/// `run`, `stream`, `ask`, `conversation`, `store_get`, `store_save`, `metrics`.
pub async fn handle(
    cmd: &str,
    req: &Map<String, Value>,
    e: &ClientEntry,
    tk: Option<&Toolkit>,
) -> Res<Map<String, Value>> {
    let mut out = Map::new();
    let c = &e.client;
    let kit = || tk.ok_or_else(|| internal(format!("{cmd}: no toolkit resolved")));
    match cmd {
        "run" => {
            let tk = kit()?;
            e.rec.reset();
            let prompt = loop_prompt(req)?;
            let hist = history(req)?;
            let cancel = cancel_token(req)?;
            let t0 = Instant::now();
            let r = c.run_ctx(cancel.clone(), prompt, tk, hist).await;
            elapsed(&mut out, t0);
            cancel.cancel();
            outcome(&mut out, r);
            e.rec.drain_into(&mut out);
        }
        "stream" => {
            let tk = kit()?;
            e.rec.reset();
            let prompt = loop_prompt(req)?;
            if !history(req)?.is_empty() {
                return Err(unsupported(
                    "stream with history: the crate's stream takes a conversation id, not a history",
                ));
            }
            let id = match req.get("id") {
                None | Some(Value::Null) => String::new(),
                Some(v) => v
                    .as_str()
                    .ok_or_else(|| bad("id must be a string"))?
                    .to_owned(),
            };
            let cancel = cancel_token(req)?;
            let t0 = Instant::now();
            let mut events = Vec::new();
            let mut raised = None;
            let mut saw_done = false;
            match c.stream_ctx(cancel.clone(), prompt, tk, &id) {
                Err(err) => raised = Some(err.to_string()),
                Ok(mut rx) => {
                    while let Some(ev) = rx.recv().await {
                        match stream_event_json(&ev) {
                            Ok(v) => {
                                saw_done |= ev.kind == "done";
                                if events.len() < CAP {
                                    events.push(v);
                                }
                            }
                            Err(msg) => {
                                if raised.is_none() {
                                    raised = Some(msg);
                                }
                            }
                        }
                    }
                    if raised.is_none() && !saw_done {
                        // The crate's spawned run task ended without `done` or `error`: it
                        // panicked (e.g. a panicking tool; `Toolkit::execute` does not catch
                        // it). Not a raise of the port's API, so a driver-level error, as `run`.
                        return Err(internal(format!(
                            "the crate's stream ended without a done or error event after {} event(s) (a panic inside the run; see stderr)",
                            events.len()
                        )));
                    }
                }
            }
            elapsed(&mut out, t0);
            cancel.cancel();
            out.insert("events".into(), Value::Array(events));
            if let Some(m) = raised {
                out.insert("raised".into(), Value::String(m));
            }
            e.rec.drain_into(&mut out);
        }
        "ask" => {
            let tk = kit()?;
            e.rec.reset();
            let prompt = loop_prompt(req)?;
            if !history(req)?.is_empty() {
                return Err(unsupported(
                    "ask with history: the crate's ask loads history from its store",
                ));
            }
            let id = match req.get("id") {
                None | Some(Value::Null) => String::new(),
                Some(v) => v
                    .as_str()
                    .ok_or_else(|| bad("id must be a string"))?
                    .to_owned(),
            };
            let on_text = match req.get("onText") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(bad("onText must be a boolean")),
            };
            let t0 = Instant::now();
            if on_text {
                if req.get("cancelAfterMs").is_some_and(|v| !v.is_null()) {
                    return Err(unsupported(
                        "ask with onText and cancelAfterMs: the crate's ask_stream takes no cancel token",
                    ));
                }
                let mut deltas: Vec<Value> = Vec::new();
                let r = c
                    .ask_stream(prompt, tk, &id, |d: &str| {
                        if deltas.len() < CAP {
                            deltas.push(Value::String(d.to_owned()));
                        }
                    })
                    .await;
                elapsed(&mut out, t0);
                outcome(&mut out, r);
                out.insert("textDeltas".into(), Value::Array(deltas));
            } else {
                let cancel = cancel_token(req)?;
                let r = c.ask_ctx(cancel.clone(), prompt, tk, &id).await;
                elapsed(&mut out, t0);
                cancel.cancel();
                outcome(&mut out, r);
            }
            e.rec.drain_into(&mut out);
        }
        "conversation" => {
            let tk = kit()?;
            e.rec.reset();
            let steps = field(req, "steps")?
                .as_array()
                .ok_or_else(|| bad("steps must be an array"))?;
            let mut convo = c.conversation(tk);
            let mut answers = Vec::new();
            let t0 = Instant::now();
            for (i, s) in steps.iter().enumerate() {
                let m = as_obj(s, &format!("steps[{i}]"))?;
                if let Some(p) = m.get("send") {
                    let p = p
                        .as_str()
                        .ok_or_else(|| bad(format!("steps[{i}].send must be a string")))?;
                    let mut a = Map::new();
                    outcome(&mut a, convo.send(p).await);
                    answers.push(Value::Object(a));
                } else if m.get("reset") == Some(&Value::Bool(true)) {
                    convo.reset();
                    answers.push(json!({}));
                } else {
                    return Err(bad(format!(
                        "steps[{i}] must be {{\"send\": prompt}} or {{\"reset\": true}}"
                    )));
                }
            }
            elapsed(&mut out, t0);
            out.insert("steps".into(), Value::Array(answers));
            out.insert("messages".into(), Value::Array(convo.messages.clone()));
            e.rec.drain_into(&mut out);
        }
        "store_get" => {
            let id = str_field(req, "id")?;
            let got = c
                .conversation_store()
                .get(id)
                .map_err(|err| internal(format!("store get: {err}")))?;
            out.insert(
                "messages".into(),
                got.map(Value::Array).unwrap_or(Value::Null),
            );
        }
        "store_save" => {
            let id = str_field(req, "id")?;
            let msgs = field(req, "messages")?
                .as_array()
                .ok_or_else(|| bad("messages must be an array"))?;
            c.conversation_store()
                .save(id, msgs)
                .map_err(|err| internal(format!("store save: {err}")))?;
        }
        "metrics" => {
            out.insert("text".into(), Value::String(c.metrics()));
        }
        "translate" => translate(req, e, tk, &mut out).await?,
        "run_with_answer" | "ask_with_answer" => {
            // PROTOCOL.md §5.22: SPEC §10 durable resume, the crate's `Client::run_with_answer`
            // / `ask_with_answer`; an answer id that does not echo `pending.id` is the crate's raise.
            let tk = kit()?;
            e.rec.reset();
            let pending: Request = serde_json::from_value(field(req, "pending")?.clone())
                .map_err(|err| bad(format!("pending: {err}")))?;
            let answer: Answer = serde_json::from_value(field(req, "answer")?.clone())
                .map_err(|err| bad(format!("answer: {err}")))?;
            let cancel = cancel_token(req)?;
            let t0 = Instant::now();
            let r = if cmd == "run_with_answer" {
                let hist = match field(req, "history")? {
                    Value::Array(a) => a.clone(),
                    _ => return Err(bad("history must be an array")),
                };
                c.run_with_answer(cancel.clone(), tk, hist, &pending, &answer)
                    .await
            } else {
                let id = str_field(req, "id")?;
                c.ask_with_answer(cancel.clone(), tk, id, &pending, &answer)
                    .await
            };
            elapsed(&mut out, t0);
            cancel.cancel();
            outcome(&mut out, r);
            e.rec.drain_into(&mut out);
        }
        other => return Err(unsupported(format!("unknown command \"{other}\""))),
    }
    Ok(out)
}

/// A loop command's `prompt` (PROTOCOL.md §5.15): a string, or (SPEC 0.17.0) a list of parts
/// read into the crate's own `ContentPart` by its serde form, handed over as its `Prompt`.
fn loop_prompt(req: &Map<String, Value>) -> Res<Prompt> {
    match req.get("prompt") {
        Some(Value::String(s)) => Ok(Prompt::Text(s.clone())),
        Some(v @ Value::Array(_)) => {
            serde_json::from_value::<Vec<toolnexus::ContentPart>>(v.clone())
                .map(Prompt::Parts)
                .map_err(|e| bad(format!("prompt: {e}")))
        }
        _ => Err(bad("prompt must be a string or an array of content parts")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_metric_event_names_are_camel_case_and_error_only_when_set() {
        let ok = MetricEvent {
            event: "run".into(),
            model: "m".into(),
            turns: 2,
            tool_calls: 1,
            total_tokens: 9,
            ..Default::default()
        };
        assert_eq!(
            metric_json(&ok),
            json!({"event":"run","model":"m","turns":2,"toolCalls":1,"totalTokens":9,"ms":0})
        );
        let failed = MetricEvent {
            error: "boom".into(),
            ..ok
        };
        assert_eq!(metric_json(&failed)["error"], json!("boom"));
    }

    #[test]
    fn an_error_stream_event_is_a_raise_not_an_event() {
        let ev = StreamEvent {
            kind: "error".into(),
            error: Some(ClientError::Hook("gate".into())),
            ..Default::default()
        };
        assert_eq!(stream_event_json(&ev), Err("gate".to_string()));
        let text = StreamEvent::text("hi");
        assert_eq!(
            stream_event_json(&text),
            Ok(json!({"type":"text","delta":"hi"}))
        );
    }

    #[test]
    fn run_result_drops_empty_metadata_and_keeps_real_metadata() {
        let mut meta = Map::new();
        let r = RunResult {
            tool_calls: vec![
                toolnexus::client::ToolCall {
                    name: "a".into(),
                    metadata: Some(meta.clone()),
                    ..Default::default()
                },
                {
                    meta.insert("status".into(), json!(200));
                    toolnexus::client::ToolCall {
                        name: "b".into(),
                        metadata: Some(meta),
                        ..Default::default()
                    }
                },
            ],
            ..Default::default()
        };
        let v = run_result_json(&r);
        assert!(v["toolCalls"][0].get("metadata").is_none());
        assert_eq!(v["toolCalls"][1]["metadata"], json!({"status":200}));
    }

    #[test]
    fn recorded_lists_stop_at_the_cap() {
        let l = Mutex::new(Vec::new());
        for i in 0..CAP + 5 {
            push_capped(&l, json!(i));
        }
        assert_eq!(l.lock().unwrap().len(), CAP);
    }
}
