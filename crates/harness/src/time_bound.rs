//! The harness's own time bounds, told apart from a port's failures: a scenario that fails
//! only because one of them broke is run once more, alone, before a port is failed for the
//! machine's load (NOTES #309). The bounds are the harness's, not the SPEC's: a driver answer
//! within `--timeout-ms`, and a step's "below N ms" / "within N s" upper bounds.

use std::time::Duration;

/// The label that starts a step failure whose *upper* time bound broke (`[bound] the call
/// took 900 ms, more than 500 ms`). Load only lengthens a wait, so a lower bound ("at least
/// N ms") carries [`LOWER`] instead and is never retried.
pub const UPPER: &str = "[bound]";

/// The label of a failed lower time bound: the port answered sooner than the SPEC allows.
pub const LOWER: &str = "[lower bound]";

/// The message of a port (`who`: a driver, the in-process reference) that did not `verb`
/// (`answer`, `read`) `cmd` within `limit`; [`broke`] recognises it.
pub fn no_answer(who: &str, verb: &str, cmd: &str, limit: Duration) -> String {
    format!(
        "{who} did not {verb} `{cmd}` within {} ms",
        limit.as_millis()
    )
}

/// Whether a failure headline (a `Failure`'s `message`, without its step) is a harness time
/// bound that the machine's load alone can break: a driver answer that came too late, or a
/// step's upper bound.
pub fn broke(headline: &str) -> bool {
    if headline.starts_with(UPPER) {
        return true;
    }
    // `driver failure: driver did not answer `run` within 5000 ms; killed it`
    ["answer", "read"].iter().any(|verb| {
        headline
            .split_once(&format!(" did not {verb} `"))
            .and_then(|(_, rest)| rest.split_once("` within "))
            .is_some_and(|(_, tail)| {
                tail.split_once(" ms")
                    .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_timeouts_and_upper_bounds_are_time_bounds() {
        let late = no_answer("driver", "answer", "run", Duration::from_millis(5000));
        assert_eq!(late, "driver did not answer `run` within 5000 ms");
        assert!(broke(&format!("driver failure: {late}; killed it")));
        assert!(broke(&no_answer(
            "the in-process reference",
            "answer",
            "build",
            Duration::from_millis(1500)
        )));
        assert!(broke(&format!(
            "driver failure: {}; killed it",
            no_answer("driver", "read", "execute", Duration::from_millis(5))
        )));
        assert!(broke("[bound] 2600 ms, not below 2500 ms"));
        assert!(broke("[bound] task t-1 is still \"working\" after 10 s"));
    }

    #[test]
    fn lower_bounds_and_port_failures_are_not() {
        assert!(!broke("[lower bound] the run 10 ms, less than 1000 ms"));
        assert!(!broke("$.text: expected \"a\", got \"b\""));
        assert!(!broke(
            "driver failure: driver exited (closed its stdout) while answering `run`"
        ));
        // A port's own message that happens to say the words is not a harness bound.
        assert!(!broke("the run raised: mcp did not answer `x` within soon"));
        assert!(!broke("a bound [bound] in the middle"));
    }
}
