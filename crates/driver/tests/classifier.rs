//! §5.29–§5.30 through the reference session: `classifier` builds one from protocol options
//! (or answers the constructor's `raised`), `evaluate` answers the protocol's `Decision` and
//! what the host callbacks recorded.

use serde_json::{json, Value};
use toolnexus_driver::ReferenceSession;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn ok(session: &mut ReferenceSession, request: Value) -> Value {
    let answer = session.handle(request.clone()).await;
    assert_eq!(answer["ok"], true, "{request} ⇒ {answer}");
    answer
}

async fn refused(session: &mut ReferenceSession, request: Value) -> String {
    let answer = session.handle(request.clone()).await;
    assert_eq!(answer["ok"], false, "{request} ⇒ {answer}");
    answer["error"]["kind"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn move_question() -> Value {
    // Unsorted on purpose, as the harness writes it.
    json!({"move": {"type": "choice", "instructions": "Pick a move",
                    "criteria": {"right": "turn into the wall", "left": "turn away from the wall"}}})
}

fn wire_decision() -> Value {
    json!({"model": "jev-test", "answers": {"move": {"type": "choice", "choice": "left",
           "probabilities": {"left": 0.8, "right": 0.2}, "confidence": 0.7}}})
}

/// The protocol's own example (§5.30): a systemone classifier over a stub, the decision in
/// the protocol's shape, one `classifier.evaluate` record; the body the stub got is sorted.
#[tokio::test]
async fn systemone_answers_the_protocol_decision() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/systemone"))
        .respond_with(ResponseTemplate::new(200).set_body_json({
            let mut d = wire_decision();
            d["usage"] = json!({"input_tokens": 12, "output_tokens": 3});
            d
        }))
        .mount(&server)
        .await;
    let mut s = ReferenceSession::new();
    let created = ok(
        &mut s,
        json!({"cmd": "classifier", "id": "k1", "options": {"baseUrl": server.uri(),
               "model": "jev-test", "apiKeyEnv": "TOOLNEXUS_DRIVER_TEST_UNSET",
               "onMetric": {"collect": true}}}),
    )
    .await;
    assert_eq!(created["classifier"], "k1");
    let answer = ok(
        &mut s,
        json!({"cmd": "evaluate", "classifier": "k1", "state": {"hp": 3},
               "questions": move_question()}),
    )
    .await;
    assert_eq!(
        answer["decision"],
        json!({"model": "jev-test", "answers": {"move": {"type": "choice", "choice": "left",
               "probabilities": {"left": 0.8, "right": 0.2}, "confidence": 0.7,
               "nearUniform": false}}, "usage": {"inputTokens": 12, "outputTokens": 3},
               "calibrated": true})
    );
    let events = answer["metricEvents"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(events.len(), 1, "{answer}");
    assert_eq!(events[0]["event"], "classifier.evaluate");
    assert_eq!(events[0]["status"], "ok");
    assert_eq!(events[0]["model"], "jev-test");
    assert_eq!(
        (&events[0]["inputTokens"], &events[0]["outputTokens"]),
        (&json!(12), &json!(3))
    );
    assert!(events[0].get("error").is_none(), "{answer}");
    assert!(answer.get("onErrorCalls").is_none() && answer.get("evaluateCalls").is_none());
    assert!(answer["elapsedMs"].is_u64());
    let got = server.received_requests().await.unwrap_or_default();
    assert_eq!(
        String::from_utf8_lossy(&got[0].body),
        concat!(
            r#"{"model":"jev-test","questions":{"move":{"criteria":{"left":"turn away from the wall","#,
            r#""right":"turn into the wall"},"instructions":"Pick a move","type":"choice"}},"#,
            r#""state":{"hp":3}}"#
        )
    );
}

/// `retryableStatuses`, `onError` (recorded in `onErrorCalls`) and `bodyTransform`.
#[tokio::test]
async fn the_client_behaviours_serve_the_classifier() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(501))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(wire_decision()))
        .mount(&server)
        .await;
    let mut s = ReferenceSession::new();
    ok(
        &mut s,
        json!({"cmd": "classifier", "id": "k1", "options": {"baseUrl": server.uri(),
               "retryBaseMs": 1, "retryableStatuses": [501], "onError": {"answer": "retry"},
               "bodyTransform": {"set": {"wrapped": true}}}}),
    )
    .await;
    let answer = ok(
        &mut s,
        json!({"cmd": "evaluate", "classifier": "k1", "questions": move_question()}),
    )
    .await;
    assert_eq!(
        answer["decision"]["answers"]["move"]["choice"], "left",
        "{answer}"
    );
    assert_eq!(
        answer["onErrorCalls"],
        json!([{"status": 501, "attempt": 0, "retryable": true}])
    );
    let got = server.received_requests().await.unwrap_or_default();
    assert_eq!(got.len(), 2);
    let body: Value = serde_json::from_slice(&got[1].body).unwrap();
    assert_eq!(body["wrapped"], true);
    assert_eq!(body["model"], "jev-latest", "the default model");
}

#[tokio::test]
async fn construction_errors_are_raised_and_unknown_ids_refused() {
    let mut s = ReferenceSession::new();
    for (options, words) in [
        (json!({"style": "llm"}), "needs a client"),
        (json!({"style": "custom"}), "needs an evaluate"),
        (json!({"style": "bogus"}), "unknown style \"bogus\""),
    ] {
        let answer = ok(
            &mut s,
            json!({"cmd": "classifier", "id": "k1", "options": options}),
        )
        .await;
        let raised = answer["raised"].as_str().unwrap_or_default();
        assert!(raised.contains(words), "{answer}");
    }
    let kind = refused(
        &mut s,
        json!({"cmd": "evaluate", "classifier": "nope", "questions": move_question()}),
    )
    .await;
    assert_eq!(kind, "bad_request");
    let kind = refused(
        &mut s,
        json!({"cmd": "classifier", "id": "k2", "options": {"style": "llm", "client": "c9"}}),
    )
    .await;
    assert_eq!(kind, "bad_request");
}

/// `custom`: each call recorded as `{state, questions}` (wire form, caller's order); the
/// decision is decoded by the reference (`nearUniform` computed, `calibrated` defaulted).
#[tokio::test]
async fn custom_records_each_call_and_decodes_the_decision() {
    let mut s = ReferenceSession::new();
    let near = json!({"model": "host", "answers": {"move": {"type": "choice", "choice": "right",
                      "probabilities": {"left": 0.48, "right": 0.52}, "confidence": 0.2}},
                      "calibrated": false});
    ok(
        &mut s,
        json!({"cmd": "classifier", "id": "k1", "options": {"style": "custom",
               "baseUrl": "http://127.0.0.1:9", "evaluate": {"decision": near}}}),
    )
    .await;
    let answer = ok(
        &mut s,
        json!({"cmd": "evaluate", "classifier": "k1", "state": [1, "two"],
               "questions": move_question()}),
    )
    .await;
    assert_eq!(answer["decision"]["answers"]["move"]["nearUniform"], true);
    assert_eq!(answer["decision"]["calibrated"], false);
    assert_eq!(
        answer["evaluateCalls"],
        json!([{"state": [1, "two"], "questions": move_question()}])
    );
    let calls = serde_json::to_string(&answer["evaluateCalls"][0]["questions"]).unwrap();
    assert!(
        calls.find("right") < calls.find("left"),
        "the caller's order: {calls}"
    );

    ok(
        &mut s,
        json!({"cmd": "classifier", "id": "k2", "options": {"style": "custom",
               "evaluate": {"fail": "host says no"}}}),
    )
    .await;
    let answer = ok(
        &mut s,
        json!({"cmd": "evaluate", "classifier": "k2", "questions": move_question()}),
    )
    .await;
    assert!(
        answer["raised"]
            .as_str()
            .unwrap_or_default()
            .contains("host says no"),
        "{answer}"
    );
    assert_eq!(answer["evaluateCalls"].as_array().map(Vec::len), Some(1));
}

/// `static`: the corpus answers a matching request; an unmatched one raises naming its key.
#[tokio::test]
async fn static_answers_from_the_corpus() {
    let mut s = ReferenceSession::new();
    ok(
        &mut s,
        json!({"cmd": "classifier", "id": "k1", "options": {"style": "static", "model": "jev-test",
               "decisions": [{"questions": move_question(), "response": wire_decision()}]}}),
    )
    .await;
    let answer = ok(
        &mut s,
        json!({"cmd": "evaluate", "classifier": "k1", "state": "anything",
               "questions": move_question()}),
    )
    .await;
    assert_eq!(answer["decision"]["model"], "jev-test", "{answer}");
    let other = json!({"other": {"type": "noul", "instructions": "Holds?", "criteria": {}}});
    let answer = ok(
        &mut s,
        json!({"cmd": "evaluate", "classifier": "k1", "questions": other}),
    )
    .await;
    let raised = answer["raised"].as_str().unwrap_or_default();
    assert!(raised.contains("\"other\""), "{answer}");
}

/// `llm` over an in-process §5.14 client: one run, `calibrated: false`, the caller's keys.
#[tokio::test]
async fn llm_runs_over_a_session_client() {
    let mut s = ReferenceSession::new();
    let reply = r#"{"answers": {"q1": {"type": "choice", "choice": "left", "probabilities": {"left": 0.9, "right": 0.1}, "confidence": 1.0}}}"#;
    ok(
        &mut s,
        json!({"cmd": "client", "id": "c1", "options": {"model": "chat-1",
               "generate": {"script": [{"content": reply}]}}}),
    )
    .await;
    ok(
        &mut s,
        json!({"cmd": "classifier", "id": "k1", "options": {"style": "llm", "client": "c1"}}),
    )
    .await;
    let answer = ok(
        &mut s,
        json!({"cmd": "evaluate", "classifier": "k1", "questions": move_question()}),
    )
    .await;
    let d = &answer["decision"];
    assert_eq!(d["calibrated"], false, "{answer}");
    assert_eq!(d["model"], "chat-1");
    assert_eq!(d["answers"]["move"]["choice"], "left");
}

/// The warned-key memory is the classifier's: it spans `evaluate` commands on one id.
#[tokio::test]
async fn degenerate_warnings_span_evaluate_commands() {
    let mut s = ReferenceSession::new();
    let degenerate = json!({"move": {"type": "choice", "instructions": "Pick",
                            "criteria": {"left": "", "right": ""}}});
    let response = json!({"model": "m", "answers": {"move": {"type": "choice", "choice": "left",
                          "probabilities": {"left": 0.5, "right": 0.5}, "confidence": 0.1}}});
    ok(
        &mut s,
        json!({"cmd": "classifier", "id": "k1", "options": {"style": "static",
               "onMetric": {"collect": true},
               "decisions": [{"questions": degenerate, "response": response}]}}),
    )
    .await;
    let warnings = |answer: &Value| -> Vec<Value> {
        answer["metricEvents"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["event"] == "classifier.warning")
            .cloned()
            .collect()
    };
    let evaluate = json!({"cmd": "evaluate", "classifier": "k1", "questions": degenerate});
    let first = ok(&mut s, evaluate.clone()).await;
    let w = warnings(&first);
    assert_eq!(w.len(), 1, "{first}");
    assert_eq!(w[0]["question"], "move");
    assert!(
        w[0]["warning"].is_string() && w[0].get("error").is_none(),
        "{first}"
    );
    assert_eq!(first["decision"]["answers"]["move"]["nearUniform"], true);
    let second = ok(&mut s, evaluate).await;
    assert!(warnings(&second).is_empty(), "{second}");
}
