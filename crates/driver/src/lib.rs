//! The reference's port driver: protocol requests answered by the reference implementation.
//!
//! `reference_port` is the request handler; the in-process port and the `driver` subcommand
//! both go through it, so the two paths differ only in serialisation.

#![warn(missing_docs)]

pub mod agent_port;
pub mod behaviours;
pub mod classifier_port;
pub mod client_behaviours;
pub mod client_port;
pub mod compact_port;
pub mod driver;
pub mod options;
pub mod recorder;
pub mod reference_port;
pub mod reply;
pub mod serve_port;

pub use reference_port::ReferenceSession;
/// Whether a panic is one the reference's tool boundary catches (for the CLI's panic hook).
pub use toolnexus_reference::tool::inside_tool_boundary;
