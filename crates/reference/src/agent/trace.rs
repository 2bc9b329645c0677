//! What a runtime lets a host observe: per-handle transitions and events, the lifecycle
//! callbacks, the escalations and the concurrency peaks.
//!
//! A runtime can live as long as its host (a heartbeat agent turns every interval), so the
//! record is bounded: past [`OBSERVATION_CAP`] entries new ones are counted, not kept.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::suspension::Request;

/// How many entries (transitions, events, callbacks, escalations, beats) one runtime keeps.
pub const OBSERVATION_CAP: usize = 100_000;

/// One `onClose(h, reason)` call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CloseCall {
    /// The handle closed.
    pub handle: String,
    /// Why: `closed`, `budget`, `error` or `interrupted`.
    pub reason: String,
}

/// One escalated Request and the handle whose `waitFor` answered it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WaitForCall {
    /// The interpreter's handle.
    pub handle: String,
    /// The Request as it reached the interpreter, `data.path` stamped.
    pub request: Request,
}

/// `onBudget(info)`'s argument: the limit that would stop a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BudgetInfo {
    /// The handle whose run would stop.
    pub handle: String,
    /// The limit, SPEC-spelled.
    pub limit: String,
    /// The handle whose limit it is (the handle or an ancestor).
    pub owner: String,
    /// The loud reason the run would end with.
    pub reason: String,
}

/// A substantive heartbeat reply (`onBeat`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Beat {
    /// The handle that beat.
    pub handle: String,
    /// Its reply.
    pub text: String,
}

/// Everything observed so far; serialises as the `agent_trace` answer without the gate
/// peak (`dropped` only when the cap was reached).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Observations {
    /// Per handle, `from→to` in order.
    pub transitions: BTreeMap<String, Vec<String>>,
    /// Per handle, the notable steps (`wake QUEUED`, `task replay → REATTACH`, ...).
    pub events: BTreeMap<String, Vec<String>>,
    /// `onSpawn(h)` calls, in order.
    pub on_spawn: Vec<String>,
    /// `onClose(h, reason)` calls, in order.
    pub on_close: Vec<CloseCall>,
    /// Each escalated Request and the handle whose `waitFor` answered it.
    pub wait_for_calls: Vec<WaitForCall>,
    /// Each `onBudget(info)` call.
    pub on_budget_calls: Vec<BudgetInfo>,
    /// Substantive heartbeat replies (`onBeat`).
    pub beats: Vec<Beat>,
    /// The most children of one parent running at once.
    pub peak_running_siblings: usize,
    /// Entries kept so far, against [`OBSERVATION_CAP`].
    #[serde(skip)]
    kept: usize,
    /// Entries past the cap, counted and not kept.
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
            self.on_close.push(CloseCall {
                handle: id.to_string(),
                reason: reason.to_string(),
            });
        }
    }

    /// Records an escalation and the handle whose `waitFor` answered it.
    pub fn wait_for_call(&mut self, call: WaitForCall) {
        if self.admit() {
            self.wait_for_calls.push(call);
        }
    }

    /// Records an `onBudget(info)` call.
    pub fn on_budget_call(&mut self, info: BudgetInfo) {
        if self.admit() {
            self.on_budget_calls.push(info);
        }
    }

    /// Records a substantive heartbeat reply.
    pub fn beat(&mut self, beat: Beat) {
        if self.admit() {
            self.beats.push(beat);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn to_json(obs: &Observations) -> serde_json::Value {
        serde_json::to_value(obs).unwrap()
    }

    #[test]
    fn past_the_cap_entries_are_counted_not_kept() {
        let mut obs = Observations::default();
        for i in 0..OBSERVATION_CAP - 2 {
            obs.event("root/a.1", format!("e{i}"));
        }
        obs.transition("root/a.1", "idle", "running");
        obs.spawned("root/b.1");
        assert_eq!(
            to_json(&obs).get("dropped"),
            None,
            "nothing dropped at the cap"
        );
        obs.closed("root/b.1", "closed");
        obs.beat(Beat {
            handle: "root/a.1".into(),
            text: "x".into(),
        });
        obs.wait_for_call(WaitForCall {
            handle: "root/a.1".into(),
            request: Request {
                id: "q".into(),
                kind: "approval".into(),
                prompt: String::new(),
                url: None,
                data: None,
                expires_at: None,
            },
        });
        obs.on_budget_call(BudgetInfo {
            handle: "root/a.1".into(),
            limit: "maxTurns".into(),
            owner: "root/a.1".into(),
            reason: String::new(),
        });
        obs.transition("root/a.1", "running", "idle");
        assert_eq!(obs.dropped, 5);
        let v = to_json(&obs);
        assert_eq!(v["dropped"], 5);
        assert_eq!(v["transitions"]["root/a.1"], json!(["idle→running"]));
        assert_eq!(v["onSpawn"], json!(["root/b.1"]));
        assert_eq!(v["onClose"], json!([]));
        assert_eq!(v["beats"], json!([]));
    }
}
