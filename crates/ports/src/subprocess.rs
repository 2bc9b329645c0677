//! A port driven over a child process's stdin/stdout (line-delimited JSON).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

use crate::children;
use crate::log_watch::LogWatch;
use crate::port::{truncate, Port, PortError};
use crate::secret;
use crate::trace::Tracer;
use toolnexus_process_group as process_group;
use toolnexus_protocol::Command as ProtocolCommand;
use toolnexus_protocol::{check_seq, Framed, Request, PROTOCOL_VERSION};

/// How many stderr lines of a driver are kept for failure messages.
const STDERR_TAIL: usize = 12;

/// The longest stderr line kept, in bytes; the rest of the line is dropped (and counted).
const STDERR_LINE_MAX: usize = 4096;

/// The most of the stderr tail a failure message carries, in characters (its end is kept):
/// the message is copied into every scenario the failure fails.
const STDERR_IN_MESSAGE: usize = 1024;

/// The most stderr lines naming a cause (a stack trace's head, every `Caused by:`) a failure
/// message carries besides the tail, whenever the driver wrote them: a 60-line Java trace
/// pushes its `Exception in thread` line out of the tail, and that line says what broke.
const CAUSE_LINES: usize = 16;

/// The most of the cause lines a failure message carries, in characters (their start is
/// kept); with [`STDERR_IN_MESSAGE`] the whole excerpt stays under 2,048 characters and notes.
const CAUSES_IN_MESSAGE: usize = 1024;

/// The longest answer line the harness reads, in bytes. A longer line fails the request as
/// a protocol violation and is not read further, so a driver flooding its stdout without a
/// newline costs the harness at most this much memory. Room for a result carrying a 64 MiB
/// content part (85.4 MiB of base64) with margin.
pub const MAX_LINE: usize = 128 * 1024 * 1024;

/// The end of one driver process's stderr: its last lines, each cut to a bound.
#[derive(Default)]
struct StderrTail {
    lines: VecDeque<String>,
    /// The line being written (no newline yet), at most `STDERR_LINE_MAX` + the secret's
    /// length bytes: the margin lets a secret straddling the cut be redacted before cutting.
    current: Vec<u8>,
    /// Bytes of the current line dropped beyond what `current` keeps.
    current_dropped: u64,
    /// Lines that fell off the front of `lines`.
    earlier_lines: u64,
    /// What the process wrote before its first scenario (its start-up and `hello`), kept for
    /// every later message: the same for each process, so for any `--jobs`.
    startup: Vec<String>,
    /// Whether the process has begun a scenario (`startup` is then fixed).
    began: bool,
    /// The lines naming a cause since the scenario began (at most [`CAUSE_LINES`]).
    causes: Vec<String>,
    /// Those of the start-up, kept for every later message as `startup` is.
    startup_causes: Vec<String>,
    /// How many lines after a stack trace's head are still kept as its head.
    follow: usize,
    /// Paths the lines name by a placeholder instead ([`SubprocessPort::naming`]).
    aliases: Vec<(String, String)>,
}

impl StderrTail {
    fn push(&mut self, bytes: &[u8], keep: usize) {
        for piece in bytes.split_inclusive(|b| *b == b'\n') {
            let (text, ends) = match piece.strip_suffix(b"\n") {
                Some(t) => (t, true),
                None => (piece, false),
            };
            let room = keep.saturating_sub(self.current.len());
            let taken = room.min(text.len());
            self.current.extend_from_slice(&text[..taken]);
            self.current_dropped += (text.len() - taken) as u64;
            if ends {
                self.end_line();
            }
        }
    }

    /// Forgets the finished lines: a failure message then shows what the driver wrote
    /// during the scenario at hand, the same however many scenarios the process ran before
    /// (`run --jobs N` spreads them over several drivers).
    fn forget_finished_lines(&mut self) {
        if !self.began {
            self.began = true;
            self.startup_causes = std::mem::take(&mut self.causes);
            self.startup = self.lines.drain(..).collect();
            if self.earlier_lines > 0 {
                let note = format!("({} earlier lines not kept)", self.earlier_lines);
                self.startup.insert(0, note);
            }
        }
        self.lines.clear();
        self.earlier_lines = 0;
        self.causes.clear();
        self.follow = 0;
    }

    fn end_line(&mut self) {
        let line = render_line(&self.current, self.current_dropped, &self.aliases);
        self.current.clear();
        self.current_dropped = 0;
        self.note_cause(&line);
        if self.lines.len() == STDERR_TAIL {
            self.lines.pop_front();
            self.earlier_lines += 1;
        }
        self.lines.push_back(line);
    }

    /// Keeps `line` among the causes when it heads a stack trace, follows one's head, or is a
    /// `Caused by:` line.
    fn note_cause(&mut self, line: &str) {
        let follows = if line.trim().is_empty() {
            false
        } else if self.follow > 0 {
            self.follow -= 1;
            true
        } else {
            false
        };
        let head = trace_head(line);
        if let Some(after) = head {
            self.follow = after;
        }
        if (head.is_some() || follows) && self.causes.len() < CAUSE_LINES {
            self.causes.push(line.to_string());
        }
    }

    /// The cause lines (start-up's, then this scenario's) not already in `tail`, as one
    /// fragment cut to [`CAUSES_IN_MESSAGE`] characters.
    fn causes_text(&self, tail: &str) -> String {
        let lines: Vec<&str> = self
            .startup_causes
            .iter()
            .chain(&self.causes)
            .map(String::as_str)
            .filter(|l| !tail.contains(*l))
            .collect();
        keep_start(&lines.join(" | "), CAUSES_IN_MESSAGE)
    }

    /// The excerpt as one message fragment: the cause lines the tail lost, then the tail, each
    /// redacted and cut to its bound ([`CAUSES_IN_MESSAGE`], [`STDERR_IN_MESSAGE`]).
    fn text(&self) -> String {
        let tail = self.tail_text();
        let causes = self.causes_text(&tail);
        if causes.is_empty() {
            tail
        } else {
            format!("cause lines: {causes} | tail: {tail}")
        }
    }

    /// The tail as one message fragment: redacted, then cut to `STDERR_IN_MESSAGE` chars.
    fn tail_text(&self) -> String {
        let mut lines: Vec<String> = self.lines.iter().cloned().collect();
        if !self.current.is_empty() || self.current_dropped > 0 {
            lines.push(render_line(
                &self.current,
                self.current_dropped,
                &self.aliases,
            ));
        }
        let mut text = lines.join(" | ");
        if self.earlier_lines > 0 && !text.is_empty() {
            text = format!("({} earlier lines not kept) {text}", self.earlier_lines);
        }
        if !self.startup.is_empty() {
            let startup = format!("at start: {}", self.startup.join(" | "));
            text = if text.is_empty() {
                startup
            } else {
                format!("{startup} | then: {text}")
            };
        }
        keep_end(&text, STDERR_IN_MESSAGE)
    }
}

/// One stderr line as kept: lossy UTF-8, redacted, each aliased path named by its
/// placeholder, then cut to `STDERR_LINE_MAX` bytes with a note of how much was dropped.
fn render_line(bytes: &[u8], dropped: u64, aliases: &[(String, String)]) -> String {
    let mut text = secret::redact(&String::from_utf8_lossy(bytes));
    for (path, name) in aliases {
        if text.contains(path.as_str()) {
            text = text.replace(path.as_str(), name);
        }
    }
    if text.len() <= STDERR_LINE_MAX && dropped == 0 {
        return text;
    }
    let mut cut = STDERR_LINE_MAX.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let total = bytes.len() as u64 + dropped;
    format!("{}… (line truncated, {total} bytes)", &text[..cut])
}

/// Whether `line` heads a stack trace or names its cause, and then how many of the next
/// non-blank lines belong to that head: Python's `Traceback` (its first frame and code line),
/// Java's `Exception in thread` (its first `at`), every `Caused by:` (its first `at`), Go's
/// `panic:` (its `[signal …]` and `goroutine … [running]:` lines) and Rust's `panicked at` (the message, on the
/// next line since Rust 1.73).
fn trace_head(line: &str) -> Option<usize> {
    let t = line.trim_start();
    if t.starts_with("Traceback (most recent call last):") {
        Some(2)
    } else if t.starts_with("Exception in thread ") || t.starts_with("Caused by:") {
        Some(1)
    } else if t.starts_with("panic: ") || t.starts_with("fatal error: ") {
        // The `[signal …]` line when there is one, and the `goroutine N [running]:` line.
        Some(2)
    } else if t.contains(" panicked at ") {
        Some(1)
    } else {
        None
    }
}

/// The first `max` characters of `text`, with a note when some were cut.
fn keep_start(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}… (truncated, {count} chars)")
}

/// The last `max` characters of `text`, with a note when some were cut.
fn keep_end(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let kept: String = text.chars().skip(count - max).collect();
    format!("(truncated, {count} chars) …{kept}")
}

/// Reads a driver's stderr into `tail` until the driver closes it, as bytes: no content
/// (invalid UTF-8 included) makes the harness stop reading and so break the driver's logging.
async fn read_stderr(
    mut stderr: ChildStderr,
    tail: Arc<Mutex<StderrTail>>,
    log: Arc<Mutex<LogWatch>>,
) {
    let keep = STDERR_LINE_MAX + secret::current().map_or(0, |s| s.len());
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => {
                if let Ok(mut w) = log.lock() {
                    w.feed(&buf[..n]);
                }
                if let Ok(mut t) = tail.lock() {
                    t.push(&buf[..n], keep);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
}

/// How a request to the driver went wrong: which [`PortError`] [`SubprocessPort::fail`] makes.
enum Fault {
    /// No answer to the command within the limit.
    NoAnswer { command: String, limit: Duration },
    /// The driver exited while the command was open.
    Exited(String),
    /// The driver printed garbage answering the command.
    Garbage(String),
    /// Any other transport failure.
    Other,
}

impl Fault {
    fn no_answer(command: &str, limit: Duration) -> Fault {
        Fault::NoAnswer {
            command: command.to_string(),
            limit,
        }
    }

    /// The error carrying `message`.
    fn error(self, message: String) -> PortError {
        match self {
            Fault::NoAnswer { command, limit } => PortError::NoAnswer {
                command,
                limit_ms: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
                message,
            },
            Fault::Exited(command) => PortError::Exited { command, message },
            Fault::Garbage(command) => PortError::Garbage { command, message },
            Fault::Other => PortError::Transport(message),
        }
    }
}

/// The message of a request that got no answer (`verb`: the driver did not `read` or
/// `answer` it) within `limit`: the harness's words ([`crate::late::no_answer`]), which
/// limit it was, and any SPEC default the request left in force that is longer.
fn no_answer_text(verb: &str, cmd: &str, limit: Duration, request: &Value) -> String {
    let which = if cmd == ProtocolCommand::Hello.as_str() {
        "the start-up limit, `--startup-timeout-ms`"
    } else {
        "the request limit, `--timeout-ms`"
    };
    let mut text = format!(
        "{} ({which}); killed it",
        crate::late::no_answer("driver", verb, cmd, limit)
    );
    if let Some(note) = crate::spec_default::longer_than_limit(request, limit) {
        text.push_str("; ");
        text.push_str(&note);
    }
    text
}

/// One answer line, read with a bound.
enum Line {
    /// The line, without its newline.
    Text(Vec<u8>),
    /// The driver closed its stdout before any byte of a line.
    Eof,
    /// The line grew past `MAX_LINE` bytes; it was not read further.
    TooLong,
}

/// Reads one line of at most `max` bytes (a last line without newline counts as a line).
async fn read_line_capped(
    reader: &mut BufReader<ChildStdout>,
    max: usize,
) -> std::io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if line.is_empty() {
                Line::Eof
            } else {
                Line::Text(line)
            });
        }
        let (take, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (i, true),
            None => (buf.len(), false),
        };
        if line.len() + take > max {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(&buf[..take]);
        reader.consume(if done { take + 1 } else { take });
        if done {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Line::Text(line));
        }
    }
}

/// The room a driver's answers get: a pipe of [`ANSWER_PIPE`] bytes where the system allows it,
/// read in pieces of [`ANSWER_READ`]. With Linux's 64 KiB pipe and an 8 KiB reader, a 1 MB
/// answer (a 5,000-skill catalog) crosses in a hundred reads, the driver blocked on the pipe
/// and woken again between them; every port pays that alike, and the bench timed it as theirs.
fn answer_reader(stdout: ChildStdout) -> BufReader<ChildStdout> {
    use std::os::fd::AsFd;
    // Best effort: above the system's cap (/proc/sys/fs/pipe-max-size) or the user's pipe
    // quota the pipe keeps its size, which is only slower.
    let _ = nix::fcntl::fcntl(
        stdout.as_fd(),
        nix::fcntl::FcntlArg::F_SETPIPE_SZ(ANSWER_PIPE),
    );
    BufReader::with_capacity(ANSWER_READ, stdout)
}

/// The pipe size asked for a driver's stdout (Linux's default cap for unprivileged users).
const ANSWER_PIPE: nix::libc::c_int = 1 << 20;

/// How long a driver's log must be quiet before a log check reads it (`log_mentioned`).
const LOG_QUIET: Duration = Duration::from_millis(100);

/// The longest a log check waits for the log to be quiet.
const LOG_SETTLE: Duration = Duration::from_secs(3);

/// The piece a driver's answers are read in.
const ANSWER_READ: usize = 256 * 1024;

struct Running {
    /// First, so that a dropped `Running` kills the group before `child` goes (and may be
    /// reaped).
    group: DriverGroup,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// This process's stderr only: a restarted driver's messages never show its predecessor's.
    stderr: Arc<Mutex<StderrTail>>,
    stderr_reader: JoinHandle<()>,
    /// Keeps the driver's group in the registry an interrupted run stops.
    _lease: Option<children::Lease>,
}

/// A driver's process group, listed with the watchdog (`toolnexus_process_group::watchdog`)
/// from the spawn until the harness kills it: a harness killed with SIGKILL, which cannot
/// clean up, still takes the group with it, a driver that ignores the end of its stdin and
/// its `sleep 300 &` included (NOTES #160). Unlisted before the leader is reaped, so a reused
/// id is never signalled.
struct DriverGroup(Option<i32>);

impl DriverGroup {
    /// Lists the group of a driver just spawned as its leader (`None`: nothing to list).
    fn watch(pgid: Option<i32>) -> Self {
        if let Some(pgid) = pgid {
            process_group::watchdog::watch(pgid);
        }
        Self(pgid)
    }

    /// SIGKILLs the driver's tree ([`kill_driver_tree`]) and unlists it; call before the reap.
    fn kill(&mut self) {
        if let Some(pgid) = self.0.take() {
            kill_driver_tree(pgid);
            process_group::watchdog::unwatch(pgid);
        }
    }

    /// After a clean exit of the leader (reaped): SIGKILLs what is left in its group (a
    /// `sleep 300 &`: started for the run, it ends with it, NOTES #161) and unlists it. The
    /// group id cannot have been reused while any of them is alive.
    fn end_leftovers(&mut self) {
        if let Some(pgid) = self.0.take() {
            process_group::kill_group(pgid);
            process_group::watchdog::unwatch(pgid);
        }
    }
}

impl Drop for DriverGroup {
    /// A driver abandoned unkilled (its port dropped mid-run) goes now, its group with it,
    /// rather than at the watchdog's hands when the harness ends.
    fn drop(&mut self) {
        self.kill();
    }
}

/// SIGKILLs the driver's group and every group its descendants lead or joined (an MCP
/// server or a bash call in a group of its own), read before any of them dies.
fn kill_driver_tree(pgid: i32) {
    let below = process_group::descendants(pgid);
    process_group::kill_group(pgid);
    for p in below {
        if p.pgid != pgid && p.pgid != nix::unistd::getpgrp().as_raw() {
            process_group::kill_group(p.pgid);
        }
        process_group::signal_process(p.pid, process_group::Signal::SIGKILL);
    }
}

/// How long a driver may take to start and answer `hello` by default: an interpreter loading
/// its libraries with several others starting beside it (`--jobs`) on a busy machine can
/// take seconds, and that is not the behaviour under test.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// A driver program started with `sh -c <command>`.
pub struct SubprocessPort {
    command: String,
    timeout: Duration,
    /// The bound on `hello`, which also covers the driver's start-up.
    startup_timeout: Duration,
    running: Option<Running>,
    /// A protocol violation (a line out of step, unreadable or unasked for) since the runner
    /// last asked: it fails the scenario even when it happened in the scenario's clean-up.
    violation: Option<String>,
    /// Why the driver last stopped: what a request gets until it is restarted.
    last_failure: Option<PortError>,
    starts: u32,
    greeting: Option<Value>,
    cwd: Option<PathBuf>,
    /// Paths the driver's stderr names by a placeholder in failure messages, in order.
    aliases: Vec<(String, String)>,
    seq: u64,
    tracer: Option<Tracer>,
    /// What the scenario watches the driver's log for; kept across a restart of the driver.
    log: Arc<Mutex<LogWatch>>,
}

impl SubprocessPort {
    /// A port for `command`, with a per-request timeout; the driver starts lazily. Its
    /// `hello`, which includes the driver's start-up, may take [`DEFAULT_STARTUP_TIMEOUT`]
    /// or `timeout`, the longer.
    pub fn new(command: impl Into<String>, timeout: Duration) -> Self {
        Self {
            command: command.into(),
            timeout,
            startup_timeout: timeout.max(DEFAULT_STARTUP_TIMEOUT),
            running: None,
            violation: None,
            last_failure: None,
            starts: 0,
            greeting: None,
            log: Arc::default(),
            cwd: None,
            aliases: Vec::new(),
            seq: 0,
            tracer: None,
        }
    }

    /// Bounds `hello` (the driver's start-up included) by `startup` instead of the default.
    pub fn with_startup_timeout(mut self, startup: Duration) -> Self {
        self.startup_timeout = startup;
        self
    }

    /// Runs the driver command in `dir` (registered commands are relative to the checkout).
    pub fn in_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Names `path` as `placeholder` wherever the driver's stderr quotes it in a failure
    /// message (after any path given before): the suite's folder and the harness's binary
    /// differ between machines and, for the embedded suite's fresh temp copy, between runs,
    /// and a report must not. A path of one character or none is never aliased.
    pub fn naming(mut self, path: &std::path::Path, placeholder: &str) -> Self {
        let path = path.to_string_lossy();
        if path.len() > 1 {
            self.aliases
                .push((path.into_owned(), placeholder.to_string()));
        }
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
        let group = DriverGroup::watch(process_group::group_of(&child));
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(PortError::Transport("driver pipes unavailable".into()));
        };
        let tail = Arc::new(Mutex::new(StderrTail {
            aliases: self.aliases.clone(),
            ..StderrTail::default()
        }));
        let stderr_reader = tokio::spawn(read_stderr(
            stderr,
            Arc::clone(&tail),
            Arc::clone(&self.log),
        ));
        let lease = process_group::group_of(&child).map(children::register_group);
        self.starts += 1;
        self.seq = 0;
        self.running = Some(Running {
            group,
            child,
            stdin,
            stdout: answer_reader(stdout),
            stderr: tail,
            stderr_reader,
            _lease: lease,
        });
        Ok(())
    }

    /// Kills the driver's whole process group and records why, as the error of `fault`.
    async fn fail(&mut self, fault: Fault, why: String) -> PortError {
        let mut message = why;
        self.greeting = None;
        if let Some(mut running) = self.running.take() {
            running.group.kill();
            let _ = running.child.start_kill();
            if let Ok(Ok(status)) =
                tokio::time::timeout(Duration::from_secs(2), running.child.wait()).await
            {
                message.push_str(&format!(" (driver exit status: {status})"));
            }
            // The group is dead, so its stderr ends: wait briefly for its last lines.
            let _ =
                tokio::time::timeout(Duration::from_millis(500), &mut running.stderr_reader).await;
            running.stderr_reader.abort();
            let tail = running.stderr.lock().map(|t| t.text()).unwrap_or_default();
            if !tail.is_empty() {
                message.push_str(&format!(
                    "; driver stderr (its start, then this scenario's last lines): {tail}"
                ));
            }
        }
        let error = fault.error(message);
        self.last_failure = Some(error.clone());
        error
    }

    /// [`Self::fail`] for a line that breaks the protocol (garbage answering `cmd`): also kept
    /// for the runner.
    async fn violate(&mut self, cmd: &str, why: String) -> PortError {
        let error = self.fail(Fault::Garbage(cmd.to_string()), why).await;
        if self.violation.is_none() {
            self.violation = Some(error.to_string());
        }
        error
    }

    /// Sends `request` and reads its answer line as text (UTF-8, within [`MAX_LINE`]), without
    /// parsing it; returns the command's name and the sequence number sent with it.
    async fn exchange_text(&mut self, request: Value) -> Result<(String, u64, String), PortError> {
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
        let request = Framed::number(request, seq);
        // Straight into bytes (`to_string` formats through `fmt::Display`, piece by piece).
        let mut line = serde_json::to_vec(&request).unwrap_or_default();
        line.push(b'\n');
        if let Some(t) = &self.tracer {
            t.request(&request);
        }
        let limit = if cmd == ProtocolCommand::Hello.as_str() {
            self.startup_timeout
        } else {
            self.timeout
        };
        let sent = tokio::time::timeout(limit, async {
            running.stdin.write_all(&line).await?;
            running.stdin.flush().await
        });
        match sent.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                return Err(self
                    .fail(
                        Fault::Exited(cmd.clone()),
                        format!(
                            "driver exited or stopped reading its stdin while sending `{cmd}`: {e}"
                        ),
                    )
                    .await)
            }
            Err(_) => {
                let why = no_answer_text("read", &cmd, limit, &request);
                return Err(self.fail(Fault::no_answer(&cmd, limit), why).await);
            }
        }
        let read =
            tokio::time::timeout(limit, read_line_capped(&mut running.stdout, MAX_LINE)).await;
        match read {
            Err(_) => {
                let why = no_answer_text("answer", &cmd, limit, &request);
                Err(self.fail(Fault::no_answer(&cmd, limit), why).await)
            }
            Ok(Err(e)) => Err(self
                .fail(
                    Fault::Other,
                    format!("cannot read driver stdout after `{cmd}`: {e}"),
                )
                .await),
            Ok(Ok(Line::Eof)) => Err(self
                .fail(
                    Fault::Exited(cmd.clone()),
                    format!("driver exited (closed its stdout) while answering `{cmd}`"),
                )
                .await),
            Ok(Ok(Line::TooLong)) => Err(self
                .violate(&cmd, format!(
                    "protocol violation: driver's answer line longer than {} MiB answering `{cmd}`; stopped reading it and killed the driver",
                    MAX_LINE / (1024 * 1024)
                ))
                .await),
            Ok(Ok(Line::Text(bytes))) => match String::from_utf8(bytes) {
                Ok(text) => Ok((cmd, seq, text)),
                Err(e) => {
                    let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
                    if let Some(t) = &self.tracer {
                        t.raw_answer(&lossy);
                    }
                    Err(self
                        .violate(
                            &cmd,
                            format!(
                                "driver printed a line that is not UTF-8 answering `{cmd}`: {:?}",
                                truncate(&lossy, 200)
                            ),
                        )
                        .await)
                }
            },
        }
    }

    /// Sends `request` and parses its answer: a JSON object echoing the request's `seq`.
    async fn exchange(&mut self, request: Value) -> Result<Value, PortError> {
        let (cmd, seq, text) = self.exchange_text(request).await?;
        let parsed = serde_json::from_str::<Value>(&text);
        if let Some(t) = &self.tracer {
            match &parsed {
                Ok(v @ Value::Object(_)) => t.answer(v),
                _ => t.raw_answer(&text),
            }
        }
        match parsed {
            Ok(v @ Value::Object(_)) => match check_seq(&v, seq) {
                Ok(()) => Ok(v),
                Err(violation) => Err(self.out_of_step(&cmd, &violation, &text).await),
            },
            _ => Err(self.not_an_object(&cmd, &text).await),
        }
    }

    /// [`Self::exchange`] checking the answer only as far as the transport needs (a JSON
    /// object echoing the request's `seq`), without building it: its text is returned.
    async fn exchange_unparsed(&mut self, request: Value) -> Result<String, PortError> {
        if self.tracer.is_some() {
            // A trace records parsed answers.
            return self.exchange(request).await.map(|v| v.to_string());
        }
        let (cmd, seq, text) = self.exchange_text(request).await?;
        match Envelope::read(&text) {
            Some(envelope) => match envelope.check(seq) {
                Ok(()) => Ok(text),
                Err(violation) => Err(self.out_of_step(&cmd, &violation, &text).await),
            },
            None => Err(self.not_an_object(&cmd, &text).await),
        }
    }

    /// The handshake's answer when `request` is a `hello`: it already happened when this driver
    /// started, and a driver may legitimately expect one hello per process.
    fn greeting_for(&self, request: &Value) -> Option<&Value> {
        let hello =
            request.get("cmd").and_then(Value::as_str) == Some(ProtocolCommand::Hello.as_str());
        self.greeting.as_ref().filter(|_| hello)
    }

    /// Fails with why the driver is not running, if it is not.
    fn ensure_running(&self) -> Result<(), PortError> {
        if self.running.is_some() {
            return Ok(());
        }
        Err(self
            .last_failure
            .clone()
            .unwrap_or_else(|| PortError::Transport("driver is not running".into())))
    }

    /// The violation of an answer whose `seq` is not the request's.
    async fn out_of_step(
        &mut self,
        cmd: &str,
        violation: &impl std::fmt::Display,
        text: &str,
    ) -> PortError {
        self.violate(
            cmd,
            format!(
                "driver answered `{cmd}` out of step ({violation}), restarted it; answer was {}",
                truncate(text, 200)
            ),
        )
        .await
    }

    /// The violation of an answer line that is not one JSON object.
    async fn not_an_object(&mut self, cmd: &str, text: &str) -> PortError {
        self.violate(
            cmd,
            format!(
                "driver printed a non-JSON-object line answering `{cmd}`: {:?}",
                truncate(text, 200)
            ),
        )
        .await
    }

    /// A line the driver printed that no request asked for, if one is already waiting.
    async fn stray_line(&mut self) -> Option<String> {
        let running = self.running.as_mut()?;
        // A zero timeout still polls once: data already buffered or in the pipe is seen,
        // and nothing is waited for (the check runs after every scenario).
        match tokio::time::timeout(Duration::ZERO, running.stdout.fill_buf()).await {
            Ok(Ok(buf)) if !buf.is_empty() => {
                let head = String::from_utf8_lossy(&buf[..buf.len().min(400)]).into_owned();
                let head = head.lines().next().unwrap_or_default().to_string();
                Some(head)
            }
            _ => None,
        }
    }
}

/// What the transport reads of an answer it does not parse: its `seq`, the rest of the object
/// only checked to be well-formed JSON (skipped without being built).
struct Envelope {
    /// Absent is `None`; a `null` is kept, as [`check_seq`] reads it.
    seq: Option<Value>,
}

impl<'de> serde::Deserialize<'de> for Envelope {
    /// Read as the parsing path reads the object: a JSON object only, the last of repeated
    /// keys winning. A derived struct would also read an array, and would refuse a repeated
    /// `seq` that the parsing path takes.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = Envelope;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Envelope, A::Error> {
                let mut seq = None;
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "seq" {
                        seq = Some(map.next_value::<Value>()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(Envelope { seq })
            }
        }
        d.deserialize_map(Fields)
    }
}

impl Envelope {
    /// The envelope of `text`, if it is one JSON object.
    fn read(text: &str) -> Option<Envelope> {
        serde_json::from_str(text).ok()
    }

    /// Checks the echoed `seq` as [`check_seq`] does.
    fn check(self, expected: u64) -> Result<(), toolnexus_protocol::ProtocolViolation> {
        let mut echoed = serde_json::Map::new();
        if let Some(seq) = self.seq {
            echoed.insert("seq".into(), seq);
        }
        check_seq(&Value::Object(echoed), expected)
    }
}

#[async_trait]
impl Port for SubprocessPort {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        if let Some(greeting) = self.greeting_for(&request) {
            return Ok(greeting.clone());
        }
        self.ensure_running()?;
        self.exchange(request).await
    }

    async fn call_unparsed(&mut self, request: Value) -> Result<String, PortError> {
        if let Some(greeting) = self.greeting_for(&request) {
            return Ok(greeting.to_string());
        }
        self.ensure_running()?;
        self.exchange_unparsed(request).await
    }

    fn set_tracer(&mut self, tracer: Tracer) {
        self.tracer = Some(tracer);
    }

    fn begin_scenario(&mut self, name: &str) {
        if let Some(t) = &self.tracer {
            t.scenario(name);
        }
        if let Ok(mut log) = self.log.lock() {
            log.clear();
        }
        if let Some(running) = &self.running {
            if let Ok(mut tail) = running.stderr.lock() {
                tail.forget_finished_lines();
            }
        }
    }

    async fn ensure_ready(&mut self) -> Result<(), PortError> {
        if self.running.is_some() {
            return Ok(());
        }
        self.spawn()?;
        let hello = Framed::new(
            Request::Hello {
                protocol: Some(PROTOCOL_VERSION),
            },
            None,
        )
        .to_value();
        let restarted = self.starts > 1;
        match self.exchange(hello).await {
            Ok(v) if v.get("ok") == Some(&Value::Bool(true)) => {
                self.greeting = Some(v);
                Ok(())
            }
            Ok(v) => Err(self
                .fail(
                    Fault::Other,
                    format!("driver refused hello: {}", truncate(&v.to_string(), 200)),
                )
                .await),
            Err(e) if restarted => Err(PortError::Transport(format!("driver restart failed: {e}"))),
            Err(e) => Err(e),
        }
    }

    fn watch_log(&mut self, needle: &str) {
        if let Ok(mut log) = self.log.lock() {
            log.watch(needle);
        }
    }

    async fn log_mentioned(&mut self, needle: &str) -> Option<bool> {
        // What the driver wrote before its last answer is in the pipe by now; the reader
        // takes it as soon as it runs. Settled once no byte arrived for LOG_QUIET (at most
        // LOG_SETTLE in all: a driver logging without pause is read as it stands).
        let fed = || self.log.lock().map(|l| l.fed()).unwrap_or(0);
        let started = tokio::time::Instant::now();
        let mut last = fed();
        while started.elapsed() < LOG_SETTLE {
            tokio::time::sleep(LOG_QUIET).await;
            let now = fed();
            if now == last {
                break;
            }
            last = now;
        }
        self.log.lock().ok().and_then(|l| l.seen(needle))
    }

    async fn end_scenario(&mut self) -> Option<String> {
        if let Some(line) = self.stray_line().await {
            let _ = self
                .violate(
                    "(none)",
                    format!(
                        "driver printed a line no request asked for (out of step) after the scenario's last request, restarted it: {:?}",
                        truncate(&line, 200)
                    ),
                )
                .await;
        }
        self.violation.take()
    }

    async fn shutdown(&mut self) {
        if self.running.is_some() {
            let _ = tokio::time::timeout(
                Duration::from_millis(500),
                self.exchange(Framed::new(Request::Shutdown {}, None).to_value()),
            )
            .await;
        }
        if let Some(mut running) = self.running.take() {
            drop(running.stdin);
            if tokio::time::timeout(Duration::from_secs(2), running.child.wait())
                .await
                .is_err()
            {
                running.group.kill();
                let _ = running.child.kill().await;
            } else {
                running.group.end_leftovers();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the parsing path makes of an answer line: `Some(Ok)`, a `seq` violation's text,
    /// or `None` for a line that is not one JSON object.
    fn parsed(text: &str, expected: u64) -> Option<Result<(), String>> {
        match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => Some(check_seq(&v, expected).map_err(|e| e.to_string())),
            _ => None,
        }
    }

    fn unparsed(text: &str, expected: u64) -> Option<Result<(), String>> {
        Envelope::read(text).map(|e| e.check(expected).map_err(|e| e.to_string()))
    }

    #[test]
    fn the_unparsed_answer_is_judged_as_the_parsed_one() {
        let lines = [
            r#"{"ok":true,"seq":3}"#,
            r#"{"seq":3,"ok":true,"skills":[{"name":"a","description":"seq \"3\""}]}"#,
            r#"  {"ok":true,"seq":4}"#,
            r#"{"ok":true}"#,
            r#"{"ok":true,"seq":null}"#,
            r#"{"ok":true,"seq":"3"}"#,
            r#"{"ok":true,"seq":3.5}"#,
            r#"{"ok":true,"seq":3} trailing"#,
            r#"{"ok":true,"seq":3"#,
            r#"[3]"#,
            r#""seq""#,
            "",
            r#"{"ok":tru,"seq":3}"#,
            r#"{"ok":"\x","seq":3}"#,
            r#"{"seq":1,"ok":true,"seq":3}"#,
            r#"{"seq":3,"ok":true,"seq":1}"#,
            r#"{"s\u0065q":3,"ok":true}"#,
        ];
        for line in lines {
            assert_eq!(unparsed(line, 3), parsed(line, 3), "{line}");
        }
        assert_eq!(unparsed(r#"{"ok":true,"seq":3}"#, 3), Some(Ok(())));
        assert!(matches!(unparsed(r#"{"ok":true}"#, 3), Some(Err(e)) if e.contains("missing")));
        assert_eq!(unparsed("[3]", 3), None);
    }

    /// A driver that answers `hello` (seq 0), reads one more request, then does `then`.
    fn fake_driver(then: &str) -> SubprocessPort {
        let script = format!(
            "read line; echo '{{\"ok\":true,\"seq\":0,\"protocol\":1}}'; read line; {then}"
        );
        // The request limit is small so the test is quick; the sleeping driver sleeps far
        // longer than it, so no load makes its answer arrive in time.
        SubprocessPort::new(script, Duration::from_millis(300))
    }

    /// The error of one request to a driver that does `then` after `hello`.
    async fn fault_of(then: &str, request: Value) -> PortError {
        let mut port = fake_driver(then);
        let ready = port.ensure_ready().await;
        assert_eq!(ready, Ok(()));
        let err = port.call(request).await.map(|_| ()).unwrap_err();
        port.shutdown().await;
        err
    }

    #[tokio::test]
    async fn a_driver_that_never_answers_is_the_port_not_answering() {
        let request = serde_json::json!({"cmd": "build", "options": {"mcpConfig": {"mcpServers": {"crash": {"command": ["x"]}}}}});
        let err = fault_of("sleep 300", request).await;
        let PortError::NoAnswer {
            command,
            limit_ms,
            message,
        } = &err
        else {
            panic!("not a NoAnswer: {err:?}");
        };
        assert_eq!((command.as_str(), *limit_ms), ("build", 300));
        let text = err.to_string();
        assert!(
            text.starts_with("port not answering: driver did not answer `build` within 300 ms (the request limit, `--timeout-ms`); killed it"),
            "{text}"
        );
        assert!(
            message.contains("MCP server `crash` sets no `timeout`, so the SPEC default of 30000 ms (§2) was in force"),
            "{message}"
        );
        // The runner still tells it from a port's own failure (NOTES #309).
        assert!(crate::late::late_answer(&text), "{text}");
    }

    #[tokio::test]
    async fn a_driver_that_exits_has_crashed() {
        let err = fault_of(
            "echo 'fatal: out of cheese' >&2; exit 3",
            serde_json::json!({"cmd": "tools", "toolkit": "t"}),
        )
        .await;
        let PortError::Exited { command, message } = &err else {
            panic!("not Exited: {err:?}");
        };
        assert_eq!(command, "tools");
        assert!(
            message.starts_with("driver exited (closed its stdout) while answering `tools`"),
            "{message}"
        );
        assert!(message.contains("out of cheese"), "{message}");
        assert!(err.to_string().starts_with("driver crashed: "), "{err}");
        assert!(!crate::late::late_answer(&err.to_string()));
    }

    #[tokio::test]
    async fn a_driver_that_prints_garbage_broke_the_protocol() {
        let err = fault_of(
            "echo 'Loading model weights... done'; sleep 300",
            serde_json::json!({"cmd": "tools", "toolkit": "t"}),
        )
        .await;
        let PortError::Garbage { command, message } = &err else {
            panic!("not Garbage: {err:?}");
        };
        assert_eq!(command, "tools");
        assert!(
            message.starts_with(
                "driver printed a non-JSON-object line answering `tools`: \"Loading model weights... done\""
            ),
            "{message}"
        );
        assert!(
            err.to_string().starts_with("driver broke the protocol: "),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_dead_driver_keeps_its_cause_for_the_next_request() {
        let mut port = fake_driver("exit 3");
        assert_eq!(port.ensure_ready().await, Ok(()));
        let first = port
            .call(serde_json::json!({"cmd": "tools", "toolkit": "t"}))
            .await
            .unwrap_err();
        let again = port
            .call(serde_json::json!({"cmd": "tools", "toolkit": "t"}))
            .await
            .unwrap_err();
        assert!(matches!(again, PortError::Exited { .. }), "{again:?}");
        assert_eq!(first, again);
    }

    /// The excerpt of a driver that wrote `stderr` during its scenario.
    fn excerpt(stderr: &str) -> String {
        excerpt_with(&[], stderr)
    }

    #[test]
    fn aliased_paths_are_named_by_their_placeholder_before_the_tail_is_cut() {
        let port = SubprocessPort::new("true", Duration::from_secs(1))
            .naming(std::path::Path::new("/tmp/suite-x1/bin/tnc"), "{{BIN}}")
            .naming(std::path::Path::new("/tmp/suite-x1"), "{{ROOT}}")
            .naming(std::path::Path::new("/"), "{{SLASH}}");
        let long = "x".repeat(STDERR_IN_MESSAGE);
        let text = excerpt_with(
            &port.aliases,
            &format!("File \"/tmp/suite-x1/venv/a.py\" run by /tmp/suite-x1/bin/tnc {long}\n"),
        );
        // The same cut whatever the folder's name: the note counts the aliased line.
        let expected_chars = format!("File \"{{{{ROOT}}}}/venv/a.py\" run by {{{{BIN}}}} {long}")
            .chars()
            .count();
        assert!(
            text.starts_with(&format!("(truncated, {expected_chars} chars)")),
            "{}",
            &text[..80]
        );
        // "/" alone is never aliased.
        assert_eq!(port.aliases.len(), 2);
        let short = excerpt_with(&port.aliases, "at /tmp/suite-x1/venv\n");
        assert_eq!(short, "at {{ROOT}}/venv");
    }

    /// [`excerpt`] with `aliases`.
    fn excerpt_with(aliases: &[(String, String)], stderr: &str) -> String {
        let mut tail = StderrTail {
            aliases: aliases.to_vec(),
            ..StderrTail::default()
        };
        tail.forget_finished_lines();
        tail.push(stderr.as_bytes(), STDERR_LINE_MAX);
        tail.text()
    }

    #[test]
    fn a_python_traceback_keeps_its_head_when_the_tail_has_lost_it() {
        let mut trace = String::from("Traceback (most recent call last):\n  File \"/srv/driver.py\", line 812, in <module>\n    main()\n");
        for i in 0..20 {
            trace.push_str(&format!(
                "  File \"/usr/lib/python3.12/site-packages/toolnexus/toolkit.py\", line {}, in _build\n    return self._load(source)\n",
                100 + i
            ));
        }
        trace.push_str(
            "json.decoder.JSONDecodeError: Expecting value: line 1 column 21 (char 20)\n",
        );
        let text = excerpt(&trace);
        assert!(
            text.starts_with("cause lines: Traceback (most recent call last): |   File \"/srv/driver.py\", line 812, in <module> |     main() | tail: "),
            "{text}"
        );
        assert!(
            text.ends_with(
                "json.decoder.JSONDecodeError: Expecting value: line 1 column 21 (char 20)"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_java_trace_keeps_its_exception_and_every_caused_by() {
        let mut trace = String::from("Exception in thread \"main\" java.lang.IllegalStateException: toolkit build failed\n\tat dev.toolnexus.Toolkit.build(Toolkit.java:211)\n");
        for i in 0..30 {
            trace.push_str(&format!(
                "\tat dev.toolnexus.Loader.load{i}(Loader.java:{i})\n"
            ));
        }
        trace.push_str("Caused by: java.io.UncheckedIOException: cannot read mcp.json\n\tat dev.toolnexus.Mcp.read(Mcp.java:40)\n");
        for i in 0..30 {
            trace.push_str(&format!(
                "\tat java.base/java.io.Reader.read{i}(Reader.java:{i})\n"
            ));
        }
        trace.push_str(
            "Caused by: java.nio.file.NoSuchFileException: /tmp/mcp.json\n\t... 12 more\n",
        );
        let text = excerpt(&trace);
        for line in [
            "Exception in thread \"main\" java.lang.IllegalStateException: toolkit build failed",
            "\tat dev.toolnexus.Toolkit.build(Toolkit.java:211)",
            "Caused by: java.io.UncheckedIOException: cannot read mcp.json",
            "\tat dev.toolnexus.Mcp.read(Mcp.java:40)",
            "Caused by: java.nio.file.NoSuchFileException: /tmp/mcp.json",
        ] {
            assert!(text.contains(line), "{line:?} lost: {text}");
        }
        // A frame that names no cause is not kept beyond the tail.
        assert!(!text.contains("Loader.load3("), "{text}");
        // The last Caused by is in the tail already: it is not repeated.
        assert_eq!(text.matches("NoSuchFileException").count(), 1, "{text}");
    }

    #[test]
    fn a_go_panic_and_a_rust_panic_keep_their_heads() {
        let mut go = String::from("panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2b1c]\n\ngoroutine 1 [running]:\n");
        for i in 0..20 {
            go.push_str(&format!("github.com/acme/toolnexus.(*Toolkit).Build{i}(...)\n\t/go/src/toolkit.go:{i} +0x1c\n"));
        }
        go.push_str("exit status 2\n");
        let text = excerpt(&go);
        assert!(
            text.starts_with("cause lines: panic: runtime error: invalid memory address or nil pointer dereference | [signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a2b1c] | goroutine 1 [running]: | tail: "),
            "{text}"
        );
        let mut rust = String::from("thread 'main' panicked at src/toolkit.rs:88:14:\ncalled `Option::unwrap()` on a `None` value\nstack backtrace:\n");
        for i in 0..20 {
            rust.push_str(&format!(
                "  {i}: toolnexus::toolkit::build\n             at ./src/toolkit.rs:{i}:5\n"
            ));
        }
        let text = excerpt(&rust);
        assert!(
            text.starts_with("cause lines: thread 'main' panicked at src/toolkit.rs:88:14: | called `Option::unwrap()` on a `None` value | tail: "),
            "{text}"
        );
    }

    #[test]
    fn cause_lines_are_bounded_and_a_short_log_is_as_before() {
        let mut flood = String::new();
        for i in 0..500 {
            flood.push_str(&format!(
                "Caused by: java.lang.RuntimeException: layer {i} {}\n",
                "x".repeat(200)
            ));
            flood.push_str(&format!("\tat a.B.c{i}(B.java:1)\n"));
            flood.push_str("plain line\n");
        }
        let text = excerpt(&flood);
        let causes = text.split(" | tail: ").next().unwrap_or("");
        assert!(
            causes.chars().count() <= CAUSES_IN_MESSAGE + 60,
            "{}",
            causes.len()
        );
        assert!(causes.contains("layer 0 "), "{causes}");
        assert!(!causes.contains("layer 20 "), "{causes}");
        assert!(text.chars().count() <= CAUSES_IN_MESSAGE + STDERR_IN_MESSAGE + 120);
        // Without a trace the excerpt is the tail alone.
        assert_eq!(excerpt("starting\nboom\n"), "starting | boom");
    }
}
