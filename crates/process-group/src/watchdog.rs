//! Process groups that die with this process, even when it is killed with SIGKILL.
//!
//! A process killed with SIGKILL cannot clean up, so something outside it must: a watchdog,
//! a tiny `sh` started once (at the first [`watch`]) in a process group of its own, reading
//! the ids of the live groups on a pipe. When this process dies, however it dies, the kernel
//! closes the pipe; the watchdog then kills every group still listed and exits. A group is
//! listed right after its leader's spawn and unlisted when it is killed, before the leader is
//! reaped (until then its id cannot be reused, so the watchdog never signals a stranger).
//!
//! Two users, one per process: the reference's local MCP servers (in a driver) and the
//! harness's drivers (in `run`). Both spawn each child as the leader of its own group
//! (`process_group(0)`).
//!
//! Why not `PR_SET_PDEATHSIG`, armed in each child between fork and exec: a `pre_exec` step
//! makes the spawn a full `fork`, whose cost grows with this process's memory (a driver that
//! had just built a toolkit over 5,000 skills paid about a millisecond more per server),
//! while without it the spawn is a `posix_spawn`, the same for any heap. The death signal
//! also reaches only the child itself, not its group (a driver's `sleep 300 &`), and fires
//! when the spawning *thread* ends, which on a tokio runtime may be any worker.

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;

/// Reads `+PGID` / `-PGID` lines; at end of input kills every group still listed. Builtins
/// only, so it needs nothing but a POSIX shell. The first word names it in `ps`.
const SCRIPT: &str = r#": toolnexus-watchdog
groups=""
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups ${line#+}" ;;
    -*) gone=${line#-}; keep=""
        for g in $groups; do [ "$g" = "$gone" ] || keep="$keep $g"; done
        groups=$keep ;;
  esac
done
for g in $groups; do kill -KILL "-$g" 2>/dev/null; done
"#;

/// The running watchdog and its stdin.
struct Watchdog {
    child: Child,
    pipe: ChildStdin,
}

/// `None` before the first group, or when the watchdog could not start (groups then simply
/// are not watched: a failure to guard is never a failure to spawn).
static WATCHDOG: Mutex<Option<Watchdog>> = Mutex::new(None);

fn start() -> Option<Watchdog> {
    let mut child = Command::new("/bin/sh")
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own group: a signal to this process's group (a harness killing a hung
        // driver) must leave the watchdog alive to do its work.
        .process_group(0)
        .spawn()
        .ok()?;
    let pipe = child.stdin.take()?;
    Some(Watchdog { child, pipe })
}

fn send(line: &str) {
    let Ok(mut slot) = WATCHDOG.lock() else {
        return;
    };
    if slot.is_none() {
        if !line.starts_with('+') {
            return;
        }
        *slot = start();
    }
    let failed = match slot.as_mut() {
        Some(w) => w.pipe.write_all(line.as_bytes()).is_err(),
        None => false,
    };
    if failed {
        // The watchdog is gone (killed from outside): reap it, and start a fresh one with
        // the next group rather than writing into a dead pipe.
        if let Some(mut w) = slot.take() {
            let _ = w.child.kill();
            let _ = w.child.wait();
        }
    }
}

/// Whether `pgid` names one group: kill(2) reads 0 as "my own group" and -1 as "every
/// process I may signal", which the watchdog must never be told to kill.
fn is_group(pgid: i32) -> bool {
    pgid > 1
}

/// Lists the process group `pgid` (a child just spawned as its leader): it is SIGKILLed
/// when this process dies, unless [`unwatch`]ed first.
pub fn watch(pgid: i32) {
    if is_group(pgid) {
        send(&format!("+{pgid}\n"));
    }
}

/// Unlists the group `pgid`: call it when the group is killed, before its leader is reaped.
pub fn unwatch(pgid: i32) {
    if is_group(pgid) {
        send(&format!("-{pgid}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sleeper() -> Child {
        Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap()
    }

    #[test]
    fn at_end_of_input_the_script_kills_the_listed_groups_and_spares_the_unlisted() {
        let (mut kept, mut killed) = (sleeper(), sleeper());
        let mut w = start().unwrap();
        let lines = format!("+{}\n+{}\n-{}\n", kept.id(), killed.id(), kept.id());
        w.pipe.write_all(lines.as_bytes()).unwrap();
        drop(w.pipe);
        assert!(w.child.wait().unwrap().success());
        let status = killed.wait().unwrap();
        assert!(!status.success(), "the listed group survived: {status:?}");
        assert!(
            kept.try_wait().unwrap().is_none(),
            "the unlisted group was killed"
        );
        let _ = kept.kill();
        let _ = kept.wait();
    }

    #[test]
    fn ids_that_are_not_one_group_are_never_listed() {
        for id in [1, 0, -1, -7] {
            watch(id);
        }
        let started = WATCHDOG.lock().unwrap().take();
        if let Some(mut w) = started {
            // Killed before its input ends: told `+1`, it would kill every process we may
            // signal.
            let _ = w.child.kill();
            let _ = w.child.wait();
            panic!("a watchdog started for an id that names no single group");
        }
    }
}
