//! Outcomes as data: a failed step, a scenario's result and a run's report, and what a
//! skipped scenario's requests needed of the port; every reporter reads these.

pub mod failure;
pub mod model;
pub mod needs;
