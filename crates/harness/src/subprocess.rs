//! A port driven over a child process's stdin/stdout (line-delimited JSON).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::port::{truncate, Port, PortError};
use super::process_group;
use super::secret;
use toolnexus_protocol::{check_seq, PROTOCOL_VERSION};

/// How many stderr lines of a driver are kept for failure messages.
const STDERR_TAIL: usize = 12;

struct Running {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

/// A driver program started with `sh -c <command>`.
pub struct SubprocessPort {
    command: String,
    timeout: Duration,
    running: Option<Running>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    last_failure: Option<String>,
    starts: u32,
    greeting: Option<Value>,
    cwd: Option<PathBuf>,
    seq: u64,
}

impl SubprocessPort {
    /// A port for `command`, with a per-request timeout; the driver starts lazily.
    pub fn new(command: impl Into<String>, timeout: Duration) -> Self {
        Self {
            command: command.into(),
            timeout,
            running: None,
            stderr_tail: Arc::new(Mutex::new(VecDeque::new())),
            last_failure: None,
            starts: 0,
            greeting: None,
            cwd: None,
            seq: 0,
        }
    }

    /// Runs the driver command in `dir` (registered commands are relative to the checkout).
    pub fn in_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    fn spawn(&mut self) -> Result<(), PortError> {
        let mut cmd = Command::new("/bin/sh");
        cmd.arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        secret::driver_env(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| {
            PortError::Transport(format!("cannot start driver `{}`: {e}", self.command))
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(PortError::Transport("driver pipes unavailable".into()));
        };
        let tail = Arc::clone(&self.stderr_tail);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(mut t) = tail.lock() {
                    if t.len() == STDERR_TAIL {
                        t.pop_front();
                    }
                    t.push_back(line);
                }
            }
        });
        self.starts += 1;
        self.seq = 0;
        self.running = Some(Running {
            child,
            stdin,
            stdout: BufReader::new(stdout).lines(),
        });
        Ok(())
    }

    /// Kills the driver's whole process group and records why.
    async fn fail(&mut self, why: String) -> PortError {
        let mut message = why;
        self.greeting = None;
        if let Some(mut running) = self.running.take() {
            if let Some(pgid) = process_group::group_of(&running.child) {
                process_group::kill_group(pgid);
            }
            let _ = running.child.start_kill();
            if let Ok(Ok(status)) =
                tokio::time::timeout(Duration::from_secs(2), running.child.wait()).await
            {
                message.push_str(&format!(" (driver exit status: {status})"));
            }
        }
        let tail = self.stderr_text();
        if !tail.is_empty() {
            message.push_str(&format!("; driver stderr (last lines): {tail}"));
        }
        self.last_failure = Some(message.clone());
        PortError::Transport(message)
    }

    fn stderr_text(&self) -> String {
        self.stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect::<Vec<_>>().join(" | "))
            .unwrap_or_default()
    }

    async fn exchange(&mut self, request: &Value) -> Result<Value, PortError> {
        let cmd = request
            .get("cmd")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        let Some(running) = self.running.as_mut() else {
            return Err(PortError::Transport("driver is not running".into()));
        };
        // Every request carries a sequence number the driver echoes, so a stray or missing
        // line can never be taken as the answer to another request.
        let seq = self.seq;
        self.seq += 1;
        let mut request = request.clone();
        if let Some(obj) = request.as_object_mut() {
            obj.insert("seq".into(), Value::from(seq));
        }
        let mut line = request.to_string();
        line.push('\n');
        let sent = tokio::time::timeout(self.timeout, async {
            running.stdin.write_all(line.as_bytes()).await?;
            running.stdin.flush().await
        });
        match sent.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                return Err(self
                    .fail(format!(
                        "driver exited or stopped reading its stdin while sending `{cmd}`: {e}"
                    ))
                    .await)
            }
            Err(_) => {
                return Err(self
                    .fail(format!(
                        "driver did not read `{cmd}` within {} ms; killed it",
                        self.timeout.as_millis()
                    ))
                    .await)
            }
        }
        let read = tokio::time::timeout(self.timeout, running.stdout.next_line()).await;
        match read {
            Err(_) => Err(self
                .fail(format!(
                    "driver did not answer `{cmd}` within {} ms; killed it",
                    self.timeout.as_millis()
                ))
                .await),
            Ok(Err(e)) => Err(self
                .fail(format!("cannot read driver stdout after `{cmd}`: {e}"))
                .await),
            Ok(Ok(None)) => Err(self
                .fail(format!(
                    "driver exited (closed its stdout) while answering `{cmd}`"
                ))
                .await),
            Ok(Ok(Some(text))) => match serde_json::from_str::<Value>(&text) {
                Ok(v @ Value::Object(_)) => match check_seq(&v, seq) {
                    Ok(()) => Ok(v),
                    Err(violation) => Err(self
                        .fail(format!(
                            "driver answered `{cmd}` out of step ({violation}), restarted it; answer was {}",
                            truncate(&text, 200)
                        ))
                        .await),
                },
                _ => Err(self
                    .fail(format!(
                        "driver printed a non-JSON-object line answering `{cmd}`: {:?}",
                        truncate(&text, 200)
                    ))
                    .await),
            },
        }
    }
}

#[async_trait]
impl Port for SubprocessPort {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        // The handshake already happened when this driver started; answer from it rather
        // than asking twice (a driver may legitimately expect one hello per process).
        if request.get("cmd").and_then(Value::as_str) == Some("hello") {
            if let Some(greeting) = &self.greeting {
                return Ok(greeting.clone());
            }
        }
        if self.running.is_none() {
            let why = self
                .last_failure
                .clone()
                .unwrap_or_else(|| "driver is not running".into());
            return Err(PortError::Transport(why));
        }
        self.exchange(&request).await
    }

    async fn ensure_ready(&mut self) -> Result<(), PortError> {
        if self.running.is_some() {
            return Ok(());
        }
        self.spawn()?;
        let hello = json!({"cmd": "hello", "protocol": PROTOCOL_VERSION});
        let restarted = self.starts > 1;
        match self.exchange(&hello).await {
            Ok(v) if v.get("ok") == Some(&Value::Bool(true)) => {
                self.greeting = Some(v);
                Ok(())
            }
            Ok(v) => Err(self
                .fail(format!(
                    "driver refused hello: {}",
                    truncate(&v.to_string(), 200)
                ))
                .await),
            Err(e) if restarted => Err(PortError::Transport(format!("driver restart failed: {e}"))),
            Err(e) => Err(e),
        }
    }

    async fn shutdown(&mut self) {
        if self.running.is_some() {
            let _ = tokio::time::timeout(
                Duration::from_millis(500),
                self.exchange(&json!({"cmd": "shutdown"})),
            )
            .await;
        }
        if let Some(mut running) = self.running.take() {
            drop(running.stdin);
            if tokio::time::timeout(Duration::from_secs(2), running.child.wait())
                .await
                .is_err()
            {
                if let Some(pgid) = process_group::group_of(&running.child) {
                    process_group::kill_group(pgid);
                }
                let _ = running.child.kill().await;
            }
        }
    }
}
