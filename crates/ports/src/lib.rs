//! The port boundary: how the harness and the bench reach an implementation, and the
//! processes a run starts beside it.
//!
//! Every implementation, the reference included, is one [`port::Port`]: a driver process
//! ([`subprocess`]) or a protocol handler called in-process ([`inprocess`]), found by name
//! in `conformance/ports.json` ([`registry`]). What else a run starts (mock servers,
//! [`mock_launch`]) is registered in [`children`] so every exit path stops it. Nothing here
//! knows scenarios, steps or reports: a step file's change rebuilds none of this, nor the
//! bench built on it.

#![warn(missing_docs)]

pub mod children;
pub mod inprocess;
pub mod late;
pub mod log_watch;
pub mod mock_launch;
pub mod payload;
pub mod port;
pub mod registry;
pub mod secret;
pub mod setup_lock;
pub mod spec_default;
pub mod subprocess;
pub mod tls;
pub mod trace;
