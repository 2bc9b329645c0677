//! The reference's port driver: protocol requests answered by the reference implementation.
//!
//! `reference_port` is the request handler; the in-process port and the `driver` subcommand
//! both go through it, so the two paths differ only in serialisation.

pub mod behaviours;
pub mod driver;
pub mod options;
pub mod reference_port;

pub use reference_port::ReferenceSession;
