//! The mock LLM against the real provider SDKs: the pinned Python `openai` and `anthropic`
//! packages (tests/sdk/requirements.txt, installed by tests/sdk/install.sh into
//! target/sdk-venv) call the built mock binary through their public APIs, and
//! tests/sdk/sdk_client.py prints what each SDK parsed or assembled. If the SDKs parse and
//! reassemble the mock's answers into the scenario's values, a port tested against the mock
//! is tested against the wire those SDKs accept.
//!
//! Without the venv (no Python, no PyPI) every test fails and says why, unless
//! TOOLNEXUS_SKIP_SDK=1 is set, which skips them explicitly.

mod optional;
mod peers;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use peers::bounded;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_toolnexus-conformance");
/// The mock's URL line: generous for a loaded CI machine, tiny next to a hang.
const BOUND: Duration = Duration::from_secs(10);
/// One SDK script run: a Python start plus a few loopback calls; the SDKs' own timeout is 10 s.
const SCRIPT_BOUND: Duration = Duration::from_secs(60);
const API_KEY: &str = "test-api-key-1";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A running mock (killed on drop) and its base URL.
struct Llm {
    _child: Child,
    url: String,
}

async fn start(file: &str) -> Llm {
    let mut child = Command::new(BIN)
        .args(["mock", "llm", "--scenario"])
        .arg(root().join("mock-servers/scenarios/llm").join(file))
        .env("MOCK_LLM_API_KEY", API_KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut url = String::new();
    bounded(
        "URL line",
        BOUND,
        BufReader::new(stdout).read_line(&mut url),
    )
    .await
    .unwrap();
    let url = url.trim_end().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "first line {url:?}");
    Llm { _child: child, url }
}

impl Llm {
    /// Runs one case of sdk_client.py against this mock and parses its JSON line.
    async fn sdk(&self, python: &Path, case: &str) -> Value {
        let out = bounded(
            case,
            SCRIPT_BOUND,
            Command::new(python)
                .arg(root().join("tests/sdk/sdk_client.py"))
                .args([case, &self.url])
                // Credentials the SDKs would read from the environment must not leak in.
                .env_remove("OPENAI_API_KEY")
                .env_remove("ANTHROPIC_API_KEY")
                .env_remove("ANTHROPIC_AUTH_TOKEN")
                .env_remove("OPENAI_BASE_URL")
                .env_remove("ANTHROPIC_BASE_URL")
                .stdin(Stdio::null())
                .kill_on_drop(true)
                .output(),
        )
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "sdk_client.py {case} failed ({}):\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("sdk_client.py {case}: not JSON ({e}): {stdout:?}"));
        assert_eq!(
            v["sdk"],
            json!({"openai": "3.51.0", "anthropic": "2.10.0"}),
            "the pinned SDK versions"
        );
        v
    }

    /// The mock's recording of every model request, oldest first.
    async fn recorded(&self) -> Vec<Value> {
        let body = bounded(
            "recording",
            BOUND,
            toolnexus_ports::tls::client()
                .get(format!("{}/_mock/requests", self.url))
                .header("x-api-key", API_KEY)
                .send(),
        )
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
        serde_json::from_str::<Value>(&body)
            .unwrap()
            .as_array()
            .cloned()
            .unwrap()
    }
}

#[tokio::test]
async fn openai_sdk_parses_tool_calls_text_and_usage() {
    let Some(python) = peers::sdk_python("openai/anthropic") else {
        return;
    };
    let llm = start("basic-openai.json").await;
    let v = llm.sdk(&python, "openai").await;
    let usage = json!({"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19});
    assert_eq!(
        v["tool"],
        json!({"id": "chatcmpl-mock-1", "model": "gpt-x", "object": "chat.completion",
               "finish_reason": "tool_calls", "content": null,
               "tool_calls": [{"id": "call_w1", "type": "function", "name": "get_weather",
                               "args": {"city": "Paris", "units": "metric"}}],
               "usage": usage})
    );
    // The SDK's own assistant message went back with the tool result.
    assert_eq!(v["after"]["content"], "It is sunny.");
    assert_eq!(v["after"]["finish_reason"], "stop");
    assert_eq!(v["after"]["tool_calls"], json!([]));
    assert_eq!(v["after"]["usage"], usage);
    assert_eq!(v["plain"]["content"], "echo: hello (gpt-y)");
    assert_eq!(v["plain"]["model"], "gpt-y");
    assert_eq!(v["plain"]["finish_reason"], "stop");

    let sent = llm.recorded().await;
    assert_eq!(sent.len(), 3);
    assert_eq!(sent[0]["path"], "/chat/completions");
    assert_eq!(sent[0]["headers"]["authorization"], "<redacted>");
    assert_eq!(
        sent[0]["body"]["tools"][0]["function"]["name"],
        "get_weather"
    );
    let echoed = &sent[1]["body"]["messages"][1];
    assert_eq!(echoed["role"], "assistant");
    assert_eq!(echoed["tool_calls"][0]["id"], "call_w1");
    assert_eq!(sent[1]["body"]["messages"][2]["tool_call_id"], "call_w1");
}

#[tokio::test]
async fn openai_sdk_stream_assembles_text_tool_call_arguments_and_usage() {
    let Some(python) = peers::sdk_python("openai/anthropic") else {
        return;
    };
    let llm = start("sdk-stream.json").await;
    let v = llm.sdk(&python, "openai-stream").await;
    let calls = json!([
        {"index": 0, "id": "call_p1", "name": "get_weather",
         "args": {"city": "Paris", "units": "metric"}},
        {"index": 1, "id": "call_t2", "name": "get_weather",
         "args": {"city": "Tokyo", "units": "imperial"}}
    ]);
    let raw = &v["raw"];
    assert_eq!(raw["content"], "Checking both cities.");
    assert_eq!(raw["tool_calls"], calls);
    assert_eq!(raw["finish_reason"], "tool_calls");
    assert_eq!(
        raw["usage"],
        json!({"prompt_tokens": 33, "completion_tokens": 11, "total_tokens": 44})
    );
    assert_eq!(raw["usage_chunks"], 1, "one usage chunk with include_usage");
    // Really cut up: 5-character pieces of the text and of each call's arguments.
    assert!(raw["chunks"].as_u64().unwrap() > 15, "{raw}");

    // The SDK's accumulator (chat.completions.stream → get_final_completion) agrees.
    let helper = &v["helper"];
    assert_eq!(helper["content"], "Checking both cities.");
    assert_eq!(helper["finish_reason"], "tool_calls");
    assert_eq!(helper["tool_calls"][1]["id"], "call_t2");
    assert_eq!(
        helper["tool_calls"][1]["args"],
        json!({"city": "Tokyo", "units": "imperial"})
    );
    assert_eq!(helper["usage"], raw["usage"]);

    let text = &v["text"];
    assert_eq!(text["content"], "Paris: sunny; Tokyo: rainy.");
    assert_eq!(text["tool_calls"], json!([]));
    assert_eq!(text["finish_reason"], "stop");
    assert_eq!(
        text["usage"],
        json!({"prompt_tokens": 50, "completion_tokens": 8, "total_tokens": 58})
    );

    let sent = llm.recorded().await;
    assert_eq!(sent.len(), 3);
    for s in &sent {
        assert_eq!(s["body"]["stream"], true, "{s}");
        assert_eq!(s["body"]["stream_options"], json!({"include_usage": true}));
    }
}

#[tokio::test]
async fn anthropic_sdk_parses_text_and_tool_use_blocks() {
    let Some(python) = peers::sdk_python("openai/anthropic") else {
        return;
    };
    let llm = start("basic-anthropic.json").await;
    let v = llm.sdk(&python, "anthropic").await;
    let usage = json!({"input_tokens": 21, "output_tokens": 9});
    assert_eq!(
        v["tool"],
        json!({"id": "msg_mock_1", "model": "claude-x", "role": "assistant",
               "stop_reason": "tool_use",
               "content": [{"type": "text", "text": "Let me look that up."},
                           {"type": "tool_use", "id": "toolu_w1", "name": "get_weather",
                            "input": {"city": "Paris"}}],
               "usage": usage})
    );
    assert_eq!(
        v["after"]["content"],
        json!([{"type": "text", "text": "It is rainy."}])
    );
    assert_eq!(v["after"]["stop_reason"], "end_turn");
    assert_eq!(v["after"]["usage"], usage);

    let sent = llm.recorded().await;
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0]["path"], "/v1/messages");
    assert_eq!(sent[0]["headers"]["x-api-key"], "<redacted>");
    let result = &sent[1]["body"]["messages"][2]["content"][0];
    assert_eq!(result["type"], "tool_result");
    assert_eq!(result["tool_use_id"], "toolu_w1");
}

#[tokio::test]
async fn anthropic_sdk_stream_helper_builds_the_final_message() {
    let Some(python) = peers::sdk_python("openai/anthropic") else {
        return;
    };
    let llm = start("basic-anthropic.json").await;
    let v = llm.sdk(&python, "anthropic-stream").await;
    let usage = json!({"input_tokens": 21, "output_tokens": 9});
    assert_eq!(v["text_stream"], "Let me look that up.");
    // get_final_message: the text block and the tool_use whose input came as partial JSON.
    assert_eq!(
        v["tool"],
        json!({"id": "msg_mock_1", "model": "claude-s", "role": "assistant",
               "stop_reason": "tool_use",
               "content": [{"type": "text", "text": "Let me look that up."},
                           {"type": "tool_use", "id": "toolu_w1", "name": "get_weather",
                            "input": {"city": "Paris"}}],
               "usage": usage})
    );
    assert_eq!(
        v["after"]["content"],
        json!([{"type": "text", "text": "It is rainy."}])
    );
    assert_eq!(v["after"]["stop_reason"], "end_turn");
    assert_eq!(v["after"]["usage"], usage);
    let events: Vec<&str> = v["after_events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(events.first(), Some(&"message_start"));
    assert_eq!(events.last(), Some(&"message_stop"));
    assert!(events.contains(&"message_delta"), "{events:?}");
    // "It is rainy." is 12 characters: three 5-character deltas.
    assert_eq!(
        events
            .iter()
            .filter(|e| **e == "content_block_delta")
            .count(),
        3
    );

    let sent = llm.recorded().await;
    assert_eq!(sent.len(), 2);
    assert!(sent.iter().all(|s| s["body"]["stream"] == true));
}
