//! What the host callbacks of a client or an agent runtime observed (§5.13 `hookCalls`,
//! `metricEvents`, ...), each list bounded by [`RECORD_CAP`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use serde_json::Value;

/// A driver keeps at most this many entries per recorded list (§5.13).
pub const RECORD_CAP: usize = 1_000;

/// Appends `entry` to a recorded list unless it already holds [`RECORD_CAP`] entries: the one
/// place the cap is applied, for every list a driver records.
pub fn push_capped(list: &mut Vec<Value>, entry: Value) {
    if list.len() < RECORD_CAP {
        list.push(entry);
    }
}

/// What the host callbacks observed during one loop command.
#[derive(Default)]
pub struct Recorder {
    lists: Mutex<Lists>,
    /// `replaceMessages` acts on the first `beforeLLM` call of a run only.
    replaced: AtomicBool,
}

#[derive(Default)]
struct Lists {
    hook_calls: Vec<Value>,
    metric_events: Vec<Value>,
    on_error_calls: Vec<Value>,
    generate_calls: Vec<Value>,
    wait_for_calls: Vec<Value>,
}

/// Which recorded list an entry goes to.
#[derive(Clone, Copy)]
pub(crate) enum List {
    Hooks,
    Metrics,
    OnError,
    Generate,
    WaitFor,
}

impl Recorder {
    /// Records one metric event (an agent runtime's `onMetric`).
    pub(crate) fn push_metric(&self, entry: Value) {
        self.push(List::Metrics, entry);
    }

    /// Records one entry in `list`, past [`RECORD_CAP`] dropped.
    pub(crate) fn push(&self, list: List, entry: Value) {
        let mut l = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        let v = match list {
            List::Hooks => &mut l.hook_calls,
            List::Metrics => &mut l.metric_events,
            List::OnError => &mut l.on_error_calls,
            List::Generate => &mut l.generate_calls,
            List::WaitFor => &mut l.wait_for_calls,
        };
        push_capped(v, entry);
    }

    /// Whether `replaceMessages` acted in this run already; marks it as having acted.
    pub(crate) fn replaced_already(&self) -> bool {
        self.replaced.swap(true, Ordering::SeqCst)
    }

    /// Empties every list (a new loop command starts).
    pub fn reset(&self) {
        *self.lists.lock().unwrap_or_else(|p| p.into_inner()) = Lists::default();
        self.replaced.store(false, Ordering::SeqCst);
    }

    /// The lists as `(field, entries)`.
    pub(crate) fn take(&self) -> [(&'static str, Vec<Value>); 5] {
        let mut l = self.lists.lock().unwrap_or_else(|p| p.into_inner());
        let l = std::mem::take(&mut *l);
        [
            ("hookCalls", l.hook_calls),
            ("metricEvents", l.metric_events),
            ("onErrorCalls", l.on_error_calls),
            ("generateCalls", l.generate_calls),
            ("waitForCalls", l.wait_for_calls),
        ]
    }
}
