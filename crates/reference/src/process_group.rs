//! Process groups: a local MCP server or a `bash` command is spawned as the leader of its own
//! group (`process_group(0)`), so stopping it means signalling the whole group, which also
//! reaches whatever it backgrounded. Every such signal, and every "is it gone" check, goes
//! through here.

#[cfg(test)]
use nix::sys::signal::kill;
use nix::sys::signal::killpg;
use nix::unistd::Pid;

pub(crate) use nix::sys::signal::Signal;

/// Sends `signal` to every process of group `pgid`; `true` when the group existed.
///
/// Ids below 2 are refused: kill(2) would read them as "my own group" or "every process".
pub(crate) fn signal_group(pgid: i32, signal: Signal) -> bool {
    pgid > 1 && killpg(Pid::from_raw(pgid), signal).is_ok()
}

/// SIGKILLs every process of group `pgid` (see [`signal_group`]).
pub(crate) fn kill_group(pgid: i32) -> bool {
    signal_group(pgid, Signal::SIGKILL)
}

/// The group id of a child spawned with `process_group(0)`: its own pid, while it is unreaped.
pub(crate) fn group_of(child: &tokio::process::Child) -> Option<i32> {
    child.id().and_then(|id| i32::try_from(id).ok())
}

/// Whether `pid` no longer runs: signal 0 cannot reach it (no such process), or it is a
/// zombie waiting for its parent to reap it. (Only tests ask: the library never waits on a
/// process it does not own.)
#[cfg(test)]
pub(crate) fn is_gone(pid: i32) -> bool {
    kill(Pid::from_raw(pid), None).is_err() || is_zombie(pid)
}

/// Whether `/proc` shows `pid` in state `Z`; `false` when `/proc` cannot tell.
#[cfg(test)]
fn is_zombie(pid: i32) -> bool {
    // `pid (comm) state …`: comm may hold spaces and parentheses, so the state follows the
    // last `)`.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit(')')
                .next()
                .map(|rest| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
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
        let _ = child.wait().await;
        assert!(is_gone(leader));
    }
}
