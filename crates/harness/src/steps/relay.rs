//! Steps for the SPEC §10 relay addendum (a preview): a build the SPEC makes fail (the relay
//! collision guard), which every other step treats as a broken port.

use serde_json::Value;

use super::StepCtx;
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, StepFailure, StepResult};
use toolnexus_ports::port::PortError;

step! {
    building_toolkit_fails_error_mentioning_text: Actions,
    r#"^building the toolkit fails with an error mentioning "(?P<TEXT>[^"]*)"$"#,
    "`build` with the stored options must fail, answering `raised` (its createToolkit threw, PROTOCOL.md §5.2) or an error (not `unsupported`: that skips), whose message contains TEXT (normalised, lenient: the wording is the port's; `\"\"`: any message, where the SPEC gives no words, NOTES #320); no toolkit results",
    records Kind::Lenient("contains"),
    |StepCtx { port, st, arg, .. }| {
        if let Some(old) = st.toolkit.take() {
            let _ = port.close(&old).await;
        }
        st.counter += 1;
        let id = format!("tk{}", st.counter);
        let options = st.options.clone().unwrap_or_else(|| serde_json::json!({}));
        let answer = port.build(&id, &options).await;
        if answer.is_ok() {
            // A toolkit was made after all: close it so nothing leaks.
            let _ = port.close(&id).await;
        }
        let needle = st.norm(&Value::String(arg.at(1)));
        let message = build_failure(answer)?;
        let message = st.norm(&Value::String(message));
        expect_mention(&message, &needle)
    }
}

/// The message of a refused build: `createToolkit` raised (PROTOCOL.md §5.2 `raised`), or a
/// driver that reports the throw as an error envelope answered one; a build that succeeded
/// fails the step, an `unsupported` one skips it, a transport failure fails it (a crash is
/// not a refusal), and so does an answer that breaks a SPEC type.
fn build_failure(answer: Result<Value, PortError>) -> Result<String, StepFailure> {
    match answer {
        Ok(_) => fail("the build succeeded; the SPEC says it fails"),
        Err(PortError::Raised(message) | PortError::Driver { message, .. }) => Ok(message),
        Err(e @ PortError::Unsupported(_)) => Err(e.into()),
        Err(e @ PortError::Spec { .. }) => fail(format!("the build did not fail: {e}")),
        // A driver that hung, crashed, printed garbage or failed otherwise.
        Err(e) => fail(format!("the build did not answer: {e}")),
    }
}

/// Whether the refusal names what the SPEC makes certain (both normalised JSON strings).
fn expect_mention(message: &Value, needle: &Value) -> StepResult {
    match (message.as_str(), needle.as_str()) {
        (Some(m), Some(n)) if m.contains(n) => Ok(()),
        _ => fail(format!(
            "the build failed, but its error does not mention {needle}: {message}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_refusal_mentioning_the_text_passes() {
        let refused = || {
            Err(PortError::Driver {
                kind: "bad_request".into(),
                message: "relay tool \"read\" collides".into(),
            })
        };
        let m = build_failure(refused()).unwrap();
        assert!(expect_mention(&json!(m), &json!("\"read\"")).is_ok());
        let raised = build_failure(Err(PortError::Raised(
            "relay tool \"read\" collides".into(),
        )));
        assert_eq!(raised.unwrap(), m, "a raised build is the refusal too");
        assert!(expect_mention(&json!(m), &json!("\"bash\"")).is_err());
        assert!(matches!(
            build_failure(Ok(json!({}))),
            Err(StepFailure::Failed(_))
        ));
        assert!(matches!(
            build_failure(Err(PortError::Unsupported("no relay".into()))),
            Err(StepFailure::Skipped(_))
        ));
        assert!(matches!(
            build_failure(Err(PortError::Transport("crashed".into()))),
            Err(StepFailure::Failed(_))
        ));
    }
}
