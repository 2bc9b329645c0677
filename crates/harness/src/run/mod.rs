//! Running scenarios against ports: the executor and its worker pool, the watcher of a
//! port's `unsupported` answers, `porting`'s recorder and the differential mode.

pub mod differential;
pub mod porting;
pub(crate) mod refusals;
pub mod runner;
