//! toolnexus conformance: a Rust reference implementation of the toolnexus contract, the
//! port protocol that drives any implementation, and the harness that runs the scenarios.

pub mod harness;
pub mod mock_servers;
pub mod protocol;
pub mod reference;
