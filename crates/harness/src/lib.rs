//! The harness: loads scenarios, drives a port through the protocol, compares, reports.
//!
//! It never calls the reference directly: the reference is reached as one port among
//! others, through `toolnexus_ports::port::Port`. Its parts, in the order a run passes
//! through them: [`scenario`] (loading and per-scenario state), [`steps`] (the step
//! vocabulary), [`compare`] (matching an answer), [`run`] (the executor), [`outcome`]
//! (results as data) and [`reporting`] (what the outcome becomes for its readers). The
//! lower three (`scenario`, `compare`, `outcome`) name none of the upper ones
//! (`tests/architecture.rs`).

#![warn(missing_docs)]

pub mod compare;
pub mod outcome;
pub mod reporting;
pub mod run;
pub mod scenario;
pub mod steps;
