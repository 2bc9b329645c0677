//! The §8B classifier steps (PROTOCOL.md §5.29–§5.30): creating a classifier, evaluating, and
//! checks on the decision and on the canonical bytes the mock LLM's `/systemone` recorded.
//!
//! An `evaluate` answer is kept as the scenario's last loop answer, so the §5.13 list steps
//! (`metricEvents`, `onErrorCalls`, `evaluateCalls`), `the run raised an error mentioning` and
//! the elapsed-time bounds read it as they read a run's.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};
use toolnexus_protocol::Command;

use super::client::llm_request;
use super::helpers::{absent, at_path, expect_json, inline_json};
use super::StepCtx;
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, fail_as, ScenarioState, StepFailure, StepResult};
use toolnexus_ports::port::{self, Port};

/// The classifier steps' own state: the current classifier and how its construction ended.
#[derive(Default)]
pub(crate) struct ClassifierState {
    /// The id later `evaluate`s use.
    id: Option<String>,
    /// The constructor raised this (the port may check at construction what others check at
    /// evaluate; NOTES #404).
    raised: Option<String>,
}

step! {
    classifier_created: Setup, r#"^a classifier created with:$"# + "JSON classifier options (PROTOCOL.md §6B)",
    "`classifier` (ids `k1`, `k2`, …; the newest is the one later steps use). A constructor that raises is not a failure here: the next evaluation answers that message as `raised`",
    |StepCtx { port, st, step, .. }| {
        let options = st.json_doc(step)?;
        st.counter += 1;
        let id = format!("k{}", st.counter);
        let fields = Map::from_iter([("id".into(), json!(id)), ("options".into(), options)]);
        let (answer, _) = port::send_object(port, Command::Classifier, fields).await?;
        let raised = answer.get("raised").and_then(Value::as_str).map(str::to_string);
        let state = st.areas.get_mut::<ClassifierState>();
        state.id = Some(id);
        state.raised = raised;
        Ok(())
    }
}

step! {
    classifier_evaluates: Actions, r#"^the classifier evaluates:$"# + r#"JSON `{"state": …, "questions": {key: Question, …}}`"#,
    "`evaluate` with this state and these questions, keys in the order written",
    |StepCtx { port, st, step, .. }| {
        let request = st.json_doc(step)?;
        evaluate(port, st, request).await
    }
}

step! {
    classifier_evaluates_fixture: Actions, r#"^the classifier evaluates the judge fixture "(?P<NAME>[^"]+)"$"#,
    "`evaluate` with the `state` and `questions` of `conformance/fixtures/judge/NAME.json`",
    |StepCtx { port, env, st, arg, .. }| {
        let mut fixture = judge_fixture(&env.fixtures, &arg.at(1))?;
        // Moved out, not copied: a fixture's state may be large.
        let mut take = |key: &str| fixture.get_mut(key).map(Value::take).unwrap_or(Value::Null);
        let request = json!({"state": take("state"), "questions": take("questions")});
        evaluate(port, st, request).await
    }
}

step! {
    evaluation_did_not_raise: Expectations, r#"^the evaluation did not raise$"#,
    "the last `evaluate` answered `decision`, not `raised` (nor did the constructor raise)",
    records Kind::Pinned,
    |StepCtx { st, .. }| { decision(st).map(|_| ()) }
}

step! {
    evaluation_raised_mentioning: Expectations, r#"^the evaluation raised an error mentioning "(?P<TEXT>[^"]*)"(?: or "(?P<ALT>[^"]*)")?$"#,
    "the last `evaluate` (or the classifier's constructor) raised, its message containing TEXT, or ALT when given (where the SPEC lets either be named: NOTES #404)",
    records Kind::Lenient("contains"),
    |StepCtx { st, arg, .. }| {
        let (_, answer) = last_evaluate(st)?;
        let Some(raised) = answer.get("raised").and_then(Value::as_str) else {
            return fail_as(Kind::Lenient("contains"), format!(
                "the evaluation did not raise; it answered {}",
                toolnexus_ports::port::truncate(&st.norm(&answer).to_string(), 300)
            ));
        };
        let text = st.placeholders.normalise_text(raised);
        let wanted: Vec<String> = [arg.opt(1), arg.opt(2)].into_iter().flatten().map(str::to_string).collect();
        if wanted.iter().any(|w| text.contains(w.as_str())) {
            Ok(())
        } else {
            fail_as(Kind::Lenient("contains"), format!("the evaluation raised {text:?}, which mentions none of {wanted:?}"))
        }
    }
}

step! {
    decision_at_path: Expectations, r#"^the decision at "(?P<PATH>[^"]*)" is:$"# + "JSON (matchers allowed)",
    "the value at PATH of the decision (`answers.move.choice`, `calibrated`; normalised)",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let d = decision(st)?;
        let actual = at_path(&d, &arg.at(1), "the decision")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    decision_at_path_json: Expectations, r#"^the decision at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "the same, the expected JSON inline",
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(2))?;
        let d = decision(st)?;
        let actual = at_path(&d, &arg.at(1), "the decision")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    decision_nothing_at_path: Expectations, r#"^the decision has nothing at "(?P<PATH>[^"]+)"$"#,
    "PATH is absent from the decision",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let d = decision(st)?;
        absent(&d, &arg.at(1), "the decision")
    }
}

step! {
    systemone_request_canonical_bytes: Expectations, r#"^LLM request (?P<K>\d+|last) carries the canonical bytes of the judge fixture "(?P<NAME>[^"]+)"$"#,
    "the recorded `/systemone` body's `model` and `questions` values, cut out of its text as sent, make `{\"model\":…,\"questions\":…}` byte for byte equal to the fixture's `canonical` (or one of its `alsoCanonical`: where ASCII order leaves non-ASCII keys open, NOTES #404); the body's other keys (`state`, added params) and their place are not compared",
    records Kind::Pinned,
    |StepCtx { env, st, arg, .. }| {
        let fixture = judge_fixture(&env.fixtures, &arg.at(2))?;
        let mut accepted: Vec<String> = Vec::new();
        for key in ["canonical", "alsoCanonical"] {
            match fixture.get(key) {
                Some(Value::String(s)) => accepted.push(s.clone()),
                Some(Value::Array(items)) => accepted.extend(items.iter().filter_map(Value::as_str).map(str::to_string)),
                _ => {}
            }
        }
        if accepted.is_empty() {
            return fail(format!("the judge fixture {:?} has no `canonical` text", arg.at(2)));
        }
        let request = llm_request(st, &arg.at(1)).await?;
        let sent = canonical_part(&request)?;
        if accepted.contains(&sent) {
            Ok(())
        } else {
            fail_as(Kind::Pinned, format!(
                "the request's model and questions are not the canonical bytes:\n{}",
                first_difference(&accepted[0], &sent)
            ))
        }
    }
}

step! {
    systemone_request_text_contains: Expectations, r#"^LLM request (?P<K>\d+|last) body text (?P<NEG>contains|does not contain) "(?P<TEXT>.*)"$"#,
    "the recorded `/systemone` body, as sent (`bodyText`), contains (or lacks) TEXT, taken literally between the first and the last quotation mark (no unescaping: `\\\"` is the two characters a JSON string escapes a quotation mark with): for characters that must travel raw, never `\\u` escaped",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let request = llm_request(st, &arg.at(1)).await?;
        let text = body_text(&request)?;
        let needle = arg.at(3);
        let want = arg.at(2) == "contains";
        if text.contains(needle.as_str()) == want {
            Ok(())
        } else {
            fail_as(Kind::Pinned, format!(
                "the body text {} {needle:?}: {}",
                if want { "lacks" } else { "contains" },
                toolnexus_ports::port::truncate(&text, 400)
            ))
        }
    }
}

step! {
    warning_event_names_key: Expectations, r#"^the classifier\.warning event names "(?P<KEY>[^"]+)" and carries no error$"#,
    "the last `evaluate`'s `metricEvents` hold exactly one `classifier.warning` event; one of its string fields (the key's own field, or the advisory text) mentions KEY, and it has no `error` field (SPEC §8B: the text travels in `warning`; which field names the key is the port's, NOTES #404)",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let (_, answer) = last_evaluate(st)?;
        let events = crate::steps::sent::array_field(&answer, "/metricEvents", "the last `evaluate` answer")?.clone();
        let warnings: Vec<&Value> = events.iter().filter(|e| e.get("event").and_then(Value::as_str) == Some("classifier.warning")).collect();
        let [warning] = warnings.as_slice() else {
            return fail_as(Kind::Pinned, format!("{} classifier.warning events, not 1: {}", warnings.len(),
                toolnexus_ports::port::truncate(&Value::Array(events.clone()).to_string(), 400)));
        };
        let key = arg.at(1);
        let names = warning.as_object().is_some_and(|m| m.values().any(|v| v.as_str().is_some_and(|s| s.contains(key.as_str()))));
        if !names {
            return fail_as(Kind::Pinned, format!("the warning does not name {key:?}: {warning}"));
        }
        if warning.get("error").is_some() {
            return fail_as(Kind::Pinned, format!("the warning carries an `error` field: {warning}"));
        }
        if warning.get("warning").and_then(Value::as_str).is_none_or(str::is_empty) {
            return fail_as(Kind::Pinned, format!("the warning has no advisory text in `warning`: {warning}"));
        }
        Ok(())
    }
}

step! {
    evaluate_answer_secret_free: Expectations, r#"^the evaluate answer does not mention the secret$"#,
    "the last `evaluate` answer (decision or error, `metricEvents`, `onErrorCalls`) lacks the canary secret; fails when no secret is set",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let Some(secret) = toolnexus_ports::secret::current() else {
            return fail("no canary secret is set, so there is nothing to look for");
        };
        let (_, answer) = last_evaluate(st)?;
        if answer.to_string().contains(&secret) {
            fail_as(Kind::Pinned, "the secret appears in the `evaluate` answer")
        } else {
            Ok(())
        }
    }
}

/// Sends `evaluate` for the current classifier and keeps the answer as the last loop answer;
/// a constructor that raised answers its message here instead.
async fn evaluate(port: &mut dyn Port, st: &mut ScenarioState, request: Value) -> StepResult {
    let Value::Object(mut fields) = request else {
        return fail("the evaluation must be a JSON object with `state` and `questions`");
    };
    let state = st.areas.get_mut::<ClassifierState>();
    let id = state
        .id
        .clone()
        .ok_or_else(|| StepFailure::failed("no classifier has been created in this scenario"))?;
    if let Some(raised) = state.raised.clone() {
        st.loop_answer = Some(("evaluate".into(), json!({"raised": raised})));
        return Ok(());
    }
    fields.insert("classifier".into(), json!(id));
    let started = std::time::Instant::now();
    let (answer, _) = port::send_object(port, Command::Evaluate, fields).await?;
    st.loop_ms = Some(started.elapsed().as_millis());
    super::client::leak_check(&answer, "the `evaluate` answer")?;
    st.loop_answer = Some(("evaluate".into(), answer));
    Ok(())
}

fn last_evaluate(st: &ScenarioState) -> Result<(String, Value), StepFailure> {
    match &st.loop_answer {
        Some((cmd, answer)) if cmd == "evaluate" => Ok((cmd.clone(), answer.clone())),
        Some((cmd, _)) => fail(format!("the last command was `{cmd}`, not `evaluate`")),
        None => fail("no evaluation has been sent in this scenario"),
    }
}

/// The last evaluation's decision, normalised; a raise fails the step with its message.
fn decision(st: &ScenarioState) -> Result<Value, StepFailure> {
    let (_, answer) = last_evaluate(st)?;
    if let Some(raised) = answer.get("raised").and_then(Value::as_str) {
        return fail(format!(
            "the evaluation raised instead of deciding: {}",
            st.placeholders.normalise_text(raised)
        ));
    }
    match answer.get("decision") {
        Some(d) => Ok(st.norm(d)),
        None => fail("the `evaluate` answer has neither `decision` nor `raised`"),
    }
}

/// `conformance/fixtures/judge/NAME.json`, parsed.
fn judge_fixture(fixtures: &std::path::Path, name: &str) -> Result<Value, StepFailure> {
    if name.contains(['/', '\\']) || name.starts_with('.') {
        return fail(format!("{name:?} is not a judge fixture name"));
    }
    let path = fixtures.join("judge").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| StepFailure::failed(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| StepFailure::failed(format!("{}: not JSON: {e}", path.display())))
}

/// The recorded body exactly as sent (the mock's `bodyText`, PROTOCOL-side of the mock).
fn body_text(request: &Value) -> Result<String, StepFailure> {
    if request
        .get("note")
        .and_then(Value::as_str)
        .is_some_and(|n| n.contains("truncated"))
    {
        return fail("the mock kept only part of this body, so its bytes cannot be compared");
    }
    match request.get("bodyText").and_then(Value::as_str) {
        Some(text) => Ok(text.to_string()),
        None => fail("the recorded request has no `bodyText` (is it a `/systemone` request?)"),
    }
}

/// `{"model":<as sent>,"questions":<as sent>}` from the body text: the two values the
/// byte-identity claim covers, each cut out verbatim.
fn canonical_part(request: &Value) -> Result<String, StepFailure> {
    #[derive(Deserialize)]
    struct Covered<'a> {
        #[serde(borrow)]
        model: &'a RawValue,
        #[serde(borrow)]
        questions: &'a RawValue,
    }
    let text = body_text(request)?;
    let covered: Covered<'_> = serde_json::from_str(&text).map_err(|e| {
        StepFailure::kind(
            Kind::Pinned,
            format!("the body has no `model` and `questions` to compare ({e})"),
        )
    })?;
    Ok(format!(
        "{{\"model\":{},\"questions\":{}}}",
        covered.model.get(),
        covered.questions.get()
    ))
}

/// Where two texts first differ, with a little context on each side.
fn first_difference(expected: &str, actual: &str) -> String {
    let at = expected
        .char_indices()
        .zip(actual.chars())
        .find(|((_, e), a)| e != a)
        .map_or(expected.len().min(actual.len()), |((i, _), _)| i);
    let from = expected[..at.min(expected.len())]
        .char_indices()
        .rev()
        .nth(40)
        .map_or(0, |(i, _)| i);
    let cut = |s: &str| -> String {
        let start = from.min(s.len());
        let start = (0..=start)
            .rev()
            .find(|i| s.is_char_boundary(*i))
            .unwrap_or(0);
        s[start..].chars().take(120).collect()
    };
    format!(
        "  at byte {at} (of {} expected, {} sent)\n  expected …{}\n  sent     …{}",
        expected.len(),
        actual.len(),
        cut(expected),
        cut(actual)
    )
}
