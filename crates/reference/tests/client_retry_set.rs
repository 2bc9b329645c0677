//! §8 Resilience's enumerated retry set on the reference client: `429`/`500`/`502`/`503`/
//! `504`/`529` and network errors retry; `501`, `505` and `520` are terminal by default;
//! `retryable_statuses` adds to the set (and `onError`'s `info.retryable` follows it).

use std::sync::{Arc, Mutex};

use serde_json::json;
use toolnexus_reference::client::{
    Client, ClientOptions, ErrorDecision, ErrorInfo, RunOptions, Style,
};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// `status` once, then an OpenAI answer.
async fn failing_once(status: u16) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(status).set_body_string("no"))
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "choices": [{"message": {"role": "assistant", "content": "done"}}]
        })))
        .mount(&server)
        .await;
    server
}

fn client(server: &MockServer, added: &[u16], infos: Arc<Mutex<Vec<ErrorInfo>>>) -> Client {
    Client::new(ClientOptions {
        base_url: server.uri(),
        style: Style::OpenAi,
        model: "m".into(),
        api_key: Some("k".into()),
        retry_base_ms: 1,
        retryable_statuses: added.to_vec(),
        // Observes only: the default decision is `retryable ? retry : fail`.
        on_error: Some(Arc::new(move |i: &ErrorInfo| {
            infos.lock().unwrap().push(i.clone());
            if i.retryable {
                ErrorDecision::Retry
            } else {
                ErrorDecision::Fail
            }
        })),
        ..ClientOptions::default()
    })
}

async fn attempts(status: u16, added: &[u16]) -> (usize, Vec<bool>) {
    let server = failing_once(status).await;
    let infos = Arc::new(Mutex::new(Vec::new()));
    let c = client(&server, added, infos.clone());
    let _ = c.run("hi", RunOptions::default()).await;
    let requests = server.received_requests().await.unwrap_or_default().len();
    let retryable = infos.lock().unwrap().iter().map(|i| i.retryable).collect();
    (requests, retryable)
}

#[tokio::test]
async fn the_enumerated_set_retries_and_nothing_else_does() {
    for status in [429, 500, 502, 503, 504, 529] {
        assert_eq!(attempts(status, &[]).await, (2, vec![true]), "{status}");
    }
    for status in [400, 501, 505, 520] {
        assert_eq!(attempts(status, &[]).await, (1, vec![false]), "{status}");
    }
}

#[tokio::test]
async fn retryable_statuses_add_and_never_remove() {
    assert_eq!(attempts(520, &[520]).await, (2, vec![true]));
    // Adding another status leaves 429 in the set.
    assert_eq!(attempts(429, &[520]).await, (2, vec![true]));
}

/// Without `onError` the default classifier follows the same set.
#[tokio::test]
async fn without_on_error_529_is_retried() {
    let server = failing_once(529).await;
    let c = Client::new(ClientOptions {
        base_url: server.uri(),
        model: "m".into(),
        api_key: Some("k".into()),
        retry_base_ms: 1,
        ..ClientOptions::default()
    });
    let result = c.run("hi", RunOptions::default()).await.unwrap();
    assert_eq!(result.text, "done");
    assert_eq!(
        server.received_requests().await.unwrap_or_default().len(),
        2
    );
}
