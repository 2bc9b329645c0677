//! The floors: what each operation costs the machine with no port involved, measured by the
//! harness process itself in the same rounds as the ports (so the table shows how close to
//! the machine each port is). Each floor does the operation's essential work and checks its
//! answer like the ports' are checked; a floor that cannot run is a note, never a failure.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::RoleClient;
use serde_json::{json, Value};

use crate::agent_loop::{http_tool_loop, record_turns, start_loop_mock, MockLlm};
use crate::classifier::{self, Case};
use crate::floor_process::FloorChild;
use crate::image_loop::{self, http_image_loop, start_image_mock};
use crate::measure::{note, Ctx, Go, Measured, Unit};
use crate::operations::MCP_TEXT;
use crate::options::{Op, GREP_TOKEN, MCP_TOOL};
use crate::serve::{FloorServe, ServerKind};
use crate::stats::ms;
use toolnexus_ports::port::truncate;
use toolnexus_protocol::{Framed, Request};

/// One floor of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A raw parallel walk reading every `SKILL.md`.
    Walk,
    /// The same walk also loading each frontmatter with the standard YAML parser, as SPEC §3
    /// requires of a port.
    WalkYaml,
    /// `rg -j1` as a process.
    Rg,
    /// The request line through a `cat` child.
    Cat,
    /// A classifier operation's `evaluate` request line through a `cat` child.
    ClassifierCat(Case),
    /// A bare rmcp client in the harness calling the mock server.
    Mcp,
    /// A minimal driver process between the harness and the mock server.
    McpDriver,
    /// A bare rmcp client spawning, initialising, listing and stopping the mock.
    McpBuild,
    /// A bare HTTP tool loop against a fresh mock LLM.
    Loop,
    /// The canned loopback server inside the harness process.
    Serve,
    /// The canned loopback server in a process of its own.
    ServeProcess,
    /// A bare rmcp server in a process of its own.
    ServeRmcp,
    /// A bare HTTP client sending the image loop's two requests to a fresh mock LLM.
    Image(image_loop::Style),
}

impl Kind {
    /// The floor's name (the table's `floor (<what>)`).
    pub(crate) fn what(self) -> &'static str {
        match self {
            Kind::Walk => "parallel walk reading every SKILL.md",
            Kind::WalkYaml => "the same walk, each frontmatter loaded by yaml-rust2",
            Kind::Rg => "rg -j1",
            Kind::Cat => "request line through cat",
            Kind::ClassifierCat(_) => "evaluate request line through cat",
            Kind::Mcp => "bare rmcp client",
            Kind::McpDriver => "minimal driver process: request line, bare rmcp call, answer line",
            Kind::McpBuild => "bare rmcp client: spawn, initialize, list, stop",
            Kind::Loop => "bare HTTP tool loop",
            Kind::Serve => "same HTTP client, canned loopback server",
            Kind::ServeProcess => "same HTTP client, canned server in its own process",
            Kind::ServeRmcp => "same HTTP client, bare rmcp server in its own process",
            Kind::Image(_) => "bare HTTP loop sending the same image requests",
        }
    }
}

/// The floors of `op`, in table order; the suite has none. The first of each is the
/// operation's own floor; the others are fairer ones for operations whose port is
/// necessarily another process (see `floor_process.rs`).
pub(crate) fn kinds(op: Op) -> &'static [Kind] {
    match op {
        Op::SkillsBuild => &[Kind::Walk, Kind::WalkYaml],
        Op::Grep => &[Kind::Rg],
        Op::RoundTrip => &[Kind::Cat],
        Op::McpCall => &[Kind::Mcp, Kind::McpDriver],
        Op::McpBuild => &[Kind::McpBuild],
        Op::AgentLoop => &[Kind::Loop],
        Op::ServeCall => &[Kind::Serve, Kind::ServeProcess, Kind::ServeRmcp],
        Op::ImageLoopOpenai => &[Kind::Image(image_loop::Style::Openai)],
        Op::ImageLoopAnthropic => &[Kind::Image(image_loop::Style::Anthropic)],
        Op::ClassifierStatic => &[Kind::ClassifierCat(Case::Small)],
        Op::ClassifierCanonical255 => &[Kind::ClassifierCat(Case::Wide255)],
        Op::Suite => &[],
    }
}

/// A running floor.
pub(crate) enum State {
    /// The skills walk, loading frontmatters or not; nothing held.
    Walk(Frontmatter),
    /// `rg` found on the PATH.
    Rg(PathBuf),
    /// A `cat` child and the request line the ports get.
    Cat(Box<CatPipe>),
    /// A bare MCP client session with the mock server.
    Mcp(McpSession),
    /// The minimal driver process and its pipes.
    McpDriver(Box<DriverPipe>),
    /// Spawn + initialize + list + stop per round; nothing held.
    McpBuild,
    /// A fresh mock LLM and an HTTP client.
    Loop(MockLlm, reqwest::Client),
    /// A canned or rmcp loopback server and the MCP HTTP client.
    Serve(Box<FloorServe>),
    /// A fresh mock LLM, an HTTP client, the wire and the image's base64.
    Image(MockLlm, reqwest::Client, image_loop::Style, String),
}

/// Sets the floor `kind` up; `None` with a note when it cannot run.
pub(crate) async fn setup(kind: Kind, ctx: &Ctx<'_>, m: &mut Measured) -> Option<State> {
    let state = match kind {
        Kind::Walk => Ok(State::Walk(Frontmatter::Skipped)),
        Kind::WalkYaml => Ok(State::Walk(Frontmatter::Loaded)),
        Kind::Rg => on_path("rg")
            .map(State::Rg)
            .ok_or_else(|| "rg not installed".to_string()),
        Kind::Cat => CatPipe::start(None).map(|c| State::Cat(Box::new(c))),
        Kind::ClassifierCat(case) => classifier::evaluate_value(&classifier::recorded(case))
            .map_err(|e| e.to_string())
            .and_then(|request| CatPipe::start(Some(request)))
            .map(|c| State::Cat(Box::new(c))),
        Kind::Mcp => McpSession::start(ctx).await.map(State::Mcp),
        Kind::McpDriver => DriverPipe::start(ctx)
            .await
            .map(|d| State::McpDriver(Box::new(d))),
        Kind::McpBuild => Ok(State::McpBuild),
        Kind::Loop => match start_loop_mock(ctx).await {
            Ok(mock) => toolnexus_ports::tls::client_builder()
                .tcp_nodelay(true)
                .build()
                .map(|http| State::Loop(mock, http))
                .map_err(|e| format!("cannot build an HTTP client: {e}")),
            Err(e) => Err(e),
        },
        Kind::Image(style) => match start_image_mock(ctx).await {
            Ok(mock) => toolnexus_ports::tls::client_builder()
                .tcp_nodelay(true)
                .build()
                .map(|http| {
                    let b64 = image_loop::image_base64(ctx.opts.image_bytes);
                    State::Image(mock, http, style, b64)
                })
                .map_err(|e| format!("cannot build an HTTP client: {e}")),
            Err(e) => Err(e),
        },
        Kind::Serve => FloorServe::start(ServerKind::InProcess, ctx)
            .await
            .map(|s| State::Serve(Box::new(s))),
        Kind::ServeProcess => FloorServe::start(ServerKind::Canned, ctx)
            .await
            .map(|s| State::Serve(Box::new(s))),
        Kind::ServeRmcp => FloorServe::start(ServerKind::Rmcp, ctx)
            .await
            .map(|s| State::Serve(Box::new(s))),
    };
    match state {
        Ok(s) => Some(s),
        Err(why) => {
            note(&mut m.notes, why);
            None
        }
    }
}

/// Takes one unit of the floor; a wrong answer is a note and stops it.
pub(crate) async fn step(state: &mut State, ctx: &Ctx<'_>, unit: Unit, m: &mut Measured) -> Go {
    let outcome: Result<(), String> = match state {
        State::Walk(frontmatter) => {
            timed(unit, m, || walk_skills(&ctx.fx.skills_dir, *frontmatter))
                .and_then(|n| check_count(frontmatter.counted(), n, ctx.opts.skills))
        }
        State::Rg(rg) => timed(unit, m, || rg_matches(rg, &ctx.fx.grep_dir))
            .and_then(|n| check_count("rg matching lines", n, ctx.fx.info.grep_matches)),
        State::Cat(cat) => cat.calls(unit, m),
        State::Mcp(session) => session.calls(unit, m).await,
        State::McpDriver(driver) => driver.calls(unit, m).await,
        State::McpBuild => {
            let started = Instant::now();
            let built = McpSession::start(ctx).await;
            let outcome = match built {
                Ok(session) => session.stop().await,
                Err(e) => Err(e),
            };
            if outcome.is_ok() && unit.counted {
                m.samples.push(ms(started));
            }
            outcome
        }
        State::Loop(mock, http) => {
            let turns = ctx.opts.loop_turns.max(1);
            let started = Instant::now();
            match http_tool_loop(http, &mock.url, turns).await {
                Ok(done) => {
                    record_turns(unit, done, ms(started), m);
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
        State::Serve(serve) => return serve.step(unit, m).await,
        State::Image(mock, http, style, b64) => {
            let started = Instant::now();
            let done = http_image_loop(http, &mock.url, *style, b64).await;
            if done.is_ok() && unit.counted {
                m.samples.push(ms(started));
            }
            done
        }
    };
    match outcome {
        Ok(()) => Go::On,
        Err(why) => {
            note(&mut m.notes, why);
            Go::Stop
        }
    }
}

/// Stops what the floor holds.
pub(crate) async fn teardown(state: State) {
    if let State::Mcp(session) = state {
        let _ = session.stop().await;
    }
}

/// Runs `work` once, keeping its wall time when the unit is counted.
fn timed<T>(
    unit: Unit,
    m: &mut Measured,
    work: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    let started = Instant::now();
    let out = work()?;
    if unit.counted {
        m.samples.push(ms(started));
    }
    Ok(out)
}

fn check_count(what: &str, found: usize, expected: usize) -> Result<(), String> {
    if found == expected {
        Ok(())
    } else {
        Err(format!("{what}: {found}, expected {expected}"))
    }
}

/// `name` in a directory of `$PATH`, when it is there.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// What the skills walk does with each `SKILL.md` it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Frontmatter {
    /// Nothing: the file is read, not parsed.
    Skipped,
    /// Its `---`-fenced block is loaded by the YAML parser and must have a `name`.
    Loaded,
}

impl Frontmatter {
    /// What the walk counts.
    fn counted(self) -> &'static str {
        match self {
            Frontmatter::Skipped => "SKILL.md files read",
            Frontmatter::Loaded => "SKILL.md frontmatters with a name",
        }
    }

    /// Whether `text` counts: any file read; a frontmatter loaded with a `name`.
    fn counts(self, text: &[u8]) -> bool {
        match self {
            Frontmatter::Skipped => true,
            Frontmatter::Loaded => std::str::from_utf8(text)
                .ok()
                .and_then(frontmatter_block)
                .and_then(|block| yaml_rust2::YamlLoader::load_from_str(block).ok())
                .is_some_and(|docs| docs.first().is_some_and(|d| !d["name"].is_badvalue())),
        }
    }
}

/// The block between a `SKILL.md`'s opening `---` line and the next `---` line.
fn frontmatter_block(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("---\n")?;
    rest.find("\n---").map(|end| &rest[..end])
}

/// Reads every `SKILL.md` under `root`, the top-level folders spread over the cores, and
/// loads each frontmatter or not. Returns how many counted.
fn walk_skills(root: &Path, frontmatter: Frontmatter) -> Result<usize, String> {
    let mut groups: Vec<PathBuf> = std::fs::read_dir(root)
        .map_err(|e| format!("{}: {e}", root.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    groups.sort();
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(groups.len().max(1));
    let counts: Vec<Result<usize, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let mine: Vec<&PathBuf> = groups.iter().skip(t).step_by(threads).collect();
                scope.spawn(move || {
                    let mut read = 0;
                    let mut buf = Vec::new();
                    for group in mine {
                        for entry in walkdir::WalkDir::new(group) {
                            let entry = entry.map_err(|e| e.to_string())?;
                            if entry.file_type().is_file() && entry.file_name() == "SKILL.md" {
                                buf.clear();
                                // Through `take`: `File::read_to_end` first asks the file
                                // its size and position (`statx`, `lseek`), two system calls
                                // per file a reused buffer does not need (nor the reference).
                                std::fs::File::open(entry.path())
                                    .and_then(|f| f.take(u64::MAX).read_to_end(&mut buf))
                                    .map_err(|e| format!("{}: {e}", entry.path().display()))?;
                                if frontmatter.counts(&buf) {
                                    read += 1;
                                }
                            }
                        }
                    }
                    Ok(read)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a walk thread panicked".into()))
            })
            .collect()
    });
    counts.into_iter().sum()
}

/// `rg -j1 -n --no-heading --color never <token> <tree>` as a process, output captured;
/// returns the lines that hold the token.
fn rg_matches(rg: &Path, tree: &Path) -> Result<usize, String> {
    let out = Command::new(rg)
        .args(["-j1", "-n", "--no-heading", "--color", "never", GREP_TOKEN])
        .arg(tree)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run rg: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "rg exited with {}: {}",
            out.status,
            truncate(&String::from_utf8_lossy(&out.stderr), 200)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(GREP_TOKEN))
        .count())
}

/// The `execute` request line a port gets, numbered `seq`, as the harness writes it to a
/// driver (`SubprocessPort::exchange`: JSON bytes and a newline), for the floors that pass
/// the same line through a process.
fn request_line(toolkit: &str, name: &str, args: Value, seq: u64) -> Vec<u8> {
    let execute = Request::Execute {
        toolkit: toolkit.into(),
        name: name.into(),
        args,
        context: None,
        abort_after_ms: None,
    };
    let mut line =
        serde_json::to_vec(&Framed::new(execute, Some(seq)).to_value()).unwrap_or_default();
    line.push(b'\n');
    line
}

/// `request` numbered `seq`, as the line the harness writes to a driver.
fn numbered_line(request: Value, seq: u64) -> Vec<u8> {
    let mut line = serde_json::to_vec(&Framed::number(request, seq)).unwrap_or_default();
    line.push(b'\n');
    line
}

/// A `cat` child: the round trip of one request line through a pipe and back.
pub(crate) struct CatPipe {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    seq: u64,
    /// The request whose line it carries; `None`: the round trip's `execute noop`.
    request: Option<Value>,
}

impl CatPipe {
    fn start(request: Option<Value>) -> Result<Self, String> {
        let mut child = Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start cat: {e}"))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("cat has no pipes".into());
        };
        Ok(Self {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            seq: 0,
            request,
        })
    }

    /// `size` round trips of the very request line a port gets (the round trip's `execute
    /// noop`, or the classifier's `evaluate`, with the driver's `seq`), each read back and
    /// parsed as JSON.
    fn calls(&mut self, unit: Unit, m: &mut Measured) -> Result<(), String> {
        let mut line = String::new();
        for _ in 0..unit.size {
            let started = Instant::now();
            self.seq += 1;
            let text = match &self.request {
                Some(request) => numbered_line(request.clone(), self.seq),
                None => request_line("bench-noop", "noop", json!({}), self.seq),
            };
            self.stdin
                .write_all(&text)
                .and_then(|()| self.stdin.flush())
                .map_err(|e| format!("writing to cat: {e}"))?;
            line.clear();
            self.stdout
                .read_line(&mut line)
                .map_err(|e| format!("reading from cat: {e}"))?;
            let back: Value =
                serde_json::from_str(&line).map_err(|e| format!("cat answered no JSON: {e}"))?;
            let elapsed = ms(started);
            if back["seq"] != self.seq {
                return Err(format!("cat answered {}", truncate(&line, 200)));
            }
            if unit.counted {
                m.samples.push(elapsed);
            }
        }
        Ok(())
    }
}

impl Drop for CatPipe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A bare rmcp client session with the mock MCP server over its stdio.
pub(crate) struct McpSession {
    child: tokio::process::Child,
    service: RunningService<RoleClient, ()>,
}

impl McpSession {
    /// Spawns the mock with the command the ports get, initializes and lists its tools
    /// (which must hold `echo`).
    async fn start(ctx: &Ctx<'_>) -> Result<Self, String> {
        let toolnexus_floor::mcp_driver::Session { child, service } =
            toolnexus_floor::mcp_driver::connect(&ctx.fx.info.mcp_command).await?;
        let tools = service
            .list_all_tools()
            .await
            .map_err(|e| format!("tools/list: {e}"))?;
        if !tools.iter().any(|t| t.name == "echo") {
            return Err("the mock MCP server lists no echo tool".into());
        }
        Ok(Self { child, service })
    }

    /// `size` calls of `echo {"text": "bench"}`, each answer checked.
    async fn calls(&mut self, unit: Unit, m: &mut Measured) -> Result<(), String> {
        let mut args = serde_json::Map::new();
        args.insert("text".into(), Value::from(MCP_TEXT));
        for _ in 0..unit.size {
            let params = CallToolRequestParams::new("echo").with_arguments(args.clone());
            let started = Instant::now();
            let result = self
                .service
                .call_tool(params)
                .await
                .map_err(|e| format!("tools/call echo: {e}"))?;
            let elapsed = ms(started);
            let result = serde_json::to_value(result).unwrap_or_default();
            if result["content"][0]["text"] != MCP_TEXT || result["isError"] == true {
                return Err(format!(
                    "echo answered {}",
                    truncate(&result.to_string(), 200)
                ));
            }
            if unit.counted {
                m.samples.push(elapsed);
            }
        }
        Ok(())
    }

    /// Cancels the session, then kills and reaps the server.
    async fn stop(mut self) -> Result<(), String> {
        let _ = self.service.cancel().await;
        let _ = self.child.start_kill();
        self.child
            .wait()
            .await
            .map(|_| ())
            .map_err(|e| format!("reaping the mock MCP server: {e}"))
    }
}

/// The minimal driver floor (`floor mcp-driver`): the very request line the ports get for an
/// MCP call, through a process that only decodes it, calls the tool over a bare rmcp client
/// session with the mock server, and writes the answer line. Between the harness and the MCP
/// server it has the process hops every port's driver has, and nothing else.
pub(crate) struct DriverPipe {
    process: FloorChild,
    seq: u64,
}

/// The longest answer line read from the floor driver.
const MAX_ANSWER: u64 = 1 << 20;

impl DriverPipe {
    async fn start(ctx: &Ctx<'_>) -> Result<Self, String> {
        let mut args: Vec<String> = ["mcp-driver", "--tool", "echo", "--"]
            .map(String::from)
            .to_vec();
        args.extend(ctx.fx.info.mcp_command.iter().cloned());
        let process = FloorChild::start(ctx.opts, &args).await?;
        if process.first_line != "ready" {
            return Err(format!(
                "the floor driver said {}",
                truncate(&process.first_line, 200)
            ));
        }
        Ok(Self { process, seq: 0 })
    }

    /// `size` calls, each the `execute mock_echo {"text": "bench"}` line with the next `seq`,
    /// its answer read back, parsed and checked.
    async fn calls(&mut self, unit: Unit, m: &mut Measured) -> Result<(), String> {
        use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
        let mut line = String::new();
        for _ in 0..unit.size {
            let started = Instant::now();
            self.seq += 1;
            let text = request_line(
                "bench-mcp-call",
                MCP_TOOL,
                json!({ "text": MCP_TEXT }),
                self.seq,
            );
            let p = &mut self.process;
            p.stdin
                .write_all(&text)
                .await
                .map_err(|e| format!("writing to the floor driver: {e}"))?;
            p.stdin
                .flush()
                .await
                .map_err(|e| format!("writing to the floor driver: {e}"))?;
            line.clear();
            (&mut p.stdout)
                .take(MAX_ANSWER)
                .read_line(&mut line)
                .await
                .map_err(|e| format!("reading from the floor driver: {e}"))?;
            let back: Value = serde_json::from_str(&line).map_err(|e| {
                format!(
                    "the floor driver answered no JSON ({e}): {}",
                    truncate(&line, 200)
                )
            })?;
            let elapsed = ms(started);
            if back["seq"] != self.seq
                || back["result"]["output"] != MCP_TEXT
                || back["result"]["isError"] != false
            {
                return Err(format!(
                    "the floor driver answered {}",
                    truncate(&line, 200)
                ));
            }
            if unit.counted {
                m.samples.push(elapsed);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The YAML floor counts only a frontmatter the parser loads with a `name`, so it cannot
    /// skip the work it stands for.
    #[test]
    fn the_yaml_floor_counts_loaded_frontmatters_with_a_name() {
        let loaded = |text: &str| Frontmatter::Loaded.counts(text.as_bytes());
        assert!(loaded("---\nname: a\ndescription: d\n---\nbody\n"));
        assert!(!loaded("no fence\n"));
        assert!(!loaded("---\ndescription: d\n---\nbody\n"));
        assert!(!loaded("---\nname: [unclosed\n---\nbody\n"));
        assert!(Frontmatter::Skipped.counts(b"no fence\n"));
    }
}
