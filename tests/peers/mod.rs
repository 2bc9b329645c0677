//! What the tests driving real peers share (tests/mcp_peers.rs, tests/serve_peers.rs,
//! tests/mock_llm_sdk.rs): the pinned npm peers and Python SDK venv, installed by the same
//! scripts `.ci/run` uses, and bounded child processes whose whole group is stopped on a
//! timeout. Nothing is downloaded while a test talks to a peer.

#![allow(dead_code)]

use std::future::Future;
use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Command;
use toolnexus_process_group::{self as process_group, Signal};

// The including test binary declares `mod optional;` beside `mod peers;`.
use crate::optional;

/// The npm peers the tests run (pinned in mock-servers/conformance/peers/package-lock.json).
pub const EVERYTHING: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";
/// The official MCP conformance suite's entry point, under the peers directory.
pub const CONFORMANCE: &str = "node_modules/@modelcontextprotocol/conformance/dist/index.js";

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Serialises installs between the tests of one binary (they run on parallel threads).
static INSTALL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The peers directory, installed (or found up to date) by `install-peers.sh` within `bound`.
pub async fn peers(bound: Duration) -> PathBuf {
    let dir = repo().join("target/peers");
    let _guard = INSTALL.lock().await;
    let mut cmd = Command::new("bash");
    cmd.arg(repo().join("mock-servers/conformance/install-peers.sh"))
        .arg(&dir);
    let out = run_bounded(cmd, bound, "installing the MCP peers with npm").await;
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

/// The SDK venv's Python (tests/sdk/install.sh, once per test binary); `None` when python3
/// with venv is missing and CI does not require it, or under TOOLNEXUS_SKIP_SDK=1. `sdks`
/// names what the calling tests need, for the messages.
pub fn sdk_python(sdks: &str) -> Option<PathBuf> {
    if !optional::have_python_venv(optional::REQUIRE_PEERS, &format!("the {sdks} SDK test")) {
        return None;
    }
    static VENV: OnceLock<Result<Option<PathBuf>, String>> = OnceLock::new();
    let found = VENV.get_or_init(|| {
        if std::env::var("TOOLNEXUS_SKIP_SDK").as_deref() == Ok("1") {
            return Ok(None);
        }
        let dir = repo().join("target/sdk-venv");
        // install.sh is idempotent (a no-op on an up-to-date venv) and bounds pip itself.
        let out = std::process::Command::new("bash")
            .arg(repo().join("tests/sdk/install.sh"))
            .arg(&dir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run tests/sdk/install.sh: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "tests/sdk/install.sh failed ({}):\n{}{}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(Some(dir.join("bin/python")))
    });
    match found {
        Ok(Some(python)) => Some(python.clone()),
        Ok(None) => {
            eprintln!("TOOLNEXUS_SKIP_SDK=1: skipping the {sdks} SDK test");
            None
        }
        Err(e) => panic!(
            "the {sdks} SDK venv could not be installed, so the real-SDK tests cannot run \
             (set TOOLNEXUS_SKIP_SDK=1 to skip them on purpose):\n{e}"
        ),
    }
}

/// Runs a command in its own process group with captured output; past `bound` the whole group
/// (npm and node leave children) gets SIGTERM, then SIGKILL after a grace period, and the test
/// fails naming `what`.
pub async fn run_bounded(mut cmd: Command, bound: Duration, what: &str) -> Output {
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

/// Everything a pipe yields until EOF (a read error ends it).
pub async fn read_all(mut pipe: impl tokio::io::AsyncRead + Unpin) -> Vec<u8> {
    let mut bytes = Vec::new();
    let _ = pipe.read_to_end(&mut bytes).await;
    bytes
}

/// `fut`, or a test failure naming `what` past `bound`.
pub async fn bounded<T>(what: &str, bound: Duration, fut: impl Future<Output = T>) -> T {
    match tokio::time::timeout(bound, fut).await {
        Ok(v) => v,
        Err(_) => panic!("{what}: no answer within {bound:?}"),
    }
}

/// The `server:` entries of a conformance baseline file (one `- name` per line).
pub fn baseline_entries(path: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .map(|name| name.trim().to_string())
        .collect()
}

/// The last `lines` lines of `text`.
pub fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
