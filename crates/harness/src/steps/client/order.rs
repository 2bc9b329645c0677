//! Order-lenient checks on §8 client answers: stream event order where the SPEC fixes the
//! order but not the number of deltas or `usage` events, hook turns compared only with each
//! other (the SPEC leaves their base open), and text a recorded request must not carry.

use serde_json::Value;

use super::{events, llm_request, observed, run_result};
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail_as, StepFailure};
use crate::steps::helpers::at_path;
use crate::steps::StepCtx;

step! {
    stream_event_types_repeats_collapsed: Expectations, r#"^the stream event types, repeats collapsed, are:$"# + "JSON array of types",
    "`events[].type` in order, each run of one type counted once (text deltas are as many as the port cuts)",
    records Kind::Lenient("repeats collapsed"),
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let types = collapse(&event_types(&events(st)?));
        if Value::from(types.clone()) == expected { Ok(()) } else {
            fail_as(Kind::Lenient("repeats collapsed"), format!("the event types are {types:?}, not {expected}"))
        }
    }
}

step! {
    stream_event_types_include_this_order: Expectations, r#"^the stream event types include, in this order:$"# + "JSON array of types",
    "these types occur in `events[].type` in this order, other events allowed between them",
    records Kind::Lenient("in order"),
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let wanted: Vec<String> = expected.as_array().map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default();
        let types = event_types(&events(st)?);
        if is_subsequence(&wanted, &types) { Ok(()) } else {
            fail_as(Kind::Lenient("in order"), format!("{wanted:?} do not occur in that order in {types:?}"))
        }
    }
}

step! {
    last_stream_event_type_type: Expectations, r#"^the last stream event is of type "(?P<TYPE>[^"]+)"$"#,
    "the final entry of `events` has this type",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let types = event_types(&events(st)?);
        match types.last() {
            Some(t) if *t == arg.at(1) => Ok(()),
            _ => fail_as(Kind::Pinned, format!("the last event is not {:?}: {types:?}", arg.at(1))),
        }
    }
}

step! {
    list_values_at_path_strictly_increase: Expectations, r#"^(?P<LIST>hookCalls|metricEvents|onErrorCalls|generateCalls) values at "(?P<PATH>[^"]+)" strictly increase$"#,
    "every entry has a number at PATH, each greater than the one before (at least two entries); for hook turns, whose base the SPEC leaves open",
    records Kind::Lenient("relative"),
    |StepCtx { st, arg, .. }| {
        let list = observed(st, &arg.at(1))?;
        let mut values = Vec::new();
        for entry in &list {
            let v = at_path(entry, &arg.at(2), &format!("a {} entry", arg.at(1)))?;
            values.push(v.as_f64().ok_or_else(|| StepFailure::failed(format!("{} at {:?} is {v}, not a number", arg.at(1), arg.at(2))))?);
        }
        if values.len() >= 2 && strictly_increasing(&values) { Ok(()) } else {
            fail_as(Kind::Lenient("relative"), format!("{} values at {:?} are {values:?}: not at least two, each greater than the last", arg.at(1), arg.at(2)))
        }
    }
}

step! {
    llm_request_k_body_at_path_does: Expectations, r#"^LLM request (?P<K>\d+|last) body at "(?P<PATH>[^"]*)" does not contain "(?P<TEXT>.*)"$"#,
    "the string at PATH (another value: its compact JSON) lacks TEXT (unescapes `\\n`); a negative control for `contains`",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let request = llm_request(st, &arg.at(1)).await?;
        let actual = at_path(request.get("body").unwrap_or(&Value::Null), &arg.at(2), "the request body")?;
        let needle = crate::steps::helpers::unescape(&arg.at(3));
        if text_of(&actual).contains(&needle) {
            fail_as(Kind::Pinned, format!("{} contains {needle:?}", toolnexus_ports::port::truncate(&text_of(&actual), 400)))
        } else { Ok(()) }
    }
}

step! {
    run_result_at_path_does_not_contain: Expectations, r#"^the run result at "(?P<PATH>[^"]*)" does not contain "(?P<TEXT>.*)"$"#,
    "the string at PATH of the run's `result` (another value: its compact JSON) lacks TEXT; a negative control for `contains`",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let result = run_result(st)?;
        let actual = at_path(&result, &arg.at(1), "the run result")?;
        let needle = crate::steps::helpers::unescape(&arg.at(2));
        if text_of(&actual).contains(&needle) {
            fail_as(Kind::Pinned, format!("{} contains {needle:?}", toolnexus_ports::port::truncate(&text_of(&actual), 400)))
        } else { Ok(()) }
    }
}

step! {
    stored_messages_do_not_contain: Expectations, r#"^the stored messages do not contain "(?P<TEXT>.*)"$"#,
    "the last `store_get`'s `messages`, as compact JSON, lack TEXT",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let stored = st.stored.clone().ok_or_else(|| StepFailure::failed("the store has not been read"))?;
        let needle = crate::steps::helpers::unescape(&arg.at(1));
        if stored.to_string().contains(&needle) {
            fail_as(Kind::Pinned, format!("the stored messages contain {needle:?}: {}", toolnexus_ports::port::truncate(&stored.to_string(), 400)))
        } else { Ok(()) }
    }
}

fn event_types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            e.get("type")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string()
        })
        .collect()
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Each run of equal neighbours counted once.
fn collapse(types: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in types {
        if out.last() != Some(t) {
            out.push(t.clone());
        }
    }
    out
}

/// Whether `wanted` occurs in `seen` in order (not necessarily adjacent).
fn is_subsequence(wanted: &[String], seen: &[String]) -> bool {
    let mut it = seen.iter();
    wanted.iter().all(|w| it.any(|s| s == w))
}

fn strictly_increasing(values: &[f64]) -> bool {
    values.windows(2).all(|w| w[1] > w[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn collapse_counts_each_run_once() {
        assert_eq!(
            collapse(&s(&["text", "text", "usage", "text", "done"])),
            s(&["text", "usage", "text", "done"])
        );
        assert!(collapse(&[]).is_empty());
    }

    #[test]
    fn subsequence_needs_the_order() {
        let seen = s(&["text", "tool_call", "usage", "tool_result", "text", "done"]);
        assert!(is_subsequence(
            &s(&["tool_call", "tool_result", "done"]),
            &seen
        ));
        assert!(is_subsequence(&[], &seen));
        assert!(!is_subsequence(&s(&["tool_result", "tool_call"]), &seen));
        assert!(!is_subsequence(&s(&["done", "done"]), &seen));
    }

    #[test]
    fn increasing_is_strict() {
        assert!(strictly_increasing(&[0.0, 1.0, 2.0]));
        assert!(!strictly_increasing(&[0.0, 0.0, 1.0]));
        assert!(!strictly_increasing(&[2.0, 1.0]));
    }
}
