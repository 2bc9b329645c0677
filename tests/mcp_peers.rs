//! Real MCP peers from npm, pinned in `mock-servers/conformance/peers/`: the reference client
//! against `@modelcontextprotocol/server-everything` over stdio, and the official
//! `@modelcontextprotocol/conformance` suite against the mock MCP server over streamable HTTP.
//!
//! The peers live in `target/peers` (`.ci/run` installs them first). When they are missing the
//! tests install them with `mock-servers/conformance/install-peers.sh` (`npm ci`, bounded);
//! without Node.js >= 20 and npm they fail, saying so, rather than pass without checking.
//! Nothing is downloaded while a test talks to a peer.

mod optional;

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::Command;
use toolnexus_harness::process_group::{self, Signal};
use toolnexus_reference::{Context, Toolkit, ToolkitOptions};

/// `npm ci` of 116 packages takes seconds; this only stops a wedged install.
const INSTALL_BOUND: Duration = Duration::from_secs(300);
/// Connect + initialize + list of server-everything (about 250 ms when healthy).
const BUILD_BOUND: Duration = Duration::from_secs(60);
/// One tool call, or the close of the toolkit.
const CALL_BOUND: Duration = Duration::from_secs(30);
/// The mock's URL line.
const URL_BOUND: Duration = Duration::from_secs(10);
/// The whole conformance run (about 2 s on an idle machine; its slowest check waits 10 s).
const SUITE_BOUND: Duration = Duration::from_secs(180);

const BIN: &str = env!("CARGO_BIN_EXE_toolnexus-conformance");
const EVERYTHING: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";
const CONFORMANCE: &str = "node_modules/@modelcontextprotocol/conformance/dist/index.js";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn conformance_dir() -> PathBuf {
    repo().join("mock-servers/conformance")
}

/// Serialises installs between the tests of this binary (they run on parallel threads).
static INSTALL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The peers directory, installed (or found up to date) by the same script `.ci/run` uses.
async fn peers() -> PathBuf {
    let dir = repo().join("target/peers");
    let _guard = INSTALL.lock().await;
    let mut cmd = Command::new("bash");
    cmd.arg(conformance_dir().join("install-peers.sh"))
        .arg(&dir);
    let out = run_bounded(cmd, INSTALL_BOUND, "installing the MCP peers with npm").await;
    if !out.status.success() {
        panic!(
            "cannot install the MCP peers into {} (needs Node.js >= 20 and npm on PATH, and \
             the npm registry): install-peers.sh exited with {}\n--- stdout\n{}\n--- stderr\n{}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for file in [EVERYTHING, CONFORMANCE] {
        assert!(
            dir.join(file).is_file(),
            "the peers install in {} lacks {file}",
            dir.display()
        );
    }
    dir
}

/// Runs a command in its own process group with captured output; past `bound` the whole group
/// (npm and node leave children) gets SIGTERM, then SIGKILL after a grace period, and the test
/// fails naming `what`.
async fn run_bounded(mut cmd: Command, bound: Duration, what: &str) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start {cmd:?}: {e}"));
    let pgid = process_group::group_of(&child);
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        panic!("{what}: no pipes");
    };
    let stdout = tokio::spawn(read_all(stdout));
    let stderr = tokio::spawn(read_all(stderr));
    let status = match tokio::time::timeout(bound, child.wait()).await {
        Ok(status) => status.unwrap_or_else(|e| panic!("{what}: {e}")),
        Err(_) => {
            // TERM first so the install script can remove its temporary directory.
            if let Some(pgid) = pgid {
                process_group::signal_group(pgid, Signal::SIGTERM);
            }
            let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
            if let Some(pgid) = pgid {
                process_group::kill_group(pgid);
            }
            panic!("{what}: not done within {bound:?}");
        }
    };
    let collected = |task: tokio::task::JoinHandle<Vec<u8>>| async move {
        bounded(what, Duration::from_secs(5), task)
            .await
            .unwrap_or_default()
    };
    Output {
        status,
        stdout: collected(stdout).await,
        stderr: collected(stderr).await,
    }
}

async fn read_all(mut pipe: impl tokio::io::AsyncRead + Unpin) -> Vec<u8> {
    let mut bytes = Vec::new();
    let _ = pipe.read_to_end(&mut bytes).await;
    bytes
}

async fn bounded<T>(what: &str, bound: Duration, fut: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(bound, fut).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within {bound:?}"),
    }
}

/// A live process as `/proc` shows it.
struct Proc {
    pid: u32,
    ppid: u32,
    pgrp: u32,
    state: char,
    cmdline: String,
}

/// Every process `/proc` lists (Linux; the check fails loudly elsewhere).
fn processes() -> Vec<Proc> {
    let entries = std::fs::read_dir("/proc")
        .unwrap_or_else(|e| panic!("this check reads /proc (Linux): {e}"));
    entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
            let mut rest = stat.get(stat.rfind(')')? + 1..)?.split_whitespace();
            let state = rest.next()?.chars().next()?;
            let ppid = rest.next()?.parse().ok()?;
            let pgrp = rest.next()?.parse().ok()?;
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                .unwrap_or_default();
            Some(Proc {
                pid,
                ppid,
                pgrp,
                state,
                cmdline,
            })
        })
        .collect()
}

/// Processes still running (not zombies) whose pid or process group is `pid`.
fn alive_in_group(pid: u32) -> Vec<String> {
    processes()
        .into_iter()
        .filter(|p| (p.pid == pid || p.pgrp == pid) && p.state != 'Z')
        .map(|p| format!("{} {}", p.pid, p.cmdline))
        .collect()
}

#[tokio::test]
async fn reference_calls_server_everything_echo_over_stdio_and_close_leaves_no_node() {
    if !optional::have_tools(
        optional::REQUIRE_PEERS,
        &["node", "npm"],
        "the real MCP peer test",
    ) {
        return;
    }
    let peers = peers().await;
    let script = peers.join(EVERYTHING);
    let script_arg = script.to_string_lossy().into_owned();
    let config = json!({"mcpServers": {"everything": {
        "command": "node",
        "args": [script_arg, "stdio"],
        "timeout": 20000
    }}});
    let mut tk = bounded(
        "Toolkit::build with server-everything",
        BUILD_BOUND,
        Toolkit::build(ToolkitOptions {
            mcp_config: Some(config),
            ..Default::default()
        }),
    )
    .await;
    assert_eq!(
        tk.statuses().get("everything").map(String::as_str),
        Some("connected"),
        "errors: {:?}",
        tk.errors()
    );
    assert!(tk.errors().is_empty(), "errors: {:?}", tk.errors());

    // The server is our child, alone in its own process group (what close() kills).
    let me = std::process::id();
    let servers: Vec<Proc> = processes()
        .into_iter()
        .filter(|p| p.ppid == me && p.cmdline.contains(&script_arg))
        .collect();
    assert_eq!(
        servers.len(),
        1,
        "expected one server-everything child of this test process"
    );
    let server = &servers[0];
    assert_eq!(server.pgrp, server.pid, "the server leads its own group");

    let result = bounded(
        "everything_echo",
        CALL_BOUND,
        tk.execute(
            "everything_echo",
            json!({"message": "hi"}),
            &Context::default(),
        ),
    )
    .await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.output, "Echo: hi");

    bounded("Toolkit::close", CALL_BOUND, tk.close()).await;
    // close() kills the group and reaps the child; allow a moment for the kernel to agree.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut left = alive_in_group(server.pid);
    while !left.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        left = alive_in_group(server.pid);
    }
    assert!(left.is_empty(), "still running after close(): {left:?}");
}

#[tokio::test]
async fn official_conformance_suite_passes_the_mock_except_its_baseline() {
    if !optional::have_tools(
        optional::REQUIRE_PEERS,
        &["node", "npm"],
        "the MCP conformance suite test",
    ) {
        return;
    }
    let peers = peers().await;
    let scenario = repo().join("mock-servers/scenarios/conformance.json");
    let mut mock = Command::new(BIN)
        .args(["mock", "mcp", "--transport", "http", "--scenario"])
        .arg(&scenario)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
    let mock_stderr = tokio::spawn(read_all(
        mock.stderr
            .take()
            .unwrap_or_else(|| panic!("mock without stderr")),
    ));
    let stdout = mock
        .stdout
        .take()
        .unwrap_or_else(|| panic!("mock without stdout"));
    let mut line = String::new();
    let mut reader = BufReader::new(stdout);
    bounded(
        "the mock's URL line",
        URL_BOUND,
        reader.read_line(&mut line),
    )
    .await
    .unwrap_or_else(|e| panic!("reading the mock's URL: {e}"));
    let url = line.trim_end().to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "first stdout line is not the URL: {line:?}"
    );

    let mut suite = Command::new("node");
    suite
        .arg(peers.join(CONFORMANCE))
        .args([
            "server",
            "--url",
            &url,
            "--suite",
            "all",
            "--expected-failures",
        ])
        .arg(conformance_dir().join("baseline.yml"));
    let out = run_bounded(suite, SUITE_BOUND, "the MCP conformance suite").await;
    let _ = mock.kill().await;
    let mock_stderr = bounded("the mock's stderr", URL_BOUND, mock_stderr)
        .await
        .unwrap_or_default();

    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = format!(
        "exit {}\n--- suite stdout (tail)\n{}\n--- suite stderr\n{}\n--- mock stderr\n{}",
        out.status,
        tail(&stdout, 80),
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&mock_stderr)
    );
    assert!(
        stdout.contains("Running all suite (32 scenarios)"),
        "the suite did not run its 32 scenarios:\n{report}"
    );
    assert!(
        out.status.success() && stdout.contains("Baseline check passed"),
        "the mock failed a scenario outside mock-servers/conformance/baseline.yml, or a \
         baseline scenario now passes (then remove it from the baseline):\n{report}"
    );
    // The suite ignores a baseline entry that names no scenario; a typo must not hide.
    let ran: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("✓ ").or_else(|| l.strip_prefix("✗ ")))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(ran.len(), 32, "summary lines: {ran:?}\n{report}");
    for entry in baseline_entries() {
        assert!(
            ran.contains(&entry.as_str()),
            "baseline.yml names {entry:?}, which the suite does not have"
        );
    }
}

/// The `server:` list of `baseline.yml` (one `- name` per line).
fn baseline_entries() -> Vec<String> {
    let path = conformance_dir().join("baseline.yml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .map(|name| name.trim().to_string())
        .collect()
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
