//! Real third-party clients against a served reference toolkit (SPEC §7B A2A inbound, §7C
//! MCP server profile): the official `@modelcontextprotocol/conformance` suite in SERVER mode
//! against `/mcp`, the pinned Python `mcp` SDK client over streamable HTTP, and the pinned
//! Python `a2a-sdk` client against the A2A routes (tests/sdk/serve_clients.py).
//!
//! The peers come from the same install scripts `.ci/run` uses (npm: target/peers; PyPI:
//! target/sdk-venv); nothing is downloaded while a test talks to a peer. Without Node.js/npm
//! or Python the tests fail saying so; TOOLNEXUS_SKIP_SDK=1 skips the two Python ones on
//! purpose, as in tests/mock_llm_sdk.rs.

mod serve_support;

mod optional;
mod peers;

use std::path::PathBuf;
use std::time::Duration;

use peers::{run_bounded, tail, CONFORMANCE};
use serde_json::{json, Value};
use serve_support::{conformance_tools, gateway_toolkit_with, repo, serve_gateway, serve_toolkit};
use tokio::process::Command;

/// `npm ci` / `pip install` of pinned sets; this only stops a wedged install.
const INSTALL_BOUND: Duration = Duration::from_secs(600);
/// The whole conformance run (its slowest scenarios wait a few seconds each).
const SUITE_BOUND: Duration = Duration::from_secs(180);
/// One SDK script: a Python start plus a few loopback calls (each SDK call bounded at 10 s).
const SCRIPT_BOUND: Duration = Duration::from_secs(90);
/// The suite's scenario count in `--suite all` (0.1.11).
const SCENARIOS: usize = 32;

fn baseline_path() -> PathBuf {
    repo().join("mock-servers/conformance/serve-baseline.yml")
}

/// Runs one case of serve_clients.py against `url` and parses its JSON line.
async fn sdk_case(python: &PathBuf, case: &str, url: &str) -> Value {
    let mut cmd = Command::new(python);
    cmd.arg(repo().join("tests/sdk/serve_clients.py"))
        .args([case, url]);
    let out = run_bounded(cmd, SCRIPT_BOUND, &format!("serve_clients.py {case}")).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "serve_clients.py {case} failed ({}):\n{stdout}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("serve_clients.py {case}: not JSON ({e}): {stdout:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn official_conformance_suite_in_server_mode_passes_except_its_baseline() {
    if !optional::have_tools(
        optional::REQUIRE_PEERS,
        &["node", "npm"],
        "the MCP conformance suite in server mode",
    ) {
        return;
    }
    let peers = peers::peers(INSTALL_BOUND).await;
    let tk = gateway_toolkit_with(conformance_tools()).await;
    let (tk, handle) = serve_toolkit(tk, false).await;
    let url = format!("{}/mcp", handle.url().trim_end_matches('/'));
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
        .arg(baseline_path())
        // Each scenario's checks, kept for a failure's post-mortem (git-ignored).
        .arg("--output-dir")
        .arg(repo().join("target/serve-conformance"));
    let out = run_bounded(
        suite,
        SUITE_BOUND,
        "the MCP conformance suite (server mode)",
    )
    .await;
    handle.stop().await;
    drop(tk);

    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = format!(
        "exit {}\n--- suite stdout (tail)\n{}\n--- suite stderr\n{}",
        out.status,
        tail(&stdout, 80),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("Running all suite ({SCENARIOS} scenarios)")),
        "the suite did not run its {SCENARIOS} scenarios:\n{report}"
    );
    assert!(
        out.status.success() && stdout.contains("Baseline check passed"),
        "the served toolkit failed a scenario outside {}, or a baseline scenario now passes \
         (then remove it from the baseline):\n{report}",
        baseline_path().display()
    );
    let ran: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("✓ ").or_else(|| l.strip_prefix("✗ ")))
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(ran.len(), SCENARIOS, "summary lines: {ran:?}\n{report}");
    // The suite ignores a baseline entry that names no scenario; a typo must not hide.
    for entry in peers::baseline_entries(&baseline_path()) {
        assert!(
            ran.contains(&entry.as_str()),
            "the baseline names {entry:?}, which the suite lacks"
        );
    }
    // The §7C surface itself: these must be green whatever the baseline says.
    for must in [
        "server-initialize",
        "ping",
        "tools-list",
        "tools-call-simple-text",
        "tools-call-error",
        "json-schema-2020-12",
        "dns-rebinding-protection",
    ] {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("✓ {must}"))),
            "{must} did not pass:\n{report}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_mcp_sdk_lists_and_calls_the_served_tools() {
    let Some(python) = peers::sdk_python("mcp/a2a-sdk") else {
        return;
    };
    let (tk, handle) = serve_gateway(false).await;
    let v = sdk_case(&python, "mcp", handle.url()).await;
    handle.stop().await;
    drop(tk);

    assert_eq!(v["sdk"], json!({"mcp": "1.30.0"}), "the pinned SDK");
    assert_eq!(
        v["server"],
        json!({"name": "toolnexus", "version": "0.1.0"})
    );
    assert_eq!(v["tools_capability"], true);
    let tools: Vec<&str> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for name in ["mock_echo", "mock_divide", "mock_add", "upper"] {
        assert!(tools.contains(&name), "{name} not listed: {tools:?}");
    }
    assert_eq!(v["echo_schema"]["properties"]["text"]["type"], "string");
    assert_eq!(
        v["echo"],
        json!({"isError": false, "content": [{"type": "text", "text": "hello from the mcp sdk"}]})
    );
    assert_eq!(
        v["divide"],
        json!({"isError": true, "content": [{"type": "text", "text": "division by zero"}]})
    );
    // §7C: an unknown tool is the SDK's standard InvalidParams error.
    assert_eq!(v["unknown"]["error_code"], -32602, "{}", v["unknown"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a2a_sdk_reads_the_card_and_the_task_but_cannot_send_on_the_0_3_wire() {
    let Some(python) = peers::sdk_python("mcp/a2a-sdk") else {
        return;
    };
    let (tk, handle) = serve_gateway(true).await;
    let base = handle.url().trim_end_matches('/').to_string();
    let v = sdk_case(&python, "a2a", &base).await;
    handle.stop().await;
    drop(tk);
    let ctx = serde_json::to_string_pretty(&v).unwrap();

    assert_eq!(v["sdk"], json!({"a2a-sdk": "1.3.0"}), "the pinned SDK");
    // Works: the card resolver maps the 0.3 card's `url`/`protocolVersion` onto one JSON-RPC
    // interface.
    assert_eq!(v["card"]["name"], "served-gateway", "{ctx}");
    assert_eq!(v["card"]["version"], "0.1.0", "{ctx}");
    assert_eq!(v["card"]["skills"], json!([]), "{ctx}");
    assert_eq!(
        v["card"]["interfaces"],
        json!([{"url": format!("{base}/"), "binding": "JSONRPC", "version": "0.3.0"}]),
        "{ctx}"
    );
    // Fails (drift): the SDK negotiates its 0.3 compat transport from the card, which sends
    // `message/send`; §7B only knows `SendMessage`, so the server answers -32601.
    let factory = v["factory_send"]["error"].as_str().unwrap_or_default();
    assert!(factory.starts_with("MethodNotFoundError: "), "{ctx}");
    // Half works: the 1.0 transport sends `SendMessage`, the server accepts it, but the SDK
    // reads a bare 0.3 Task as an empty SendMessageResponse (1.0 wraps it in `task`).
    assert_eq!(v["send"], json!({"ok": {}}), "{ctx}");
    // The server read the task from the SDK's 1.0 parts (no `kind`: §7B reads
    // `parts[].text`) and fulfilled it.
    assert_eq!(v["send_task"]["status"]["state"], "completed", "{ctx}");
    assert_eq!(
        v["send_task"]["artifacts"][0]["parts"][0]["text"], "done: via 1.0",
        "{ctx}"
    );
    // Works: a raw §7B SendMessage returns a submitted Task ...
    assert_eq!(v["raw_send"]["status"]["state"], "submitted", "{ctx}");
    // ... which the 1.0 transport's GetTask reads: id and artifact text survive, the 0.3
    // lowercase state does not (`completed` is no TaskState; the SDK drops it).
    let task_id = v["raw_send"]["id"].as_str().unwrap();
    assert_eq!(v["get_task"]["id"], task_id, "{ctx}");
    assert_eq!(
        v["get_task"]["artifacts"][0]["parts"][0]["text"], "done: hello from the a2a sdk",
        "{ctx}"
    );
    assert!(v["get_task"]["status"].get("state").is_none(), "{ctx}");
    assert_eq!(v["raw_task"]["status"]["state"], "completed", "{ctx}");
}
