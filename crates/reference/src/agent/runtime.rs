//! The handle table and the six host verbs (+ `list`/`inspect`). Every state change
//! happens under one lock, so admission is atomic with its verb and each handle's trace
//! is written in the order its transitions happened.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::budget::{self, Budget, Ledger};
use super::clock::VirtualClock;
use super::error::{AgentError, ClosedVerb};
use super::inbox::{self, Item};
use super::trace::{Beat, Observations};
use super::{AgentDef, AgentResult, RuntimeOptions, State, Status};
use crate::client::{ConversationStore, InMemoryStore, TurnGate, Usage};
use crate::suspension::{Answer, Request};
use crate::tool::Tool;

/// How deep below root a handle may sit when no budget on its chain sets `maxDepth`: §7D
/// gives no default, and recursion through a team cycle (`a` ⇄ `b`) would otherwise spawn
/// one level per model call without end. 3, as the published ports default (NOTES #334).
pub const DEFAULT_MAX_DEPTH: u64 = 3;

/// The §7D agent runtime; cheap to clone (clones share everything).
#[derive(Clone)]
pub struct Runtime {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) registry: BTreeMap<String, AgentDef>,
    pub(super) tools: BTreeMap<String, Tool>,
    pub(super) options: RuntimeOptions,
    pub(super) store: Arc<dyn ConversationStore>,
    pub(super) http: reqwest::Client,
    pub(super) gate: Arc<TurnGate>,
    pub(super) clock: VirtualClock,
    table: Mutex<Table>,
}

#[derive(Default)]
pub(super) struct Table {
    pub(super) handles: BTreeMap<String, Handle>,
    /// Per def name, the last number used directly under root.
    root_counters: BTreeMap<String, u32>,
    pub(super) obs: Observations,
    /// Heartbeats: handle → (every, next due).
    heartbeats: BTreeMap<String, (u64, u64)>,
    closed_runtime: bool,
}

/// A run in flight (or parked inline on an escalation).
pub(super) struct RunCtl {
    pub(super) generation: u64,
    pub(super) cancel: CancellationToken,
    /// The inbox items this turn drained, restored if it does not complete.
    pub(super) drained: Vec<Item>,
    /// The handle's ledger when the run started (the result's usage is the difference).
    pub(super) ledger_at_start: Ledger,
    pub(super) task: Option<tokio::task::AbortHandle>,
    /// The virtual time the run was admitted (its `maxWallMs` counts from here).
    pub(super) started_at: u64,
}

/// A durable halt: what resume needs.
#[derive(Clone)]
pub(super) struct Checkpoint {
    /// The Request as the handle's own loop raised it (unstamped).
    pub(super) request: Request,
    /// The halted transcript (placeholder included), for the leaf's resume.
    pub(super) halted: Vec<Value>,
    /// The turn's user text, for a parent's replay.
    pub(super) input: String,
}

pub(super) struct Handle {
    pub(super) id: String,
    pub(super) def: String,
    pub(super) parent: Option<String>,
    pub(super) depth: u64,
    pub(super) state: State,
    pub(super) closing: bool,
    pub(super) inbox: Vec<Item>,
    pub(super) budget: Budget,
    pub(super) ledger: Ledger,
    pub(super) children: Vec<String>,
    counters: BTreeMap<String, u32>,
    /// Queued wakes of this handle's children (FIFO; the concurrency gate).
    queue: VecDeque<(String, Option<String>)>,
    pub(super) queued: bool,
    pub(super) run: Option<RunCtl>,
    generation: u64,
    pub(super) last: Option<AgentResult>,
    waiters: Vec<oneshot::Sender<AgentResult>>,
    pub(super) checkpoint: Option<Checkpoint>,
    /// `task` key (agent, prompt) → the child it spawned, until that child is closed.
    pub(super) task_keys: BTreeMap<(String, String), String>,
    /// Why the live walk stopped the current run.
    pub(super) stop_reason: Option<String>,
    /// Limits `onBudget` extended, by how much.
    extended: Budget,
    /// The composed soul, fixed when the handle (its session) started (§7E).
    pub(super) soul: Option<String>,
    /// Whether its current run is a heartbeat wake (a substantive reply is a beat).
    pub(super) beating: bool,
}

/// `spawn`'s answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Spawned {
    /// The new handle's id.
    pub id: String,
    /// Its effective (carved) budget.
    pub budget: Budget,
}

/// `wake`'s answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WakeOutcome {
    /// The state after the verb.
    pub state: State,
    /// Whether the wake waits in the parent's FIFO (the concurrency gate).
    pub queued: bool,
}

/// One row of `list()`: `{id, def, state}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HandleSummary {
    /// The handle's id.
    pub id: String,
    /// Its registry entry.
    pub def: String,
    /// Its state.
    pub state: State,
}

/// What is left of the spendable limits (negative once overrun; `None`: no limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Remaining {
    /// `maxTurns` minus own turns.
    pub max_turns: Option<i128>,
    /// `maxTokens` minus the rolled-up tokens.
    pub max_tokens: Option<i128>,
    /// `maxToolCalls` minus the rolled-up tool calls.
    pub max_tool_calls: Option<i128>,
}

/// A handle's budget as `inspect` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BudgetReport {
    /// The effective (carved) budget.
    pub effective: Budget,
    /// What it has used.
    pub used: Ledger,
    /// What is left.
    pub remaining: Remaining,
}

/// `inspect(h)`'s answer: `{id, def, state, queued, inboxLen, inbox, budget, children,
/// turns, usage, pending}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandleInfo {
    /// The handle's id.
    pub id: String,
    /// Its registry entry.
    pub def: String,
    /// Its state.
    pub state: State,
    /// Whether a wake of it waits in its parent's FIFO.
    pub queued: bool,
    /// How many items its inbox holds.
    pub inbox_len: usize,
    /// The items.
    pub inbox: Vec<Item>,
    /// Its budget, use and what is left.
    pub budget: BudgetReport,
    /// Its children's ids, in spawn order.
    pub children: Vec<String>,
    /// Own LLM round trips.
    pub turns: u64,
    /// Tokens, rolled up.
    pub usage: Usage,
    /// The Request it is parked on (unstamped), if any.
    pub pending: Option<Request>,
}

/// What starts a run.
pub(super) enum TurnInput {
    /// A fresh turn with this user text.
    Prompt(String),
    /// The leaf's durable resume: fill the halted turn from the Answer.
    Resume(Box<Checkpoint>, Box<Answer>),
}

impl Runtime {
    /// `AgentRuntime({registry, tools, ...})`. Every team member must be in the registry
    /// and every tool a def names among `tools`.
    pub fn new(
        options: RuntimeOptions,
        registry: Vec<AgentDef>,
        tools: Vec<Tool>,
    ) -> Result<Runtime, AgentError> {
        let tools: BTreeMap<String, Tool> =
            tools.into_iter().map(|t| (t.name.clone(), t)).collect();
        let registry: BTreeMap<String, AgentDef> =
            registry.into_iter().map(|d| (d.name.clone(), d)).collect();
        for def in registry.values() {
            if let Some(t) = def.tools.iter().find(|t| !tools.contains_key(*t)) {
                return Err(AgentError::UnknownTool {
                    agent: def.name.clone(),
                    tool: t.clone(),
                });
            }
            if let Some(m) = def.team.iter().find(|m| !registry.contains_key(*m)) {
                return Err(AgentError::UnknownTeamMember {
                    agent: def.name.clone(),
                    member: m.clone(),
                });
            }
        }
        let store = options
            .store
            .clone()
            .unwrap_or_else(|| Arc::new(InMemoryStore::new()));
        let gate = TurnGate::new(options.max_concurrent_turns);
        Ok(Runtime {
            inner: Arc::new(Inner {
                registry,
                tools,
                options,
                store,
                http: crate::http_client::llm_client(),
                gate,
                clock: VirtualClock::new(),
                table: Mutex::new(Table::default()),
            }),
        })
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Table> {
        // A poisoned lock still holds a consistent table: no verb panics half-way.
        self.inner.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The runtime's store, the injected one when one was supplied (read handle).
    pub fn store(&self) -> Arc<dyn ConversationStore> {
        self.inner.store.clone()
    }

    /// The registry entry of `name`.
    pub fn def(&self, name: &str) -> Option<&AgentDef> {
        self.inner.registry.get(name)
    }

    /// The virtual clock's time.
    pub fn now(&self) -> u64 {
        self.inner.clock.now()
    }

    /// A copy of everything observed.
    pub fn observations(&self) -> Observations {
        self.lock().obs.clone()
    }

    /// The most LLM calls ever in flight at once (the turn gate's view).
    pub fn peak_concurrent_turns(&self) -> usize {
        self.inner.gate.peak()
    }

    /// `spawn(parent, def, budget?)`; `parent` is `"root"` or a handle id. A refused spawn
    /// (unknown def, closed parent, `maxChildren`, `maxDepth`) is an error naming why.
    pub fn spawn(
        &self,
        parent: &str,
        def: &str,
        budget: Option<&Budget>,
    ) -> Result<Spawned, AgentError> {
        let Some(d) = self.inner.registry.get(def) else {
            return Err(AgentError::UnknownAgent {
                name: def.to_string(),
                known: Some(self.inner.registry.keys().cloned().collect()),
            });
        };
        let own = match budget {
            Some(b) => d.budget.overlaid(b),
            None => d.budget,
        };
        // §7E: the soul is composed once, at session start, and frozen for the handle.
        let soul = match &d.home {
            Some(home) => {
                let composed = super::home::compose_soul(home, super::home::MAX_FILE_BYTES)
                    .map_err(|source| AgentError::Home {
                        agent: def.to_string(),
                        source,
                    })?;
                Some(match &d.soul {
                    Some(s) if !s.is_empty() => format!("{s}\n\n{}", composed.text),
                    _ => composed.text,
                })
            }
            None => d.soul.clone(),
        };
        let mut t = self.lock();
        if t.closed_runtime {
            return Err(AgentError::RuntimeClosed);
        }
        let (id, depth, effective) = if parent == "root" {
            if let Some(max) = own.max_depth.filter(|m| *m < 1) {
                return Err(AgentError::MaxDepth {
                    def: def.to_string(),
                    parent: "root".to_string(),
                    depth: 1,
                    max,
                });
            }
            let n = t.root_counters.get(def).copied().unwrap_or(0) + 1;
            t.root_counters.insert(def.to_string(), n);
            (format!("root/{def}.{n}"), 1, own)
        } else {
            let Some(p) = t.handles.get(parent) else {
                return Err(AgentError::NoHandle {
                    id: parent.to_string(),
                });
            };
            if p.state == State::Closed || p.closing {
                return Err(AgentError::Closed {
                    id: parent.to_string(),
                    verb: ClosedVerb::Spawn,
                });
            }
            let live = p
                .children
                .iter()
                .filter(|c| t.handles.get(*c).is_some_and(|h| h.state != State::Closed))
                .count() as u64;
            if let Some(max) = p.budget.max_children.filter(|m| live >= *m) {
                return Err(AgentError::MaxChildren {
                    parent: parent.to_string(),
                    live,
                    max,
                });
            }
            let depth = p.depth + 1;
            // maxDepth caps how deep below root a handle may sit; it carves like the
            // spendable limits (the smaller of the new handle's own and its parent's).
            // Neither set: the default, so a team cycle with no budget still ends (NOTES #334).
            let cap = match (own.max_depth, p.budget.max_depth) {
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b).unwrap_or(DEFAULT_MAX_DEPTH),
            };
            if depth > cap {
                return Err(AgentError::MaxDepth {
                    def: def.to_string(),
                    parent: parent.to_string(),
                    depth,
                    max: cap,
                });
            }
            if let Some(spent) = walk_spent(&t, parent) {
                return Err(spent);
            }
            let effective = budget::carve(&own, Some((&p.budget, &p.ledger)));
            let n = p.counters.get(def).copied().unwrap_or(0) + 1;
            let id = format!("{parent}/{def}.{n}");
            if let Some(p) = t.handles.get_mut(parent) {
                p.counters.insert(def.to_string(), n);
                p.children.push(id.clone());
            }
            (id, depth, effective)
        };
        t.handles.insert(
            id.clone(),
            Handle {
                id: id.clone(),
                def: def.to_string(),
                parent: (parent != "root").then(|| parent.to_string()),
                depth,
                state: State::Idle,
                closing: false,
                inbox: Vec::new(),
                budget: effective,
                ledger: Ledger::default(),
                children: Vec::new(),
                counters: BTreeMap::new(),
                queue: VecDeque::new(),
                queued: false,
                run: None,
                generation: 0,
                last: None,
                waiters: Vec::new(),
                checkpoint: None,
                task_keys: BTreeMap::new(),
                stop_reason: None,
                extended: Budget::default(),
                soul,
                beating: false,
            },
        );
        // onSpawn: once, before the first turn.
        t.obs.spawned(&id);
        Ok(Spawned {
            id,
            budget: effective,
        })
    }

    /// `post(h, item)`: appends to the inbox, no transition. A full inbox or a closed
    /// handle refuses at once, saying which.
    pub fn post(&self, id: &str, item: Item) -> Result<(), AgentError> {
        let cap = self.inner.options.inbox_cap;
        let mut t = self.lock();
        let Some(h) = t.handles.get_mut(id) else {
            return Err(no_handle(id));
        };
        if h.state == State::Closed || h.closing {
            return Err(AgentError::Closed {
                id: id.to_string(),
                verb: ClosedVerb::Post,
            });
        }
        if h.inbox.len() >= cap {
            return Err(AgentError::InboxFull {
                id: id.to_string(),
                len: h.inbox.len(),
                cap,
            });
        }
        h.inbox.push(item);
        Ok(())
    }

    /// `wake(h, prompt?)`: `idle→running` with the drained inbox, or a FIFO place behind
    /// the parent's `maxConcurrent`.
    pub fn wake(&self, id: &str, prompt: Option<&str>) -> Result<WakeOutcome, AgentError> {
        self.wake_as(id, prompt, false)
    }

    /// `wake`, marking the run as a heartbeat's (whose substantive reply is a beat).
    fn wake_as(
        &self,
        id: &str,
        prompt: Option<&str>,
        beat: bool,
    ) -> Result<WakeOutcome, AgentError> {
        let mut t = self.lock();
        let Some(h) = t.handles.get(id) else {
            return Err(no_handle(id));
        };
        let owned = || id.to_string();
        match h.state {
            State::Idle if h.queued => return Err(AgentError::AlreadyQueued { id: owned() }),
            State::Idle if h.closing => {
                return Err(AgentError::Closed {
                    id: owned(),
                    verb: ClosedVerb::WakeClosing,
                })
            }
            State::Idle => {}
            State::Running => return Err(AgentError::AlreadyRunning { id: owned() }),
            State::Suspended => return Err(AgentError::Suspended { id: owned() }),
            State::Closed => {
                return Err(AgentError::Closed {
                    id: owned(),
                    verb: ClosedVerb::Other,
                })
            }
        }
        let parent = h.parent.clone();
        if let Some(p) = parent.as_deref() {
            if let Some(max) = t.handles.get(p).and_then(|p| p.budget.max_concurrent) {
                if running_children(&t, p) as u64 >= max {
                    if let Some(ph) = t.handles.get_mut(p) {
                        ph.queue
                            .push_back((id.to_string(), prompt.map(str::to_string)));
                    }
                    if let Some(h) = t.handles.get_mut(id) {
                        h.queued = true;
                    }
                    t.obs.event(id, "wake QUEUED");
                    return Ok(WakeOutcome {
                        state: State::Idle,
                        queued: true,
                    });
                }
            }
        }
        let input = {
            let Some(h) = t.handles.get_mut(id) else {
                return Err(no_handle(id));
            };
            h.beating = beat;
            let drained = std::mem::take(&mut h.inbox);
            let text = inbox::turn_input(prompt, &drained, id);
            (text, drained)
        };
        self.start(&mut t, id, TurnInput::Prompt(input.0), input.1);
        Ok(WakeOutcome {
            state: State::Running,
            queued: false,
        })
    }

    /// Flips `id` to running and starts its run task (under the table lock, so admission
    /// is one step).
    pub(super) fn start(&self, t: &mut Table, id: &str, input: TurnInput, drained: Vec<Item>) {
        let Some(h) = t.handles.get_mut(id) else {
            return;
        };
        let from = h.state;
        h.state = State::Running;
        h.queued = false;
        h.generation += 1;
        h.stop_reason = None;
        let generation = h.generation;
        let cancel = CancellationToken::new();
        h.run = Some(RunCtl {
            generation,
            cancel: cancel.clone(),
            drained,
            ledger_at_start: h.ledger,
            task: None,
            started_at: self.inner.clock.now(),
        });
        let parent = h.parent.clone();
        t.obs.transition(id, from.as_str(), "running");
        if let Some(p) = parent {
            let running = running_children(t, &p);
            t.obs.peak_running_siblings = t.obs.peak_running_siblings.max(running);
        }
        let rt = self.clone();
        let owned = id.to_string();
        let task = tokio::spawn(async move {
            let outcome = rt.execute_turn(&owned, &input, cancel).await;
            rt.settle(&owned, generation, input, outcome);
        });
        if let Some(run) = t.handles.get_mut(id).and_then(|h| h.run.as_mut()) {
            run.task = Some(task.abort_handle());
        }
    }

    /// Registers a waiter for `id`'s next result, or answers its last one at once.
    pub(super) fn waiter(
        &self,
        id: &str,
    ) -> Result<oneshot::Receiver<AgentResult>, Box<AgentResult>> {
        let mut t = self.lock();
        let Some(h) = t.handles.get_mut(id) else {
            return Err(Box::new(AgentResult::bare(
                id,
                Status::Error,
                format!("no handle {id:?}"),
            )));
        };
        let busy = h.state == State::Running || h.queued;
        if !busy {
            return Err(Box::new(match &h.last {
                Some(r) => r.clone(),
                None if h.state == State::Closed => {
                    AgentResult::bare(id, Status::Closed, format!("closed: {id} is closed"))
                }
                None => AgentResult::bare(
                    id,
                    Status::Error,
                    format!("{id} has no result to wait for: it was never woken"),
                ),
            }));
        }
        let (tx, rx) = oneshot::channel();
        h.waiters.push(tx);
        Ok(rx)
    }

    /// `wait(h, timeout?)`: the next result or the last one; past `timeout_ms` (virtual,
    /// moved by `advance_ms` after registering) an explicit `timeout` while the child runs
    /// on.
    pub async fn wait(
        &self,
        id: &str,
        timeout_ms: Option<u64>,
        advance_ms: Option<u64>,
    ) -> AgentResult {
        let rx = match self.waiter(id) {
            Ok(rx) => rx,
            Err(settled) => return *settled,
        };
        let deadline = timeout_ms.map(|ms| self.inner.clock.at(self.now().saturating_add(ms)));
        if let Some(ms) = advance_ms {
            self.advance(ms);
        }
        let timer = async {
            match deadline {
                Some(d) => {
                    // A dropped sender means the runtime went away: never a timeout then.
                    if d.await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            r = rx => r.unwrap_or_else(|_| AgentResult::bare(id, Status::Closed, format!("closed: {id} was closed while waited on"))),
            () = timer => AgentResult::bare(
                id,
                Status::Timeout,
                format!("timeout: waited {} ms for {id}, which keeps running", timeout_ms.unwrap_or(0)),
            ),
        }
    }

    /// `interrupt(h)`: aborts the run (or cancels the pending Request) → `idle`, the
    /// drained items back at the front of the inbox, waiters answered `interrupted`.
    pub fn interrupt(&self, id: &str) -> Result<State, AgentError> {
        let mut t = self.lock();
        let Some(h) = t.handles.get_mut(id) else {
            return Err(no_handle(id));
        };
        match h.state {
            State::Closed => {
                return Err(AgentError::Closed {
                    id: id.to_string(),
                    verb: ClosedVerb::Other,
                })
            }
            State::Idle if h.queued => {
                withdraw_queued(&mut t, id);
                t.obs.event(id, "queued wake cancelled");
                return Ok(State::Idle);
            }
            State::Idle => return Ok(State::Idle),
            State::Running | State::Suspended => {}
        }
        let from = h.state;
        if let Some(run) = h.run.take() {
            run.cancel.cancel();
            let mut restored = run.drained;
            restored.append(&mut h.inbox);
            h.inbox = restored;
        }
        h.checkpoint = None;
        h.state = State::Idle;
        let result = AgentResult::bare(
            id,
            Status::Interrupted,
            format!("interrupted: {id}'s run was aborted"),
        );
        h.last = Some(result.clone());
        for w in h.waiters.drain(..) {
            let _ = w.send(result.clone());
        }
        let parent = h.parent.clone();
        t.obs.transition(id, from.as_str(), "idle");
        if let Some(p) = parent {
            self.transfer_slot(&mut t, &p);
        }
        Ok(State::Idle)
    }

    /// `close(h, {force?})`: stop accepting → children leaf-first → a running turn gets
    /// `shutdownMs` (virtual; `advance_ms` moves the clock, default `shutdownMs`) before
    /// an interrupt → `onClose(reason)` → `closed`, still queryable.
    pub async fn close(
        &self,
        id: &str,
        force: bool,
        advance_ms: Option<u64>,
    ) -> Result<State, AgentError> {
        let children = {
            let mut t = self.lock();
            let Some(h) = t.handles.get_mut(id) else {
                return Err(no_handle(id));
            };
            if h.state == State::Closed {
                return Ok(State::Closed);
            }
            h.closing = true;
            h.children.clone()
        };
        for child in children {
            Box::pin(self.close(&child, force, advance_ms)).await?;
        }
        let running = self.lock().handles.get(id).map(|h| h.state) == Some(State::Running);
        if running {
            if force {
                self.interrupt(id)?;
            } else {
                let shutdown = self.inner.options.shutdown_ms;
                let r = self
                    .wait(id, Some(shutdown), Some(advance_ms.unwrap_or(shutdown)))
                    .await;
                if r.status == Status::Timeout {
                    self.interrupt(id)?;
                }
            }
        }
        let mut t = self.lock();
        let Some(h) = t.handles.get_mut(id) else {
            return Err(no_handle(id));
        };
        if h.state == State::Closed {
            return Ok(State::Closed);
        }
        withdraw_queued(&mut t, id);
        let Some(h) = t.handles.get_mut(id) else {
            return Err(no_handle(id));
        };
        if let Some(run) = h.run.take() {
            // A turn still parked inline on an escalation: closing cancels it.
            run.cancel.cancel();
        }
        let from = h.state;
        h.state = State::Closed;
        h.checkpoint = None;
        let reason = match h.last.as_ref().map(|r| r.status) {
            Some(Status::Incomplete) => "budget",
            Some(Status::Error) => "error",
            Some(Status::Interrupted) => "interrupted",
            _ => "closed",
        };
        let closed = AgentResult::bare(id, Status::Closed, format!("closed: {id} is closed"));
        for w in h.waiters.drain(..) {
            let _ = w.send(closed.clone());
        }
        let parent = h.parent.clone();
        if let Some(p) = parent.as_deref().and_then(|p| t.handles.get_mut(p)) {
            p.task_keys.retain(|_, c| c != id);
        }
        t.obs.closed(id, reason);
        t.obs.transition(id, from.as_str(), "closed");
        t.heartbeats.remove(id);
        Ok(State::Closed)
    }

    /// Stop-all: closes every top-level handle (force), then refuses new spawns. Every run
    /// task is aborted, so nothing outlives the runtime.
    pub async fn close_all(&self) {
        let tops: Vec<String> = {
            let t = self.lock();
            t.handles
                .values()
                .filter(|h| h.parent.is_none())
                .map(|h| h.id.clone())
                .collect()
        };
        for id in tops {
            let _ = self.close(&id, true, Some(0)).await;
        }
        let mut t = self.lock();
        t.closed_runtime = true;
        for h in t.handles.values_mut() {
            if let Some(run) = h.run.take() {
                run.cancel.cancel();
                if let Some(task) = run.task {
                    task.abort();
                }
            }
        }
    }

    /// `list()`: every handle, by id.
    pub fn list(&self) -> Vec<HandleSummary> {
        let t = self.lock();
        t.handles
            .values()
            .map(|h| HandleSummary {
                id: h.id.clone(),
                def: h.def.clone(),
                state: h.state,
            })
            .collect()
    }

    /// `inspect(h)`: the handle's state, inbox, budget, children and usage.
    pub fn inspect(&self, id: &str) -> Result<HandleInfo, AgentError> {
        let t = self.lock();
        let Some(h) = t.handles.get(id) else {
            return Err(no_handle(id));
        };
        let remaining = |max: Option<u64>, used: u64| max.map(|m| i128::from(m) - i128::from(used));
        Ok(HandleInfo {
            id: h.id.clone(),
            def: h.def.clone(),
            state: h.state,
            queued: h.queued,
            inbox_len: h.inbox.len(),
            inbox: h.inbox.clone(),
            budget: BudgetReport {
                effective: h.budget,
                used: h.ledger,
                remaining: Remaining {
                    max_turns: remaining(h.budget.max_turns, h.ledger.turns),
                    max_tokens: remaining(h.budget.max_tokens, h.ledger.usage.total_tokens),
                    max_tool_calls: remaining(h.budget.max_tool_calls, h.ledger.tool_calls),
                },
            },
            children: h.children.clone(),
            turns: h.ledger.turns,
            usage: h.ledger.usage,
            pending: h.checkpoint.as_ref().map(|c| c.request.clone()),
        })
    }

    /// Advances the virtual clock, firing due timers and heartbeats; answers the new time.
    pub fn advance(&self, ms: u64) -> u64 {
        let before = self.now();
        let now = self.inner.clock.advance(ms);
        self.beat(before, now);
        now
    }

    /// Starts `id`'s heartbeat: every `every_ms` (virtual) a tick lands in its inbox.
    pub fn heartbeat(&self, id: &str, every_ms: u64) -> Result<(), AgentError> {
        if every_ms == 0 {
            return Err(AgentError::ZeroHeartbeat);
        }
        let now = self.now();
        let mut t = self.lock();
        if !t.handles.contains_key(id) {
            return Err(no_handle(id));
        }
        t.heartbeats
            .insert(id.to_string(), (every_ms, now + every_ms));
        Ok(())
    }

    /// Posts the ticks that fell due between `before` and `now` (all of them first), then
    /// wakes each idle ticked handle once with the heartbeat prompt.
    fn beat(&self, _before: u64, now: u64) {
        let ticked: Vec<String> = {
            let mut t = self.lock();
            let mut ticked = Vec::new();
            let ids: Vec<String> = t.heartbeats.keys().cloned().collect();
            for id in ids {
                let Some((every, due)) = t.heartbeats.get(&id).copied() else {
                    continue;
                };
                if due > now {
                    continue;
                }
                // A clock jump costs what the inbox can hold, not one step per interval
                // (§7E: ticks coalesce, so a slow beat can't pile up): the ticks past the cap
                // would be dropped anyway, so they are counted, not walked.
                let fell_due = (now - due) / every + 1;
                if let Some(h) = t.handles.get_mut(&id) {
                    let room = self.inner.options.inbox_cap.saturating_sub(h.inbox.len());
                    let posted = usize::try_from(fell_due).map_or(room, |n| n.min(room));
                    for _ in 0..posted {
                        h.inbox.push(Item {
                            from: "clock".into(),
                            channel: inbox::TIMER.into(),
                            text: "tick".into(),
                        });
                    }
                }
                ticked.push(id.clone());
                let next = due.saturating_add(fell_due.saturating_mul(every));
                t.heartbeats.insert(id, (every, next));
            }
            ticked
        };
        for id in ticked {
            // A busy handle keeps its ticks for its next idle wake.
            let _ = self.wake_as(&id, Some(super::turn::HEARTBEAT_PROMPT), true);
        }
    }

    /// Hands a finished child's concurrency slot to the first queued sibling wake.
    pub(super) fn transfer_slot(&self, t: &mut Table, parent: &str) {
        let Some(max) = t.handles.get(parent).and_then(|p| p.budget.max_concurrent) else {
            return;
        };
        while (running_children(t, parent) as u64) < max {
            let Some((child, prompt)) = t.handles.get_mut(parent).and_then(|p| p.queue.pop_front())
            else {
                return;
            };
            let Some(h) = t.handles.get_mut(&child) else {
                continue;
            };
            if h.state != State::Idle || !h.queued {
                continue;
            }
            let drained = std::mem::take(&mut h.inbox);
            let text = inbox::turn_input(prompt.as_deref(), &drained, &child);
            t.obs.event(&child, "DEQUEUED wake");
            self.start(t, &child, TurnInput::Prompt(text), drained);
        }
    }

    /// Records a transition of an existing handle (escalation parks and unparks).
    pub(super) fn set_state(&self, id: &str, from: State, to: State) {
        let mut t = self.lock();
        let Some(h) = t.handles.get_mut(id) else {
            return;
        };
        if h.state != from {
            return;
        }
        h.state = to;
        t.obs.transition(id, from.as_str(), to.as_str());
    }

    /// Settles a run: ledger and roll-up, the transition, the result to every waiter,
    /// and the parent's slot to the next queued sibling. A stale run (interrupted or
    /// closed meanwhile) changes nothing.
    pub(super) fn settle(
        &self,
        id: &str,
        generation: u64,
        input: TurnInput,
        outcome: Result<crate::client::RunResult, crate::client::ClientError>,
    ) {
        let mut t = self.lock();
        let Some(h) = t.handles.get_mut(id) else {
            return;
        };
        let current = h.run.as_ref().is_some_and(|r| r.generation == generation);
        if !current || h.state == State::Closed {
            return;
        }
        let Some(run) = h.run.take() else { return };
        let mut spent = Usage::default();
        let mut calls = 0u64;
        let result = match outcome {
            Ok(r) => {
                h.ledger.turns += u64::from(r.turns);
                spent = r.usage;
                calls = r.tool_call_count as u64;
                let status = match r.status {
                    crate::client::RunStatus::Done => Status::Done,
                    crate::client::RunStatus::Pending => Status::Pending,
                    crate::client::RunStatus::Incomplete => Status::Incomplete,
                };
                let error = match status {
                    Status::Incomplete => Some(h.stop_reason.clone().unwrap_or_else(|| {
                        format!(
                            "budget exhausted: {} stopped {id}",
                            r.limit.clone().unwrap_or_default()
                        )
                    })),
                    Status::Pending => r.pending.as_ref().map(|p| format!("pending: {}", p.prompt)),
                    _ => None,
                };
                let pending = r.pending.clone().map(|p| stamp(p, id));
                if let (Status::Pending, Some(request)) = (status, r.pending.clone()) {
                    let text = match &input {
                        TurnInput::Prompt(p) => p.clone(),
                        TurnInput::Resume(c, _) => c.input.clone(),
                    };
                    h.checkpoint = Some(Checkpoint {
                        request,
                        halted: r.messages.clone(),
                        input: text,
                    });
                }
                AgentResult {
                    handle: id.to_string(),
                    status,
                    text: r.text,
                    limit: r.limit,
                    pending,
                    turns: r.turns,
                    usage: Usage::default(),
                    error,
                }
            }
            Err(e) => {
                // The drain is transactional: a turn that failed consumed nothing.
                let mut restored = run.drained.clone();
                restored.append(&mut h.inbox);
                h.inbox = restored;
                let status = if e.aborted() {
                    Status::Interrupted
                } else {
                    Status::Error
                };
                AgentResult::bare(id, status, e.message())
            }
        };
        h.ledger.tool_calls += calls;
        h.ledger.usage.add(spent);
        let to = if result.status == Status::Pending {
            State::Suspended
        } else {
            State::Idle
        };
        let from = h.state;
        h.state = to;
        let parent = h.parent.clone();
        // Roll-up: the child's spend reaches every ancestor's ledger when its run settles.
        let mut cursor = parent.clone();
        while let Some(a) = cursor {
            let Some(ah) = t.handles.get_mut(&a) else {
                break;
            };
            ah.ledger.usage.add(spent);
            ah.ledger.tool_calls += calls;
            cursor = ah.parent.clone();
        }
        let Some(h) = t.handles.get_mut(id) else {
            return;
        };
        let mut result = result;
        result.usage = diff(h.ledger.usage, run.ledger_at_start.usage);
        // §7E: a heartbeat's HEARTBEAT_OK is silent; only a substantive reply reaches onBeat.
        let beat = std::mem::take(&mut h.beating)
            && result.status == Status::Done
            && !result.text.contains("HEARTBEAT_OK");
        h.last = Some(result.clone());
        for w in h.waiters.drain(..) {
            let _ = w.send(result.clone());
        }
        t.obs.transition(id, from.as_str(), to.as_str());
        if beat {
            t.obs.beat(Beat {
                handle: id.to_string(),
                text: result.text.clone(),
            });
        }
        if let Some(p) = parent {
            self.transfer_slot(&mut t, &p);
        }
    }

    /// `resume(answer)`: the Answer goes to the deepest suspended handle whose pending
    /// Request it answers; that handle resumes at its checkpoint, then each suspended
    /// ancestor replays its turn (its `task` call reattaches). Answers the top handle's
    /// result.
    pub async fn resume(&self, answer: Answer) -> Result<AgentResult, AgentError> {
        let leaf = {
            let t = self.lock();
            let leaf = t
                .handles
                .values()
                .filter(|h| h.state == State::Suspended && h.run.is_none())
                .filter_map(|h| h.checkpoint.as_ref().map(|c| (h, c)))
                .filter(|(_, c)| c.request.id == answer.id)
                .max_by_key(|(h, _)| h.depth)
                .map(|(h, _)| h.id.clone());
            match leaf {
                Some(l) => l,
                None => {
                    let open: Vec<String> = t
                        .handles
                        .values()
                        .filter_map(|h| {
                            h.checkpoint
                                .as_ref()
                                .map(|c| format!("{} ({})", h.id, c.request.id))
                        })
                        .collect();
                    return Err(AgentError::NoPendingRequest {
                        answer: answer.id.clone(),
                        pending: open,
                    });
                }
            }
        };
        let mut chain = vec![leaf.clone()];
        {
            let t = self.lock();
            let mut cursor = t.handles.get(&leaf).and_then(|h| h.parent.clone());
            while let Some(p) = cursor {
                let Some(h) = t.handles.get(&p) else { break };
                if h.state != State::Suspended || h.checkpoint.is_none() {
                    break;
                }
                chain.push(p.clone());
                cursor = h.parent.clone();
            }
        }
        let mut last = None;
        for (i, id) in chain.iter().enumerate() {
            let rx = {
                let mut t = self.lock();
                let Some(h) = t.handles.get_mut(id) else {
                    return Err(no_handle(id));
                };
                let Some(checkpoint) = h.checkpoint.take() else {
                    return Err(AgentError::NoCheckpoint { id: id.clone() });
                };
                h.state = State::Idle;
                t.obs.transition(id, "suspended", "idle");
                let input = if i == 0 {
                    TurnInput::Resume(Box::new(checkpoint), Box::new(answer.clone()))
                } else {
                    TurnInput::Prompt(checkpoint.input)
                };
                self.start(&mut t, id, input, Vec::new());
                let Some(h) = t.handles.get_mut(id) else {
                    return Err(no_handle(id));
                };
                let (tx, rx) = oneshot::channel();
                h.waiters.push(tx);
                rx
            };
            let r = rx
                .await
                .map_err(|_| AgentError::ClosedDuringResume { id: id.clone() })?;
            let stop = r.status != Status::Done;
            last = Some(r);
            if stop {
                break;
            }
        }
        last.ok_or(AgentError::NothingResumed)
    }

    /// `agent(name).run(prompt)`: spawn under root, wake, wait (no close).
    pub async fn run(&self, entry: &str, prompt: &str) -> Result<AgentResult, AgentError> {
        let spawned = self.spawn("root", entry, None)?;
        self.wake(&spawned.id, Some(prompt))?;
        Ok(self.wait(&spawned.id, None, None).await)
    }
}

fn diff(now: Usage, then: Usage) -> Usage {
    Usage {
        prompt_tokens: now.prompt_tokens.saturating_sub(then.prompt_tokens),
        completion_tokens: now.completion_tokens.saturating_sub(then.completion_tokens),
        total_tokens: now.total_tokens.saturating_sub(then.total_tokens),
    }
}

/// Takes `id`'s queued wake (if any) out of its parent's FIFO.
fn withdraw_queued(t: &mut Table, id: &str) {
    let Some(h) = t.handles.get_mut(id).filter(|h| h.queued) else {
        return;
    };
    h.queued = false;
    if let Some(p) = h.parent.clone() {
        if let Some(ph) = t.handles.get_mut(&p) {
            ph.queue.retain(|(c, _)| c != id);
        }
    }
}

/// Children of `parent` whose run is in flight.
fn running_children(t: &Table, parent: &str) -> usize {
    t.handles.get(parent).map_or(0, |p| {
        p.children
            .iter()
            .filter(|c| t.handles.get(*c).is_some_and(|h| h.state == State::Running))
            .count()
    })
}

/// `no handle "<id>"`.
fn no_handle(id: &str) -> AgentError {
    AgentError::NoHandle { id: id.to_string() }
}

/// The first spent limit on `id` or any ancestor, as the refusal it causes.
pub(super) fn walk_spent(t: &Table, id: &str) -> Option<AgentError> {
    let mut cursor = Some(id.to_string());
    while let Some(a) = cursor {
        let h = t.handles.get(&a)?;
        if let Some((limit, used, max)) = budget::exhausted(&h.live_budget(), &h.ledger) {
            return Some(AgentError::BudgetExhausted {
                limit: limit.to_string(),
                owner: a,
                used,
                max,
            });
        }
        cursor = h.parent.clone();
    }
    None
}

/// The first spent limit on `id` or any ancestor: `(limit, owner, loud message)`.
pub(super) fn walk_exhausted(t: &Table, id: &str) -> Option<(String, String, String)> {
    let spent = walk_spent(t, id)?;
    let reason = spent.to_string();
    match spent {
        AgentError::BudgetExhausted { limit, owner, .. } => Some((limit, owner, reason)),
        _ => None,
    }
}

/// A budget with `onBudget`'s extensions added.
pub(super) fn extended(b: Budget, by: &Budget) -> Budget {
    let add = |a: Option<u64>, e: Option<u64>| match (a, e) {
        (Some(a), Some(e)) => Some(a.saturating_add(e)),
        (a, _) => a,
    };
    Budget {
        max_turns: add(b.max_turns, by.max_turns),
        max_tokens: add(b.max_tokens, by.max_tokens),
        max_tool_calls: add(b.max_tool_calls, by.max_tool_calls),
        ..b
    }
}

impl Handle {
    /// `onBudget` said extend: the limit grows by its original amount.
    pub(super) fn extend(&mut self, limit: &str) {
        let (slot, base) = match limit {
            "maxTurns" => (&mut self.extended.max_turns, self.budget.max_turns),
            "maxTokens" => (&mut self.extended.max_tokens, self.budget.max_tokens),
            "maxToolCalls" => (
                &mut self.extended.max_tool_calls,
                self.budget.max_tool_calls,
            ),
            _ => return,
        };
        *slot = Some(slot.unwrap_or(0).saturating_add(base.unwrap_or(0)));
    }

    /// The budget with `onBudget`'s extensions.
    pub(super) fn live_budget(&self) -> Budget {
        extended(self.budget, &self.extended)
    }
}

/// `data.path` (SPEC §10 agent escalation addendum): the relaying level's own id as an array
/// of its segments (`["root", "approverParent.1"]`). Each level stamps its own parent-prefixed
/// path over the one below, so the value names the suspended subtree the Answer routes into.
pub(super) fn stamp(mut request: Request, id: &str) -> Request {
    let path: Vec<Value> = id.split('/').map(|s| json!(s)).collect();
    let data = request.data.take().unwrap_or_else(|| json!({}));
    request.data = Some(match data {
        Value::Object(mut map) => {
            map.insert("path".into(), Value::Array(path));
            Value::Object(map)
        }
        // A non-object payload has no room for the path; it travels unchanged.
        other => other,
    });
    request
}
