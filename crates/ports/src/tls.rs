//! The process's TLS provider. The build carries rustls's `ring` provider only, not
//! reqwest's default `aws-lc-rs` (a C library whose build alone took a minute of a cold
//! release build on two cores: README "Build time"). reqwest then has no provider of its
//! own, so every client (the harness's, and the one rmcp builds for MCP over HTTP) needs the
//! process default installed first: these functions do that before they build.

use std::sync::OnceLock;

/// Makes `ring` the process's default rustls provider, once; when another part of the
/// process installed one first, that one serves.
pub fn install_provider() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        // Err only when a default is already installed.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A reqwest client builder, the provider installed.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_provider();
    reqwest::Client::builder()
}

/// A reqwest client with reqwest's defaults, the provider installed.
pub fn client() -> reqwest::Client {
    install_provider();
    reqwest::Client::new()
}
