//! What a runtime lets a host observe: per-handle transitions and events, the lifecycle
//! callbacks, the escalations and the concurrency peaks.
//!
//! A runtime can live as long as its host (a heartbeat agent turns every interval), so the
//! record is bounded: past [`OBSERVATION_CAP`] entries new ones are counted, not kept.

use std::collections::BTreeMap;

use serde_json::{json, Value};

/// How many entries (transitions, events, callbacks, escalations, beats) one runtime keeps.
pub const OBSERVATION_CAP: usize = 100_000;

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
    /// Entries kept so far, against [`OBSERVATION_CAP`].
    kept: usize,
    /// Entries past the cap, counted and not kept.
    pub dropped: usize,
}

impl Observations {
    /// Whether one more entry fits under the cap; counts it as dropped when not.
    fn admit(&mut self) -> bool {
        if self.kept < OBSERVATION_CAP {
            self.kept += 1;
            true
        } else {
            self.dropped = self.dropped.saturating_add(1);
            false
        }
    }

    /// Records a transition.
    pub fn transition(&mut self, id: &str, from: &str, to: &str) {
        if self.admit() {
            self.transitions
                .entry(id.to_string())
                .or_default()
                .push(format!("{from}→{to}"));
        }
    }

    /// Records an event.
    pub fn event(&mut self, id: &str, what: impl Into<String>) {
        if self.admit() {
            self.events
                .entry(id.to_string())
                .or_default()
                .push(what.into());
        }
    }

    /// Records an `onSpawn(h)` call.
    pub fn spawned(&mut self, id: &str) {
        if self.admit() {
            self.on_spawn.push(id.to_string());
        }
    }

    /// Records an `onClose(h, reason)` call.
    pub fn closed(&mut self, id: &str, reason: &str) {
        if self.admit() {
            self.on_close.push((id.to_string(), reason.to_string()));
        }
    }

    /// Records an escalation and the handle whose `waitFor` answered it.
    pub fn wait_for_call(&mut self, call: Value) {
        if self.admit() {
            self.wait_for_calls.push(call);
        }
    }

    /// Records an `onBudget(info)` call.
    pub fn on_budget_call(&mut self, info: Value) {
        if self.admit() {
            self.on_budget_calls.push(info);
        }
    }

    /// Records a substantive heartbeat reply.
    pub fn beat(&mut self, beat: Value) {
        if self.admit() {
            self.beats.push(beat);
        }
    }

    /// As JSON (the `agent_trace` answer, without the gate peak); `dropped` only when the
    /// cap was reached.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "transitions": self.transitions,
            "events": self.events,
            "onSpawn": self.on_spawn,
            "onClose": self.on_close.iter().map(|(h, r)| json!({"handle": h, "reason": r})).collect::<Vec<_>>(),
            "waitForCalls": self.wait_for_calls,
            "onBudgetCalls": self.on_budget_calls,
            "beats": self.beats,
            "peakRunningSiblings": self.peak_running_siblings,
        });
        if self.dropped > 0 {
            v["dropped"] = json!(self.dropped);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_cap_entries_are_counted_not_kept() {
        let mut obs = Observations::default();
        for i in 0..OBSERVATION_CAP - 2 {
            obs.event("root/a.1", format!("e{i}"));
        }
        obs.transition("root/a.1", "idle", "running");
        obs.spawned("root/b.1");
        assert_eq!(
            obs.to_json().get("dropped"),
            None,
            "nothing dropped at the cap"
        );
        obs.closed("root/b.1", "closed");
        obs.beat(json!({"handle": "root/a.1"}));
        obs.wait_for_call(json!({}));
        obs.on_budget_call(json!({}));
        obs.transition("root/a.1", "running", "idle");
        assert_eq!(obs.dropped, 5);
        let v = obs.to_json();
        assert_eq!(v["dropped"], 5);
        assert_eq!(v["transitions"]["root/a.1"], json!(["idle→running"]));
        assert_eq!(v["onSpawn"], json!(["root/b.1"]));
        assert_eq!(v["onClose"], json!([]));
        assert_eq!(v["beats"], json!([]));
    }
}
