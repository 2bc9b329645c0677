//! SPEC §11 `translate` steps (PROTOCOL.md §5.21): send one translate request, check the
//! finish reason and that each tool call's `arguments` is a JSON string, and that nothing
//! reached a tool's endpoint. Its answer is kept as the last loop answer, so the `run
//! result`, `raised` and observed-list steps read it too.

use serde_json::{json, Value};
use toolnexus_protocol::Command;

use super::{loop_command, run_result};
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail_as, StepFailure};
use crate::scenario::surroundings;
use crate::steps::helpers::expect_json;
use crate::steps::StepCtx;

step! {
    client_translates: Actions, r#"^the client translates:$"# + "JSON SPEC §11 request (`messages`, `tools`, `toolChoice`, `system`, `maxTokens`)",
    "`translate` with this `request` and the built toolkit (if any) as `toolkit`; its answer is the last loop answer (`the run result …`, `the run raised …`, `hookCalls …` read it)",
    |StepCtx { port, st, step, .. }| {
        let request = st.json_doc(step)?;
        loop_command(port, st, Command::Translate, json!({"request": request})).await
    }
}

step! {
    finish_reason_r: Expectations, r#"^the finish reason is "(?P<R>[^"]+)"$"#,
    "the translate `result.finishReason` exactly",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let result = run_result(st)?;
        let actual = result.get("finishReason").cloned().unwrap_or(Value::Null);
        if actual == json!(arg.at(1)) { Ok(()) } else {
            fail_as(Kind::Pinned, format!("the finish reason is {actual}, not {:?}", arg.at(1)))
        }
    }
}

step! {
    every_translated_tool_call_arguments_json_string: Expectations, r#"^every translated tool call's arguments is a JSON string$"#,
    "each `result.toolCalls[].arguments` (at least one call) is a string holding JSON text, not an object",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let result = run_result(st)?;
        let calls = crate::steps::sent::array_field(&result, "/toolCalls", "the translated result")?.clone();
        if calls.is_empty() {
            return fail_as(Kind::Pinned, "the result has no tool calls");
        }
        for (i, call) in calls.iter().enumerate() {
            parse_arguments(call.get("arguments")).map_err(|why| StepFailure::kind(Kind::Pinned, format!("toolCalls[{i}].arguments {why}")))?;
        }
        Ok(())
    }
}

step! {
    translated_tool_call_k_arguments_parse: Expectations, r#"^translated tool call (?P<K>\d+) arguments parse to:$"# + "JSON",
    "the K-th (1-based) `result.toolCalls` entry's `arguments` is a JSON string whose parsed value equals this JSON",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let result = run_result(st)?;
        let k: usize = arg.at(1).parse().unwrap_or(0);
        let call = k.checked_sub(1).and_then(|i| result.pointer(&format!("/toolCalls/{i}")))
            .ok_or_else(|| StepFailure::kind(Kind::Pinned, format!("the result has no tool call {k}")))?;
        let parsed = parse_arguments(call.get("arguments")).map_err(|why| StepFailure::kind(Kind::Pinned, format!("tool call {k}'s arguments {why}")))?;
        expect_json(st, &expected, &parsed)
    }
}

step! {
    translate_result_raw_when_present_at_path: Expectations, r#"^the translate result's raw, when present, at "(?P<PATH>[^"]+)" is (?P<JSON>[^:].*)$"#,
    "`result.raw` is optional (SPEC §11 `raw?`); when the port answers it, the provider's decoded response has this JSON at PATH",
    records Kind::Lenient("optional"),
    |StepCtx { st, arg, .. }| {
        let result = run_result(st)?;
        let Some(raw) = result.get("raw").filter(|r| !r.is_null()) else { return Ok(()) };
        let expected: Value = serde_json::from_str(arg.at(2).trim()).map_err(|e| StepFailure::failed(format!("{:?} is not JSON ({e})", arg.at(2))))?;
        let actual = crate::compare::json_path::get(raw, &arg.at(1)).map_err(StepFailure::failed)?.cloned().unwrap_or(Value::Null);
        expect_json(st, &expected, &actual)
    }
}

step! {
    http_server_received_no_request: Expectations, r#"^the HTTP server received no request$"#,
    "the local HTTP server (`an HTTP server answers:`) got nothing: an HTTP tool pointing at it never ran",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let server = st.http.as_ref().ok_or_else(|| StepFailure::failed("no HTTP server runs in this scenario"))?;
        match surroundings::last_request(server).await {
            None => Ok(()),
            Some(r) => fail_as(Kind::Pinned, format!("the HTTP server received {}", toolnexus_ports::port::truncate(&r.to_string(), 300))),
        }
    }
}

/// A tool call's `arguments` as SPEC §11 requires it: a string of JSON text, parsed.
fn parse_arguments(arguments: Option<&Value>) -> Result<Value, String> {
    match arguments {
        Some(Value::String(s)) => {
            serde_json::from_str(s).map_err(|e| format!("is the string {s:?}, not JSON ({e})"))
        }
        Some(other) => Err(format!("is {other}, not a JSON string")),
        None => Err("is missing".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_string_of_json_passes() {
        assert_eq!(
            parse_arguments(Some(&json!("{\"a\":1}"))),
            Ok(json!({"a": 1}))
        );
        assert!(parse_arguments(Some(&json!({"a": 1})))
            .unwrap_err()
            .contains("not a JSON string"));
        assert!(parse_arguments(Some(&json!("{oops")))
            .unwrap_err()
            .contains("not JSON"));
        assert!(parse_arguments(None).is_err());
    }
}
