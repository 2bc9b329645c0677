//! Reporting: what a run's outcome (`crate::outcome`) becomes for its readers — the text and
//! JSON report, JUnit, the HTML matrix, the release history, the SPEC clause coverage, the
//! expected-failures comparison and the SPEC diff.

pub mod baseline;
pub mod clauses;
pub mod history;
pub mod html;
pub mod junit;
pub mod report;
pub mod spec_diff;
