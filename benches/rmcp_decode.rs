//! rmcp's own cost on the MCP call path, measured apart from any port (issue 34): decoding
//! one `tools/call` answer line the way an rmcp client does, against decoding the same line
//! as the one result type the client is waiting for.
//!
//! `cargo bench --bench rmcp_decode` times, with criterion, on the 97-byte answer line the
//! mock MCP server writes for `echo {"text": "bench"}`:
//!
//! - `rmcp_decode/server_message`: `ServerJsonRpcMessage` (what rmcp's client transport
//!   decodes every incoming line as: an untagged request/response/notification/error enum,
//!   each shape-checked through serde's flatten buffer, whose response arm is the untagged
//!   `ServerResult` tried result type by result type until `CallToolResult` fits);
//! - `rmcp_decode/call_tool_response`: `JsonRpcResponse<CallToolResult>` (the answer's one
//!   possible type, known from the request it answers);
//! - `rmcp_decode/value`: `serde_json::Value` (parsing the JSON, nothing typed).
//!
//! Then it prints the medians of 20,000 interleaved decodes of each and the ratios. This is
//! the minimal reproduction for upstream: the gap is rmcp's decoding strategy, not I/O.

use std::time::{Duration, Instant};

use std::hint::black_box;

use criterion::Criterion;
use rmcp::model::{CallToolResult, JsonRpcMessage, JsonRpcResponse, ServerJsonRpcMessage};
use serde_json::Value;

/// The mock MCP server's answer to `echo {"text": "bench"}`, as it is on the wire.
const LINE: &str = r#"{"jsonrpc":"2.0","id":568,"result":{"content":[{"type":"text","text":"bench"}],"isError":false}}"#;

fn server_message() -> ServerJsonRpcMessage {
    serde_json::from_str(black_box(LINE)).expect("an rmcp server message")
}

fn call_tool_response() -> JsonRpcResponse<CallToolResult> {
    serde_json::from_str(black_box(LINE)).expect("a CallToolResult response")
}

fn value() -> Value {
    serde_json::from_str(black_box(LINE)).expect("JSON")
}

/// The median of `samples` (sorted in place), in nanoseconds.
fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    // Both typed decodes read the same call result.
    assert!(matches!(server_message(), JsonRpcMessage::Response(_)));
    assert_eq!(
        serde_json::to_value(&call_tool_response().result).expect("serialisable")["content"][0]
            ["text"],
        "bench"
    );

    let mut c = Criterion::default()
        .sample_size(50)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();
    let mut group = c.benchmark_group("rmcp_decode");
    group.bench_function("server_message", |b| b.iter(server_message));
    group.bench_function("call_tool_response", |b| b.iter(call_tool_response));
    group.bench_function("value", |b| b.iter(value));
    group.finish();
    c.final_summary();

    let args: Vec<String> = std::env::args().collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    if !has("--bench") || has("--test") || has("--list") || has("--profile-time") {
        return;
    }
    // Interleaved, so a burst of load lands on all three alike.
    let (mut a, mut b, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..20_000 {
        let t = Instant::now();
        black_box(server_message());
        a.push(t.elapsed().as_nanos() as f64);
        let t = Instant::now();
        black_box(call_tool_response());
        b.push(t.elapsed().as_nanos() as f64);
        let t = Instant::now();
        black_box(value());
        v.push(t.elapsed().as_nanos() as f64);
    }
    let (a, b, v) = (median(&mut a), median(&mut b), median(&mut v));
    println!(
        "\nmedian of 20,000 interleaved decodes: ServerJsonRpcMessage {a:.0} ns, \
         JsonRpcResponse<CallToolResult> {b:.0} ns ({:.1}x less), Value {v:.0} ns ({:.1}x less)",
        a / b,
        a / v
    );
}
