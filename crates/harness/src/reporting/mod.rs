//! Reporting: what a run's outcome (`crate::outcome`) becomes for its readers — the text and
//! JSON report, JUnit, the HTML matrix, the release history (with where each clause newer
//! than the SPEC history first holds on the releases), the SPEC clause coverage and the
//! scenarios' version bounds from their clauses, the expected-failures comparison, the SPEC
//! diff's review list, the "implement next" list, and `porting`'s map. The SPEC itself (its
//! texts, clause index, arrivals, wholeness lint) is the `toolnexus_spec` crate.

pub mod baseline;
pub mod bounds;
pub mod clause_releases;
pub mod coverage;
pub mod history;
pub mod html;
pub mod junit;
pub mod next;
pub mod porting;
pub mod report;
pub mod spec_diff;
