//! SPEC §10 durable-resume steps (a preview; PROTOCOL.md §5.22): resume the last run's
//! `pending` halt with an Answer through `run_with_answer` / `ask_with_answer`. The answer
//! is kept as the last loop answer, so the `run result`, `raised` and observed-list steps
//! read it too.

use serde_json::{json, Value};
use toolnexus_protocol::Command;

use super::{loop_command, outcome};
use crate::scenario::state::{fail, ScenarioState, StepFailure};
use crate::steps::StepCtx;

step! {
    client_resumes_run_answer: Actions, r#"^the client resumes the run with the answer:$"# + "JSON SPEC §10 Answer (`id` absent ⇒ the pending Request's `id`)",
    "`run_with_answer` on the newest client with `history` = the last run result's `messages`, `pending` = its `pending`, and this `answer`",
    |StepCtx { port, st, step, .. }| {
        let answer = st.json_doc(step)?;
        let (messages, pending) = halted(st)?;
        let answer = echo_id(answer, &pending)?;
        loop_command(port, st, Command::RunWithAnswer,
            json!({"history": messages, "pending": pending, "answer": answer})).await
    }
}

step! {
    client_resumes_thread_id_answer: Actions, r#"^the client resumes thread "(?P<ID>[^"]+)" with the answer:$"# + "JSON SPEC §10 Answer (`id` absent ⇒ the pending Request's `id`)",
    "`ask_with_answer` for thread ID with `pending` = the last run result's `pending` and this `answer` (the transcript comes from the client's store)",
    |StepCtx { port, st, step, arg, .. }| {
        let answer = st.json_doc(step)?;
        let (_, pending) = halted(st)?;
        let answer = echo_id(answer, &pending)?;
        loop_command(port, st, Command::AskWithAnswer,
            json!({"id": arg.at(1), "pending": pending, "answer": answer})).await
    }
}

/// The last run's transcript and `pending` Request, as the port returned them.
fn halted(st: &ScenarioState) -> Result<(Value, Value), StepFailure> {
    let result = match outcome(st)? {
        (Some(result), None) => result,
        (_, Some(raised)) => return fail(format!("the run to resume raised: {raised}")),
        (None, None) => return fail("the last answer has neither `result` nor `raised`"),
    };
    match (result.get("messages"), result.get("pending")) {
        (Some(m), Some(p)) if p.is_object() => Ok((m.clone(), p.clone())),
        _ => fail("the run to resume did not halt with a `pending` Request"),
    }
}

/// The Answer with the pending Request's `id` when it names none (an explicit one is kept:
/// the mismatch scenarios need it).
fn echo_id(mut answer: Value, pending: &Value) -> Result<Value, StepFailure> {
    let Some(map) = answer.as_object_mut() else {
        return fail("the answer must be a JSON object");
    };
    if !map.contains_key("id") {
        map.insert(
            "id".into(),
            pending.get("id").cloned().unwrap_or(Value::Null),
        );
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_without_id_echoes_the_pending_one_and_an_explicit_id_stays() {
        let pending = json!({"id": "r1", "kind": "tool_call", "prompt": "p"});
        assert_eq!(
            echo_id(json!({"ok": true}), &pending).unwrap(),
            json!({"id": "r1", "ok": true})
        );
        assert_eq!(
            echo_id(json!({"id": "stale", "ok": true}), &pending).unwrap()["id"],
            "stale"
        );
        assert!(echo_id(json!([1]), &pending).is_err());
    }
}
