//! The harness: loads scenarios, drives a port through the protocol, compares, reports.
//!
//! It never calls the reference directly: the reference is reached as one port among
//! others, through `port::Port`.

#![warn(missing_docs)]

pub mod baseline;
pub mod bench;
pub mod children;
pub mod clauses;
pub mod differential;
pub mod expect;
pub mod failure;
pub mod features;
pub mod history;
pub mod html;
pub mod inprocess;
pub mod json_path;
pub mod junit;
pub mod matchers;
pub mod mock_launch;
pub mod normalise;
pub mod port;
pub mod prometheus;
pub mod registry;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod secret;
pub mod snapshots;
pub mod spec_diff;
pub mod steps;
pub mod subprocess;
pub mod surroundings;
pub mod time_bound;
pub mod trace;
