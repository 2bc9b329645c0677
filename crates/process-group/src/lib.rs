//! Process groups, the one place both the reference and the harness signal them.
//!
//! A child that may start children of its own (a driver, a local MCP server, a `bash`
//! command) is spawned as the leader of its own group (`process_group(0)`), so stopping it
//! means signalling the whole group, which also reaches whatever it backgrounded. Every such
//! signal, every "is it gone" check and every walk of `/proc` for what is left goes through
//! here; [`watchdog`] kills the listed groups when this process dies, even by SIGKILL.

pub mod watchdog;

use nix::sys::signal::{kill, killpg};
use nix::unistd::Pid;

pub use nix::sys::signal::Signal;

/// Sends `signal` to every process of group `pgid`; `true` when the group existed.
///
/// Ids below 2 are refused: kill(2) would read them as "my own group" or "every process".
pub fn signal_group(pgid: i32, signal: Signal) -> bool {
    pgid > 1 && killpg(Pid::from_raw(pgid), signal).is_ok()
}

/// SIGKILLs every process of group `pgid` (see [`signal_group`]).
pub fn kill_group(pgid: i32) -> bool {
    signal_group(pgid, Signal::SIGKILL)
}

/// Sends `signal` to the single process `pid`; `true` when it existed (ids below 2 refused).
pub fn signal_process(pid: i32, signal: Signal) -> bool {
    pid > 1 && kill(Pid::from_raw(pid), signal).is_ok()
}

/// One process as its `/proc/<pid>/stat` line shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// Its pid.
    pub pid: i32,
    /// Its parent's pid.
    pub ppid: i32,
    /// Its process group.
    pub pgid: i32,
    /// Whether it is a zombie (state `Z`): exited, waiting for its parent to reap it.
    pub zombie: bool,
}

/// Every process `/proc` lists, zombies included; empty where there is no `/proc`.
pub fn processes() -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|entry| entry.file_name().to_string_lossy().parse::<i32>().ok())
        .filter_map(stat)
        .collect()
}

/// `pid` as its `/proc/<pid>/stat` line shows it; `None` when it is gone or there is no
/// `/proc`. The one reader of that line, for [`processes`] and [`is_gone`].
fn stat(pid: i32) -> Option<ProcStat> {
    let line = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses, so the fields
    // follow the last `)`.
    let mut fields = line.rsplit(')').next()?.split_whitespace();
    let (state, ppid, pgid) = (fields.next()?, fields.next()?, fields.next()?);
    Some(ProcStat {
        pid,
        ppid: ppid.parse().ok()?,
        pgid: pgid.parse().ok()?,
        zombie: state == "Z",
    })
}

/// Every live (non-zombie) process whose parent chain leads to `root`, read from `/proc`;
/// empty where there is no `/proc`.
pub fn descendants(root: i32) -> Vec<ProcStat> {
    let mut children: std::collections::BTreeMap<i32, Vec<ProcStat>> =
        std::collections::BTreeMap::new();
    for p in processes() {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut out = Vec::new();
    let mut todo = vec![root];
    while let Some(parent) = todo.pop() {
        for p in children.get(&parent).into_iter().flatten() {
            todo.push(p.pid);
            if !p.zombie {
                out.push(*p);
            }
        }
    }
    out
}

/// The group id of a child spawned with `process_group(0)`: its own pid, while it is unreaped.
pub fn group_of(child: &tokio::process::Child) -> Option<i32> {
    child.id().and_then(|id| i32::try_from(id).ok())
}

/// Whether `pid` no longer runs: signal 0 cannot reach it (no such process), or it is a
/// zombie waiting for its parent to reap it (`false` for a zombie when `/proc` cannot tell).
pub fn is_gone(pid: i32) -> bool {
    kill(Pid::from_raw(pid), None).is_err() || stat(pid).is_some_and(|p| p.zombie)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn group_kill_reaches_the_grandchild_and_zombies_count_as_gone() {
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", "sleep 300 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let leader = group_of(&child).unwrap();
        let mut out = tokio::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        tokio::io::AsyncBufReadExt::read_line(&mut out, &mut line)
            .await
            .unwrap();
        let grandchild: i32 = line.trim().parse().unwrap();
        assert!(!is_gone(leader) && !is_gone(grandchild));
        let mine = descendants(std::process::id() as i32);
        assert!(
            mine.iter()
                .any(|p| p.pid == grandchild && p.pgid == leader && !p.zombie),
            "{mine:?}"
        );
        assert!(!signal_group(0, Signal::SIGKILL) && !signal_group(1, Signal::SIGKILL));
        assert!(kill_group(leader));
        // The unreaped leader is a zombie: gone, though signal 0 still reaches it.
        let mut gone = false;
        for _ in 0..100 {
            if is_gone(leader) && is_gone(grandchild) {
                gone = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert!(gone, "leader {leader} or grandchild {grandchild} survived");
        assert!(kill(Pid::from_raw(leader), None).is_ok(), "not reaped yet");
        assert!(descendants(std::process::id() as i32)
            .iter()
            .all(|p| p.pid != grandchild));
        let _ = child.wait().await;
        assert!(is_gone(leader));
    }
}
