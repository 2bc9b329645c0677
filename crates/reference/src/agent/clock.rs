//! §7D's injectable clock, virtual: time moves only when the host advances it, so every
//! timer, timeout and deadline of a runtime is deterministic.

use std::collections::BTreeMap;
use std::sync::Mutex;

use tokio::sync::oneshot;

/// A virtual clock in milliseconds, starting at 0.
#[derive(Default)]
pub struct VirtualClock {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    now: u64,
    next: u64,
    timers: BTreeMap<(u64, u64), oneshot::Sender<()>>,
}

impl VirtualClock {
    /// A clock at 0.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A poisoned lock still holds consistent data (each write is one assignment).
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Now, in virtual milliseconds.
    pub fn now(&self) -> u64 {
        self.lock().now
    }

    /// A signal that fires once the clock reaches `at` (at once when it already has).
    pub fn at(&self, at: u64) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        let mut s = self.lock();
        if at <= s.now {
            let _ = tx.send(());
        } else {
            let key = (at, s.next);
            s.next += 1;
            s.timers.insert(key, tx);
        }
        rx
    }

    /// Moves the clock forward, firing every timer that falls due, earliest first; answers
    /// the new time.
    pub fn advance(&self, ms: u64) -> u64 {
        let mut s = self.lock();
        s.now = s.now.saturating_add(ms);
        let now = s.now;
        let later = s.timers.split_off(&(now.saturating_add(1), 0));
        let due = std::mem::replace(&mut s.timers, later);
        drop(s);
        for (_, tx) in due {
            // A dropped receiver is a waiter that stopped caring.
            let _ = tx.send(());
        }
        now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn timers_fire_only_when_advanced_past() {
        let c = VirtualClock::new();
        let mut early = c.at(100);
        let mut late = c.at(250);
        assert!(early.try_recv().is_err());
        assert_eq!(c.advance(100), 100);
        assert!(early.try_recv().is_ok());
        assert!(late.try_recv().is_err());
        c.advance(200);
        assert!(late.try_recv().is_ok());
        assert!(c.at(10).try_recv().is_ok());
    }
}
