//! The SPEC as data, and nothing else: its texts, sections, clause index and arrivals.
//!
//! Everything here reads the SPEC (`../shared/spec/SPEC.md` and its history, one text per
//! release) and the clause index (`conformance/clauses/<version>.json`); nothing knows of
//! ports, scenarios, features or reports, so a SPEC change starts and is checked here. The
//! harness ties clauses to scenarios on top of it.
//!
//! The modules import one way only, so each can be read from the bottom up: `text`,
//! `version`, `sections` and `similarity` import nothing of the crate; `sentences`, `texts`
//! and `clauses` build on those; `arrival`, `wholeness` and `diff` on `clauses`.

#![warn(missing_docs)]

pub mod arrival;
pub mod clauses;
pub mod diff;
pub mod sections;
pub mod sentences;
pub mod similarity;
pub mod text;
pub mod texts;
pub mod version;
pub mod wholeness;
