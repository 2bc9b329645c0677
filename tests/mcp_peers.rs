//! Real MCP peers from npm, pinned in `mock-servers/conformance/peers/`: the reference client
//! against `@modelcontextprotocol/server-everything` over stdio, and the official
//! `@modelcontextprotocol/conformance` suite against the mock MCP server over streamable HTTP.
//!
//! The peers live in `target/peers` (`.ci/run` installs them first). When they are missing the
//! tests install them with `mock-servers/conformance/install-peers.sh` (`npm ci`, bounded);
//! without Node.js >= 20 and npm they fail, saying so, rather than pass without checking.
//! Nothing is downloaded while a test talks to a peer.

mod optional;
mod peers;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use peers::{bounded, read_all, repo, run_bounded, tail, CONFORMANCE, EVERYTHING};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;
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

fn conformance_dir() -> PathBuf {
    repo().join("mock-servers/conformance")
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
    let peers = peers::peers(INSTALL_BOUND).await;
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
    let peers = peers::peers(INSTALL_BOUND).await;
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
    for entry in peers::baseline_entries(&conformance_dir().join("baseline.yml")) {
        assert!(
            ran.contains(&entry.as_str()),
            "baseline.yml names {entry:?}, which the suite does not have"
        );
    }
}
