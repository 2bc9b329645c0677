//! What a runtime lets a host observe: per-handle transitions and events, the lifecycle
//! callbacks, the escalations and the concurrency peaks.

use std::collections::BTreeMap;

use serde_json::{json, Value};

/// Everything observed so far.
#[derive(Debug, Clone, Default)]
pub struct Observations {
    /// Per handle, `from→to` in order.
    pub transitions: BTreeMap<String, Vec<String>>,
    /// Per handle, the notable steps (`wake QUEUED`, `task replay → REATTACH`, ...).
    pub events: BTreeMap<String, Vec<String>>,
    /// `onSpawn(h)` calls, in order.
    pub on_spawn: Vec<String>,
    /// `onClose(h, reason)` calls, in order.
    pub on_close: Vec<(String, String)>,
    /// Each escalated Request and the handle whose `waitFor` answered it.
    pub wait_for_calls: Vec<Value>,
    /// Each `onBudget(info)` call.
    pub on_budget_calls: Vec<Value>,
    /// Substantive heartbeat replies (`onBeat`).
    pub beats: Vec<Value>,
    /// The most children of one parent running at once.
    pub peak_running_siblings: usize,
}

impl Observations {
    /// Records a transition.
    pub fn transition(&mut self, id: &str, from: &str, to: &str) {
        self.transitions
            .entry(id.to_string())
            .or_default()
            .push(format!("{from}→{to}"));
    }

    /// Records an event.
    pub fn event(&mut self, id: &str, what: impl Into<String>) {
        self.events
            .entry(id.to_string())
            .or_default()
            .push(what.into());
    }

    /// As JSON (the `agent_trace` answer, without the gate peak).
    pub fn to_json(&self) -> Value {
        json!({
            "transitions": self.transitions,
            "events": self.events,
            "onSpawn": self.on_spawn,
            "onClose": self.on_close.iter().map(|(h, r)| json!({"handle": h, "reason": r})).collect::<Vec<_>>(),
            "waitForCalls": self.wait_for_calls,
            "onBudgetCalls": self.on_budget_calls,
            "beats": self.beats,
            "peakRunningSiblings": self.peak_running_siblings,
        })
    }
}
