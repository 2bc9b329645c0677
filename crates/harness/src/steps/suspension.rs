//! §10 suspension steps: what the client's `waitFor` received (`waitForCalls`, PROTOCOL.md
//! §5.13), the list a loop answer carries when the client was created with `waitFor`.

use serde_json::Value;

use super::{boxed, compile, expect_json, Group, StepCtx, StepDef};
use crate::json_path;
use crate::scenario::{fail, ScenarioState, StepFailure};

/// The `waitForCalls` steps.
pub(super) fn steps() -> Vec<StepDef> {
    vec![
        step!(Expectations, r#"^waitForCalls has (?P<N>\d+) entries$"#,
        "the last loop command's `waitForCalls` (one Request per `waitFor` call) has N entries",
        records "pinned",
        |StepCtx { st, arg, .. }| {
            let calls = wait_for_calls(st)?;
            let want: usize = arg.at(1).parse().unwrap_or(usize::MAX);
            count_is(&calls, want)
        }),
        step!(
            Expectations,
            r#"^waitForCalls at "(?P<PATH>[^"]*)" is:$"# + "JSON (matchers allowed)",
            "the value at PATH of `waitForCalls` (`[0]`, `[1].prompt`; normalised)",
            |StepCtx { st, step, arg, .. }| {
                let expected = st.expect_doc(step)?;
                let actual = at(&Value::Array(wait_for_calls(st)?), &arg.at(1))?;
                expect_json(st, &expected, &actual)
            }
        ),
        step!(
            Expectations,
            r#"^waitForCalls at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
            "the same, the expected JSON inline",
            |StepCtx { st, arg, .. }| {
                let expected: Value = serde_json::from_str(arg.at(2).trim()).map_err(|e| {
                    StepFailure::failed(format!("{:?} is not JSON ({e})", arg.at(2)))
                })?;
                let actual = at(&Value::Array(wait_for_calls(st)?), &arg.at(1))?;
                expect_json(st, &expected, &actual)
            }
        ),
    ]
}

/// `waitForCalls` of the last loop command, normalised; absent ⇒ the seam was not installed.
fn wait_for_calls(st: &ScenarioState) -> Result<Vec<Value>, StepFailure> {
    let Some((cmd, answer)) = &st.loop_answer else {
        return fail("no run, stream, ask or conversation has been sent in this scenario");
    };
    match answer.get("waitForCalls").and_then(Value::as_array) {
        Some(items) => Ok(st
            .norm(&Value::Array(items.clone()))
            .as_array()
            .cloned()
            .unwrap_or_default()),
        None => fail(format!(
            "the `{cmd}` answer has no `waitForCalls` (was the client created with `waitFor`?)"
        )),
    }
}

fn count_is(calls: &[Value], want: usize) -> Result<(), StepFailure> {
    if calls.len() == want {
        Ok(())
    } else {
        fail(format!(
            "[pinned] waitForCalls has {} entries, not {want}: {}",
            calls.len(),
            crate::port::truncate(&Value::Array(calls.to_vec()).to_string(), 400)
        ))
    }
}

fn at(root: &Value, path: &str) -> Result<Value, StepFailure> {
    match json_path::get(root, path).map_err(StepFailure::failed)? {
        Some(v) => Ok(v.clone()),
        None => fail(format!(
            "waitForCalls has nothing at {path:?}: {}",
            crate::port::truncate(&root.to_string(), 400)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn count_is_exact() {
        assert!(count_is(&[json!({})], 1).is_ok());
        assert!(count_is(&[json!({}), json!({})], 1).is_err());
        assert!(count_is(&[], 1).is_err());
    }

    #[test]
    fn at_reads_paths_and_names_a_miss() {
        let root = json!([{"prompt": "Approve?"}]);
        assert_eq!(at(&root, "[0].prompt").ok(), Some(json!("Approve?")));
        assert!(at(&root, "[1]").is_err());
    }
}
