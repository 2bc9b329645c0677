//! `execute` and its result: the output, `isError`, a suspension, and how long a call took.

use serde_json::{json, Value};

use super::helpers::{execute, execute_aborted, expect_json, expect_text, is_error, unescape};
use crate::compare::expectation::Kind;
use crate::compare::snapshots;
use crate::scenario::state::{fail, fail_as, StepFailure};
use crate::steps::StepCtx;

step! {
    name_executed: Actions, r#"^"(?P<NAME>[^"]+)" is executed$"#,
    "`execute` with no arguments (`{}`)",
    |StepCtx { port, st, arg, .. }| {
        execute(port, st, arg.at(1), json!({}), None).await
    }
}

step! {
    name_executed_with: Actions, r#"^"(?P<NAME>[^"]+)" is executed with:$"# + "JSON args",
    "`execute`",
    |StepCtx { port, st, step, arg, .. }| {
        let args = st.json_doc(step)?;
        execute(port, st, arg.at(1), args, None).await
    }
}

step! {
    name_executed_aborted_after_ms_with: Actions, r#"^"(?P<NAME>[^"]+)" is executed, aborted after (?P<MS>\d+) ms, with:$"# + "JSON args",
    "`execute` with `abortAfterMs`: the call's abort signal (`ctx`) fires MS after it starts",
    |StepCtx { port, st, step, arg, .. }| {
        let args = st.json_doc(step)?;
        let ms = arg.at(2).parse::<u64>().map_err(|e| StepFailure::Failed(format!("not a number of ms: {e}").into()))?;
        execute_aborted(port, st, arg.at(1), args, ms).await
    }
}

step! {
    same_call_executed_again_answer: Actions, r#"^the same call is executed again with the answer:$"# + "JSON Answer",
    "`execute` again with `context.answer` (the `id` defaults to the last `metadata.pending.id`)",
    |StepCtx { port, st, step, .. }| {
        let mut answer = st.json_doc(step)?;
        let Some((name, args)) = st.last_call.clone() else {
            return fail("no earlier call to repeat");
        };
        if answer.get("id").is_none() {
            let id = st
                .result()?
                .pointer("/metadata/pending/id")
                .cloned()
                .ok_or_else(|| {
                    StepFailure::Failed(
                        "the earlier result carries no metadata.pending.id".into(),
                    )
                })?;
            answer["id"] = id;
        }
        execute(port, st, name, args, Some(answer)).await
    }
}

step! {
    result_is_error: Expectations, r#"^the result is an error$"#,
        "`isError` is true",
        records Kind::Pinned,
        |StepCtx { st, .. }| { is_error(st, true) }
}

step! {
    result_is_not_error: Expectations, r#"^the result is not an error$"#,
        "`isError` is false",
        records Kind::Pinned,
        |StepCtx { st, .. }| { is_error(st, false) }
}

step! {
    output_is: Expectations, r#"^the output is:$"# + "text",
        "output, pinned",
        |StepCtx { st, step, .. }| { expect_text(st, &st.raw_doc(step)?, &st.output()?) }
}

step! {
    output_is_text: Expectations, r#"^the output is "(?P<TEXT>.*)"$"#,
        "output, pinned (`\\n`, `\\\"`, `\\t` escapes inline)",
        |StepCtx { st, arg, .. }| { expect_text(st, &unescape(&arg.at(1)), &st.output()?) }
}

step! {
    output_contains_text: Expectations, r#"^the output contains "(?P<TEXT>.*)"$"#,
    "output, lenient",
    |StepCtx { st, arg, .. }| {
        expect_json(
            st,
            &json!({"$contains": unescape(&arg.at(1))}),
            &json!(st.output()?),
        )
    }
}

step! {
    output_does_not_contain_text: Expectations, r#"^the output does not contain "(?P<TEXT>.*)"$"#,
    "absence in the output",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let out = st.output()?;
        if out.contains(&unescape(&arg.at(1))) {
            fail_as(Kind::Pinned, format!(
                "the output contains {:?}: {out:?}",
                arg.at(1)
            ))
        } else {
            Ok(())
        }
    }
}

step! {
    output_matches: Expectations, r#"^the output matches:$"# + "regex",
    "output, lenient",
    |StepCtx { st, step, .. }| {
        expect_json(
            st,
            &json!({"$regex": st.raw_doc(step)?.trim()}),
            &json!(st.output()?),
        )
    }
}

step! {
    output_matches_snapshot_name: Expectations, r#"^the output matches snapshot "(?P<NAME>[^"]+)"$"#,
    "output equals `snapshots/NAME.snap`'s body",
    |StepCtx { env, st, arg, .. }| {
        let body = snapshots::body(&env.snapshots, &arg.at(1)).map_err(StepFailure::failed)?;
        expect_text(st, &body, &st.output()?)
    }
}

step! {
    output_parses_json_matching: Expectations, r#"^the output parses as JSON matching:$"# + "JSON",
    "output parsed as JSON (spacing-insensitive)",
    |StepCtx { st, step, .. }| {
        let out = st.output()?;
        let parsed: Value = serde_json::from_str(&out)
            .map_err(|e| StepFailure::failed(format!("output is not JSON ({e}): {out:?}")))?;
        expect_json(st, &st.expect_doc(step)?, &parsed)
    }
}

step! {
    result_matches: Expectations, r#"^the result matches:$"# + "JSON",
    "the whole `{output, isError, metadata?}`",
    |StepCtx { st, step, .. }| {
        let actual = st.norm(st.result()?);
        expect_json(st, &st.expect_doc(step)?, &actual)
    }
}

step! {
    result_suspends_kind_request: Expectations, r#"^the result suspends with a "(?P<KIND>[^"]+)" request$"#,
    "`metadata.pending` is a Request of that kind with a string id",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let r = st.result()?;
        let pending = r.pointer("/metadata/pending");
        let kind_of = pending.and_then(|p| p.get("kind")).and_then(Value::as_str);
        match (pending, kind_of) {
            (Some(p), Some(k)) if k == arg.at(1) && p.get("id").is_some_and(Value::is_string) => Ok(()),
            _ => fail(format!("expected a suspension with metadata.pending.kind \"{}\" and a string id, got {}", arg.at(1), st.norm(r))),
        }
    }
}

step! {
    call_took_less_than_n_ms: Expectations, r#"^the call took less than (?P<N>\d+) ms$"#,
    "the last `execute` request's round trip (a bound: a timeout ends in time)",
    records Kind::UpperBound,
    |StepCtx { st, arg, .. }| {
        let bound: u128 = arg.at(1).parse().unwrap_or(0);
        match st.call_ms {
            Some(ms) if ms < bound => Ok(()),
            Some(ms) => fail_as(Kind::UpperBound, format!(
                "the call took {ms} ms, more than {bound} ms"
            )),
            None => fail("no tool has been executed in this scenario"),
        }
    }
}
