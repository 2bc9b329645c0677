//! A port that did not answer within the harness's limit: the one message the transports
//! write for it ([`no_answer`]) and its recogniser ([`late_answer`]), kept together so the
//! runner can tell a harness bound broken by the machine's load from a port's own failure
//! (NOTES #309) without parsing free text written elsewhere.

use std::time::Duration;

/// The message of a port (`who`: a driver, the in-process reference) that did not `verb`
/// (`answer`, `read`) `cmd` within `limit`; [`late_answer`] recognises it.
pub fn no_answer(who: &str, verb: &str, cmd: &str, limit: Duration) -> String {
    format!(
        "{who} did not {verb} `{cmd}` within {} ms",
        limit.as_millis()
    )
}

/// Whether a failure headline (a `Failure`'s `message`, without its step) says a port's
/// answer came too late: a harness bound that the machine's load alone can break. (A step's
/// own upper bound is typed: `Failure::bound`.)
pub fn late_answer(headline: &str) -> bool {
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
    fn driver_timeouts_are_late_answers() {
        let late = no_answer("driver", "answer", "run", Duration::from_millis(5000));
        assert_eq!(late, "driver did not answer `run` within 5000 ms");
        assert!(late_answer(&format!("driver failure: {late}; killed it")));
        assert!(late_answer(&no_answer(
            "the in-process reference",
            "answer",
            "build",
            Duration::from_millis(1500)
        )));
        assert!(late_answer(&format!(
            "driver failure: {}; killed it",
            no_answer("driver", "read", "execute", Duration::from_millis(5))
        )));
    }

    #[test]
    fn port_failures_are_not() {
        assert!(!late_answer("$.text: expected \"a\", got \"b\""));
        assert!(!late_answer(
            "driver failure: driver exited (closed its stdout) while answering `run`"
        ));
        // A port's own message that happens to say the words is not a harness bound.
        assert!(!late_answer(
            "the run raised: mcp did not answer `x` within soon"
        ));
    }
}
