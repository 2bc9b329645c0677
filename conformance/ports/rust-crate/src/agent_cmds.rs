//! The §7D/§7E/§7F commands (PROTOCOL.md §5.26 `compact`, §5.27 `agent_*`) over the crate's
//! `toolnexus::agents`: `Runtime` and its verbs, `list`/`inspect`, `resume`, `Agent::as_tool`,
//! `compose_soul`/`memory_tool` for a def's `home`, and `compactor`. The crate ships no virtual
//! clock, only the `Clock` trait, so the driver supplies one ([`VClock`]). What the crate has no
//! seam for (`onBudget`, a heartbeat on an existing handle) answers `unsupported`. See
//! AGENT-NOTES.md.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use toolnexus::agents::{
    compactor, compose_soul, memory_tool, Budget, Clock, CloseOptions, CompactorOptions, Def,
    Handle, InboxItem, LlmOptions, Options, Runtime, Spec, State, TaskResult, UNLIMITED,
};
use toolnexus::client::{BeforeLlmEvent, BoxFuture, Style, WaitForFn};
use toolnexus::{Answer, Request, Tool, ToolContext};
use toolnexus_protocol::agent::{AGENT_BUDGET_KEYS, AGENT_DEF_KEYS, AGENT_RUNTIME_OPTION_KEYS};
use toolnexus_protocol::compact::COMPACT_OPTION_KEYS;

use crate::client_cmds::{agent_hooks, agent_on_metric, Recorder};
use crate::{
    as_obj, bad, behaviour_key, describe, field, internal, result_json, str_field, unsupported, Res,
};

/// PROTOCOL.md §5.13: at most 1,000 entries per recorded list.
const CAP: usize = 1000;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

// ---------------------------------------------------------------------------
// the virtual clock
// ---------------------------------------------------------------------------

/// The runtime's injected `Clock`: time starts at 0 and moves only on `advance` (the crate's
/// wait timeouts, close grace and `max_wall` all read it).
pub struct VClock {
    base: Instant,
    state: Mutex<ClockState>,
}

#[derive(Default)]
struct ClockState {
    now: Duration,
    seq: u64,
    /// Registered `after` deadlines; a timer whose future was dropped is closed (dead).
    timers: Vec<(Duration, u64, oneshot::Sender<()>)>,
    registered: u64,
}

impl VClock {
    fn new() -> Self {
        VClock {
            base: Instant::now(),
            state: Mutex::new(ClockState::default()),
        }
    }

    fn now_ms(&self) -> u64 {
        lock(&self.state).now.as_millis() as u64
    }

    /// How many timers were ever registered (a caller's sync point: "the wait is parked").
    fn registered(&self) -> u64 {
        lock(&self.state).registered
    }

    /// Any timer still awaited.
    fn live(&self) -> bool {
        lock(&self.state).timers.iter().any(|t| !t.2.is_closed())
    }

    /// Fires every due timer in deadline order, then sets the time to now + `ms`.
    fn advance(&self, ms: u64) -> u64 {
        let mut s = lock(&self.state);
        let end = s.now + Duration::from_millis(ms);
        s.timers.retain(|t| !t.2.is_closed());
        loop {
            let due = s
                .timers
                .iter()
                .enumerate()
                .filter(|(_, t)| t.0 <= end)
                .min_by_key(|(_, t)| (t.0, t.1))
                .map(|(i, _)| i);
            let Some(i) = due else { break };
            let (at, _, tx) = s.timers.remove(i);
            s.now = s.now.max(at);
            let _ = tx.send(());
        }
        s.now = end;
        s.now.as_millis() as u64
    }
}

impl Clock for VClock {
    fn now(&self) -> Instant {
        self.base + lock(&self.state).now
    }

    fn after(&self, d: Duration) -> BoxFuture<()> {
        if d.is_zero() {
            return Box::pin(async {});
        }
        let (tx, rx) = oneshot::channel();
        {
            let mut s = lock(&self.state);
            s.seq += 1;
            s.registered += 1;
            let (at, seq) = (s.now + d, s.seq);
            s.timers.push((at, seq, tx));
        }
        Box::pin(async move {
            // A dropped sender only happens with the clock itself: then never fire.
            if rx.await.is_err() {
                futures::future::pending::<()>().await;
            }
        })
    }
}

// ---------------------------------------------------------------------------
// one runtime
// ---------------------------------------------------------------------------

/// What the host callbacks recorded for one runtime.
#[derive(Default)]
struct Seen {
    /// Every handle the runtime made (its `on_spawn`), by id: the crate hands a `Handle` out
    /// only from `spawn`/`root`/`on_spawn`, so task-tool children are found here.
    handles: HashMap<String, Handle>,
    on_spawn: Vec<Value>,
    on_close: Vec<Value>,
    wait_for_calls: Vec<Value>,
    /// The effective budget reported for each handle (def budget with the spawn's override).
    effective: HashMap<String, Value>,
}

/// A registry def as the protocol gave it (for `agent_execute`'s Level-1 agent).
#[derive(Clone)]
struct DefSpec {
    def: Def,
}

struct AgentSession {
    rt: Runtime,
    clock: Arc<VClock>,
    seen: Arc<Mutex<Seen>>,
    recorders: Vec<(String, Arc<Recorder>)>,
    specs: HashMap<String, DefSpec>,
    shutdown_ms: u64,
    /// The runtime's options without the registry (the Level-1 agent of `agent_execute`).
    base: Options,
}

/// The `agent_*` runtimes of a driver session.
#[derive(Default)]
pub struct Agents {
    sessions: HashMap<String, AgentSession>,
}

fn u64_field(m: &Map<String, Value>, key: &str) -> Res<Option<u64>> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => crate::client_cmds::uint(v, &format!("\"{key}\"")).map(Some),
    }
}

/// SPEC §7D Budget → the crate's (0 = unset, as the crate reads it).
fn budget(v: &Value, what: &str) -> Res<(Budget, Map<String, Value>)> {
    let m = as_obj(v, what)?;
    let mut b = Budget::default();
    let mut given = Map::new();
    for (k, val) in m {
        if !AGENT_BUDGET_KEYS.contains(&k.as_str()) {
            return Err(bad(format!(
                "{what}: unknown budget field \"{k}\" (known: {})",
                AGENT_BUDGET_KEYS.join(", ")
            )));
        }
        if val.is_null() {
            continue;
        }
        let n = val.as_u64().ok_or_else(|| {
            bad(format!(
                "{what}: budget field {k} must be a non-negative integer"
            ))
        })?;
        let big = i64::try_from(n).unwrap_or(i64::MAX);
        let small = usize::try_from(n).unwrap_or(usize::MAX);
        match k.as_str() {
            "maxTurns" => b.max_turns = small,
            "maxTokens" => b.max_tokens = big,
            "maxToolCalls" => b.max_tool_calls = big,
            "maxWallMs" => b.max_wall = Duration::from_millis(n),
            "maxChildren" => b.max_children = small,
            "maxConcurrent" => b.max_concurrent = small,
            _ => b.max_depth = small,
        }
        given.insert(k.clone(), json!(n));
    }
    Ok((b, given))
}

/// The crate Budget's set fields in the protocol's spelling.
fn budget_json(b: &Budget) -> Map<String, Value> {
    let mut m = Map::new();
    let mut put = |k: &str, v: u64| {
        if v != 0 {
            m.insert(k.into(), json!(v));
        }
    };
    put("maxTurns", b.max_turns as u64);
    put("maxTokens", b.max_tokens.max(0) as u64);
    put("maxToolCalls", b.max_tool_calls.max(0) as u64);
    put("maxWallMs", b.max_wall.as_millis() as u64);
    put("maxChildren", b.max_children as u64);
    put("maxConcurrent", b.max_concurrent as u64);
    put("maxDepth", b.max_depth as u64);
    m
}

fn request_json(r: &Request) -> Value {
    serde_json::to_value(r).unwrap_or(Value::Null)
}

/// A TaskResult in the protocol's shape. The crate keeps one cumulative `total_tokens` (no
/// prompt/completion split), and its `text` is also the failure message.
fn result_of(handle: &str, r: &TaskResult) -> Value {
    let mut m = Map::new();
    m.insert("handle".into(), json!(handle));
    m.insert("status".into(), json!(r.status));
    m.insert("text".into(), json!(r.text));
    m.insert("isError".into(), json!(r.is_error));
    m.insert("turns".into(), json!(r.turns));
    m.insert("usage".into(), json!({"total_tokens": r.total_tokens}));
    if !r.limit.is_empty() {
        m.insert("limit".into(), json!(r.limit));
    }
    if let Some(p) = &r.pending {
        m.insert("pending".into(), request_json(p));
    }
    if r.status != "done" {
        m.insert("error".into(), json!(r.text));
    }
    Value::Object(m)
}

/// The def a handle was spawned from: the last id segment without its `.n`.
fn def_of(id: &str) -> &str {
    let last = id.rsplit('/').next().unwrap_or(id);
    last.rsplit_once('.').map(|(d, _)| d).unwrap_or(last)
}

fn parent_of(id: &str) -> &str {
    id.rsplit_once('/').map(|(p, _)| p).unwrap_or("")
}

/// A trace line's leading `from→to` (`→closed` has an empty from).
fn transition(rest: &str) -> Option<(&str, &str)> {
    let (from, after) = rest.split_once('→')?;
    if !from.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let to: String = after
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if to.is_empty() {
        return None;
    }
    Some((from, &after[..to.len()]))
}

/// The crate's wording of the steps the reference records as events, in the reference's text.
fn event_text(rest: &str) -> String {
    if rest.starts_with("wake QUEUED") {
        return "wake QUEUED".into();
    }
    if rest.starts_with("DEQUEUED wake") {
        return "DEQUEUED wake".into();
    }
    if let Some(tail) = rest.strip_prefix("task replay → REATTACH to ") {
        if let Some((id, st)) = tail.split_once(" (state ") {
            return format!("task replay → REATTACH {id} ({})", st.trim_end_matches(')'));
        }
    }
    rest.to_string()
}

impl AgentSession {
    fn find(&self, id: &str) -> Option<Handle> {
        if id == "root" {
            return Some(self.rt.root());
        }
        lock(&self.seen).handles.get(id).cloned()
    }

    fn handle(&self, req: &Map<String, Value>) -> Res<Handle> {
        let id = str_field(req, "handle")?;
        self.find(id)
            .ok_or_else(|| bad(format!("no handle \"{id}\"")))
    }

    fn trace(&self) -> Map<String, Value> {
        let mut transitions: Map<String, Value> = Map::new();
        let mut events: Map<String, Value> = Map::new();
        let mut last: HashMap<String, String> = HashMap::new();
        let mut running: HashMap<String, std::collections::HashSet<String>> = HashMap::new();
        let mut peak = 0usize;
        let mut answered: Vec<Value> = Vec::new();
        let push = |m: &mut Map<String, Value>, k: &str, v: String| {
            if let Value::Array(a) = m.entry(k.to_string()).or_insert_with(|| json!([])) {
                a.push(Value::String(v));
            }
        };
        for line in self.rt.trace() {
            let Some((hid, rest)) = line.split_once(": ") else {
                push(&mut events, "", line.clone());
                continue;
            };
            // The crate writes the interrupt verb AND the aborted turn's settle, both
            // `running→idle`: the turn's line is the transition, the verb's an event.
            if rest.starts_with("running→idle (interrupt;") {
                push(&mut events, hid, rest.to_string());
                continue;
            }
            if let Some(tail) = rest.strip_prefix("escalate → ") {
                let who = tail.split(' ').next().unwrap_or("");
                answered.push(json!(if who == "self" { hid } else { who }));
            }
            if let Some((from, to)) = transition(rest) {
                // The crate's close line is `→closed (reason)`: the from is the prior state.
                let from = if from.is_empty() {
                    last.get(hid).cloned().unwrap_or_else(|| "idle".into())
                } else {
                    from.to_string()
                };
                push(&mut transitions, hid, format!("{from}→{to}"));
                last.insert(hid.to_string(), to.to_string());
                let parent = parent_of(hid).to_string();
                if to == "running" {
                    let set = running.entry(parent).or_default();
                    set.insert(hid.to_string());
                    peak = peak.max(set.len());
                } else if from == "running" {
                    if let Some(set) = running.get_mut(&parent) {
                        set.remove(hid);
                    }
                }
                continue;
            }
            push(&mut events, hid, event_text(rest));
        }
        let mut hook_calls = Vec::new();
        let mut metric_events = Vec::new();
        for (owner, rec) in &self.recorders {
            for e in lock(&rec.hook_calls).iter() {
                let mut e = e.clone();
                if let Value::Object(m) = &mut e {
                    m.insert("owner".into(), json!(owner));
                }
                hook_calls.push(e);
            }
            for e in lock(&rec.metric_events).iter() {
                let mut e = e.clone();
                if let Value::Object(m) = &mut e {
                    m.insert("owner".into(), json!(owner));
                }
                metric_events.push(e);
            }
        }
        hook_calls.truncate(CAP);
        metric_events.truncate(CAP);
        let seen = lock(&self.seen);
        let mut out = Map::new();
        out.insert("transitions".into(), Value::Object(transitions));
        out.insert("events".into(), Value::Object(events));
        out.insert("onSpawn".into(), json!(seen.on_spawn));
        out.insert("onClose".into(), json!(seen.on_close));
        let calls: Vec<Value> = seen
            .wait_for_calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut c = c.clone();
                if let (Value::Object(m), Some(who)) = (&mut c, answered.get(i)) {
                    m.insert("handle".into(), who.clone());
                }
                c
            })
            .collect();
        out.insert("waitForCalls".into(), Value::Array(calls));
        // NOT EXPOSED: the crate has no onBudget and no heartbeat on an existing handle.
        out.insert("onBudgetCalls".into(), json!([]));
        out.insert("beats".into(), json!([]));
        out.insert("hookCalls".into(), Value::Array(hook_calls));
        out.insert("metricEvents".into(), Value::Array(metric_events));
        out.insert(
            "peakConcurrentTurns".into(),
            json!(self.rt.max_observed_concurrent_turns()),
        );
        out.insert("peakRunningSiblings".into(), json!(peak));
        out.insert("now".into(), json!(self.clock.now_ms()));
        out
    }

    fn inspect(&self, h: &Handle) -> Map<String, Value> {
        let v = self.rt.inspect(h);
        let children: Vec<Value> = self
            .rt
            .list()
            .into_iter()
            .filter(|c| parent_of(&c.id) == h.id)
            .map(|c| Value::String(c.id))
            .collect();
        let pool = self.rt.pool_tokens(h);
        let effective = lock(&self.seen)
            .effective
            .get(&h.id)
            .cloned()
            .unwrap_or_else(|| json!({}));
        let mut out = Map::new();
        out.insert("id".into(), json!(v.id));
        out.insert("def".into(), json!(def_of(&v.id)));
        out.insert("state".into(), json!(v.state.as_str()));
        out.insert("inboxLen".into(), json!(v.inbox));
        // NOT EXPOSED: the crate's HandleView has the inbox length only (no items), its used
        // tool calls are private, and a pending Request shows only its kind.
        out.insert(
            "budget".into(),
            json!({"effective": effective, "used": {"turns": v.turns, "tokens": v.tokens},
                   "remaining": {"maxTokens": if pool >= UNLIMITED { Value::Null } else { json!(pool) }}}),
        );
        out.insert("children".into(), Value::Array(children));
        out.insert("turns".into(), json!(v.turns));
        out.insert("usage".into(), json!({"total_tokens": v.tokens}));
        out.insert(
            "pending".into(),
            if v.pending_kind.is_empty() {
                Value::Null
            } else {
                json!({"kind": v.pending_kind})
            },
        );
        out
    }

    /// The handle whose result `resume` answers: the topmost of the suspended chain above
    /// the deepest suspended handle (the crate's own routing: depth-first, spawn order).
    fn suspended_top(&self) -> Option<String> {
        let views = self.rt.list();
        let suspended = |id: &str| {
            views
                .iter()
                .any(|v| v.id == id && v.state == State::Suspended)
        };
        fn deepest(id: &str, views: &[toolnexus::agents::HandleView]) -> Option<String> {
            for c in views.iter().filter(|v| parent_of(&v.id) == id) {
                if let Some(found) = deepest(&c.id, views) {
                    return Some(found);
                }
            }
            views
                .iter()
                .find(|v| v.id == id && v.state == State::Suspended)
                .map(|v| v.id.clone())
        }
        let mut top = deepest("root", &views)?;
        loop {
            let p = parent_of(&top);
            if p.is_empty() || p == "root" || !suspended(p) {
                return Some(top);
            }
            top = p.to_string();
        }
    }

    /// Awaits a spawned verb, moving the virtual clock by `advance_ms` whenever it is parked
    /// on one of the clock's timers (the crate's close grace and wait timeouts run on it).
    async fn settle<T: Send + 'static>(
        &self,
        task: tokio::task::JoinHandle<T>,
        advance_ms: u64,
    ) -> Res<T> {
        // Time moves only once the runtime is quiet (its trace unchanged for 25 ms): a turn
        // that is settling on its own (an abort landing) is not overtaken by the clock.
        let (mut seen_len, mut quiet_since) = (self.rt.trace().len(), Instant::now());
        // Under the harness's 5 s request deadline, so a run that never settles (the crate
        // enforces budgets only at admission) is answered, not killed.
        let deadline = Instant::now() + Duration::from_secs(4);
        while !task.is_finished() {
            if Instant::now() >= deadline {
                task.abort();
                return Err(internal(
                    "the crate's verb did not settle within 4 s (the run keeps going)",
                ));
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
            let len = self.rt.trace().len();
            if len != seen_len {
                (seen_len, quiet_since) = (len, Instant::now());
                continue;
            }
            if !task.is_finished()
                && advance_ms > 0
                && self.clock.live()
                && quiet_since.elapsed() >= Duration::from_millis(25)
            {
                self.clock.advance(advance_ms);
                quiet_since = Instant::now();
            }
        }
        task.await
            .map_err(|e| internal(format!("the crate's verb failed: {e}")))
    }

    async fn close_all(&self) {
        let rt = self.rt.clone();
        let root = rt.root();
        let task = tokio::spawn(async move {
            rt.close(
                &root,
                Some(CloseOptions {
                    force: true,
                    reason: String::new(),
                }),
            )
            .await;
        });
        if let Err(e) = self.settle(task, self.shutdown_ms).await {
            eprintln!("driver: closing an agent runtime: {}", e.message);
        }
    }
}

/// The runtime's extra tools (PROTOCOL.md §7 catalogue) by name.
fn runtime_tools(v: Option<&Value>) -> Res<HashMap<String, Tool>> {
    let mut out = HashMap::new();
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            for (i, spec) in a.iter().enumerate() {
                let t = crate::extra_tool(spec, i)?;
                out.insert(t.name.clone(), t);
            }
        }
        Some(_) => return Err(bad("\"tools\" must be an array")),
    }
    Ok(out)
}

fn strings(d: &Map<String, Value>, key: &str, what: &str) -> Res<Vec<String>> {
    match d.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(v) => crate::string_list(v, &format!("{what}: \"{key}\"")),
    }
}

impl Agents {
    fn session(&self, req: &Map<String, Value>) -> Res<&AgentSession> {
        let id = str_field(req, "runtime")?;
        self.sessions
            .get(id)
            .ok_or_else(|| bad(format!("no agent runtime \"{id}\"")))
    }

    /// One `agent_*` command.
    pub async fn handle(&mut self, cmd: &str, req: &Map<String, Value>) -> Res<Map<String, Value>> {
        match cmd {
            "agent_runtime" => return self.create(req).await,
            "agent_close_runtime" => {
                let id = str_field(req, "runtime")?;
                if let Some(s) = self.sessions.remove(id) {
                    s.close_all().await;
                }
                return Ok(Map::new());
            }
            _ => {}
        }
        let s = self.session(req)?;
        let rt = s.rt.clone();
        let mut out = Map::new();
        match cmd {
            "agent_spawn" => {
                let parent_id = req.get("parent").and_then(Value::as_str).unwrap_or("root");
                let def = str_field(req, "def")?;
                let Some(parent) = s.find(parent_id) else {
                    out.insert("error".into(), json!({"output": format!("no handle \"{parent_id}\""), "isError": true}));
                    return Ok(out);
                };
                let over = match req.get("budget") {
                    None | Some(Value::Null) => None,
                    Some(b) => Some(budget(b, "spawn")?),
                };
                match rt.spawn(&parent, def, over.as_ref().map(|o| o.0)) {
                    Err(e) => {
                        out.insert("error".into(), json!({"output": e, "isError": true}));
                    }
                    Ok(h) => {
                        let mut eff = s.specs.get(def).and_then(|d| d.def.budget).map(|b| budget_json(&b)).unwrap_or_default();
                        if let Some((_, given)) = &over {
                            eff.extend(given.clone());
                        }
                        let pool = rt.pool_tokens(&h);
                        if pool < UNLIMITED {
                            eff.insert("maxTokens".into(), json!(pool));
                        }
                        let eff = Value::Object(eff);
                        lock(&s.seen).effective.insert(h.id.clone(), eff.clone());
                        out.insert("handle".into(), json!(h.id));
                        out.insert("budget".into(), json!({"effective": eff}));
                    }
                }
            }
            "agent_post" => {
                let id = str_field(req, "handle")?;
                let text = str_field(req, "text")?;
                let Some(h) = s.find(id) else {
                    out.insert("accepted".into(), json!(false));
                    out.insert("error".into(), json!(format!("no handle \"{id}\"")));
                    return Ok(out);
                };
                let from = req.get("from").and_then(Value::as_str).unwrap_or("external");
                let channel = req.get("channel").and_then(Value::as_str).unwrap_or("external");
                let r = rt.post(&h, InboxItem::new(from, channel, text));
                out.insert("accepted".into(), json!(r.ok));
                if !r.ok {
                    out.insert("error".into(), json!(r.err));
                }
            }
            "agent_wake" => {
                let id = str_field(req, "handle")?;
                let Some(h) = s.find(id) else {
                    out.insert("error".into(), json!(format!("no handle \"{id}\"")));
                    return Ok(out);
                };
                let prompt = req.get("prompt").and_then(Value::as_str).unwrap_or("");
                let before = rt.trace().len();
                let r = rt.wake(&h, prompt);
                if !r.ok {
                    out.insert("error".into(), json!(r.err));
                    return Ok(out);
                }
                let queued_line = format!("{}: wake QUEUED", h.id);
                let queued = rt.trace().iter().skip(before).any(|l| l.starts_with(&queued_line));
                out.insert("state".into(), json!(rt.state_of(&h).as_str()));
                out.insert("queued".into(), json!(queued));
            }
            "agent_wait" => {
                let h = s.handle(req)?;
                let timeout = u64_field(req, "timeoutMs")?;
                let advance = u64_field(req, "advanceMs")?.unwrap_or(0);
                let mark = s.clock.registered();
                let (rt2, h2) = (rt.clone(), h.clone());
                let task =
                    tokio::spawn(async move { rt2.wait(&h2, timeout.map(Duration::from_millis)).await });
                if advance > 0 {
                    // The wait registers its timer first (PROTOCOL.md §5.27), then time moves.
                    for _ in 0..100 {
                        if task.is_finished() || (timeout.is_some() && s.clock.registered() > mark) {
                            break;
                        }
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                    s.clock.advance(advance);
                }
                let r = s.settle(task, 0).await?;
                out.insert("result".into(), result_of(&h.id, &r));
            }
            "agent_interrupt" => {
                let h = s.handle(req)?;
                if rt.state_of(&h) == State::Closed {
                    out.insert("error".into(), json!(format!("closed: {} is closed", h.id)));
                    return Ok(out);
                }
                rt.interrupt(&h);
                // The abort lands when the turn's task observes its cancellation.
                for _ in 0..500 {
                    if rt.state_of(&h) != State::Running {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                out.insert("state".into(), json!(rt.state_of(&h).as_str()));
            }
            "agent_close" => {
                let h = s.handle(req)?;
                let force = req.get("force") == Some(&Value::Bool(true));
                let advance = u64_field(req, "advanceMs")?.unwrap_or(s.shutdown_ms);
                let (rt2, h2) = (rt.clone(), h.clone());
                let task = tokio::spawn(async move {
                    rt2.close(&h2, Some(CloseOptions { force, reason: String::new() })).await;
                });
                s.settle(task, advance).await?;
                out.insert("state".into(), json!(rt.state_of(&h).as_str()));
            }
            "agent_list" => {
                let handles: Vec<Value> = rt
                    .list()
                    .into_iter()
                    .map(|v| json!({"id": v.id, "def": def_of(&v.id), "state": v.state.as_str()}))
                    .collect();
                out.insert("handles".into(), Value::Array(handles));
            }
            "agent_inspect" => {
                let h = s.handle(req)?;
                return Ok(s.inspect(&h));
            }
            "agent_run" => {
                let entry = str_field(req, "entry")?;
                let prompt = str_field(req, "prompt")?;
                let h = match rt.spawn(&rt.root(), entry, None) {
                    Ok(h) => h,
                    Err(e) => {
                        out.insert("error".into(), json!(e));
                        return Ok(out);
                    }
                };
                rt.wake(&h, prompt);
                let (rt2, h2) = (rt.clone(), h.clone());
                let r = s.settle(tokio::spawn(async move { rt2.wait(&h2, None).await }), 0).await?;
                out.insert("handle".into(), json!(h.id));
                out.insert("result".into(), result_of(&h.id, &r));
            }
            "agent_resume" => {
                let a = as_obj(field(req, "answer")?, "answer")?;
                let answer: Answer = serde_json::from_value(Value::Object(a.clone()))
                    .map_err(|e| bad(format!("answer: {e}")))?;
                let top = s.suspended_top();
                let rt2 = rt.clone();
                match s.settle(tokio::spawn(async move { rt2.resume(answer).await }), 0).await? {
                    Err(e) => {
                        out.insert("raised".into(), json!(e));
                    }
                    Ok(r) => {
                        out.insert("result".into(), result_of(top.as_deref().unwrap_or(""), &r));
                    }
                }
            }
            "agent_execute" => return self.execute(req).await,
            "agent_clock" => {
                let advance = u64_field(req, "advanceMs")?.unwrap_or(0);
                let now = s.clock.advance(advance);
                // Let the tasks the fired timers woke take their step.
                tokio::time::sleep(Duration::from_millis(5)).await;
                out.insert("now".into(), json!(now));
            }
            "agent_heartbeat" => {
                return Err(unsupported(
                    "the crate's heartbeat is agents::start_agent(agent, StartOptions{every_ms, ..}), which builds \
                     its own runtime and spawns its own handle; it cannot start on an existing handle",
                ))
            }
            "agent_store_get" => {
                let id = str_field(req, "id")?;
                let got = rt.conversation_store().get(id).map_err(|e| internal(format!("store get: {e}")))?;
                out.insert("messages".into(), got.map(Value::Array).unwrap_or(Value::Null));
            }
            "agent_store_save" => {
                let id = str_field(req, "id")?;
                let msgs = match field(req, "messages")? {
                    Value::Array(a) => a.clone(),
                    _ => return Err(bad("messages must be an array")),
                };
                rt.conversation_store().save(id, &msgs).map_err(|e| internal(format!("store save: {e}")))?;
            }
            "agent_trace" => return Ok(s.trace()),
            other => return Err(unsupported(format!("unknown command \"{other}\""))),
        }
        Ok(out)
    }

    /// `agent(def).as_tool()` then its execute: the crate's Level-1 bridge, which runs the
    /// agent in a runtime of its own (the session's LLM, clock and options).
    async fn execute(&self, req: &Map<String, Value>) -> Res<Map<String, Value>> {
        let s = self.session(req)?;
        let name = str_field(req, "def")?;
        if !s.specs.contains_key(name) {
            return Err(bad(format!("unknown agent \"{name}\"")));
        }
        fn build(
            n: &str,
            specs: &HashMap<String, DefSpec>,
            built: &mut HashMap<String, toolnexus::agents::Agent>,
            depth: usize,
        ) -> toolnexus::agents::Agent {
            if let Some(a) = built.get(n) {
                return a.clone();
            }
            let d = specs.get(n).map(|d| d.def.clone()).unwrap_or_default();
            // A team that names itself (or a cycle) stops at the first repeat: the crate's
            // registry walk keys by name, so the inner copy adds nothing.
            let team = if depth > 8 {
                Vec::new()
            } else {
                d.team
                    .iter()
                    .map(|m| build(m, specs, built, depth + 1))
                    .collect()
            };
            let a = toolnexus::agents::new(
                n,
                Spec {
                    does: d.does,
                    tools: d.tools,
                    soul: d.soul,
                    team,
                    budget: d.budget,
                    model: d.model,
                    wait_for: d.wait_for,
                    on_spawn: d.on_spawn,
                    on_close: d.on_close,
                    hooks: d.hooks,
                    on_metric: d.on_metric,
                    ..Default::default()
                },
            );
            built.insert(n.to_string(), a.clone());
            a
        }
        let agent = build(name, &s.specs, &mut HashMap::new(), 0);
        let tool = agent.as_tool(s.base.clone());
        let args = match req.get("args") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(a @ Value::Object(_)) => a.clone(),
            Some(_) => return Err(bad("args must be an object")),
        };
        let exec = tool.execute.clone();
        let r = s
            .settle(
                tokio::spawn(async move { exec(args, ToolContext::default()).await }),
                0,
            )
            .await?;
        let mut out = Map::new();
        out.insert("tool".into(), describe(&tool));
        out.insert("result".into(), result_json(&r));
        Ok(out)
    }

    async fn create(&mut self, req: &Map<String, Value>) -> Res<Map<String, Value>> {
        let rid = str_field(req, "id")?.to_owned();
        let base_url = str_field(req, "baseUrl")?.to_owned();
        let style = match str_field(req, "style")? {
            "openai" => Style::OpenAI,
            "anthropic" => Style::Anthropic,
            s => return Err(bad(format!("unknown style \"{s}\" (openai | anthropic)"))),
        };
        let api_key = req
            .get("apiKey")
            .and_then(Value::as_str)
            .unwrap_or("unused")
            .to_owned();
        let opts = match req.get("options") {
            None | Some(Value::Null) => Map::new(),
            Some(v) => as_obj(v, "options")?.clone(),
        };
        if let Some(k) = opts
            .keys()
            .find(|k| !AGENT_RUNTIME_OPTION_KEYS.contains(&k.as_str()))
        {
            return Err(bad(format!("unknown agent runtime option \"{k}\"")));
        }
        if opts.get("onBudget").is_some_and(|v| !v.is_null()) {
            return Err(unsupported(
                "the crate's agents::Options has no onBudget (SPEC §7D budgets)",
            ));
        }
        let clock = Arc::new(VClock::new());
        let seen: Arc<Mutex<Seen>> = Arc::default();
        let mut recorders = Vec::new();
        let mut base = Options {
            llm: Some(LlmOptions {
                base_url,
                style,
                api_key,
                model: String::new(),
            }),
            clock: Some(clock.clone()),
            ..Default::default()
        };
        if let Some(n) = u64_field(&opts, "inboxCap")? {
            base.inbox_cap = usize::try_from(n).unwrap_or(usize::MAX);
        }
        if let Some(n) = u64_field(&opts, "maxConcurrentTurns")? {
            base.max_concurrent_turns = usize::try_from(n).unwrap_or(usize::MAX);
        }
        let shutdown_ms = u64_field(&opts, "shutdownMs")?
            .filter(|n| *n > 0)
            .unwrap_or(200);
        base.shutdown = Duration::from_millis(shutdown_ms);
        let rec = Arc::new(Recorder::default());
        if let Some(h) = opts.get("hooks").filter(|v| !v.is_null()) {
            base.hooks = Some(agent_hooks(h, &rec)?);
        }
        if let Some(m) = opts.get("onMetric").filter(|v| !v.is_null()) {
            base.on_metric = Some(agent_on_metric(m, &rec)?);
        }
        recorders.push(("runtime".to_string(), rec));
        let tools = runtime_tools(req.get("tools"))?;
        let registry = as_obj(field(req, "registry")?, "registry")?;
        let mut specs = HashMap::new();
        let mut defs = HashMap::new();
        for (name, d) in registry {
            let what = format!("registry entry \"{name}\"");
            let d = as_obj(d, &what)?;
            if let Some(k) = d.keys().find(|k| !AGENT_DEF_KEYS.contains(&k.as_str())) {
                return Err(bad(format!("{what}: unknown key \"{k}\"")));
            }
            let model = d
                .get("model")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(format!("{what} needs a \"model\"")))?;
            let team = strings(d, "team", &what)?;
            if let Some(m) = team.iter().find(|m| !registry.contains_key(*m)) {
                return Err(bad(format!(
                    "agent \"{name}\" has \"{m}\" on its team, which is not in the registry"
                )));
            }
            let mut def_tools = Vec::new();
            for t in strings(d, "tools", &what)? {
                let tool = tools.get(&t).ok_or_else(|| {
                    bad(format!(
                        "agent \"{name}\" uses tool \"{t}\", which the runtime does not have"
                    ))
                })?;
                def_tools.push(tool.clone());
            }
            let mut soul = crate::opt_str(d, "soul", &what)?.unwrap_or_default();
            let home = crate::opt_str(d, "home", &what)?;
            if let Some(dir) = &home {
                // SPEC §7E: the directory is the agent; the crate composes the soul when called.
                soul = compose_soul(dir).0;
            }
            match d.get("memory") {
                None | Some(Value::Null) | Some(Value::Bool(false)) => {}
                Some(Value::Bool(true)) => match &home {
                    Some(dir) => def_tools.push(memory_tool(dir)),
                    None => return Err(bad(format!("{what}: \"memory\" needs a \"home\""))),
                },
                Some(_) => return Err(bad(format!("{what}: \"memory\" must be a boolean"))),
            }
            let budget = match d.get("budget") {
                None | Some(Value::Null) => None,
                Some(b) => Some(budget(b, &what)?.0),
            };
            let wait_for = match d.get("waitFor").filter(|v| !v.is_null()) {
                None => None,
                Some(w) => {
                    // The crate's `Answer.data` is a JSON object (`Map`): a string or array
                    // answer has no crate form.
                    let data = w.get("answer").and_then(|a| a.get("data"));
                    if let Some(d) = data.filter(|d| !d.is_null() && !d.is_object()) {
                        return Err(unsupported(format!(
                            "{what}: the crate's Answer.data is a JSON object; it cannot carry {}",
                            crate::compact(d)
                        )));
                    }
                    Some(recorded_wait_for(crate::wait_for(w)?, seen.clone()))
                }
            };
            let drec = Arc::new(Recorder::default());
            let hooks = match d.get("hooks").filter(|v| !v.is_null()) {
                None => None,
                Some(h) => Some(agent_hooks(h, &drec)?),
            };
            let on_metric = match d.get("onMetric").filter(|v| !v.is_null()) {
                None => None,
                Some(m) => Some(agent_on_metric(m, &drec)?),
            };
            recorders.push((name.clone(), drec));
            let (sp, cl) = (seen.clone(), seen.clone());
            let def = Def {
                name: name.clone(),
                does: crate::opt_str(d, "does", &what)?.unwrap_or_default(),
                soul,
                model: model.to_owned(),
                tools: def_tools,
                team,
                budget,
                wait_for,
                on_spawn: Some(Arc::new(move |h: &Handle| {
                    let mut s = lock(&sp);
                    s.handles.insert(h.id.clone(), h.clone());
                    if s.on_spawn.len() < CAP {
                        s.on_spawn.push(json!(h.id));
                    }
                })),
                on_close: Some(Arc::new(move |h: &Handle, reason: &str| {
                    let mut s = lock(&cl);
                    if s.on_close.len() < CAP {
                        s.on_close.push(json!({"handle": h.id, "reason": reason}));
                    }
                })),
                hooks,
                on_metric,
                completion: None,
            };
            specs.insert(name.clone(), DefSpec { def: def.clone() });
            defs.insert(name.clone(), def);
        }
        let mut ro = base.clone();
        ro.registry = defs;
        let rt = Runtime::new(ro);
        let session = AgentSession {
            rt,
            clock,
            seen,
            recorders,
            specs,
            shutdown_ms,
            base,
        };
        if let Some(old) = self.sessions.insert(rid, session) {
            old.close_all().await;
        }
        Ok(Map::new())
    }
}

/// A def's `waitFor`, each call recorded. The crate calls it without the answering handle;
/// `trace` fills it from the line the crate wrote just before the call
/// (`<asker>: escalate → <id|self> answers …`, the i-th such line for the i-th call).
fn recorded_wait_for(inner: WaitForFn, seen: Arc<Mutex<Seen>>) -> WaitForFn {
    Arc::new(move |request: Request| {
        let (inner, seen) = (inner.clone(), seen.clone());
        Box::pin(async move {
            {
                let mut s = lock(&seen);
                if s.wait_for_calls.len() < CAP {
                    s.wait_for_calls
                        .push(json!({"handle": Value::Null, "request": request_json(&request)}));
                }
            }
            inner(request).await
        })
    })
}

/// PROTOCOL.md §5.26: one §7F compaction through the crate's `compactor` (a `before_llm` hook),
/// called once on `messages` with no client involved.
pub async fn compact(req: &Map<String, Value>) -> Res<Map<String, Value>> {
    let messages = match field(req, "messages")? {
        Value::Array(a) => a.clone(),
        _ => return Err(bad("messages must be an array")),
    };
    let (o, calls) = compactor_options(as_obj(field(req, "options")?, "options")?)?;
    let hook = compactor(o);
    let ev = BeforeLlmEvent {
        messages,
        tools: Vec::new(),
        model: String::new(),
        turn: 1,
    };
    let r = hook(ev)
        .await
        .map_err(|e| internal(format!("the compactor failed: {e}")))?;
    let mut out = Map::new();
    out.insert(
        "messages".into(),
        r.and_then(|ov| ov.messages)
            .map(Value::Array)
            .unwrap_or(Value::Null),
    );
    out.insert(
        "summarizeCalls".into(),
        Value::Array(std::mem::take(&mut *lock(&calls))),
    );
    Ok(out)
}

/// §5.26 options → the crate's `CompactorOptions`, with the list `summarize` records its
/// `older` argument in (also the `{"compactor": …}` hook behaviour of an agent run).
pub(crate) fn compactor_options(
    opts: &Map<String, Value>,
) -> Res<(CompactorOptions, Arc<Mutex<Vec<Value>>>)> {
    if let Some(k) = opts
        .keys()
        .find(|k| !COMPACT_OPTION_KEYS.contains(&k.as_str()))
    {
        return Err(bad(format!("unknown compact option \"{k}\"")));
    }
    let (kind, text) = behaviour_key(field(opts, "summarize")?, "summarize")?;
    let text = match (kind, text) {
        ("text" | "template", Value::String(t)) => t.clone(),
        _ => {
            return Err(bad(
                "summarize must be {\"text\": string} or {\"template\": string}",
            ))
        }
    };
    let template = kind == "template";
    let max_tokens =
        u64_field(opts, "maxTokens")?.ok_or_else(|| bad("options.maxTokens is required"))?;
    let calls: Arc<Mutex<Vec<Value>>> = Arc::default();
    let rec = calls.clone();
    let mut o = CompactorOptions {
        max_tokens: usize::try_from(max_tokens).unwrap_or(usize::MAX),
        summarize: Some(Arc::new(move |older: Vec<Value>| {
            let n = older.len();
            lock(&rec).push(Value::Array(older));
            let out = if template {
                text.replace("<N>", &n.to_string())
            } else {
                text.clone()
            };
            Box::pin(async move { Ok(out) })
        })),
        flush_to_memory: opts.get("flushToMemory") == Some(&Value::Bool(true)),
        ..Default::default()
    };
    if let Some(k) = u64_field(opts, "keepTail")? {
        o.keep_tail = usize::try_from(k).unwrap_or(usize::MAX);
    }
    if let Some(c) = opts.get("countTokens").filter(|v| !v.is_null()) {
        let per = match behaviour_key(c, "countTokens")? {
            ("perMessage", v) => v
                .as_u64()
                .ok_or_else(|| bad("countTokens.perMessage must be an integer"))?,
            _ => return Err(bad("countTokens must be {\"perMessage\": integer}")),
        };
        let per = usize::try_from(per).unwrap_or(usize::MAX);
        o.count_tokens = Some(Arc::new(move |ms: &[Value]| per.saturating_mul(ms.len())));
    }
    Ok((o, calls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_virtual_clock_fires_only_due_timers_and_moves_only_on_advance() {
        let c = VClock::new();
        let t0 = c.now();
        let early = c.after(Duration::from_millis(100));
        let late = c.after(Duration::from_millis(300));
        assert!(c.live());
        assert_eq!(c.advance(99), 99);
        assert_eq!(c.now() - t0, Duration::from_millis(99));
        assert_eq!(c.advance(1), 100);
        tokio::time::timeout(Duration::from_secs(1), early)
            .await
            .expect("the 100 ms timer fired");
        let mut late = late;
        assert!(
            futures::poll!(&mut late).is_pending(),
            "the 300 ms timer is not due at 100 ms"
        );
        c.advance(200);
        tokio::time::timeout(Duration::from_secs(1), late)
            .await
            .expect("the 300 ms timer fired");
        assert!(!c.live());
    }

    #[test]
    fn trace_lines_become_transitions_and_the_crates_close_line_gets_its_from_state() {
        assert_eq!(transition("idle→running (wake)"), Some(("idle", "running")));
        assert_eq!(transition("→closed (closed)"), Some(("", "closed")));
        assert_eq!(
            transition("task replay → REATTACH to root/a.1 (state idle)"),
            None
        );
        assert_eq!(transition("escalate → self answers"), None);
        assert_eq!(
            event_text("task replay → REATTACH to root/p.1/c.1 (state idle)"),
            "task replay → REATTACH root/p.1/c.1 (idle)"
        );
        assert_eq!(
            event_text("wake QUEUED (parent concurrency 1)"),
            "wake QUEUED"
        );
        assert_eq!(def_of("root/coordinator.1/explore.12"), "explore");
        assert_eq!(parent_of("root/a.1/b.2"), "root/a.1");
    }
}
