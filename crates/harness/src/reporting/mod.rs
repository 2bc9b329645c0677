//! Reporting: what a run's outcome (`crate::outcome`) becomes for its readers — the text and
//! JSON report, JUnit, the HTML matrix, the release history, the SPEC clause coverage, the
//! expected-failures comparison, the SPEC text and its history (clause arrivals, the
//! wholeness lint), the SPEC diff, the "implement next" list, and `porting`'s map.

pub mod arrival;
pub mod baseline;
pub mod clauses;
pub mod history;
pub mod html;
pub mod junit;
pub mod next;
pub mod porting;
pub mod report;
pub mod spec_diff;
pub mod spec_text;
pub mod wholeness;
