//! A big classifier request keeps the processes it crosses bounded, and out of what a run
//! writes down (issue 47, item 5): one `systemone` evaluation of ONE choice question of 255
//! options whose descriptions total about 1 MiB, with a state of 100 MiB (100 strings of
//! 1 MiB of plain text), through the reference driver and the mock LLM; then the same
//! evaluation through the harness, whose trace and report must not hold it whole.
//!
//! Each bound is a multiple of the input (the `evaluate` request line the driver reads) on the
//! process's peak resident memory (`VmHWM`, read after the work, so it is the true peak), set
//! with headroom over what was measured (docs/architecture.md, "Big content parts"): memory,
//! not time, so a loaded machine moves nothing. The tests run one at a time (a lock).

use std::sync::Mutex;

use serde_json::{json, Map, Value};

mod memory_support;
use memory_support::{
    assert_peak_under, assert_valid_trace, peak_bytes, run_reference_suite, start_mock_llm,
    traced_json_run, Driver,
};

/// Options of the one choice question: SPEC §8B's largest choice.
const OPTIONS: usize = 255;
/// Bytes of each option's description: 255 of them make about 1 MiB.
const DESCRIPTION_BYTES: usize = 4096;
/// Strings of the state, each [`STATE_STRING_BYTES`] of plain text: 100 MiB in all.
const STATE_STRINGS: usize = 100;
const STATE_STRING_BYTES: usize = 1 << 20;
/// The classifier's model; the mock's scenario answers the question key.
const MODEL: &str = "jev-big";
const KEY: &str = "pick";
/// The option the mock's recorded decision picks.
const CHOSEN: &str = "o007";

/// One test at a time (see the module's comment).
static SERIAL: Mutex<()> = Mutex::new(());

/// Option `i`'s id: `o000` … `o254`.
fn option_id(i: usize) -> String {
    format!("o{i:03}")
}

/// Option `i`'s description: a head naming it, then words, [`DESCRIPTION_BYTES`] in all.
fn description(i: usize) -> String {
    let mut d = format!("option {i:03} moves the piece ");
    while d.len() < DESCRIPTION_BYTES {
        d.push_str("toward the far corner ");
    }
    d.truncate(DESCRIPTION_BYTES);
    d
}

/// The question: one choice of 255 described options, ids written in descending order.
fn questions() -> Value {
    let criteria: Map<String, Value> = (0..OPTIONS)
        .rev()
        .map(|i| (option_id(i), Value::String(description(i))))
        .collect();
    json!({ KEY: {"type": "choice", "instructions": "Which move is best?", "criteria": criteria} })
}

/// The state: 100 strings of 1 MiB of plain text (spaces in it: no base64 run to cut).
fn state() -> Value {
    let line = "the board after move ".repeat(STATE_STRING_BYTES / 21 + 1);
    let line = &line[..STATE_STRING_BYTES];
    Value::Array(
        (0..STATE_STRINGS)
            .map(|_| Value::String(line.to_string()))
            .collect(),
    )
}

/// The mock LLM's scenario: a decision for the question's key.
fn scenario() -> Value {
    json!({"replies": [{"match": {"questionKey": KEY}, "decision": {"model": MODEL, "answers": {
        KEY: {"type": "choice", "choice": CHOSEN,
              "probabilities": {CHOSEN: 0.9, "o008": 0.1}, "confidence": 0.8}}}}]})
}

/// The `evaluate` request line, numbered `seq`: what the driver reads, the input the bounds
/// are multiples of.
fn evaluate_line(seq: u64) -> Vec<u8> {
    let request = json!({"cmd": "evaluate", "classifier": "k1", "state": state(),
                         "questions": questions(), "seq": seq});
    let mut line = serde_json::to_vec(&request).unwrap_or_else(|e| panic!("{e}"));
    line.push(b'\n');
    line
}

/// The driver stays under this multiple of the input while it evaluates (measured 2.16× in a
/// release build: about the request line and its parsed value at once while it is parsed;
/// 4.16× before the driver let the parsed value go and the
/// body stopped copying the state). 3× leaves room for the debug build and allocator slack,
/// and still fails on one more copy of the state.
const DRIVER_BOUND: f64 = 3.0;

/// The mock LLM stays under this multiple while it receives the body (measured 1.13× release:
/// the body; its recording keeps 1 MiB of it). 2× fails on a second copy.
const MOCK_BOUND: f64 = 2.0;

#[test]
fn a_255_option_question_with_a_100_mib_state_keeps_the_driver_and_the_mock_bounded() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let scenario_path = dir.path().join("big-classifier.json");
    std::fs::write(&scenario_path, scenario().to_string()).unwrap_or_else(|e| panic!("{e}"));
    let (mock, url) = start_mock_llm(&scenario_path);

    let mut driver = Driver::start();
    let created = driver.ask(json!({"cmd": "classifier", "id": "k1", "options": {
        "baseUrl": url, "model": MODEL, "timeoutMs": 120_000, "retries": 0}}));
    assert_eq!(created["ok"], true, "{created}");
    let line = evaluate_line(driver.seq);
    driver.seq += 1;
    let input = line.len() as u64;
    let answer = driver.send_line(&line);
    drop(line);
    let (driver_peak, mock_peak) = (peak_bytes(driver.pid()), peak_bytes(mock.0.id()));
    eprintln!(
        "input {input} bytes; driver peak {driver_peak} bytes ({:.2}× the input); mock LLM peak {mock_peak} bytes ({:.2}×)",
        driver_peak as f64 / input as f64,
        mock_peak as f64 / input as f64
    );
    assert_eq!(answer["ok"], true, "{answer:.500}");
    assert_eq!(
        answer["decision"]["answers"][KEY]["choice"], CHOSEN,
        "{answer:.500}"
    );
    assert_peak_under("driver", driver_peak, input, DRIVER_BOUND);
    assert_peak_under("mock LLM", mock_peak, input, MOCK_BOUND);
}

/// The canonical `model` + `questions` bytes of the big request (SPEC §8B): keys sorted (the
/// option ids ascending), compact; the texts need no escape.
fn canonical() -> String {
    let criteria: Map<String, Value> = (0..OPTIONS)
        .map(|i| (option_id(i), Value::String(description(i))))
        .collect();
    let question =
        json!({"criteria": criteria, "instructions": "Which move is best?", "type": "choice"});
    serde_json::to_string(&json!({"model": MODEL, "questions": {KEY: question}}))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A scratch root holding a feature, the judge fixture `big` (state, questions and their
/// canonical bytes) and the mock LLM's scenario. One scenario passes; the `@beyond-spec` one
/// fails on purpose comparing the canonical bytes, so the report has a failure to show, and
/// must show it without the request.
fn big_classifier_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let write = |rel: &str, text: &[u8]| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(&path)).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    };
    let fixture = json!({"model": MODEL, "state": state(), "questions": questions(),
                         "canonical": canonical()});
    write(
        "conformance/fixtures/judge/big.json",
        &serde_json::to_vec(&fixture).unwrap_or_else(|e| panic!("{e}")),
    );
    drop(fixture);
    write(
        "mock-servers/scenarios/llm/big-classifier.json",
        scenario().to_string().as_bytes(),
    );
    let given = r#"    Given a mock LLM runs "big-classifier.json"
    And a classifier created with:
      """
      {"baseUrl": "{{LLM}}", "model": "jev-big", "retryBaseMs": 1, "retries": 0, "timeoutMs": 120000}
      """
    When the classifier evaluates the judge fixture "big"
"#;
    let feature = format!(
        r#"@pin-0.17.0
Feature: Big classifier fixture — a 255-option question and a 100 MiB state through the harness

  @spec-8B
  Scenario: the big evaluation is answered
{given}    Then the evaluation did not raise

  @spec-8B @beyond-spec
  Scenario: a failed canonical comparison of the big request shows none of it
    Beyond the SPEC: a test fixture; the mock keeps only the first MiB of the body, so the
    comparison fails and the report has a failure to show.
{given}    Then LLM request 1 carries the canonical bytes of the judge fixture "big"
"#
    );
    write("features/big_classifier.feature", feature.as_bytes());
    dir
}

/// How many of the 255 descriptions `text` holds whole.
fn whole_descriptions(text: &str) -> usize {
    (0..OPTIONS)
        .filter(|i| text.contains(&description(*i)))
        .count()
}

/// The harness (the CLI's `run`) stays under this multiple of the input while it sends the
/// big request twice (measured 5.25× in a release build; 6.25× while the fixture step copied
/// the state and questions out of the parsed fixture instead of moving them). 7× leaves room
/// and still fails on two more copies.
const HARNESS_BOUND: f64 = 7.0;

#[test]
fn the_harness_keeps_the_big_request_out_of_its_trace_and_report() {
    let _one = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let root = big_classifier_root();
    let run = |format: &str, extra: &[&str]| run_reference_suite(root.path(), format, extra);
    let input = evaluate_line(0).len() as u64;
    let (json_run, trace) = traced_json_run(root.path());
    let text = run("text", &["--filter", "shows none of it"]);
    let canonical = canonical();
    for (name, out) in [("json", &json_run), ("text", &text)] {
        eprintln!(
            "harness `run --format {name}` peak {} bytes ({:.2}× the input); output {} bytes",
            out.peak,
            out.peak as f64 / input as f64,
            out.stdout.len()
        );
        assert_peak_under(
            &format!("harness (--format {name})"),
            out.peak,
            input,
            HARNESS_BOUND,
        );
        assert!(
            !out.stdout.contains(&canonical),
            "the {name} report holds the canonical bytes"
        );
        assert_eq!(
            whole_descriptions(&out.stdout),
            0,
            "{name}: {:.3000}",
            out.stdout
        );
        assert!(
            !out.stdout.contains(&"the board after move ".repeat(1000)),
            "{name}"
        );
    }

    let trace_text = std::fs::read_to_string(&trace).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "trace {} bytes, {} of the {OPTIONS} descriptions whole",
        trace_text.len(),
        whole_descriptions(&trace_text)
    );
    // Each of the two requests keeps its text to the budget: far less than the 1 MiB of
    // descriptions, let alone the state.
    assert!(
        trace_text.len() < 1 << 20,
        "the trace has {} bytes",
        trace_text.len()
    );
    assert!(!trace_text.contains(&canonical));
    assert!(whole_descriptions(&trace_text) < OPTIONS);
    // Each request names where it was cut and how long each cut string was.
    let cut = format!(r#"{{"path":"$.state[0]","chars":{STATE_STRING_BYTES}}}"#);
    assert_eq!(trace_text.matches(&cut).count(), 2, "{trace_text:.3000}");
    let last = format!(
        r#"{{"path":"$.questions.{KEY}.criteria.{}","chars":{DESCRIPTION_BYTES}}}"#,
        option_id(0)
    );
    assert_eq!(trace_text.matches(&last).count(), 2, "{trace_text:.3000}");
    // What is left is still a valid trace.
    assert_valid_trace(&trace);
}
