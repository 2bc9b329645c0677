//! One run of a handle: the §8 client the runtime builds for it (soul, filtered tools,
//! resolved seams, the turn gate, the live budget walk, the escalating `waitFor`), and the
//! store's rewind on a durable halt.

use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::error::AgentError;
use super::runtime::{stamp, Runtime, TurnInput};
use super::task::TaskTool;
use super::trace::{BudgetInfo, WaitForCall};
use super::{budget, BudgetDecision, State};
use crate::client::{
    AgentSeams, AskOptions, Client, ClientError, ClientOptions, RunOptions, RunResult, RunStatus,
    TurnProgress,
};
use crate::suspension::{Request, WaitFor};
use crate::tool::{Source, Tool};
use crate::toolkit::Toolkit;

/// The user text of a heartbeat wake (§7E).
pub const HEARTBEAT_PROMPT: &str =
    "Heartbeat: read HEARTBEAT.md and act on anything due; if nothing is due, reply HEARTBEAT_OK.";

impl Runtime {
    /// Runs one turn of `id` to its end (the caller settles it).
    pub(super) async fn execute_turn(
        &self,
        id: &str,
        input: &TurnInput,
        cancel: CancellationToken,
    ) -> Result<RunResult, ClientError> {
        // One read of the handle: its def, the run's admission time, its frozen soul and
        // whether a maxTurns budget (enforced by the live walk) replaces the §8 default.
        let seen = self.lock().handles.get(id).map(|h| {
            let started = h.run.as_ref().map(|r| r.started_at);
            let capped = h.live_budget().max_turns.is_some();
            (h.def.clone(), started, h.soul.clone(), capped)
        });
        let Some((def_name, started, soul, capped)) = seen else {
            let e = AgentError::NoHandle { id: id.to_string() };
            return Err(ClientError::Refused {
                reason: e.to_string(),
            });
        };
        let Some(def) = self.inner.registry.get(&def_name).cloned() else {
            let e = AgentError::UnknownAgent {
                name: def_name,
                known: None,
            };
            return Err(ClientError::Refused {
                reason: e.to_string(),
            });
        };
        let o = &self.inner.options;
        let started = started.unwrap_or_else(|| self.now());
        let max_turns = if capped { u32::MAX } else { 10 };
        let options = ClientOptions {
            base_url: o.base_url.clone(),
            style: o.style,
            model: def.model.clone(),
            api_key: o.api_key.clone(),
            system_prompt: soul,
            max_turns,
            // §7D seams rule 1: per field, the def's value, else the runtime's; never both.
            hooks: def.hooks.clone().or_else(|| o.hooks.clone()),
            on_metric: def.on_metric.clone().or_else(|| o.on_metric.clone()),
            store: Some(self.inner.store.clone()),
            http_client: Some(self.inner.http.clone()),
            wait_for: self.escalator(id),
            agent: Some(AgentSeams {
                turn_gate: Some(self.inner.gate.clone()),
                guard: Some(self.guard(id, started)),
                concurrent_tools: true,
            }),
            ..ClientOptions::default()
        };
        let client = Client::new(options);
        let toolkit = self.toolkit_for(id, &def);
        let store = self.inner.store.clone();
        let before = store.get(id).await;
        let outcome = match input {
            TurnInput::Prompt(text) => {
                let opts = AskOptions {
                    toolkit: Some(&toolkit),
                    id: Some(id.to_string()),
                    on_text: None,
                    cancel: Some(cancel),
                };
                client.ask(text, opts).await
            }
            TurnInput::Resume(checkpoint, answer) => {
                let opts = RunOptions {
                    toolkit: Some(&toolkit),
                    history: checkpoint.halted.clone(),
                    cancel: Some(cancel),
                };
                let r = client
                    .run_with_answer(opts, checkpoint.request.clone(), (**answer).clone())
                    .await;
                if let Ok(r) = &r {
                    store.save(id, r.messages.clone()).await;
                }
                r
            }
        };
        if outcome
            .as_ref()
            .is_ok_and(|r| r.status == RunStatus::Pending)
        {
            // Pin 1: a durable halt leaves the persisted transcript at its pre-turn
            // snapshot (a compaction of the halted turn is discarded with it).
            store.save(id, before.unwrap_or_default()).await;
        }
        outcome
    }

    /// The handle's tools: the def's runtime tools, then `task` when it has a team.
    fn toolkit_for(&self, id: &str, def: &super::AgentDef) -> Toolkit {
        let mut tools: Vec<Tool> = def
            .tools
            .iter()
            .filter_map(|n| self.inner.tools.get(n).cloned())
            .collect();
        if let (true, Some(home)) = (def.memory, &def.home) {
            tools.push(super::memory::memory_tool(home.clone()));
        }
        if !def.team.is_empty() {
            tools.push(TaskTool::tool(self.clone(), id, def));
        }
        Toolkit::from_tools(tools)
    }

    /// The live walk before each turn: the handle's own limits with what this run has
    /// used so far, every ancestor's from its ledger, and `maxWallMs` on the virtual
    /// clock. A stop asks `onBudget` first; its reason becomes the result's error.
    fn guard(&self, id: &str, started: u64) -> crate::client::TurnGuard {
        let rt = self.clone();
        let id = id.to_string();
        Arc::new(move |p: &TurnProgress| {
            let mut t = rt.lock();
            let Some(h) = t.handles.get(&id) else {
                return Some("closed".to_string());
            };
            let mut own = h.ledger;
            own.turns += u64::from(p.turns);
            own.tool_calls += p.tool_calls as u64;
            own.usage.add(p.usage);
            let budget = h.live_budget();
            let wall = budget
                .max_wall_ms
                .filter(|m| rt.now().saturating_sub(started) >= *m)
                .map(|m| ("maxWallMs", rt.now().saturating_sub(started), m));
            let stop = match wall.or_else(|| budget::exhausted(&budget, &own)) {
                Some((limit, used, max)) => Some((
                    limit.to_string(),
                    id.clone(),
                    AgentError::BudgetExhausted {
                        limit: limit.to_string(),
                        owner: id.clone(),
                        used,
                        max,
                    }
                    .to_string(),
                )),
                None => h
                    .parent
                    .clone()
                    .and_then(|p| super::runtime::walk_exhausted(&t, &p)),
            };
            let (limit, owner, reason) = stop?;
            if let Some(on_budget) = rt.inner.options.on_budget.clone() {
                let info = BudgetInfo {
                    handle: id.clone(),
                    limit: limit.clone(),
                    owner: owner.clone(),
                    reason: reason.clone(),
                };
                t.obs.on_budget_call(info.clone());
                // Host code runs without the table lock.
                drop(t);
                let decision = on_budget(&info);
                t = rt.lock();
                if decision == BudgetDecision::Extend {
                    if let Some(h) = t.handles.get_mut(&owner) {
                        h.extend(&limit);
                    }
                    t.obs
                        .event(&id, format!("onBudget extended {limit} of {owner}"));
                    return None;
                }
            }
            if let Some(h) = t.handles.get_mut(&id) {
                h.stop_reason = Some(reason);
            }
            Some(limit)
        })
    }

    /// The escalating `waitFor` of `id`: the nearest interpreter up the chain (its own def
    /// first) answers; every level below it parks `suspended` meanwhile and the Request
    /// carries their ids in `data.path`. No interpreter anywhere ⇒ none: the run halts
    /// durably and the halt climbs as the `task` result.
    fn escalator(&self, id: &str) -> Option<WaitFor> {
        let chain: Vec<(String, Option<WaitFor>)> = {
            let t = self.lock();
            let mut chain = Vec::new();
            let mut cursor = Some(id.to_string());
            while let Some(c) = cursor {
                let Some(h) = t.handles.get(&c) else { break };
                let wf = self
                    .inner
                    .registry
                    .get(&h.def)
                    .and_then(|d| d.wait_for.clone());
                chain.push((c.clone(), wf));
                cursor = h.parent.clone();
            }
            chain
        };
        let k = chain.iter().position(|(_, wf)| wf.is_some())?;
        let (interpreter, wait_for) = chain[k].clone();
        let wait_for = wait_for?;
        let parked: Vec<String> = chain[..k].iter().map(|(c, _)| c.clone()).collect();
        let rt = self.clone();
        Some(Arc::new(move |request: Request| {
            let rt = rt.clone();
            let parked = parked.clone();
            let interpreter = interpreter.clone();
            let wait_for = wait_for.clone();
            Box::pin(async move {
                let mut stamped = request;
                for c in &parked {
                    rt.set_state(c, State::Running, State::Suspended);
                    stamped = stamp(stamped, c);
                }
                rt.lock().obs.wait_for_call(WaitForCall {
                    handle: interpreter,
                    request: stamped.clone(),
                });
                let answer = wait_for(stamped).await;
                for c in parked.iter().rev() {
                    rt.set_state(c, State::Suspended, State::Running);
                }
                answer
            })
        }))
    }

    /// `agent(name).asTool()`: `{name, description: does, inputSchema: {prompt}, source:
    /// "agent"}`; its execute spawns under root, runs, closes, and returns only the final
    /// text plus `{agent, turns, totalTokens}`.
    pub fn as_tool(&self, name: &str) -> Result<Tool, AgentError> {
        let Some(def) = self.inner.registry.get(name) else {
            return Err(AgentError::UnknownAgent {
                name: name.to_string(),
                known: None,
            });
        };
        let schema = json!({
            "type": "object",
            "properties": {"prompt": {"type": "string", "description": "What to ask the agent."}},
            "required": ["prompt"],
        });
        let exec = Arc::new(super::task::AgentTool {
            rt: self.clone(),
            name: name.to_string(),
        });
        Ok(Tool::new(
            name,
            def.does.clone(),
            schema,
            Source::Agent,
            exec,
        ))
    }
}
