//! The `agent_*` commands (PROTOCOL.md §5.27): protocol JSON → the reference's §7D agent
//! runtime, with every host callback recording what it saw.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::behaviours::{self, ToolCancels};
use crate::client_behaviours::{metric_json, DriverHooks, Recorder};
use crate::client_port::Reply;
use toolnexus_protocol::client::HookBehaviours;
use toolnexus_protocol::options::{ExtraTool, WaitForBehaviour};
use toolnexus_protocol::{error_kind, Request};
use toolnexus_reference::agent::inbox::Item;
use toolnexus_reference::agent::{AgentDef, Budget, BudgetDecision, Runtime, RuntimeOptions};
use toolnexus_reference::client::{MetricEvent, OnMetric, Style};
use toolnexus_reference::suspension::Answer;
use toolnexus_reference::tool::Context;

/// The agent runtimes of a session, by id.
#[derive(Default)]
pub struct Agents {
    runtimes: BTreeMap<String, Session>,
}

struct Session {
    rt: Runtime,
    /// Per owner (`runtime` or a def name), what its hooks and metric sink recorded.
    recorders: Vec<(String, Arc<Recorder>)>,
    hook_calls: Vec<Value>,
    metric_events: Vec<Value>,
}

fn bad(message: impl Into<String>) -> (String, String) {
    (error_kind::BAD_REQUEST.to_string(), message.into())
}

fn unsupported(message: impl Into<String>) -> (String, String) {
    (error_kind::UNSUPPORTED.to_string(), message.into())
}

fn text<'a>(body: &'a Map<String, Value>, key: &str) -> Result<&'a str, (String, String)> {
    body.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("needs a string \"{key}\"")))
}

fn opt_text<'a>(body: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    body.get(key).and_then(Value::as_str)
}

fn opt_u64(body: &Map<String, Value>, key: &str) -> Result<Option<u64>, (String, String)> {
    match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| bad(format!("\"{key}\" must be a non-negative integer"))),
    }
}

/// Keys an `agent_runtime` registry entry may carry.
const DEF_KEYS: [&str; 11] = [
    "does", "model", "soul", "team", "tools", "budget", "waitFor", "hooks", "onMetric", "home",
    "memory",
];

impl Agents {
    /// Answers one `agent_*` request.
    pub async fn handle(&mut self, request: Request, cancels: &ToolCancels) -> Reply {
        match request {
            Request::AgentRuntime { id, body, .. } => self.create(id, &body, cancels),
            Request::AgentSpawn { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let budget = match body.get("budget") {
                    None | Some(Value::Null) => None,
                    Some(b) => Some(Budget::from_json(b).map_err(bad)?),
                };
                let parent = opt_text(&body, "parent").unwrap_or("root");
                match s.rt.spawn(parent, text(&body, "def")?, budget.as_ref()) {
                    Ok(sp) => {
                        Ok(json!({"handle": sp.id, "budget": {"effective": sp.budget.to_json()}}))
                    }
                    Err(e) => Ok(json!({"error": {"output": e, "isError": true}})),
                }
            }
            Request::AgentPost { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let item = Item {
                    from: opt_text(&body, "from").unwrap_or("external").to_string(),
                    channel: opt_text(&body, "channel").unwrap_or("external").to_string(),
                    text: text(&body, "text")?.to_string(),
                };
                Ok(match s.rt.post(text(&body, "handle")?, item) {
                    Ok(()) => json!({"accepted": true}),
                    Err(e) => json!({"accepted": false, "error": e}),
                })
            }
            Request::AgentWake { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                Ok(
                    match s.rt.wake(text(&body, "handle")?, opt_text(&body, "prompt")) {
                        Ok(w) => json!({"state": w.state.as_str(), "queued": w.queued}),
                        Err(e) => json!({"error": e}),
                    },
                )
            }
            Request::AgentWait { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let timeout = opt_u64(&body, "timeoutMs")?;
                let advance = opt_u64(&body, "advanceMs")?;
                let r = s.rt.wait(text(&body, "handle")?, timeout, advance).await;
                Ok(json!({"result": r.to_json()}))
            }
            Request::AgentInterrupt { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                Ok(match s.rt.interrupt(text(&body, "handle")?) {
                    Ok(state) => json!({"state": state.as_str()}),
                    Err(e) => json!({"error": e}),
                })
            }
            Request::AgentClose { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let force = body.get("force").and_then(Value::as_bool).unwrap_or(false);
                let advance = opt_u64(&body, "advanceMs")?;
                Ok(
                    match s.rt.close(text(&body, "handle")?, force, advance).await {
                        Ok(state) => json!({"state": state.as_str()}),
                        Err(e) => json!({"error": e}),
                    },
                )
            }
            Request::AgentList { runtime, .. } => {
                Ok(json!({"handles": self.session(&runtime)?.rt.list()}))
            }
            Request::AgentInspect { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                s.rt.inspect(text(&body, "handle")?).map_err(bad)
            }
            Request::AgentRun { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                match s
                    .rt
                    .run(text(&body, "entry")?, text(&body, "prompt")?)
                    .await
                {
                    Ok(r) => Ok(json!({"handle": r.handle, "result": r.to_json()})),
                    Err(e) => Ok(json!({"error": e})),
                }
            }
            Request::AgentResume { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let answer: Answer = body
                    .get("answer")
                    .cloned()
                    .map(serde_json::from_value)
                    .transpose()
                    .map_err(|e| bad(format!("answer: {e}")))?
                    .ok_or_else(|| bad("needs an \"answer\" {id, ok, data?, reason?}"))?;
                match s.rt.resume(answer).await {
                    Ok(r) => Ok(json!({"result": r.to_json()})),
                    Err(e) => Ok(json!({"raised": e})),
                }
            }
            Request::AgentExecute { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let tool = s.rt.as_tool(text(&body, "def")?).map_err(bad)?;
                let args = body.get("args").cloned().unwrap_or_else(|| json!({}));
                let result = tool.execute(args, &Context::default()).await;
                Ok(json!({"tool": tool.describe(), "result": result}))
            }
            Request::AgentClock { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let ms = opt_u64(&body, "advanceMs")?.unwrap_or(0);
                Ok(json!({"now": s.rt.advance(ms)}))
            }
            Request::AgentHeartbeat { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let every = opt_u64(&body, "everyMs")?.ok_or_else(|| bad("needs \"everyMs\""))?;
                s.rt.heartbeat(text(&body, "handle")?, every).map_err(bad)?;
                Ok(json!({}))
            }
            Request::AgentStoreGet { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let messages = s.rt.store().get(text(&body, "id")?).await;
                Ok(json!({"messages": messages}))
            }
            Request::AgentStoreSave { runtime, body, .. } => {
                let s = self.session(&runtime)?;
                let messages = match body.get("messages") {
                    Some(Value::Array(m)) => m.clone(),
                    _ => return Err(bad("needs \"messages\" (an array)")),
                };
                s.rt.store().save(text(&body, "id")?, messages).await;
                Ok(json!({}))
            }
            Request::AgentTrace { runtime, .. } => {
                let s = self.session_mut(&runtime)?;
                for (owner, rec) in &s.recorders {
                    for (field, entries) in rec.take() {
                        let list = match field {
                            "hookCalls" => &mut s.hook_calls,
                            "metricEvents" => &mut s.metric_events,
                            _ => continue,
                        };
                        for mut e in entries {
                            e["owner"] = json!(owner);
                            if list.len() < crate::client_behaviours::RECORD_CAP {
                                list.push(e);
                            }
                        }
                    }
                }
                let mut v = s.rt.observations().to_json();
                v["hookCalls"] = json!(s.hook_calls);
                v["metricEvents"] = json!(s.metric_events);
                v["peakConcurrentTurns"] = json!(s.rt.peak_concurrent_turns());
                v["now"] = json!(s.rt.now());
                Ok(v)
            }
            Request::AgentCloseRuntime { runtime, .. } => {
                if let Some(s) = self.runtimes.remove(&runtime) {
                    s.rt.close_all().await;
                }
                Ok(json!({}))
            }
            other => Err(bad(format!(
                "{} is not an agent command",
                other.command().as_str()
            ))),
        }
    }

    /// Closes every runtime (the session ends).
    pub async fn close_all(&mut self) {
        for (_, s) in std::mem::take(&mut self.runtimes) {
            s.rt.close_all().await;
        }
    }

    fn session(&self, id: &str) -> Result<&Session, (String, String)> {
        self.runtimes
            .get(id)
            .ok_or_else(|| bad(format!("no agent runtime \"{id}\"")))
    }

    fn session_mut(&mut self, id: &str) -> Result<&mut Session, (String, String)> {
        self.runtimes
            .get_mut(id)
            .ok_or_else(|| bad(format!("no agent runtime \"{id}\"")))
    }

    fn create(&mut self, id: String, body: &Map<String, Value>, cancels: &ToolCancels) -> Reply {
        let style = text(body, "style")?;
        let style = Style::parse(style)
            .ok_or_else(|| bad(format!("unknown style \"{style}\" (openai | anthropic)")))?;
        let mut recorders = Vec::new();
        let empty = Map::new();
        let o = match body.get("options") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(_) => return Err(bad("\"options\" must be an object")),
        };
        const OPTION_KEYS: [&str; 6] = [
            "inboxCap",
            "maxConcurrentTurns",
            "shutdownMs",
            "hooks",
            "onMetric",
            "onBudget",
        ];
        if let Some(k) = o.keys().find(|k| !OPTION_KEYS.contains(&k.as_str())) {
            return Err(bad(format!("unknown agent runtime option \"{k}\"")));
        }
        let mut options = RuntimeOptions {
            base_url: text(body, "baseUrl")?.to_string(),
            style,
            api_key: opt_text(body, "apiKey").map(str::to_string),
            ..RuntimeOptions::default()
        };
        if let Some(n) = opt_u64(o, "inboxCap")? {
            options.inbox_cap = usize::try_from(n).map_err(|_| bad("inboxCap is too large"))?;
        }
        if let Some(n) = opt_u64(o, "maxConcurrentTurns")? {
            options.max_concurrent_turns =
                Some(usize::try_from(n).map_err(|_| bad("maxConcurrentTurns is too large"))?);
        }
        if let Some(n) = opt_u64(o, "shutdownMs")? {
            options.shutdown_ms = n;
        }
        let rec = Arc::new(Recorder::default());
        if let Some(h) = o.get("hooks") {
            options.hooks = Some(hooks(h, &rec)?);
        }
        if let Some(m) = o.get("onMetric") {
            options.on_metric = Some(on_metric(m, &rec)?);
        }
        recorders.push(("runtime".to_string(), rec));
        if let Some(b) = o.get("onBudget") {
            let decision = match b.get("answer").and_then(Value::as_str) {
                Some("stop") => BudgetDecision::Stop,
                Some("extend") => BudgetDecision::Extend,
                Some("suspend") => {
                    return Err(unsupported(
                        "onBudget \"suspend\" is not implemented by the reference yet",
                    ))
                }
                _ => return Err(bad("onBudget: {\"answer\": \"stop\" | \"extend\"}")),
            };
            options.on_budget = Some(Arc::new(move |_info: &Value| decision));
        }
        let tools = match body.get("tools") {
            None | Some(Value::Null) => Vec::new(),
            Some(v) => {
                let specs: Vec<ExtraTool> =
                    serde_json::from_value(v.clone()).map_err(|e| bad(format!("tools: {e}")))?;
                specs
                    .iter()
                    .map(|t| behaviours::extra_tool(t, cancels))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(bad)?
            }
        };
        let mut registry = Vec::new();
        let defs = match body.get("registry") {
            Some(Value::Object(m)) => m,
            _ => return Err(bad("needs a \"registry\" object {name: def}")),
        };
        for (name, d) in defs {
            let Some(d) = d.as_object() else {
                return Err(bad(format!("registry entry \"{name}\" must be an object")));
            };
            if let Some(k) = d.keys().find(|k| !DEF_KEYS.contains(&k.as_str())) {
                return Err(bad(format!(
                    "registry entry \"{name}\": unknown key \"{k}\""
                )));
            }
            let strings = |key: &str| -> Result<Vec<String>, (String, String)> {
                match d.get(key) {
                    None | Some(Value::Null) => Ok(Vec::new()),
                    Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
                        bad(format!(
                            "registry entry \"{name}\": \"{key}\" must be an array of strings"
                        ))
                    }),
                }
            };
            let mut def = AgentDef {
                name: name.clone(),
                does: d
                    .get("does")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                model: d
                    .get("model")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad(format!("registry entry \"{name}\" needs a \"model\"")))?
                    .to_string(),
                soul: d.get("soul").and_then(Value::as_str).map(str::to_string),
                team: strings("team")?,
                tools: strings("tools")?,
                ..AgentDef::default()
            };
            def.home = d
                .get("home")
                .and_then(Value::as_str)
                .map(std::path::PathBuf::from);
            def.memory = d.get("memory").and_then(Value::as_bool).unwrap_or(false);
            if def.memory && def.home.is_none() {
                return Err(bad(format!(
                    "registry entry \"{name}\": memory needs a home"
                )));
            }
            if let Some(b) = d.get("budget") {
                def.budget = Budget::from_json(b)
                    .map_err(|e| bad(format!("registry entry \"{name}\": {e}")))?;
            }
            if let Some(w) = d.get("waitFor") {
                let b: WaitForBehaviour = serde_json::from_value(w.clone())
                    .map_err(|e| bad(format!("registry entry \"{name}\": waitFor: {e}")))?;
                def.wait_for = Some(behaviours::wait_for(&b).map_err(bad)?);
            }
            let rec = Arc::new(Recorder::default());
            if let Some(h) = d.get("hooks") {
                def.hooks = Some(hooks(h, &rec)?);
            }
            if let Some(m) = d.get("onMetric") {
                def.on_metric = Some(on_metric(m, &rec)?);
            }
            recorders.push((name.clone(), rec));
            registry.push(def);
        }
        let rt = Runtime::new(options, registry, tools).map_err(bad)?;
        self.runtimes.insert(
            id,
            Session {
                rt,
                recorders,
                hook_calls: Vec::new(),
                metric_events: Vec::new(),
            },
        );
        Ok(json!({}))
    }
}

fn hooks(
    v: &Value,
    rec: &Arc<Recorder>,
) -> Result<Arc<dyn toolnexus_reference::client::Hooks>, (String, String)> {
    let h: HookBehaviours =
        serde_json::from_value(v.clone()).map_err(|e| bad(format!("hooks: {e}")))?;
    Ok(Arc::new(DriverHooks::new(&h, rec.clone()).map_err(bad)?))
}

fn on_metric(v: &Value, rec: &Arc<Recorder>) -> Result<OnMetric, (String, String)> {
    if v != &json!({"collect": true}) {
        return Err(bad(
            "onMetric: only {\"collect\": true} is in the catalogue",
        ));
    }
    let rec = rec.clone();
    Ok(Arc::new(move |ev: &MetricEvent| {
        rec.push_metric(metric_json(ev))
    }))
}
