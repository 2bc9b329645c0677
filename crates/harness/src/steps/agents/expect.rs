//! The named expectations of an agent fixture's `expect` block (and a scenario's own): each key
//! has one checker, found in `EXPECTATIONS`; a key with none fails the step, so a new fixture
//! key is never ignored.

use serde_json::{json, Value};

use super::{agent, inspect, list, same, transitions_hold, within};
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, fail_as, ScenarioState, StepFailure, StepResult};
use crate::steps::agents::AgentState;
use crate::steps::StepFuture;
use toolnexus_ports::port::Port;
use toolnexus_protocol::Command;

/// What an expect block is checked against, read from the port once before its keys.
pub(super) struct Observed {
    trace: Value,
    handles: Vec<Value>,
    result: Value,
    entry: String,
    text: String,
    children: Vec<String>,
}

/// How a key is checked.
enum Checker {
    /// Against what was observed (and the scenario's state), given the key and its value.
    Reads(fn(&Observed, &mut ScenarioState, &str, &Value) -> StepResult),
    /// Asking the port again, given the key's value.
    Asks(
        for<'a> fn(
            &'a mut dyn Port,
            &'a mut ScenarioState,
            &'a Observed,
            &'a Value,
        ) -> StepFuture<'a>,
    ),
}

/// Every expect key the harness reads, with its checker.
const EXPECTATIONS: &[(&[&str], Checker)] = &[
    (&["note", "comment"], Checker::Reads(ignored)),
    (&["status"], Checker::Reads(status)),
    (&["text"], Checker::Reads(text)),
    (&["textContains"], Checker::Reads(text_contains)),
    (&["textOccurrences"], Checker::Reads(text_occurrences)),
    (&["parentTurns", "turns"], Checker::Reads(parent_turns)),
    (&["parentUsageTotal"], Checker::Reads(parent_usage_total)),
    (&["childIds"], Checker::Reads(child_ids)),
    (
        &["childrenClosedAfterTask"],
        Checker::Reads(children_closed_after_task),
    ),
    (
        &["concurrentTurnsObservedAtLeast"],
        Checker::Reads(concurrent_turns_observed_at_least),
    ),
    (
        &["maxObservedConcurrentTurns"],
        Checker::Reads(max_observed_concurrent_turns),
    ),
    (&["transitions"], Checker::Reads(transitions)),
    (&["traceContains"], Checker::Reads(trace_contains)),
    (&["escalation"], Checker::Reads(escalation)),
    (
        &["waiterStatus", "finalState", "inboxLen"],
        Checker::Reads(waiter_status),
    ),
    (&["onCloseOrder"], Checker::Reads(on_close_order)),
    (&["allStates", "allHandles"], Checker::Reads(all_states)),
    (&["pendingKind"], Checker::Reads(pending_kind)),
    (
        &["pendingDataPathEndsWithin"],
        Checker::Reads(pending_data_path_ends_within),
    ),
    (&["finalParentState"], Checker::Reads(final_parent_state)),
    (
        &["noDuplicateChildIds"],
        Checker::Reads(no_duplicate_child_ids),
    ),
    (
        &["parentCascadeReattached"],
        Checker::Reads(parent_cascade_reattached),
    ),
    (
        &["leafUsageGrewNotReset"],
        Checker::Asks(leaf_usage_grew_not_reset),
    ),
    (
        &["leafResumedAtCheckpoint"],
        Checker::Asks(leaf_resumed_at_checkpoint),
    ),
];

/// A fixture's `expect` / `phase1_expect` / `phase2_expect` / scenario `expect`.
pub(super) async fn check_block(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    block: &Value,
) -> StepResult {
    let Some(m) = block.as_object() else {
        return fail("an expect block must be an object");
    };
    let seen = observe(port, st).await?;
    for (k, want) in m {
        let checked = match EXPECTATIONS
            .iter()
            .find(|(keys, _)| keys.contains(&k.as_str()))
        {
            Some((_, Checker::Reads(check))) => check(&seen, st, k, want),
            Some((_, Checker::Asks(check))) => check(port, st, &seen, want).await,
            None => fail(format!(
                "the harness has no checker for the expect key {k:?}"
            )),
        };
        checked.map_err(|e| within(e, &format!("expect {k}")))?;
    }
    st.record(Kind::Pinned.label());
    Ok(())
}

/// The trace, the handles and the entry's result an expect block is checked against.
async fn observe(port: &mut dyn Port, st: &mut ScenarioState) -> Result<Observed, StepFailure> {
    let trace = agent(port, st, Command::AgentTrace, json!({})).await?;
    let handles = list(port, st).await?;
    let result = st
        .areas
        .get_mut::<AgentState>()
        .result
        .clone()
        .unwrap_or(Value::Null);
    let entry = st
        .areas
        .get_mut::<AgentState>()
        .entry
        .clone()
        .unwrap_or_default();
    let text = result
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let children: Vec<String> = handles
        .iter()
        .filter_map(|h| h.get("id").and_then(Value::as_str))
        .filter(|id| {
            id.strip_prefix(&format!("{entry}/"))
                .is_some_and(|rest| !rest.contains('/'))
        })
        .map(str::to_string)
        .collect();
    Ok(Observed {
        trace,
        handles,
        result,
        entry,
        text,
        children,
    })
}

/// `note` / `comment`.
fn ignored(_seen: &Observed, _st: &mut ScenarioState, _k: &str, _want: &Value) -> StepResult {
    Ok(())
}

/// `status`.
fn status(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { result, .. } = seen;
    same("status", want, result.get("status").unwrap_or(&Value::Null))
}

/// `text`.
fn text(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { text, .. } = seen;
    same("text", want, &json!(text))
}

/// `textContains`.
fn text_contains(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { text, .. } = seen;
    for needle in want
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !text.contains(needle) {
            return fail_as(
                Kind::Pinned,
                format!("the text {text:?} does not contain {needle:?}"),
            );
        }
    }
    Ok(())
}

/// `textOccurrences`.
fn text_occurrences(
    seen: &Observed,
    _st: &mut ScenarioState,
    _k: &str,
    want: &Value,
) -> StepResult {
    let Observed { text, .. } = seen;
    for (needle, n) in want.as_object().into_iter().flatten() {
        same(
            &format!("occurrences of {needle:?} in {text:?}"),
            n,
            &json!(text.matches(needle.as_str()).count()),
        )?;
    }
    Ok(())
}

/// `parentTurns` / `turns`.
fn parent_turns(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { result, .. } = seen;
    same(
        "the entry's turns",
        want,
        result.get("turns").unwrap_or(&Value::Null),
    )
}

/// `parentUsageTotal`.
fn parent_usage_total(
    seen: &Observed,
    _st: &mut ScenarioState,
    _k: &str,
    want: &Value,
) -> StepResult {
    let Observed { result, .. } = seen;
    same(
        "the entry's total tokens (children rolled up)",
        want,
        result
            .pointer("/usage/total_tokens")
            .unwrap_or(&Value::Null),
    )
}

/// `childIds`.
fn child_ids(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { children, .. } = seen;
    let mut w: Vec<String> = serde_json::from_value(want.clone()).unwrap_or_default();
    w.sort();
    let mut g = children.clone();
    g.sort();
    same("the entry's child ids", &json!(w), &json!(g))
}

/// `childrenClosedAfterTask`.
fn children_closed_after_task(
    seen: &Observed,
    _st: &mut ScenarioState,
    _k: &str,
    want: &Value,
) -> StepResult {
    let Observed {
        handles, children, ..
    } = seen;
    let open: Vec<&Value> = handles
        .iter()
        .filter(|h| {
            h.get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| children.iter().any(|c| c == id))
        })
        .filter(|h| h.get("state") != Some(&json!("closed")))
        .collect();
    flag(want, open.is_empty() && !children.is_empty(), || {
        format!("children closed after their task: expected {want}; open: {open:?}")
    })
}

/// How a failure names the `agent_trace` answer.
const TRACE: &str = "the `agent_trace` answer";

/// `concurrentTurnsObservedAtLeast`.
fn concurrent_turns_observed_at_least(
    seen: &Observed,
    _st: &mut ScenarioState,
    _k: &str,
    want: &Value,
) -> StepResult {
    let Observed { trace, .. } = seen;
    let got = crate::steps::sent::u64_field(trace, "/peakRunningSiblings", TRACE)?;
    let min = want.as_u64().unwrap_or(u64::MAX);
    if got >= min {
        Ok(())
    } else {
        fail_as(
            Kind::Pinned,
            format!("at most {got} sibling runs overlapped; expected at least {min}"),
        )
    }
}

/// `maxObservedConcurrentTurns`.
fn max_observed_concurrent_turns(
    seen: &Observed,
    _st: &mut ScenarioState,
    _k: &str,
    want: &Value,
) -> StepResult {
    let Observed { trace, .. } = seen;
    let got = crate::steps::sent::u64_field(trace, "/peakConcurrentTurns", TRACE)?;
    let max = want.as_u64().unwrap_or(0);
    if (1..=max).contains(&got) {
        Ok(())
    } else {
        fail_as(
            Kind::Pinned,
            format!("{got} LLM calls were in flight at once; the gate allows {max}"),
        )
    }
}

/// `transitions`.
fn transitions(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { trace, .. } = seen;
    transitions_hold(trace, want)
}

/// `traceContains`.
fn trace_contains(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { trace, .. } = seen;
    let texts = trace_texts(trace);
    for needle in want
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !texts.iter().any(|t| t.contains(needle)) {
            return fail_as(
                Kind::Pinned,
                format!("no trace event contains {needle:?}: {texts:?}"),
            );
        }
    }
    Ok(())
}

/// `escalation`.
fn escalation(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed {
        trace, children, ..
    } = seen;
    let answered = want
        .get("answeredBy")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let calls = crate::steps::sent::array_field(trace, "/waitForCalls", TRACE)?.clone();
    if !calls
        .iter()
        .any(|c| c.get("handle").and_then(Value::as_str) == Some(answered))
    {
        return fail_as(
            Kind::Pinned,
            format!("no escalation was answered by {answered}: {calls:?}"),
        );
    }
    let leaf = children.first().cloned().unwrap_or_default();
    let got = trace
        .pointer(&format!("/transitions/{}", leaf.replace('/', "~1")))
        .cloned()
        .unwrap_or(Value::Null);
    let got: Vec<String> = serde_json::from_value(got).unwrap_or_default();
    let sub: Vec<String> =
        serde_json::from_value(want.get("childTrace").cloned().unwrap_or(Value::Null))
            .unwrap_or_default();
    if got.windows(sub.len().max(1)).any(|w| w == sub.as_slice()) {
        Ok(())
    } else {
        fail_as(
            Kind::Pinned,
            format!("the child's trace {got:?} does not contain {sub:?}"),
        )
    }
}

/// `waiterStatus` / `finalState` / `inboxLen`.
fn waiter_status(_seen: &Observed, st: &mut ScenarioState, k: &str, want: &Value) -> StepResult {
    same(
        k,
        want,
        st.areas
            .get_mut::<AgentState>()
            .seen
            .get(k)
            .unwrap_or(&Value::Null),
    )
}

/// `onCloseOrder`.
fn on_close_order(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { trace, .. } = seen;
    if want.as_str() != Some("grandchild, child, parent (leaf-first)") {
        return fail(format!(
            "the harness has no reading for onCloseOrder {want}"
        ));
    }
    let order: Vec<String> = trace
        .get("onClose")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("handle").and_then(Value::as_str).map(str::to_string))
        .collect();
    let depths: Vec<usize> = order.iter().map(|h| h.matches('/').count()).collect();
    if order.len() >= 3 && depths.windows(2).all(|w| w[0] > w[1]) {
        Ok(())
    } else {
        fail_as(
            Kind::Pinned,
            format!("onClose ran in the order {order:?}, not leaf-first"),
        )
    }
}

/// `allStates` / `allHandles`.
fn all_states(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { handles, .. } = seen;
    let wrong: Vec<&Value> = handles
        .iter()
        .filter(|h| h.get("state") != Some(want))
        .collect();
    if wrong.is_empty() && !handles.is_empty() {
        Ok(())
    } else {
        fail_as(Kind::Pinned, format!("handles not {want}: {wrong:?}"))
    }
}

/// `pendingKind`.
fn pending_kind(seen: &Observed, _st: &mut ScenarioState, _k: &str, want: &Value) -> StepResult {
    let Observed { result, .. } = seen;
    same(
        "pending.kind",
        want,
        result.pointer("/pending/kind").unwrap_or(&Value::Null),
    )
}

/// `pendingDataPathEndsWithin`.
fn pending_data_path_ends_within(
    seen: &Observed,
    st: &mut ScenarioState,
    _k: &str,
    want: &Value,
) -> StepResult {
    let Observed { result, .. } = seen;
    // SPEC §10: "array of segments"; ports read it as the id's segments
    // (python) or as whole ids, so both are accepted (NOTES #296).
    let within = want.as_str().unwrap_or_default();
    let path = crate::steps::sent::array_field(result, "/pending/data/path", "the run's result")?;
    let path: Vec<String> = serde_json::from_value(Value::Array(path.clone())).map_err(|e| {
        StepFailure::failed(format!(
            "the result's `pending.data.path` is not an array of strings: {e}"
        ))
    })?;
    let joined = path.join("/");
    let inside = |p: &str| p == within || p.starts_with(&format!("{within}/"));
    if inside(&joined) || path.last().is_some_and(|l| inside(l)) {
        st.record(Kind::Lenient("data.path segments or ids").label());
        Ok(())
    } else {
        fail_as(
            Kind::Pinned,
            format!("pending.data.path {path:?} does not lie within {within:?}"),
        )
    }
}

/// `finalParentState`.
fn final_parent_state(
    seen: &Observed,
    _st: &mut ScenarioState,
    _k: &str,
    want: &Value,
) -> StepResult {
    let Observed { handles, entry, .. } = seen;
    let got = handles
        .iter()
        .find(|h| h.get("id").and_then(Value::as_str) == Some(entry.as_str()))
        .and_then(|h| h.get("state"))
        .cloned()
        .unwrap_or(Value::Null);
    same("the entry's final state", want, &got)
}

/// `noDuplicateChildIds`.
fn no_duplicate_child_ids(
    seen: &Observed,
    _st: &mut ScenarioState,
    _k: &str,
    want: &Value,
) -> StepResult {
    let Observed { children, .. } = seen;
    let defs: Vec<String> = children
        .iter()
        .filter_map(|c| c.rsplit('/').next())
        .map(|s| s.split('.').next().unwrap_or("").to_string())
        .collect();
    let mut unique = defs.clone();
    unique.sort();
    unique.dedup();
    flag(want, unique.len() == defs.len(), || {
        format!("the entry's children {children:?}")
    })
}

/// `parentCascadeReattached`.
fn parent_cascade_reattached(
    seen: &Observed,
    _st: &mut ScenarioState,
    _k: &str,
    want: &Value,
) -> StepResult {
    let Observed { trace, entry, .. } = seen;
    let events = trace
        .pointer(&format!("/events/{}", entry.replace('/', "~1")))
        .cloned()
        .unwrap_or(Value::Null);
    let hit = events
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .any(|e| e.contains("REATTACH"));
    flag(want, hit, || {
        format!("the entry's events {events} (REATTACH expected: {want})")
    })
}

/// `leafUsageGrewNotReset`.
fn leaf_usage_grew_not_reset<'a>(
    port: &'a mut dyn Port,
    st: &'a mut ScenarioState,
    seen: &'a Observed,
    want: &'a Value,
) -> StepFuture<'a> {
    Box::pin(async move {
        let Observed { children, .. } = seen;
        let leaf = children.first().cloned().unwrap_or_default();
        let now = inspect(port, st, &leaf).await?;
        if now.pointer("/usage/total_tokens").is_none() {
            return Err(crate::steps::derived::skipped(
                crate::steps::derived::INSPECT_USAGE,
            ));
        }
        let after = crate::steps::sent::u64_field(
            &now,
            "/usage/total_tokens",
            "the leaf's `agent_inspect` answer",
        )?;
        let Some(before) = st
            .areas
            .get_mut::<AgentState>()
            .seen
            .get("leafUsageBefore")
            .map(|v| v.as_u64().unwrap_or(u64::MAX))
        else {
            return Err(crate::steps::derived::skipped(
                crate::steps::derived::INSPECT_USAGE,
            ));
        };
        flag(want, after > before && before > 0, || {
            format!("the leaf's tokens went from {before} to {after}")
        })
    })
}

/// `leafResumedAtCheckpoint`.
fn leaf_resumed_at_checkpoint<'a>(
    port: &'a mut dyn Port,
    st: &'a mut ScenarioState,
    seen: &'a Observed,
    want: &'a Value,
) -> StepFuture<'a> {
    Box::pin(async move {
        let Observed { children, .. } = seen;
        let leaf = children.first().cloned().unwrap_or_default();
        let stored = agent(port, st, Command::AgentStoreGet, json!({"id": leaf})).await?;
        let messages = stored
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let users = messages
            .iter()
            .filter(|m| m.get("role") == Some(&json!("user")))
            .count();
        let answered = messages.iter().any(|m| {
            m.get("role") == Some(&json!("tool"))
                && m.get("content")
                    .and_then(Value::as_str)
                    .is_some_and(|c| c.contains("secret-token"))
        });
        flag(want, users == 1 && answered, || {
            format!("the leaf's stored transcript has {users} user turns (1 expected) and the answered tool result: {answered}")
        })
    })
}

/// A yes/no expectation: holds when `want` is `true` exactly when `observed` is; otherwise a
/// pinned failure saying what was seen.
fn flag(want: &Value, observed: bool, seen: impl FnOnce() -> String) -> StepResult {
    if (want == &json!(true)) == observed {
        Ok(())
    } else {
        fail_as(Kind::Pinned, seen())
    }
}

/// Every text of the trace's events and transitions.
fn trace_texts(trace: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["events", "transitions"] {
        if let Some(m) = trace.get(key).and_then(Value::as_object) {
            for list in m.values() {
                for e in list.as_array().into_iter().flatten() {
                    if let Some(s) = e.as_str() {
                        out.push(s.to_string());
                    }
                }
            }
        }
    }
    out
}
