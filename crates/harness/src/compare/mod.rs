//! Comparing a port's answer with what a step expects: matchers, the expectation kinds,
//! snapshot bodies, JSON paths and the harness's own time bounds.

pub(crate) mod expect;
pub mod expectation;
pub(crate) mod json_path;
pub mod matchers;
pub(crate) mod recorded;
pub(crate) mod snapshots;
pub mod time_bound;
