//! The image-loop bench operations (issue 46) at smoke sizes, against the real mock LLM: the
//! in-process reference and the reference's own driver carry the tool's image where SPEC §8A
//! puts it on each wire, so both are measured without notes, beside the floor; a miniature
//! port that leaves the image in the OpenAI `tool` message (the place §8A forbids) gets a
//! note and no numbers. (Sizes are tiny on purpose: this checks the operation, it does not
//! benchmark.)

use async_trait::async_trait;
use serde_json::{json, Value};
use toolnexus_bench::{self as bench, BenchOptions, Op};
use toolnexus_ports::port::{Port, PortError};

mod bench_support;
use bench_support::{assert_floors_measured, reference_and_driver, run_then_shut_down};

const OPS: [Op; 2] = [Op::ImageLoopOpenai, Op::ImageLoopAnthropic];

fn options(bin: &str) -> BenchOptions {
    BenchOptions {
        ops: OPS.to_vec(),
        skills: 1,
        grep_files: 1,
        image_bytes: 64 * 1024,
        image_runs: 3,
        ..BenchOptions::smoke(bin.into())
    }
}

#[tokio::test]
async fn the_reference_carries_the_image_where_each_wire_puts_it() {
    let bin = env!("CARGO_BIN_EXE_toolnexus-conformance");
    let mut ports = reference_and_driver(bin);
    let mut lines = Vec::new();
    let report = run_then_shut_down(&mut ports, &options(bin), &mut |l| {
        lines.push(l.to_string())
    })
    .await;
    let text = bench::table(&report);
    assert_eq!(report.rows.len(), 4, "{text}");
    for r in &report.rows {
        assert!(r.notes.is_empty(), "{r:?}\n{text}");
        assert_eq!((r.runs, r.samples), (3, 3), "{r:?}");
        assert!(r.median_ms.is_some_and(|m| m > 0.0), "{r:?}");
    }
    assert!(
        text.contains("loop turn, tool answers a 64 KiB image, openai (3 runs)"),
        "{text}"
    );
    assert!(text.contains("anthropic (3 runs)"), "{text}");
    // One floor per wire, measured in the same rounds, with a ratio to the reference.
    assert_floors_measured(&report, &OPS, 3);
    assert!(
        text.contains("floor (bare HTTP loop sending the same image requests)"),
        "{text}"
    );
    // The driver's answers carry the transcript: on anthropic it holds the image again.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("  reference-driver: run 3/3 ") && l.contains("bytes answered")),
        "{lines:?}"
    );
}

/// A port in miniature whose loop sends the image in the OpenAI `tool` message itself, as
/// `[text, image_url]` content, instead of in a synthetic `user` message after it.
struct MisplacingPort {
    image: String,
    base_url: String,
    http: reqwest::Client,
}

impl MisplacingPort {
    async fn post(&self, body: Value) -> Value {
        let response = self
            .http
            .post(format!("{}/chat/completions", self.base_url))
            .json(&body)
            .send()
            .await
            .unwrap();
        response.json().await.unwrap()
    }

    async fn run(&self) -> Value {
        let prompt = json!({"role": "user", "content": "look at the screen"});
        let first = self
            .post(json!({"model": "bench", "messages": [prompt]}))
            .await;
        let assistant = first["choices"][0]["message"].clone();
        let id = assistant["tool_calls"][0]["id"].clone();
        let url = format!("data:image/png;base64,{}", self.image);
        let tool = json!({"role": "tool", "tool_call_id": id, "content": [
            {"type": "text", "text": "a PNG screenshot"},
            {"type": "image_url", "image_url": {"url": url}}]});
        let second = self
            .post(json!({"model": "bench", "messages": [prompt, assistant, tool]}))
            .await;
        let text = second["choices"][0]["message"]["content"].clone();
        json!({"ok": true, "result": {"text": text, "turns": 2}})
    }
}

#[async_trait]
impl Port for MisplacingPort {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        Ok(match request["cmd"].as_str().unwrap_or("") {
            "build" => {
                let tool = &request["options"]["extraTools"][0];
                let part = &tool["behaviour"]["parts"]["parts"][0];
                self.image = part["data"].as_str().unwrap().to_string();
                json!({"ok": true, "tools": [], "names": [tool["name"]], "statuses": {},
                       "errors": {}, "skills": []})
            }
            "client" => {
                self.base_url = request["options"]["baseUrl"].as_str().unwrap().to_string();
                json!({"ok": true, "client": request["id"]})
            }
            "run" => self.run().await,
            "close" => json!({"ok": true}),
            other => panic!("unexpected command {other}"),
        })
    }
}

#[tokio::test]
async fn an_image_left_in_the_tool_message_is_a_note_not_a_timing() {
    let bin = env!("CARGO_BIN_EXE_toolnexus-conformance");
    let mut ports: Vec<(String, Box<dyn Port>)> = vec![(
        "misplacing".to_string(),
        Box::new(MisplacingPort {
            image: String::new(),
            base_url: String::new(),
            http: toolnexus_ports::tls::client(),
        }),
    )];
    let opts = BenchOptions {
        ops: vec![Op::ImageLoopOpenai],
        ..options(bin)
    };
    let report = bench::run(&mut ports, &opts, &mut |_| {}).await;
    let text = bench::table(&report);
    let row = &report.rows[0];
    assert_eq!(row.median_ms, None, "{text}");
    assert_eq!(row.samples, 0, "{row:?}");
    assert_eq!(row.notes.len(), 1, "{row:?}");
    // The mock saw the image in the last message, but that message is the tool's.
    assert!(
        row.notes[0].contains("messages[-1].content[1] tool image_url image/png"),
        "{row:?}"
    );
}
