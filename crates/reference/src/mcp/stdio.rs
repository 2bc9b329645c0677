//! The local transport: spawn the server in its own process group, guard its stdout, and
//! keep the tail of its stderr for error messages.

use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use toolnexus_process_group as process_group;

/// The longest stdout line forwarded (a larger one is a protocol error, not a memory hog):
/// room for a result carrying a 64 MiB part (85.4 MiB of base64) with margin. The session
/// gives rmcp the same bound for one message, over stdio and HTTP alike (rmcp's own is 16 MiB).
pub(crate) const MAX_LINE_BYTES: usize = 128 * 1024 * 1024;
/// How much of the server's stderr is kept for error messages.
const STDERR_TAIL_BYTES: usize = 2048;
/// How much the stdout guard reads from the pipe at a time.
const READ_CHUNK_BYTES: usize = 64 * 1024;

/// Set by [`die_with_this_process`]: whether spawned servers are listed with the watchdog.
static DIE_WITH_THIS_PROCESS: AtomicBool = AtomicBool::new(false);

/// Makes every local MCP server spawned from now on die with this process, even when it is
/// killed with SIGKILL (see `toolnexus_process_group::watchdog`), so a killed driver leaves no
/// server behind.
///
/// Opt-in: a library user may well want its servers to outlive a crash of its own.
pub fn die_with_this_process() {
    DIE_WITH_THIS_PROCESS.store(true, Ordering::Relaxed);
}

/// Whether [`die_with_this_process`] was called.
fn watched() -> bool {
    DIE_WITH_THIS_PROCESS.load(Ordering::Relaxed)
}

/// What the guards learned about a misbehaving server.
#[derive(Debug, Default)]
pub struct Diagnostics {
    /// Set when the server wrote something on stdout that is not JSON-RPC.
    pub protocol_error: Option<String>,
    /// The last bytes the server wrote on stderr.
    pub stderr_tail: String,
}

/// Shared, updated by the guard tasks while the server runs.
pub type SharedDiagnostics = Arc<Mutex<Diagnostics>>;

/// A spawned server: its group is killed on `kill` or drop, so nothing it started survives.
pub struct ChildTree {
    child: Child,
    pgid: Option<i32>,
}

impl ChildTree {
    /// Kills the whole process group (the server and anything it spawned), then reaps.
    pub async fn kill(&mut self) {
        self.signal_group();
        // Reaped: the group id may be reused, so it is never signalled again.
        self.pgid = None;
        let _ = self.child.kill().await;
    }

    fn signal_group(&self) {
        if let Some(pgid) = self.pgid {
            process_group::kill_group(pgid);
            // Before the reap: until then the group id cannot be reused.
            if watched() {
                process_group::watchdog::unwatch(pgid);
            }
        }
    }
}

impl Drop for ChildTree {
    fn drop(&mut self) {
        self.signal_group();
        let _ = self.child.start_kill();
    }
}

/// A running local server, ready to hand to rmcp as `(reader, writer)`.
pub struct Spawned {
    /// Guarded stdout: only lines that parse as JSON get through.
    pub reader: GuardedStdout<ChildStdout>,
    /// The server's stdin.
    pub writer: ChildStdin,
    /// Kills the server's process tree.
    pub tree: ChildTree,
    /// What the guards noticed.
    pub diagnostics: SharedDiagnostics,
    /// Ends when the server's stderr closes (so a crash's last words can be awaited).
    pub stderr_done: tokio::task::JoinHandle<()>,
}

/// Why a local server could not be started; `Display` is its `connect` failure detail.
#[derive(Debug)]
#[non_exhaustive]
pub enum SpawnError {
    /// `argv` is empty.
    EmptyCommand,
    /// The program could not be started.
    Start {
        /// The program.
        program: String,
        /// The working directory asked for.
        cwd: Option<PathBuf>,
        /// Why.
        source: std::io::Error,
    },
    /// The child's stdio pipes were not there.
    NoPipes {
        /// The program.
        program: String,
    },
}

impl std::fmt::Display for SpawnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpawnError::EmptyCommand => f.write_str("empty command"),
            SpawnError::Start {
                program,
                cwd: Some(dir),
                source,
            } => write!(
                f,
                "cannot start \"{program}\" in \"{}\": {source}",
                dir.display()
            ),
            SpawnError::Start {
                program,
                cwd: None,
                source,
            } => write!(f, "cannot start \"{program}\": {source}"),
            SpawnError::NoPipes { program } => {
                write!(f, "cannot open the pipes of \"{program}\"")
            }
        }
    }
}

impl std::error::Error for SpawnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SpawnError::Start { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Spawns `argv` with the inherited environment plus `env`, in `cwd`, in a new process group.
pub fn spawn(
    argv: &[String],
    env: &[(String, String)],
    cwd: Option<&PathBuf>,
) -> Result<Spawned, SpawnError> {
    let (program, args) = argv.split_first().ok_or(SpawnError::EmptyCommand)?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().map_err(|source| SpawnError::Start {
        program: program.clone(),
        cwd: cwd.cloned(),
        source,
    })?;
    let pgid = process_group::group_of(&child);
    if let Some(pgid) = pgid.filter(|_| watched()) {
        process_group::watchdog::watch(pgid);
    }
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(SpawnError::NoPipes {
            program: program.clone(),
        });
    };
    let diagnostics = SharedDiagnostics::default();
    let stderr_done = tokio::spawn(keep_stderr_tail(stderr, diagnostics.clone()));
    Ok(Spawned {
        stderr_done,
        reader: GuardedStdout::new(stdout, diagnostics.clone()),
        writer: stdin,
        tree: ChildTree { child, pgid },
        diagnostics,
    })
}

/// The server's stdout as rmcp reads it: only whole lines that parse as JSON get through,
/// and the first line that is not JSON ends the stream, because the MCP stdio transport says
/// a server MUST NOT write anything else there and waiting for a valid message after garbage
/// would only turn a fast failure into a timeout.
///
/// It filters in place, inside rmcp's own reads: no task and no second pipe between the
/// server and rmcp, so a response costs no extra wake-up or copy through a channel.
pub struct GuardedStdout<R> {
    inner: R,
    /// Bytes read past the last newline (an incomplete line).
    pending: Vec<u8>,
    /// Checked lines, each ending in a newline, not yet handed to the reader.
    ready: Vec<u8>,
    /// How much of `ready` was handed out.
    ready_pos: usize,
    /// Set on EOF, an error or garbage: once `ready` is drained, reads return EOF.
    ended: bool,
    chunk: Box<[u8]>,
    diagnostics: SharedDiagnostics,
}

impl<R> GuardedStdout<R> {
    /// Guards `inner`, recording why the stream ended early in `diagnostics`.
    pub fn new(inner: R, diagnostics: SharedDiagnostics) -> Self {
        GuardedStdout {
            inner,
            pending: Vec::new(),
            ready: Vec::new(),
            ready_pos: 0,
            ended: false,
            chunk: vec![0u8; READ_CHUNK_BYTES].into_boxed_slice(),
            diagnostics,
        }
    }

    fn fail(&mut self, problem: String) {
        self.ended = true;
        self.pending = Vec::new();
        if let Ok(mut d) = self.diagnostics.lock() {
            d.protocol_error = Some(problem);
        }
    }

    /// Checks one line (without its newline); false when it ended the stream.
    fn take_line(&mut self, line: &[u8]) -> bool {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return true;
        }
        if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok() {
            self.ready.extend_from_slice(line);
            self.ready.push(b'\n');
            return true;
        }
        let text = String::from_utf8_lossy(line);
        self.fail(format!(
            "the server wrote a line that is not JSON-RPC on stdout: {:?}",
            excerpt(&text)
        ));
        false
    }

    /// Moves every complete line of `pending` (new bytes start at `from`) to `ready`.
    fn split_lines(&mut self, from: usize) {
        let mut pending = std::mem::take(&mut self.pending);
        let mut start = 0;
        let mut search = from;
        while let Some(at) = pending[search..].iter().position(|&b| b == b'\n') {
            let end = search + at;
            if start == 0
                && end >= READ_CHUNK_BYTES
                && self.ready.is_empty()
                && pending[end - 1] != b'\r'
            {
                // A long line that is all of `ready`-to-be: hand over `pending` itself, not a
                // copy, so a message of tens of megabytes (a big content part) is held once.
                if serde_json::from_slice::<serde::de::IgnoredAny>(&pending[..end]).is_ok() {
                    let rest = pending.split_off(end + 1);
                    self.ready = std::mem::replace(&mut pending, rest);
                    search = 0;
                    continue;
                }
            }
            if !self.take_line(&pending[start..end]) {
                return;
            }
            start = end + 1;
            search = start;
        }
        pending.drain(..start);
        self.pending = pending;
        if self.pending.len() > MAX_LINE_BYTES {
            self.fail(format!(
                "the server wrote a stdout line longer than {MAX_LINE_BYTES} bytes"
            ));
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for GuardedStdout<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.ready_pos < this.ready.len() {
                let n = buf.remaining().min(this.ready.len() - this.ready_pos);
                buf.put_slice(&this.ready[this.ready_pos..this.ready_pos + n]);
                this.ready_pos += n;
                if this.ready_pos == this.ready.len() {
                    if this.ready.capacity() > 16 * READ_CHUNK_BYTES {
                        // Give a long line's memory back now rather than keep it for good.
                        this.ready = Vec::new();
                    } else {
                        this.ready.clear();
                    }
                    this.ready_pos = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = ReadBuf::new(&mut this.chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut chunk) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => this.fail(format!("the server's stdout failed: {e}")),
                Poll::Ready(Ok(())) if chunk.filled().is_empty() => {
                    // EOF: a last line without its newline still counts.
                    let last = std::mem::take(&mut this.pending);
                    this.take_line(&last);
                    this.ended = true;
                }
                Poll::Ready(Ok(())) => {
                    let from = this.pending.len();
                    let n = chunk.filled().len();
                    this.pending.extend_from_slice(&this.chunk[..n]);
                    this.split_lines(from);
                }
            }
        }
    }
}

/// Drains stderr so the server never blocks on a full pipe, keeping only the tail.
async fn keep_stderr_tail(mut stderr: impl AsyncRead + Unpin, diagnostics: SharedDiagnostics) {
    let mut buf = vec![0u8; 4096];
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let Ok(mut d) = diagnostics.lock() else {
                    return;
                };
                d.stderr_tail.push_str(&String::from_utf8_lossy(&buf[..n]));
                if d.stderr_tail.len() > STDERR_TAIL_BYTES {
                    let mut cut = d.stderr_tail.len() - STDERR_TAIL_BYTES;
                    while !d.stderr_tail.is_char_boundary(cut) {
                        cut += 1;
                    }
                    d.stderr_tail.drain(..cut);
                }
            }
        }
    }
}

/// The first 80 characters of a line, for messages.
fn excerpt(line: &str) -> String {
    let mut out: String = line.chars().take(80).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn garbage_on_stdout_ends_the_stream_with_a_reason() {
        let input: &[u8] = b"{\"jsonrpc\":\"2.0\"}\n\nnot json at all\n{\"after\":1}\n";
        let diagnostics = SharedDiagnostics::default();
        let mut reader = GuardedStdout::new(input, diagnostics.clone());
        let mut got = String::new();
        reader.read_to_string(&mut got).await.unwrap();
        assert_eq!(got, "{\"jsonrpc\":\"2.0\"}\n");
        let d = diagnostics.lock().unwrap();
        assert!(d
            .protocol_error
            .as_deref()
            .unwrap()
            .contains("not json at all"));
    }

    #[tokio::test]
    async fn lines_split_across_reads_crlf_and_a_last_line_without_newline_get_through() {
        let (mut tx, rx) = tokio::io::duplex(64);
        let diagnostics = SharedDiagnostics::default();
        let mut reader = GuardedStdout::new(rx, diagnostics.clone());
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            for part in [&b"{\"a\":"[..], b"1}\r\n  \n[2", b"]\n{\"b\"", b":3}"] {
                tx.write_all(part).await.unwrap();
                tokio::task::yield_now().await;
            }
        });
        let mut got = String::new();
        reader.read_to_string(&mut got).await.unwrap();
        writer.await.unwrap();
        assert_eq!(got, "{\"a\":1}\n[2]\n{\"b\":3}\n");
        assert!(diagnostics.lock().unwrap().protocol_error.is_none());
    }

    #[tokio::test]
    async fn long_lines_get_through_whole_and_in_order() {
        let long = |c: char| format!("{{\"data\":\"{}\"}}", c.to_string().repeat(300_000));
        let (a, b) = (long('a'), long('b'));
        let (mut tx, rx) = tokio::io::duplex(64 * 1024);
        let diagnostics = SharedDiagnostics::default();
        let mut reader = GuardedStdout::new(rx, diagnostics.clone());
        let input = format!("{a}\n{b}\r\n[1]\n{a}\nnot json\n[2]\n");
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            tx.write_all(input.as_bytes()).await.unwrap();
        });
        let mut got = String::new();
        reader.read_to_string(&mut got).await.unwrap();
        writer.await.unwrap();
        assert!(got == format!("{a}\n{b}\n[1]\n{a}\n"), "{}", got.len());
        assert!(diagnostics
            .lock()
            .unwrap()
            .protocol_error
            .as_deref()
            .unwrap()
            .contains("not json"));
    }

    #[tokio::test]
    async fn stderr_keeps_only_the_tail() {
        let big = "x".repeat(10_000) + "the end";
        let diagnostics = SharedDiagnostics::default();
        keep_stderr_tail(big.as_bytes(), diagnostics.clone()).await;
        let d = diagnostics.lock().unwrap();
        assert!(d.stderr_tail.len() <= STDERR_TAIL_BYTES);
        assert!(d.stderr_tail.ends_with("the end"));
    }

    #[tokio::test]
    async fn kill_takes_the_whole_group() {
        let argv = ["sh", "-c", "sleep 300 & echo $! >&2; wait"].map(String::from);
        let mut spawned = spawn(&argv, &[], None).unwrap();
        let mut pid = String::new();
        for _ in 0..100 {
            pid = spawned
                .diagnostics
                .lock()
                .unwrap()
                .stderr_tail
                .trim()
                .to_string();
            if !pid.is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let pid: i32 = pid.parse().unwrap();
        spawned.tree.kill().await;
        let mut gone = false;
        for _ in 0..100 {
            // An unreaped zombie counts as gone.
            if process_group::is_gone(pid) {
                gone = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert!(gone, "the grandchild {pid} survived");
    }
}
