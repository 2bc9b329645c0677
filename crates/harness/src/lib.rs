//! The harness: loads scenarios, drives a port through the protocol, compares, reports.
//!
//! It never calls the reference directly: the reference is reached as one port among
//! others, through `port::Port`.

#![warn(missing_docs)]

pub mod differential;
pub(crate) mod expect;
pub mod expectation;
pub mod failure;
pub mod features;
pub(crate) mod json_path;
pub mod matchers;
pub mod needs;
pub mod normalise;
pub mod outcome;
pub mod porting;
pub(crate) mod prometheus;
pub(crate) mod refusals;
pub mod reporting;
pub mod runner;
pub mod scenario;
pub(crate) mod snapshots;
pub mod steps;
pub(crate) mod surroundings;
pub mod time_bound;

// The CLI names these reporters at the crate root, as it always has; the SPEC's own modules
// are `toolnexus_spec`'s, and what ties it to the scenarios is under `reporting`.
pub use reporting::{baseline, history, html, junit, report};
