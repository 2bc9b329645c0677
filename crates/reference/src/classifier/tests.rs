//! The classifier end to end against a stub server (wiremock): the request's bytes and
//! headers, the retry set, `Retry-After`, `onError`, secrets, the backends, the metric
//! events. Expected values come from the SPEC's rules, written out by hand.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use super::*;
use crate::client::{ErrorDecision, ErrorInfo};

/// A test's own bound on an evaluation; far above what a local round trip needs, so only a
/// hang (an ignored `Retry-After`, say) reaches it.
const HANG: Duration = Duration::from_secs(60);

fn questions() -> Questions {
    serde_json::from_value(json!({
        "move": {"type": "choice", "instructions": "Pick a move",
                 "criteria": {"right": "turn into the wall", "left": "turn away from the wall"}},
        "safe": {"type": "noul", "instructions": "Is it safe?"}
    }))
    .unwrap()
}

fn decision_body() -> Value {
    json!({
        "model": "jev-1.13.0",
        "answers": {
            "move": {"type": "choice", "choice": "left",
                     "probabilities": {"left": 0.8, "right": 0.2}, "confidence": 0.7},
            "safe": {"type": "noul", "noul": 0.9}
        },
        "usage": {"input_tokens": 40, "output_tokens": 2}
    })
}

fn ok() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(decision_body())
}

fn options(server: &MockServer) -> ClassifierOptions {
    ClassifierOptions {
        base_url: format!("{}/v1/", server.uri()),
        model: "jev-test".into(),
        api_key_env: "TOOLNEXUS_CLASSIFIER_TEST_UNSET".into(),
        retry_base_ms: 1,
        ..ClassifierOptions::default()
    }
}

type Events = Arc<Mutex<Vec<MetricEvent>>>;

fn collect(o: &mut ClassifierOptions) -> Events {
    let events: Events = Arc::default();
    let sink = events.clone();
    o.on_metric = Some(Arc::new(move |e: &MetricEvent| {
        sink.lock().unwrap().push(e.clone())
    }));
    events
}

type Infos = Arc<Mutex<Vec<ErrorInfo>>>;

fn on_error(o: &mut ClassifierOptions, answer: ErrorDecision) -> Infos {
    let infos: Infos = Arc::default();
    let seen = infos.clone();
    o.on_error = Some(Arc::new(move |i: &ErrorInfo| {
        seen.lock().unwrap().push(i.clone());
        answer
    }));
    infos
}

async fn evaluate(c: &Classifier, state: Value) -> Result<Decision, ClassifierError> {
    tokio::time::timeout(HANG, c.evaluate(&state, &questions()))
        .await
        .expect("the evaluation hung")
}

async fn requests(server: &MockServer) -> Vec<wiremock::Request> {
    server.received_requests().await.unwrap_or_default()
}

/// One POST to `{baseUrl}/systemone` (the trailing slash trimmed), the body the canonical
/// JSON of `{model, questions, state}` with the state's keys sorted too, the credential
/// from the NAMED variable as a bearer token.
#[tokio::test]
async fn systemone_posts_the_canonical_body_with_the_named_credential() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/systemone"))
        .respond_with(ok())
        .expect(1)
        .mount(&server)
        .await;
    std::env::set_var("TOOLNEXUS_CLASSIFIER_TEST_KEY_1", "key-canary-1");
    let mut o = options(&server);
    o.api_key_env = "TOOLNEXUS_CLASSIFIER_TEST_KEY_1".into();
    let events = collect(&mut o);
    let c = Classifier::new(o).unwrap();
    let d = evaluate(&c, json!({"hp": 3, "at": [2, 1]})).await.unwrap();
    let got = requests(&server).await;
    let r = &got[0];
    assert_eq!(
        String::from_utf8_lossy(&r.body),
        concat!(
            r#"{"model":"jev-test","questions":{"#,
            r#""move":{"criteria":{"left":"turn away from the wall","right":"turn into the wall"},"#,
            r#""instructions":"Pick a move","type":"choice"},"#,
            r#""safe":{"instructions":"Is it safe?","type":"noul"}},"#,
            r#""state":{"at":[2,1],"hp":3}}"#
        )
    );
    let header = |n: &str| {
        r.headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .map(String::from)
    };
    assert_eq!(
        header("authorization").as_deref(),
        Some("Bearer key-canary-1")
    );
    assert_eq!(header("content-type").as_deref(), Some("application/json"));
    assert_eq!(d.model, "jev-1.13.0");
    assert!(d.calibrated);
    assert_eq!(d.answers["safe"], Answer::Noul { noul: 0.9 });
    let events = events.lock().unwrap();
    assert_eq!(
        *events,
        [MetricEvent::ClassifierEvaluate {
            model: "jev-1.13.0".into(),
            status: "ok".into(),
            ms: match &events[0] {
                MetricEvent::ClassifierEvaluate { ms, .. } => *ms,
                _ => u64::MAX,
            },
            input_tokens: Some(40),
            output_tokens: Some(2),
            error: None,
        }]
    );
}

/// No credential in the environment ⇒ no Authorization header; `requestParams` merge (a
/// params key wins) then `bodyTransform`, still canonical.
#[tokio::test]
async fn request_params_then_body_transform_shape_the_body() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ok())
        .mount(&server)
        .await;
    let mut o = options(&server);
    o.request_params = json!({"model": "jev-pinned", "priority": "low"})
        .as_object()
        .cloned()
        .unwrap();
    o.body_transform = Some(Arc::new(|mut body: Value| {
        body["seen"] = body["priority"].clone();
        body
    }));
    let c = Classifier::new(o).unwrap();
    evaluate(&c, json!("a string state")).await.unwrap();
    let got = requests(&server).await;
    assert!(got[0].headers.get("authorization").is_none());
    let body = String::from_utf8_lossy(&got[0].body).to_string();
    assert!(
        body.starts_with(r#"{"model":"jev-pinned","priority":"low","questions":{"#),
        "{body}"
    );
    assert!(
        body.ends_with(r#""seen":"low","state":"a string state"}"#),
        "{body}"
    );
}

/// Mounts `statuses` in order (each answered once), then success.
async fn failing_then_ok(statuses: &[(u16, Option<&str>)]) -> MockServer {
    let server = MockServer::start().await;
    for (status, retry_after) in statuses {
        let mut r = ResponseTemplate::new(*status).set_body_string(format!("busy {status}"));
        if let Some(ra) = retry_after {
            r = r.insert_header("Retry-After", *ra);
        }
        Mock::given(method("POST"))
            .respond_with(r)
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    Mock::given(method("POST"))
        .respond_with(ok())
        .mount(&server)
        .await;
    server
}

/// The classifier's default set is the §8 set plus 408: each is retried once and answers.
#[tokio::test]
async fn the_default_set_is_retried() {
    for status in [408, 429, 500, 502, 503, 504, 529] {
        let server = failing_then_ok(&[(status, None)]).await;
        let c = Classifier::new(options(&server)).unwrap();
        assert!(evaluate(&c, json!(null)).await.is_ok(), "{status}");
        assert_eq!(requests(&server).await.len(), 2, "{status}");
    }
}

/// Every other status is terminal by default (one request); the error surfaces the
/// backend's own words, so a limit error's cause arrives intact.
#[tokio::test]
async fn other_statuses_are_terminal_and_keep_their_cause() {
    for status in [400, 404, 501, 505, 520] {
        let server = failing_then_ok(&[(status, None)]).await;
        let c = Classifier::new(options(&server)).unwrap();
        let err = evaluate(&c, json!(null)).await.unwrap_err();
        assert_eq!(
            err,
            ClassifierError::Http {
                status,
                body: format!("busy {status}")
            }
        );
        assert_eq!(requests(&server).await.len(), 1, "{status}");
    }
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(400)
                .set_body_string("Too many choices. Must have at most 255 choices."),
        )
        .mount(&server)
        .await;
    let c = Classifier::new(options(&server)).unwrap();
    let err = evaluate(&c, json!(null)).await.unwrap_err();
    assert!(
        err.to_string()
            .ends_with("HTTP 400: Too many choices. Must have at most 255 choices."),
        "{err}"
    );
}

/// `retryableStatuses` adds (501 becomes retryable, `info.retryable` says so) and never
/// removes (429 stays retryable).
#[tokio::test]
async fn retryable_statuses_add_to_the_set() {
    let server = failing_then_ok(&[(501, None), (429, None)]).await;
    let mut o = options(&server);
    o.retryable_statuses = vec![501];
    let infos = on_error(&mut o, ErrorDecision::Retry);
    let c = Classifier::new(o).unwrap();
    evaluate(&c, json!(null)).await.unwrap();
    let infos = infos.lock().unwrap();
    let seen: Vec<(Option<u16>, u32, bool)> = infos
        .iter()
        .map(|i| (i.status, i.attempt, i.retryable))
        .collect();
    assert_eq!(seen, [(Some(501), 0, true), (Some(429), 1, true)]);
}

/// `onError` decides each attempt: "fail" stops at once, "retry" is bounded by `retries`.
#[tokio::test]
async fn on_error_decides_and_retries_stay_bounded() {
    let server = failing_then_ok(&[(503, None)]).await;
    let mut o = options(&server);
    let infos = on_error(&mut o, ErrorDecision::Fail);
    let c = Classifier::new(o).unwrap();
    assert!(evaluate(&c, json!(null)).await.is_err());
    assert_eq!(requests(&server).await.len(), 1);
    assert_eq!(infos.lock().unwrap().len(), 1);

    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400))
        .mount(&server)
        .await;
    let mut o = options(&server);
    o.retries = 2;
    let infos = on_error(&mut o, ErrorDecision::Retry);
    let c = Classifier::new(o).unwrap();
    assert!(evaluate(&c, json!(null)).await.is_err());
    assert_eq!(requests(&server).await.len(), 3);
    let retryable: Vec<bool> = infos.lock().unwrap().iter().map(|i| i.retryable).collect();
    assert_eq!(retryable, [false, false, false]);
}

/// A `Retry-After: 0` wins over the backoff: with an hour of backoff the retry still comes
/// at once (an ignored header would hang until the test's bound).
#[tokio::test]
async fn retry_after_wins_over_the_backoff() {
    let server = failing_then_ok(&[(503, Some("0"))]).await;
    let mut o = options(&server);
    o.retry_base_ms = 3_600_000;
    let c = Classifier::new(o).unwrap();
    assert!(evaluate(&c, json!(null)).await.is_ok());
    assert_eq!(requests(&server).await.len(), 2);
}

/// A network error is retryable: a closed port is tried `retries + 1` times.
#[tokio::test]
async fn network_errors_are_retryable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let mut o = ClassifierOptions {
        base_url: format!("http://{addr}"),
        retry_base_ms: 1,
        ..ClassifierOptions::default()
    };
    let infos = on_error(&mut o, ErrorDecision::Retry);
    let c = Classifier::new(o).unwrap();
    let err = evaluate(&c, json!(null)).await.unwrap_err();
    assert!(matches!(err, ClassifierError::Network { .. }), "{err:?}");
    let infos = infos.lock().unwrap();
    assert_eq!(infos.len(), 3);
    assert!(infos
        .iter()
        .all(|i| i.retryable && i.error.is_some() && i.status.is_none()));
}

/// `timeout` bounds each request: a backend that holds its answer for half a minute is cut
/// at 200 ms, and the cut is a network failure (retryable, so `onError` sees it).
#[tokio::test]
async fn the_timeout_bounds_each_request() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ok().set_delay(Duration::from_secs(30)))
        .mount(&server)
        .await;
    let mut o = options(&server);
    o.timeout = Duration::from_millis(200);
    o.retries = 1;
    let infos = on_error(&mut o, ErrorDecision::Retry);
    let c = Classifier::new(o).unwrap();
    let err = evaluate(&c, json!(null)).await.unwrap_err();
    assert!(matches!(err, ClassifierError::Network { .. }), "{err:?}");
    let infos = infos.lock().unwrap();
    assert_eq!(infos.len(), 2);
    assert!(infos.iter().all(|i| i.retryable && i.status.is_none()));
}

/// No credential value and no expanded header value in an error: a 401/403 names status
/// and endpoint only (its body, which echoes the key, is dropped); another status's body is
/// redacted.
#[tokio::test]
async fn secrets_never_reach_an_error() {
    std::env::set_var("TOOLNEXUS_CLASSIFIER_TEST_KEY_2", "key-canary-2");
    std::env::set_var("TOOLNEXUS_CLASSIFIER_TEST_HDR_2", "hdr-canary-2");
    for status in [401, 403, 500] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(status).set_body_string(
                "rejected Bearer key-canary-2 with X-Team hdr-canary-2 (team hdr-canary-2)",
            ))
            .mount(&server)
            .await;
        let mut o = options(&server);
        o.retries = 0;
        o.api_key_env = "TOOLNEXUS_CLASSIFIER_TEST_KEY_2".into();
        o.headers.insert(
            "X-Team".into(),
            "team ${TOOLNEXUS_CLASSIFIER_TEST_HDR_2}".into(),
        );
        let events = collect(&mut o);
        let infos = on_error(&mut o, ErrorDecision::Fail);
        let c = Classifier::new(o).unwrap();
        let err = evaluate(&c, json!(null)).await.unwrap_err();
        let got = requests(&server).await;
        let header = got[0].headers.get("x-team").and_then(|v| v.to_str().ok());
        assert_eq!(header, Some("team hdr-canary-2"), "expanded at call time");
        let text = format!(
            "{err} {err:?} {:?} {:?}",
            events.lock().unwrap(),
            infos.lock().unwrap()
        );
        assert!(!text.contains("canary"), "{status}: {text}");
        if status == 500 {
            assert!(text.contains("rejected Bearer"), "{text}");
        } else {
            assert_eq!(
                err.to_string(),
                format!(
                    "classifier: authentication failed: HTTP {status} from {}/v1/systemone",
                    server.uri()
                )
            );
        }
    }
}

/// Over a limit nothing is sent and the error names the key; the evaluate record fails.
#[tokio::test]
async fn a_limit_error_sends_nothing() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ok())
        .expect(0)
        .mount(&server)
        .await;
    let mut o = options(&server);
    let events = collect(&mut o);
    let c = Classifier::new(o).unwrap();
    let mut qs = Questions::new();
    qs.insert(
        "moves".into(),
        Question::choice(
            "Pick",
            (0..256).map(|i| (format!("o{i}"), format!("option {i}"))),
        ),
    );
    let err = c.evaluate(&json!(null), &qs).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "classifier: question \"moves\": a choice takes 1..255 options, got 256"
    );
    let events = events.lock().unwrap();
    match events.as_slice() {
        [MetricEvent::ClassifierEvaluate { status, error, .. }] => {
            assert_eq!(status, "error");
            assert_eq!(error.as_deref(), Some(err.to_string().as_str()));
        }
        other => panic!("{other:?}"),
    }
}

fn degenerate_questions(key: &str) -> Questions {
    let mut qs = Questions::new();
    qs.insert(
        key.into(),
        Question::choice("Pick", [("left", "left"), ("right", "right")]),
    );
    qs.insert("single".into(), Question::choice("Only", [("only", "")]));
    qs
}

/// A degenerate choice warns once per key per classifier (a `question` and a `warning`,
/// no error), and the request bytes are those of a classifier that never looks.
#[tokio::test]
async fn degenerate_criteria_warn_once_per_key_and_change_nothing() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ok())
        .mount(&server)
        .await;
    let mut o = options(&server);
    let events = collect(&mut o);
    let watched = Classifier::new(o).unwrap();
    let plain = Classifier::new(options(&server)).unwrap();
    for key in ["move", "move", "turn"] {
        let qs = degenerate_questions(key);
        watched.evaluate(&json!(1), &qs).await.unwrap();
        plain.evaluate(&json!(1), &qs).await.unwrap();
    }
    let warnings: Vec<(String, String)> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match e {
            MetricEvent::ClassifierWarning { question, warning } => {
                Some((question.clone(), warning.clone()))
            }
            _ => None,
        })
        .collect();
    let keys: Vec<&str> = warnings.iter().map(|(q, _)| q.as_str()).collect();
    assert_eq!(keys, ["move", "turn"], "once per key; n = 1 never");
    assert!(warnings[0].1.contains("its own id"), "{}", warnings[0].1);
    let bodies: Vec<Vec<u8>> = requests(&server)
        .await
        .into_iter()
        .map(|r| r.body)
        .collect();
    assert_eq!(bodies.len(), 6);
    for pair in bodies.chunks(2) {
        assert_eq!(pair[0], pair[1], "the warning is the only effect");
    }
}

/// `static`: keyed by the canonical request, no network (the base URL is a closed port).
#[tokio::test]
async fn static_answers_from_the_corpus_and_names_unmatched_keys() {
    let c = Classifier::new(ClassifierOptions {
        style: Style::Static,
        base_url: "http://127.0.0.1:9".into(),
        model: "jev-test".into(),
        decisions: vec![RecordedDecision {
            questions: questions(),
            state: json!({"hp": 3}),
            response: decision_body(),
        }],
        ..ClassifierOptions::default()
    })
    .unwrap();
    let d = evaluate(&c, json!({"hp": 3})).await.unwrap();
    assert_eq!(d.model, "jev-1.13.0");
    let mut other = questions();
    other.insert("extra".into(), Question::noul("More?"));
    let err = c.evaluate(&json!(null), &other).await.unwrap_err();
    assert_eq!(
        err,
        ClassifierError::Unmatched {
            keys: vec!["move".into(), "safe".into(), "extra".into()]
        }
    );
}

/// `custom`: the host's function gets the state and the questions as given; the wire
/// options are ignored (a closed port, never called).
#[tokio::test]
async fn custom_calls_the_host_function() {
    let seen: Arc<Mutex<Vec<(Value, Questions)>>> = Arc::default();
    let record = seen.clone();
    let evaluate_fn: EvaluateFn = Arc::new(move |state: Value, qs: Questions| {
        record.lock().unwrap().push((state.clone(), qs.clone()));
        Box::pin(async move {
            if state == json!("fail") {
                return Err("host says no".to_string());
            }
            Decision::from_wire(&decision_body(), &qs, "m").map_err(|e| e.to_string())
        })
    });
    let c = Classifier::new(ClassifierOptions {
        style: Style::Custom,
        base_url: "http://127.0.0.1:9".into(),
        evaluate: Some(evaluate_fn),
        ..ClassifierOptions::default()
    })
    .unwrap();
    assert!(evaluate(&c, json!({"k": 1})).await.is_ok());
    let err = evaluate(&c, json!("fail")).await.unwrap_err();
    assert_eq!(err.to_string(), "classifier: evaluate failed: host says no");
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0], (json!({"k": 1}), questions()));
}

#[test]
fn a_style_missing_its_option_fails_at_construction() {
    let llm = Classifier::new(ClassifierOptions {
        style: Style::Llm,
        ..ClassifierOptions::default()
    });
    assert_eq!(llm.err(), Some(ClassifierError::MissingClient));
    let custom = Classifier::new(ClassifierOptions {
        style: Style::Custom,
        ..ClassifierOptions::default()
    });
    assert_eq!(custom.err(), Some(ClassifierError::MissingEvaluate));
}

/// `llm`: one §8 client run with no tools; the reply's first JSON object is decoded under
/// stand-in ids mapped back to the caller's keys; `calibrated` is false.
#[tokio::test]
async fn llm_runs_the_client_once_and_is_not_calibrated() {
    let server = MockServer::start().await;
    let reply = r#"Here: {"answers": {"q1": {"type": "choice", "choice": "right", "probabilities": {"left": 0.5, "right": 0.5}, "confidence": 0.95}, "q2": {"type": "noul", "noul": 1.0}}}"#;
    Mock::given(method("POST"))
        .and(path("/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "model": "gpt-test",
            "choices": [{"message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        })))
        .expect(1)
        .mount(&server)
        .await;
    let client = Client::new(crate::client::ClientOptions {
        base_url: server.uri(),
        model: "gpt-test".into(),
        api_key: Some("k".into()),
        ..crate::client::ClientOptions::default()
    });
    let c = Classifier::new(ClassifierOptions {
        style: Style::Llm,
        client: Some(client),
        ..ClassifierOptions::default()
    })
    .unwrap();
    let d = evaluate(&c, json!({"hp": 3})).await.unwrap();
    assert!(!d.calibrated);
    assert_eq!(d.model, "gpt-test");
    assert_eq!(d.answers.keys().collect::<Vec<_>>(), ["move", "safe"]);
    match &d.answers["move"] {
        Answer::Choice {
            choice,
            near_uniform,
            ..
        } => assert_eq!((choice.as_str(), *near_uniform), ("right", true)),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        d.usage,
        Some(DecisionUsage {
            input_tokens: Some(100),
            output_tokens: Some(20)
        })
    );
    let sent = String::from_utf8_lossy(&requests(&server).await[0].body).to_string();
    let body: Value = serde_json::from_str(&sent).unwrap();
    assert!(body.get("tools").is_none(), "{sent}");
    let prompt = body["messages"].to_string();
    assert!(
        !prompt.contains("\\\"move\\\"") && !prompt.contains("safe\\\""),
        "{prompt}"
    );
    assert!(prompt.contains("turn away from the wall"), "{prompt}");
}

/// Constructing classifiers (every style, one of them over the client itself) and evaluating
/// alters no request the §8 client makes: its bytes and headers are the same before and
/// after.
#[tokio::test]
async fn a_classifier_changes_no_client_request() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"message": {"role": "assistant", "content": "plain"}}]
        })))
        .mount(&server)
        .await;
    let client = Client::new(crate::client::ClientOptions {
        base_url: server.uri(),
        model: "gpt-test".into(),
        api_key: Some("k".into()),
        ..crate::client::ClientOptions::default()
    });
    let sent = |r: &wiremock::Request| {
        let mut headers: Vec<(String, String)> = r
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.to_string(),
                    String::from_utf8_lossy(v.as_bytes()).to_string(),
                )
            })
            .collect();
        headers.sort();
        (r.body.clone(), headers)
    };
    client
        .run("hi", crate::client::RunOptions::default())
        .await
        .unwrap();
    let before = sent(&requests(&server).await[0]);
    let styles = [
        ClassifierOptions::default(),
        ClassifierOptions {
            style: Style::Llm,
            client: Some(client.clone()),
            ..ClassifierOptions::default()
        },
        ClassifierOptions {
            style: Style::Static,
            decisions: vec![RecordedDecision {
                questions: questions(),
                state: json!(null),
                response: decision_body(),
            }],
            ..ClassifierOptions::default()
        },
    ];
    for o in styles {
        let c = Classifier::new(o).unwrap();
        if c.options().style == Style::Static {
            evaluate(&c, json!(null)).await.unwrap();
        }
    }
    client
        .run("hi", crate::client::RunOptions::default())
        .await
        .unwrap();
    let after = sent(&requests(&server).await[1]);
    assert_eq!(before, after);
}
