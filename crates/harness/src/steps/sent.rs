//! Reading a field of a port's answer that a verdict rests on: a field the driver did not send
//! is reported as missing, naming it, never read as 0, `false` or empty (which would blame the
//! port for a value it never gave, e.g. "at most 0 sibling runs overlapped"). A field the
//! protocol makes optional with a documented default is read with that default where it is
//! read, not here.

use serde_json::Value;

use crate::scenario::state::StepFailure;

/// The field at `pointer` (a JSON pointer, `/a/b`) of `answer` (described by `what`, e.g.
/// "the `agent_trace` answer"), or a failure naming it as missing.
pub(super) fn field<'a>(
    answer: &'a Value,
    pointer: &str,
    what: &str,
) -> Result<&'a Value, StepFailure> {
    match answer.pointer(pointer) {
        Some(v) if !v.is_null() => Ok(v),
        Some(_) => Err(missing(pointer, what, "is null")),
        None => Err(missing(pointer, what, "is missing")),
    }
}

/// [`field`] as an unsigned integer; a failure says which it is when it is another value.
pub(super) fn u64_field(answer: &Value, pointer: &str, what: &str) -> Result<u64, StepFailure> {
    let v = field(answer, pointer, what)?;
    v.as_u64().ok_or_else(|| {
        StepFailure::failed(format!(
            "{what} has `{}` = {v}, not a non-negative integer",
            name(pointer)
        ))
    })
}

/// [`field`] as an array.
pub(super) fn array_field<'a>(
    answer: &'a Value,
    pointer: &str,
    what: &str,
) -> Result<&'a Vec<Value>, StepFailure> {
    let v = field(answer, pointer, what)?;
    v.as_array().ok_or_else(|| {
        StepFailure::failed(format!(
            "{what} has `{}` = {}, not an array",
            name(pointer),
            toolnexus_ports::port::truncate(&v.to_string(), 200)
        ))
    })
}

/// [`field`] as a string.
pub(super) fn str_field<'a>(
    answer: &'a Value,
    pointer: &str,
    what: &str,
) -> Result<&'a str, StepFailure> {
    let v = field(answer, pointer, what)?;
    v.as_str().ok_or_else(|| {
        StepFailure::failed(format!(
            "{what} has `{}` = {}, not a string",
            name(pointer),
            toolnexus_ports::port::truncate(&v.to_string(), 200)
        ))
    })
}

/// The field's name as the protocol writes it: the pointer's segments joined with `.`.
fn name(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

fn missing(pointer: &str, what: &str, how: &str) -> StepFailure {
    StepFailure::failed(format!(
        "{what} did not send `{}` (the field {how}; it is not read as 0, false or empty)",
        name(pointer)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(r: Result<impl std::fmt::Debug, StepFailure>) -> String {
        match r {
            Err(StepFailure::Failed(f)) => f.message.clone(),
            other => panic!("not a failure: {other:?}"),
        }
    }

    #[test]
    fn an_absent_field_is_missing_never_zero() {
        let trace = json!({"transitions": {}, "peakConcurrentTurns": 2});
        assert_eq!(
            message(u64_field(&trace, "/peakRunningSiblings", "the `agent_trace` answer")),
            "the `agent_trace` answer did not send `peakRunningSiblings` (the field is missing; it is not read as 0, false or empty)"
        );
        assert!(matches!(
            u64_field(&trace, "/peakConcurrentTurns", "t"),
            Ok(2)
        ));
        let inspect = json!({"usage": {"prompt_tokens": 1}, "pending": null});
        assert!(message(u64_field(
            &inspect,
            "/usage/total_tokens",
            "the leaf's `agent_inspect` answer"
        ))
        .contains("did not send `usage.total_tokens` (the field is missing"));
        assert!(message(field(&inspect, "/pending", "x")).contains("the field is null"));
        assert_eq!(
            message(array_field(
                &json!({"handles": 3}),
                "/handles",
                "the `agent_list` answer"
            )),
            "the `agent_list` answer has `handles` = 3, not an array"
        );
        assert!(
            message(u64_field(&json!({"n": -1}), "/n", "a")).contains("not a non-negative integer")
        );
        assert_eq!(str_field(&json!({"text": ""}), "/text", "r").ok(), Some(""));
    }
}
