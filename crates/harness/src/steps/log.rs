//! The port's log (a driver's stderr), watched for text the SPEC says is never logged (§8: a
//! part's base64, like a header value). The harness reads no log of an in-process port: the
//! check is then skipped, never passed.

use super::helpers::unescape;
use super::StepCtx;
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail_as, StepFailure};

/// How a log check's skip begins when the harness reads no log of the port: the in-process
/// runs of the tests tell this skip, by design, from any other.
pub const NO_PORT_LOG: &str = "the harness reads no log of this port";

step! {
    port_log_watched_for: Setup, r#"^the port's log is watched for "(?P<TEXT>[^"]+)"$"#,
    "from now on, every byte the driver writes to stderr is searched for TEXT (before any redaction or cut)",
    |StepCtx { port, arg, .. }| {
        // Whether the port has a log is answered by the check, which skips without one.
        port.watch_log(&unescape(&arg.at(1)));
        Ok(())
    }
}

step! {
    port_log_never_mentioned: Expectations, r#"^the port's log never mentioned "(?P<TEXT>[^"]+)"$"#,
    "the driver's stderr, once quiet, did not contain TEXT since it was watched; skipped for a port whose log the harness does not read (in-process)",
    records Kind::Pinned,
    |StepCtx { port, arg, .. }| {
        let needle = unescape(&arg.at(1));
        match port.log_mentioned(&needle).await {
            None => Err(StepFailure::Skipped(format!(
                "{NO_PORT_LOG} (an in-process port, or {needle:?} was not watched)"
            ))),
            Some(false) => Ok(()),
            Some(true) => fail_as(Kind::Pinned, format!(
                "the port's log (its driver's stderr) mentioned {needle:?}"
            )),
        }
    }
}
