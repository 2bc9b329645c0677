//! The `agent_*` commands (PROTOCOL.md §5.27): protocol JSON → the reference's §7D agent
//! runtime, with every host callback recording what it saw.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::behaviours::{self, ToolCancels};
use crate::client_behaviours::{metric_json, DriverHooks};
use crate::recorder::{push_capped, Recorder};
use crate::reply::{bad_request as bad, unsupported, Reply};
use toolnexus_protocol::agent::{AgentBudget, AgentRegistry, AgentRuntimeOptions};
use toolnexus_protocol::client::{HookBehaviours, OnMetricBehaviour};
use toolnexus_protocol::options::ExtraTool;
use toolnexus_protocol::{ErrorKind, Request};
use toolnexus_reference::agent::inbox::Item;
use toolnexus_reference::agent::{
    AgentDef, Budget, BudgetDecision, BudgetInfo, Runtime, RuntimeOptions,
};
use toolnexus_reference::client::{MetricEvent, OnMetric, Style};
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

impl Agents {
    /// Answers one `agent_*` request.
    pub async fn handle(&mut self, request: Request, cancels: &ToolCancels) -> Reply {
        match request {
            Request::AgentRuntime {
                id,
                base_url,
                style,
                api_key,
                registry,
                tools,
                options,
                ..
            } => {
                let spec = RuntimeSpec {
                    base_url,
                    style,
                    api_key,
                    registry,
                    tools: tools.unwrap_or_default(),
                    options: options.map(|o| *o).unwrap_or_default(),
                };
                self.create(id, spec, cancels)
            }
            Request::AgentSpawn {
                runtime,
                parent,
                def,
                budget,
                ..
            } => {
                let s = self.session(&runtime)?;
                let budget = budget.as_ref().map(reference_budget);
                let parent = parent.as_deref().unwrap_or("root");
                match s.rt.spawn(parent, &def, budget.as_ref()) {
                    Ok(sp) => {
                        Ok(json!({"handle": sp.id, "budget": {"effective": wire(&sp.budget)?}}))
                    }
                    Err(e) => Ok(json!({"error": {"output": e.to_string(), "isError": true}})),
                }
            }
            Request::AgentPost {
                runtime,
                handle,
                text,
                from,
                channel,
                ..
            } => {
                let s = self.session(&runtime)?;
                let item = Item {
                    from: from.unwrap_or_else(|| "external".to_string()),
                    channel: channel.unwrap_or_else(|| "external".to_string()),
                    text,
                };
                Ok(match s.rt.post(&handle, item) {
                    Ok(()) => json!({"accepted": true}),
                    Err(e) => json!({"accepted": false, "error": e.to_string()}),
                })
            }
            Request::AgentWake {
                runtime,
                handle,
                prompt,
                ..
            } => {
                let s = self.session(&runtime)?;
                Ok(match s.rt.wake(&handle, prompt.as_deref()) {
                    Ok(w) => json!({"state": w.state.as_str(), "queued": w.queued}),
                    Err(e) => json!({"error": e.to_string()}),
                })
            }
            Request::AgentWait {
                runtime,
                handle,
                timeout_ms,
                advance_ms,
                ..
            } => {
                let s = self.session(&runtime)?;
                let r = s.rt.wait(&handle, timeout_ms, advance_ms).await;
                Ok(json!({"result": wire(&r)?}))
            }
            Request::AgentInterrupt {
                runtime, handle, ..
            } => {
                let s = self.session(&runtime)?;
                Ok(match s.rt.interrupt(&handle) {
                    Ok(state) => json!({"state": state.as_str()}),
                    Err(e) => json!({"error": e.to_string()}),
                })
            }
            Request::AgentClose {
                runtime,
                handle,
                force,
                advance_ms,
                ..
            } => {
                let s = self.session(&runtime)?;
                Ok(match s.rt.close(&handle, force, advance_ms).await {
                    Ok(state) => json!({"state": state.as_str()}),
                    Err(e) => json!({"error": e.to_string()}),
                })
            }
            Request::AgentList { runtime, .. } => {
                Ok(json!({"handles": wire(&self.session(&runtime)?.rt.list())?}))
            }
            Request::AgentInspect {
                runtime, handle, ..
            } => {
                let s = self.session(&runtime)?;
                wire(&s.rt.inspect(&handle).map_err(|e| bad(e.to_string()))?)
            }
            Request::AgentRun {
                runtime,
                entry,
                prompt,
                ..
            } => {
                let s = self.session(&runtime)?;
                match s.rt.run(&entry, &prompt).await {
                    Ok(r) => Ok(json!({"handle": r.handle, "result": wire(&r)?})),
                    Err(e) => Ok(json!({"error": e.to_string()})),
                }
            }
            Request::AgentResume {
                runtime, answer, ..
            } => {
                let s = self.session(&runtime)?;
                match s.rt.resume(behaviours::reference_answer(answer)).await {
                    Ok(r) => Ok(json!({"result": wire(&r)?})),
                    Err(e) => Ok(json!({"raised": e.to_string()})),
                }
            }
            Request::AgentExecute {
                runtime, def, args, ..
            } => {
                let s = self.session(&runtime)?;
                let tool = s.rt.as_tool(&def).map_err(|e| bad(e.to_string()))?;
                let result = tool.execute(args, &Context::default()).await;
                Ok(json!({"tool": wire(&tool.describe())?, "result": result}))
            }
            Request::AgentClock {
                runtime,
                advance_ms,
                ..
            } => {
                let s = self.session(&runtime)?;
                Ok(json!({"now": s.rt.advance(advance_ms.unwrap_or(0))}))
            }
            Request::AgentHeartbeat {
                runtime,
                handle,
                every_ms,
                ..
            } => {
                let s = self.session(&runtime)?;
                s.rt.heartbeat(&handle, every_ms)
                    .map_err(|e| bad(e.to_string()))?;
                Ok(json!({}))
            }
            Request::AgentStoreGet { runtime, id, .. } => {
                let s = self.session(&runtime)?;
                let messages = s.rt.store().get(&id).await;
                Ok(json!({"messages": messages}))
            }
            Request::AgentStoreSave {
                runtime,
                id,
                messages,
                ..
            } => {
                let s = self.session(&runtime)?;
                s.rt.store().save(&id, messages).await;
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
                            push_capped(list, e);
                        }
                    }
                }
                let mut v = wire(&s.rt.observations())?;
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

    fn session(&self, id: &str) -> Result<&Session, (ErrorKind, String)> {
        self.runtimes
            .get(id)
            .ok_or_else(|| bad(format!("no agent runtime \"{id}\"")))
    }

    fn session_mut(&mut self, id: &str) -> Result<&mut Session, (ErrorKind, String)> {
        self.runtimes
            .get_mut(id)
            .ok_or_else(|| bad(format!("no agent runtime \"{id}\"")))
    }

    fn create(&mut self, id: String, spec: RuntimeSpec, cancels: &ToolCancels) -> Reply {
        let style = Style::parse(&spec.style).ok_or_else(|| {
            bad(format!(
                "unknown style \"{}\" (openai | anthropic)",
                spec.style
            ))
        })?;
        let o = spec.options;
        let mut recorders = Vec::new();
        let mut options = RuntimeOptions {
            base_url: spec.base_url,
            style,
            api_key: spec.api_key,
            ..RuntimeOptions::default()
        };
        if let Some(n) = o.inbox_cap {
            options.inbox_cap = usize::try_from(n).map_err(|_| bad("inboxCap is too large"))?;
        }
        if let Some(n) = o.max_concurrent_turns {
            options.max_concurrent_turns =
                Some(usize::try_from(n).map_err(|_| bad("maxConcurrentTurns is too large"))?);
        }
        if let Some(n) = o.shutdown_ms {
            options.shutdown_ms = n;
        }
        let rec = Arc::new(Recorder::default());
        if let Some(h) = &o.hooks {
            options.hooks = Some(hooks(h, &rec)?);
        }
        if let Some(m) = &o.on_metric {
            options.on_metric = Some(on_metric(m, &rec)?);
        }
        recorders.push(("runtime".to_string(), rec));
        if let Some(b) = &o.on_budget {
            let decision = match b.answer.as_str() {
                "stop" => BudgetDecision::Stop,
                "extend" => BudgetDecision::Extend,
                "suspend" => {
                    return Err(unsupported(
                        "onBudget \"suspend\" is not implemented by the reference yet",
                    ))
                }
                _ => return Err(bad("onBudget: {\"answer\": \"stop\" | \"extend\"}")),
            };
            options.on_budget = Some(Arc::new(move |_info: &BudgetInfo| decision));
        }
        let tools = spec
            .tools
            .iter()
            .map(|t| behaviours::extra_tool(t, cancels))
            .collect::<Result<Vec<_>, _>>()
            .map_err(bad)?;
        let mut registry = Vec::new();
        for (name, d) in spec.registry.0 {
            let mut def = AgentDef {
                name: name.clone(),
                does: d.does.unwrap_or_default(),
                model: d.model,
                soul: d.soul,
                team: d.team.unwrap_or_default(),
                tools: d.tools.unwrap_or_default(),
                ..AgentDef::default()
            };
            def.home = d.home.map(std::path::PathBuf::from);
            def.memory = d.memory;
            if def.memory && def.home.is_none() {
                return Err(bad(format!(
                    "registry entry \"{name}\": memory needs a home"
                )));
            }
            if let Some(b) = &d.budget {
                def.budget = reference_budget(b);
            }
            if let Some(w) = &d.wait_for {
                def.wait_for = Some(
                    behaviours::wait_for(w)
                        .map_err(|e| bad(format!("registry entry \"{name}\": waitFor: {e}")))?,
                );
            }
            let rec = Arc::new(Recorder::default());
            if let Some(h) = &d.hooks {
                def.hooks = Some(hooks(h, &rec)?);
            }
            if let Some(m) = &d.on_metric {
                def.on_metric = Some(on_metric(m, &rec)?);
            }
            recorders.push((name, rec));
            registry.push(def);
        }
        let rt = Runtime::new(options, registry, tools).map_err(|e| bad(e.to_string()))?;
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

/// What `agent_runtime` carries besides its id, as the protocol decoded it.
struct RuntimeSpec {
    base_url: String,
    style: String,
    api_key: Option<String>,
    registry: AgentRegistry,
    tools: Vec<ExtraTool>,
    options: AgentRuntimeOptions,
}

/// A reference answer as its protocol JSON (the reference's types serialise to the
/// protocol's shapes; a value JSON cannot hold is the driver's fault, said as such: `internal`,
/// since the request was not bad).
fn wire<T: serde::Serialize>(value: &T) -> Reply {
    serde_json::to_value(value)
        .map_err(|e| (ErrorKind::Internal, format!("the answer is not JSON: {e}")))
}

/// The protocol's budget as the reference's (the same seven limits).
fn reference_budget(b: &AgentBudget) -> Budget {
    Budget {
        max_turns: b.max_turns,
        max_tokens: b.max_tokens,
        max_tool_calls: b.max_tool_calls,
        max_wall_ms: b.max_wall_ms,
        max_children: b.max_children,
        max_concurrent: b.max_concurrent,
        max_depth: b.max_depth,
    }
}

fn hooks(
    h: &HookBehaviours,
    rec: &Arc<Recorder>,
) -> Result<Arc<dyn toolnexus_reference::client::Hooks>, (ErrorKind, String)> {
    Ok(Arc::new(DriverHooks::new(h, rec.clone()).map_err(bad)?))
}

fn on_metric(m: &OnMetricBehaviour, rec: &Arc<Recorder>) -> Result<OnMetric, (ErrorKind, String)> {
    if m != &OnMetricBehaviour::Collect(true) {
        return Err(bad(
            "onMetric: only {\"collect\": true} is in the catalogue",
        ));
    }
    let rec = rec.clone();
    Ok(Arc::new(move |ev: &MetricEvent| {
        rec.push_metric(metric_json(ev))
    }))
}
