//! Everything the harness starts, so that every exit path stops it: a clean end, an early
//! error, and SIGINT/SIGTERM/SIGHUP (where no destructor runs unless we make it).
//!
//! Two layers (NOTES #160):
//! - a registry of the driver groups and mock servers alive now, which an interrupted run
//!   asks to stop politely (SIGTERM) so a driver can close what it started;
//! - a sweep of every descendant of this process, read from `/proc` (Linux), which SIGKILLs
//!   whatever is left, and its group. With [`become_subreaper`], orphans (a driver's
//!   `sleep 300 &` whose shell exited, an MCP server's child after its server died) are
//!   re-parented to this process instead of init, so the sweep still finds them.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use toolnexus_process_group::{self as process_group, Signal};

/// How one registered child is signalled.
#[derive(Debug, Clone, Copy)]
enum Target {
    /// A driver: the leader of its own process group.
    Group(i32),
    /// A mock server: one process in the harness's own group.
    Process(i32),
}

/// The live children, by lease id.
static LIVE: Mutex<BTreeMap<u64, Target>> = Mutex::new(BTreeMap::new());
static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A registered child; dropping it unregisters the child (dropped when its owner reaps or
/// abandons it, so a reused pid is never signalled from here).
#[derive(Debug)]
pub struct Lease(u64);

impl Drop for Lease {
    fn drop(&mut self) {
        if let Ok(mut live) = LIVE.lock() {
            live.remove(&self.0);
        }
    }
}

fn register(target: Target) -> Lease {
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if let Ok(mut live) = LIVE.lock() {
        live.insert(id, target);
    }
    Lease(id)
}

/// Registers a driver started as the leader of process group `pgid`.
pub fn register_group(pgid: i32) -> Lease {
    register(Target::Group(pgid))
}

/// Registers a mock server (a single process) with pid `pid`.
pub fn register_process(pid: i32) -> Lease {
    register(Target::Process(pid))
}

/// Makes this process the "child subreaper" of everything it starts (Linux), so orphaned
/// descendants stay its descendants and [`kill_descendants`] reaches them; `false` elsewhere.
pub fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    {
        nix::sys::prctl::set_child_subreaper(true).is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Stops every registered child: SIGTERM, up to `grace` for them to go (a driver may close
/// its MCP servers meanwhile), then [`kill_descendants`]. Returns how many were registered.
pub async fn stop_all(grace: Duration) -> usize {
    let targets: Vec<Target> = LIVE
        .lock()
        .map(|live| live.values().copied().collect())
        .unwrap_or_default();
    for t in &targets {
        match *t {
            Target::Group(pgid) => {
                process_group::signal_group(pgid, Signal::SIGTERM);
            }
            Target::Process(pid) => {
                process_group::signal_process(pid, Signal::SIGTERM);
            }
        }
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline
        && !targets.iter().all(|t| match *t {
            Target::Group(id) | Target::Process(id) => process_group::is_gone(id),
        })
    {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    kill_descendants();
    targets.len()
}

/// SIGKILLs every live descendant of this process, and the group of each one that leads or
/// joined a group other than ours; repeated until none is left (one may fork meanwhile).
/// Returns how many processes were found. Only Linux can list them (`/proc`).
pub fn kill_descendants() -> usize {
    let me = std::process::id() as i32;
    let own_group = nix::unistd::getpgrp().as_raw();
    let mut found = 0;
    for _ in 0..50 {
        let left = process_group::descendants(me);
        if left.is_empty() {
            break;
        }
        found += left.len();
        for p in &left {
            if p.pgid != own_group {
                process_group::kill_group(p.pgid);
            }
            process_group::signal_process(p.pid, Signal::SIGKILL);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_lease_unregisters() {
        let lease = register_process(999_999);
        let id = lease.0;
        assert!(LIVE.lock().unwrap().contains_key(&id));
        drop(lease);
        assert!(!LIVE.lock().unwrap().contains_key(&id));
    }
}
