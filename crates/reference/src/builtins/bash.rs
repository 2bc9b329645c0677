//! §4A `bash`: one shell command, combined stdout+stderr, killed as a process group.

use std::fs::File;
use std::io::Read as _;
use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use nix::errno::Errno;
use serde_json::{json, Map, Value};
use toolnexus_process_group::{group_of, kill_group, signal_group, Signal};

use super::cap::Capped;
use super::write::{args_object, io_msg, opt_num, opt_str, req_str, Step};
use crate::tool::{Context, Source, Tool, ToolExec, ToolResult};

/// The tool's name (§4A).
pub(super) const NAME: &str = "bash";

/// The interpreter argv; Python reports it joined as `metadata.shell`.
const SHELL: [&str; 2] = ["/bin/sh", "-c"];

/// Between "please stop" (SIGTERM) and "stop" (SIGKILL); fixed across ports (Python's
/// `KILL_GRACE_MS`) so a timeout means the same thing everywhere.
const KILL_GRACE: Duration = Duration::from_millis(2000);

/// After SIGKILL, how long to wait for the pipe to close; a grandchild that escaped the group
/// (its own `setsid`) could otherwise hold it open forever.
const DRAIN_AFTER_KILL: Duration = Duration::from_millis(2000);

/// SIGKILLs the group if the call is abandoned (its future dropped) mid-run, so nothing the
/// command started outlives the caller's interest in it.
struct GroupGuard {
    pgid: i32,
    armed: bool,
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if self.armed {
            kill_group(self.pgid);
        }
    }
}

/// One pipe for both stdout and stderr, so their interleaving is preserved as written.
fn output_pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    // CLOEXEC atomically where possible: a concurrent spawn elsewhere in the process must not
    // inherit our write end, or EOF would wait for that unrelated process to exit.
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    let fds = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    let fds = {
        use nix::fcntl::{fcntl, FcntlArg, FdFlag};
        let fds = nix::unistd::pipe()?;
        for fd in [&fds.0, &fds.1] {
            fcntl(fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC))?;
        }
        fds
    };
    Ok(fds)
}

/// Python's `returncode`: the exit code, or `-signal` when the child was killed.
fn exit_code(status: ExitStatus) -> i64 {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(c), _) => i64::from(c),
        (None, Some(s)) => -i64::from(s),
        (None, None) => -1,
    }
}

enum Outcome {
    Finished(std::io::Result<ExitStatus>),
    TimedOut,
    Cancelled,
}

async fn run(args: Value, ctx: &Context) -> Step<ToolResult> {
    let args = args_object("bash", args)?;
    let command = req_str("bash", &args, "command")?;
    let _ = opt_str("bash", &args, "description")?;
    let workdir = match opt_str("bash", &args, "workdir")? {
        Some(w) if !w.is_empty() => PathBuf::from(w),
        _ => std::env::current_dir().map_err(|e| ToolResult::error(format!("bash: {e}")))?,
    };
    let timeout_ms = opt_num("bash", &args, "timeout")?
        .unwrap_or(60_000.0)
        .max(0.0);
    // An absurdly large timeout means "no timeout", not a panic in Duration's constructor.
    let limit = Duration::try_from_secs_f64(timeout_ms / 1000.0).unwrap_or(Duration::MAX);
    let wd = workdir.to_string_lossy().into_owned();
    match std::fs::metadata(&workdir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            let e = std::io::Error::from(Errno::ENOTDIR);
            return Err(ToolResult::error(format!("bash: {}", io_msg(&e, &wd))));
        }
        Err(e) => return Err(ToolResult::error(format!("bash: {}", io_msg(&e, &wd)))),
    }

    let fail = |e: std::io::Error| ToolResult::error(format!("bash: {e}"));
    let (read_end, write_end) = output_pipe().map_err(fail)?;
    let write_err = write_end.try_clone().map_err(fail)?;
    let mut cmd = tokio::process::Command::new(SHELL[0]);
    cmd.arg(SHELL[1])
        .arg(command)
        .current_dir(&workdir)
        // A command reading stdin must see EOF, not steal the harness's stdin.
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::from(write_err))
        // Its own group, so a timeout can kill what the command backgrounded too.
        .process_group(0);
    let spawned = cmd.spawn();
    // The Command still holds our copies of the pipe's write end; EOF needs them closed.
    drop(cmd);
    let mut child = spawned.map_err(fail)?;
    let pgid = group_of(&child).unwrap_or(0);
    let mut guard = GroupGuard { pgid, armed: true };

    // Only a head and a tail of the output are kept: a command that never stops writing
    // (`yes`) must not grow the caller's memory with it.
    let buf = Arc::new(Mutex::new(Capped::new()));
    let sink = Arc::clone(&buf);
    let reader = tokio::task::spawn_blocking(move || {
        let mut file = File::from(read_end);
        let mut chunk = [0u8; 8192];
        loop {
            match file.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    if let Ok(mut b) = sink.lock() {
                        b.push(&chunk[..n]);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
    });
    // Like Python's communicate(): all output (pipe EOF) first, then the exit status.
    let done = async {
        let _ = reader.await;
        child.wait().await
    };
    tokio::pin!(done);

    // A budget under 1 ms (0, or negative clamped to 0) is already spent: the call times out
    // every time, as Python's `communicate(timeout=0)` does, instead of racing the command
    // (`select!` picks at random among ready branches) (NOTES #134).
    let outcome = if timeout_ms < 1.0 {
        Outcome::TimedOut
    } else {
        tokio::select! {
            r = &mut done => Outcome::Finished(r),
            _ = tokio::time::sleep(limit) => Outcome::TimedOut,
            _ = ctx.cancelled() => Outcome::Cancelled,
        }
    };
    let status = match outcome {
        Outcome::Finished(r) => r,
        Outcome::TimedOut | Outcome::Cancelled => {
            // Ask, wait out the grace window, then insist (Python's order).
            let mut killed = signal_group(pgid, Signal::SIGTERM);
            if tokio::time::timeout(KILL_GRACE, &mut done).await.is_err() {
                killed = kill_group(pgid) || killed;
                let _ = tokio::time::timeout(DRAIN_AFTER_KILL, &mut done).await;
            }
            let out = collected(&buf);
            let mut meta = Map::new();
            meta.insert("shell".into(), json!(SHELL.join(" ")));
            let text = if matches!(outcome, Outcome::TimedOut) {
                meta.insert("timedOut".into(), json!(true));
                format!(
                    "bash: command timed out after {}ms\n{out}",
                    timeout_ms.trunc() as u64
                )
            } else {
                meta.insert("cancelled".into(), json!(true));
                format!("bash: command cancelled\n{out}")
            };
            meta.insert("killedTree".into(), json!(killed));
            let mut r = ToolResult::error(text);
            r.metadata = Some(meta);
            return Ok(r);
        }
    };
    // Finished normally: whatever it left running without our pipe is the host's business,
    // exactly as in Python, which only kills on timeout/cancel.
    guard.armed = false;
    let status = status.map_err(fail)?;
    let out = collected(&buf);
    let code = exit_code(status);
    let result = if code == 0 {
        ToolResult::ok(out)
    } else {
        ToolResult::error(format!("{out}\nbash: command exited with code {code}"))
    };
    Ok(result
        .with_meta("shell", json!(SHELL.join(" ")))
        .with_meta("exitCode", json!(code)))
}

fn collected(buf: &Mutex<Capped>) -> String {
    let mut guard = match buf.lock() {
        Ok(b) => b,
        Err(poisoned) => poisoned.into_inner(),
    };
    std::mem::replace(&mut *guard, Capped::new()).into_text()
}

struct Bash;

#[async_trait]
impl ToolExec for Bash {
    async fn execute(&self, args: Value, ctx: &Context) -> ToolResult {
        run(args, ctx).await.unwrap_or_else(|e| e)
    }
}

/// The §4A `bash` builtin.
pub fn tool() -> Tool {
    Tool::new(
        NAME,
        "Run a shell command and return its combined stdout+stderr. Non-zero exit is an error.",
        json!({
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The shell command to run"},
                "workdir": {"type": "string", "description": "Working directory (default: process cwd)"},
                "timeout": {"type": "number", "description": "Timeout in milliseconds (default 60000)"},
                "description": {"type": "string", "description": "Human-readable description of the command"}
            },
            "required": ["command"],
            "additionalProperties": false
        }),
        Source::Builtin,
        Arc::new(Bash),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_util::sync::CancellationToken;
    use toolnexus_process_group::is_gone;

    async fn run(args: Value) -> ToolResult {
        tool().execute(args, &Context::default()).await
    }

    /// Waits up to 5 s for `pid` to be dead or a zombie awaiting its reaper.
    async fn wait_gone(pid: i32) -> bool {
        for _ in 0..50 {
            if is_gone(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        false
    }

    #[tokio::test]
    async fn echo_and_exit_codes() {
        let r = run(json!({"command": "echo hi"})).await;
        assert!(!r.is_error);
        assert_eq!(r.output, "hi\n");
        assert_eq!(
            serde_json::to_value(&r.metadata).unwrap(),
            json!({"shell": "/bin/sh -c", "exitCode": 0})
        );
        let r = run(json!({"command": "exit 3"})).await;
        assert!(r.is_error);
        assert_eq!(r.output, "\nbash: command exited with code 3");
        assert_eq!(r.metadata.unwrap()["exitCode"], json!(3));
        let r = run(json!({"command": "echo out; echo err 1>&2; echo out2; exit 3"})).await;
        assert_eq!(
            r.output,
            "out\nerr\nout2\n\nbash: command exited with code 3"
        );
        let r = run(json!({"command": "printf abc"})).await;
        assert_eq!(r.output, "abc");
        let r = run(json!({"command": "cat"})).await;
        assert_eq!((r.output.as_str(), r.is_error), ("", false));
    }

    /// A sub-millisecond budget is spent before the command starts: a timeout every time,
    /// never a race the command sometimes wins.
    #[tokio::test]
    async fn a_zero_timeout_always_times_out() {
        for timeout in [json!(0), json!(-5), json!(0.4)] {
            for _ in 0..15 {
                let r = run(json!({"command": "true", "timeout": timeout})).await;
                assert!(r.is_error, "timeout {timeout}: {r:?}");
                assert!(r.output.starts_with("bash: command timed out after 0ms\n"));
                assert_eq!(r.metadata.unwrap()["timedOut"], json!(true));
            }
        }
    }

    #[tokio::test]
    async fn a_large_output_keeps_its_head_and_tail() {
        use crate::builtins::cap::{KEEP_HEAD, KEEP_TAIL};
        // 1..=200000 is 1.3 MB: more than head + tail.
        let r = run(json!({"command": "seq 1 200000; exit 4"})).await;
        assert!(r.is_error);
        assert!(r.output.starts_with("1\n2\n3\n"), "{:.100}", r.output);
        assert!(
            r.output
                .ends_with("199999\n200000\n\nbash: command exited with code 4"),
            "{}",
            &r.output[r.output.len() - 100..]
        );
        assert!(r
            .output
            .contains("bytes of output omitted (1288895 bytes in all"));
        assert!(
            r.output.len() < KEEP_HEAD + KEEP_TAIL + 200,
            "{}",
            r.output.len()
        );
        assert_eq!(r.metadata.unwrap()["exitCode"], json!(4));
    }

    #[tokio::test]
    async fn workdir_and_bad_input() {
        let dir = tempfile::tempdir().unwrap();
        let d = std::fs::canonicalize(dir.path()).unwrap();
        let ds = d.to_str().unwrap();
        let r = run(json!({"command": "pwd", "workdir": ds})).await;
        assert_eq!(r.output, format!("{ds}\n"));
        let r = run(json!({"command": "pwd", "workdir": "/nonexistent-dir"})).await;
        assert!(r.is_error);
        assert_eq!(
            r.output,
            "bash: [Errno 2] No such file or directory: '/nonexistent-dir'"
        );
        assert!(r.metadata.is_none());
        assert_eq!(run(json!({})).await.output, "bash: command is required");
        let r = run(json!({"command": ["ls"]})).await;
        assert!(r.is_error && r.output.contains("command must be a string"));
        let r = run(json!({"command": "true", "timeout": "5"})).await;
        assert!(r.is_error && r.output.contains("timeout must be a number"));
        let r = run(json!({"command": "true", "timeout": 1e300})).await;
        assert!(!r.is_error, "{r:?}");
    }

    #[tokio::test]
    async fn timeout_kills_backgrounded_grandchild() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let cmd = format!("echo before; sleep 300 & echo $! > '{}'", pidfile.display());
        let started = std::time::Instant::now();
        let r = run(json!({"command": cmd, "timeout": 300})).await;
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(r.is_error);
        assert_eq!(r.output, "bash: command timed out after 300ms\nbefore\n");
        assert_eq!(
            serde_json::to_value(&r.metadata).unwrap(),
            json!({"shell": "/bin/sh -c", "timedOut": true, "killedTree": true})
        );
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(
            wait_gone(pid).await,
            "grandchild {pid} survived the timeout"
        );
    }

    #[tokio::test]
    async fn cancel_kills_the_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let token = CancellationToken::new();
        let ctx = Context {
            cancel: Some(token.clone()),
            ..Context::default()
        };
        let cmd = format!("sleep 300 & echo $! > '{}'; wait", pidfile.display());
        let t = token.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            t.cancel();
        });
        let r = tool().execute(json!({"command": cmd}), &ctx).await;
        assert!(r.is_error);
        assert!(r.output.starts_with("bash: command cancelled"));
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(wait_gone(pid).await);
    }

    #[tokio::test]
    async fn dropping_the_call_kills_the_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let cmd = format!("sleep 300 & echo $! > '{}'; wait", pidfile.display());
        let t = tool();
        let ctx = Context::default();
        let fut = t.execute(json!({"command": cmd}), &ctx);
        let _ = tokio::time::timeout(Duration::from_millis(300), fut).await;
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(wait_gone(pid).await);
    }
}
