//! The classifier bench operations (issue 47) at smoke sizes: the in-process reference and the
//! reference's own driver answer every `evaluate` with the recorded decision, so both are
//! measured without notes, beside the `cat` floor; miniature ports that answer another
//! choice, raise, or have no classifier get a note and no numbers. (Sizes are tiny on purpose:
//! this checks the operations, it does not benchmark.)

use async_trait::async_trait;
use serde_json::{json, Value};
use toolnexus_bench::{self as bench, BenchOptions, Op};
use toolnexus_ports::port::{Port, PortError};

mod bench_support;
use bench_support::{assert_floors_measured, reference_and_driver, run_then_shut_down};

const OPS: [Op; 2] = [Op::ClassifierStatic, Op::ClassifierCanonical255];

fn options(bin: &str) -> BenchOptions {
    BenchOptions {
        ops: OPS.to_vec(),
        skills: 1,
        grep_files: 1,
        classifier_runs: 3,
        ..BenchOptions::smoke(bin.into())
    }
}

#[tokio::test]
async fn the_reference_answers_the_recorded_decisions() {
    let bin = env!("CARGO_BIN_EXE_toolnexus-conformance");
    let mut ports = reference_and_driver(bin);
    let report = run_then_shut_down(&mut ports, &options(bin), &mut |_| {}).await;
    let text = bench::table(&report);
    assert_eq!(report.rows.len(), 4, "{text}");
    for r in &report.rows {
        assert!(r.notes.is_empty(), "{r:?}\n{text}");
        assert_eq!((r.runs, r.samples), (3, 3), "{r:?}");
        assert!(r.median_ms.is_some_and(|m| m > 0.0), "{r:?}");
        assert!(r.ratio_to_reference.is_some(), "{r:?}");
    }
    assert!(
        text.contains("static classifier evaluate, 1 choice of 3 + 1 noul (3 calls)"),
        "{text}"
    );
    assert!(
        text.contains("static classifier evaluate, 10 choices of 255, canonical lookup (3 calls)"),
        "{text}"
    );
    // One floor per operation, measured in the same rounds, with a ratio to the reference.
    assert_floors_measured(&report, &OPS, 3);
    assert!(
        text.contains("floor (evaluate request line through cat)"),
        "{text}"
    );
    assert!(
        text.contains("classifier: 3 counted evaluate calls after 1 warm-up call(s), per call"),
        "{text}"
    );
}

/// How a miniature port answers `evaluate`.
#[derive(Clone, Copy)]
enum Mode {
    /// The recorded decision with one choice changed.
    WrongChoice,
    /// Raises, as an unmatched `static` request does.
    Raises,
    /// No classifier at all.
    Unsupported,
}

/// A port in miniature: keeps the recorded response of its one classifier and answers
/// `evaluate` per its mode.
struct MiniPort {
    mode: Mode,
    response: Value,
}

#[async_trait]
impl Port for MiniPort {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        let unsupported =
            json!({"ok": false, "error": {"kind": "unsupported", "message": "no §8B"}});
        Ok(match (request["cmd"].as_str().unwrap_or(""), self.mode) {
            ("classifier" | "evaluate", Mode::Unsupported) => unsupported,
            ("classifier", _) => {
                self.response = request["options"]["decisions"][0]["response"].clone();
                json!({"ok": true, "classifier": request["id"]})
            }
            ("evaluate", Mode::Raises) => {
                json!({"ok": true, "raised": "no recorded decision for [\"route\", \"urgent\"]"})
            }
            ("evaluate", Mode::WrongChoice) => {
                let mut decision = self.response.clone();
                let answers = decision["answers"].as_object_mut().unwrap();
                for answer in answers.values_mut() {
                    if answer["type"] == "choice" {
                        answer["choice"] = json!("not-an-option");
                        break;
                    }
                }
                json!({"ok": true, "decision": decision})
            }
            (other, _) => panic!("unexpected command {other}"),
        })
    }
}

#[tokio::test]
async fn a_wrong_or_missing_decision_is_a_note_not_a_timing() {
    let bin = env!("CARGO_BIN_EXE_toolnexus-conformance");
    let port = |mode| -> Box<dyn Port> {
        Box::new(MiniPort {
            mode,
            response: Value::Null,
        })
    };
    let mut ports: Vec<(String, Box<dyn Port>)> = vec![
        ("wrong".to_string(), port(Mode::WrongChoice)),
        ("raises".to_string(), port(Mode::Raises)),
        ("none".to_string(), port(Mode::Unsupported)),
    ];
    let report = bench::run(&mut ports, &options(bin), &mut |_| {}).await;
    let text = bench::table(&report);
    assert_eq!(report.rows.len(), 6, "{text}");
    for r in &report.rows {
        assert_eq!(r.median_ms, None, "{r:?}\n{text}");
        assert_eq!(r.samples, 0, "{r:?}");
        assert_eq!(r.notes.len(), 1, "{r:?}");
        let note = &r.notes[0];
        let expected = match r.port.as_str() {
            "wrong" => "\"not-an-option\"",
            "raises" => "evaluate raised: no recorded decision",
            _ => "unsupported: no §8B",
        };
        assert!(note.contains(expected), "{r:?}");
    }
    // The wrong choice is named by its question: the static op's `route`, the wide one's
    // first question as written.
    let wrong = |op: Op| {
        report
            .rows
            .iter()
            .find(|r| r.op == op && r.port == "wrong")
            .map(|r| r.notes[0].clone())
            .unwrap()
    };
    assert!(
        wrong(Op::ClassifierStatic).starts_with("the decision's \"route\" is "),
        "{text}"
    );
    assert!(
        wrong(Op::ClassifierCanonical255).starts_with("the decision's \"judge_09\" is "),
        "{text}"
    );
}
