//! The HTTP clients of the reference (the §8 client, HTTP tools, A2A agents, MCP over HTTP,
//! webfetch) share one TLS configuration. Building a reqwest client loads and parses the
//! platform's root certificates (about 15 ms of CPU); a process that creates a client per
//! toolkit, tool or run would spend most of its time there. Clients themselves stay
//! separate: a pooled connection belongs to the runtime it was opened on.

use std::sync::{Arc, OnceLock};

/// A client builder with the shared TLS configuration (reqwest's own when that cannot be
/// made, which then loads the certificates itself).
pub fn builder() -> reqwest::ClientBuilder {
    static TLS: OnceLock<Option<rustls::ClientConfig>> = OnceLock::new();
    let builder = reqwest::Client::builder();
    match TLS.get_or_init(tls_config) {
        Some(config) => builder.tls_backend_preconfigured(config.clone()),
        None => builder,
    }
}

/// A client with default settings and the shared TLS configuration.
pub fn client() -> reqwest::Client {
    builder().build().unwrap_or_default()
}

/// What reqwest builds by default: the platform verifier, safe protocol versions, HTTP/1.1.
fn tls_config() -> Option<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
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
    #[test]
    fn clients_build_with_the_shared_configuration() {
        for _ in 0..3 {
            assert!(super::builder().build().is_ok());
        }
    }
}
