//! The harness's own time bounds, told apart from a port's failures: a scenario that fails
//! only because one of them broke is run once more, alone, before a port is failed for the
//! machine's load (NOTES #309). The bounds are the harness's, not the SPEC's: a driver answer
//! within `--timeout-ms`, and a step's "below N ms" / "within N s" upper bounds.

/// Which way a step's time bound points. A failure whose *upper* bound broke (`[bound] the
/// call took 900 ms, more than 500 ms`) may be the machine's load; load only lengthens a wait,
/// so a broken lower bound ("at least N ms") is the port's and is never retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// "below N ms", "within N s": retried once, alone, when it breaks.
    Upper,
    /// "at least N ms": the port answered sooner than the SPEC allows.
    Lower,
}

impl Bound {
    /// The label its failure message starts with, in brackets: `bound`, `lower bound`.
    pub fn label(self) -> &'static str {
        match self {
            Bound::Upper => "bound",
            Bound::Lower => "lower bound",
        }
    }
}
