//! The HTTP clients of the reference (the §8 client, HTTP tools, A2A agents, MCP over HTTP,
//! webfetch) share one TLS configuration. Building a reqwest client loads and parses the
//! platform's root certificates (about 15 ms of CPU); a process that creates a client per
//! toolkit, tool or run would spend most of its time there. Clients themselves stay
//! separate: a pooled connection belongs to the runtime it was opened on.
//!
//! TLS runs on rustls's `ring` provider, the only one in the build: reqwest's default
//! (`aws-lc-rs`) is a C library whose build alone took a minute of a cold release build on two
//! cores (README "Build time"). reqwest then has no provider of its own, so a client built
//! without [`builder`] (rmcp's, a test's) needs the process default [`install_tls_provider`] sets.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// A client builder with the shared TLS configuration (reqwest's own when that cannot be
/// made, which then loads the certificates itself).
pub fn builder() -> reqwest::ClientBuilder {
    install_tls_provider();
    static TLS: OnceLock<Option<rustls::ClientConfig>> = OnceLock::new();
    let builder = reqwest::Client::builder();
    match TLS.get_or_init(tls_config) {
        Some(config) => builder.tls_backend_preconfigured(config.clone()),
        None => builder,
    }
}

/// A client with reqwest's own defaults (its TLS configuration, not the shared one), the
/// provider installed: what a third-party client of a served toolkit would build.
pub fn plain_client() -> reqwest::Client {
    install_tls_provider();
    reqwest::Client::new()
}

/// A client with default settings and the shared TLS configuration.
pub fn client() -> reqwest::Client {
    builder().build().unwrap_or_default()
}

/// How long an LLM request may go without a byte from the server (waiting for the response
/// head, or between two chunks of a body or stream) when the run has no `timeoutMs`. §8
/// makes `timeoutMs` optional and gives no other bound; without one a model that accepts
/// and never answers held a run, and the driver serving it, forever. A per-read bound, not a
/// deadline: a slow stream that keeps sending is never cut. 120 s, as the Python port's
/// per-request default (NOTES #336).
pub const LLM_IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// How long connecting to an LLM endpoint may take: the §2 connect default.
pub const LLM_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// The default client of LLM requests (the §8 client's, an agent runtime's): the shared
/// TLS configuration, [`LLM_CONNECT_TIMEOUT`] and [`LLM_IDLE_TIMEOUT`].
pub fn llm_client() -> reqwest::Client {
    llm_client_with_idle(LLM_IDLE_TIMEOUT)
}

/// [`llm_client`] with another idle bound (tests use a short one).
pub fn llm_client_with_idle(idle: Duration) -> reqwest::Client {
    builder()
        .connect_timeout(LLM_CONNECT_TIMEOUT)
        .read_timeout(idle)
        .build()
        .unwrap_or_default()
}

/// Makes `ring` the process's default rustls provider, once; a later call, or a provider
/// another part of the process installed first, leaves it as it is. Every reqwest client
/// built without [`builder`] needs a default installed before it is built.
pub fn install_tls_provider() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // Err only when a default is already installed: then that one serves.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// What reqwest builds by default: the platform verifier, safe protocol versions, HTTP/1.1.
fn tls_config() -> Option<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls_platform_verifier::Verifier::new(provider.clone()).ok()?;
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .ok()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Some(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_build_with_the_shared_configuration() {
        for _ in 0..3 {
            assert!(super::builder().build().is_ok());
        }
    }

    /// A server that accepts and never answers ends an LLM request with a timeout instead
    /// of holding it for ever (issue 28 item 3). The outer bound is only the test's own
    /// guard, far above the idle bound, so load cannot break it.
    #[tokio::test]
    async fn a_silent_server_times_out_on_the_idle_bound() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let hold = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                held.push(socket); // never read from, never written to
            }
        });
        let client = llm_client_with_idle(Duration::from_millis(200));
        let sent = client
            .post(format!("http://{addr}/v1/chat/completions"))
            .body("{}")
            .send();
        let outcome = tokio::time::timeout(Duration::from_secs(60), sent).await;
        hold.abort();
        let err = outcome
            .expect("the idle bound did not end the request")
            .unwrap_err();
        assert!(err.is_timeout(), "{err}");
    }
}
