//! SPEC §7F compaction steps (PROTOCOL.md §5.26): build a transcript (the compaction fixture's
//! generator, or one written out), send one `compact`, and check the answer's shape against
//! the input. The compacted transcript is read as `[system prompt (when the input starts with
//! one), summary, flush reminder (when `flushToMemory` was sent), …tail]`, so the retained tail
//! is whatever follows those; every tail check compares it with the input's own suffix.

use serde_json::{json, Map, Value};
use toolnexus_protocol::Command;

use super::helpers::unescape;
use super::StepCtx;
use crate::compare::expectation::Kind;
use crate::scenario::state::{fail, fail_as, ScenarioState, StepFailure};
use toolnexus_ports::port;

/// What the §7F compaction steps (PROTOCOL.md §5.26) accumulate.
#[derive(Default)]
pub(crate) struct CompactState {
    /// The transcript the scenario built.
    pub(crate) input: Vec<Value>,
    /// The options of the last `compact`.
    pub(crate) options: Value,
    /// The last `compact` answer.
    pub(crate) answer: Option<Value>,
}

step! {
    transcript_n_tool_turns_style_shape_after: Setup, r#"^a transcript of (?P<N>\d+) tool turns(?: in the (?P<STYLE>openai|anthropic) shape)?(?: after the system prompt "(?P<SYSTEM>[^"]*)")?$"#,
    "the compaction fixture's generator: the system message (when given), then per turn i = 0…N-1 a user `question <i> ` + `pad `×40, an assistant call `c<i>` of `lookup` with `{}`, its result `result <i> ` + `data `×40, and an assistant `answer <i>`; openai (default) uses `tool_calls` / a `tool` message, anthropic a `tool_use` block / a user message with a `tool_result` block",
    |StepCtx { st, arg, .. }| {
        let turns: usize = arg.at(1).parse().unwrap_or(0);
        let anthropic = arg.opt(2) == Some("anthropic");
        st.areas.get_mut::<CompactState>().input = generate(turns, anthropic, arg.opt(3));
        Ok(())
    }
}

step! {
    transcript_system_prompt_system_user_message_n: Setup, r#"^a transcript of the system prompt "(?P<SYSTEM>[^"]*)" and a user message of (?P<N>\d+) characters$"#,
    "two messages: the system prompt, then a user message whose content is N × `x`",
    |StepCtx { st, arg, .. }| {
        let chars: usize = arg.at(2).parse().unwrap_or(0);
        st.areas.get_mut::<CompactState>().input = vec![
            json!({"role": "system", "content": arg.at(1)}),
            json!({"role": "user", "content": "x".repeat(chars)}),
        ];
        Ok(())
    }
}

step! {
    transcript: Setup, r#"^a transcript:$"# + "JSON array of messages",
    "the transcript later `compact` steps send",
    |StepCtx { st, step, .. }| {
        match st.json_doc(step)? {
            Value::Array(messages) => {
                st.areas.get_mut::<CompactState>().input = messages;
                Ok(())
            }
            other => fail(format!("the transcript must be a JSON array, not {other}")),
        }
    }
}

step! {
    transcript_compacted: Actions, r#"^the transcript is compacted with:$"# + "JSON compactor options (PROTOCOL.md §5.26)",
    "`compact` with the transcript and these options; the answer is kept for the checks",
    |StepCtx { port, st, step, .. }| {
        let options = st.json_doc(step)?;
        let fields = Map::from_iter([
            ("messages".into(), Value::Array(st.areas.get_mut::<CompactState>().input.clone())),
            ("options".into(), options.clone()),
        ]);
        let (answer, _) = port::send_object(port, Command::Compact, fields).await?;
        st.areas.get_mut::<CompactState>().options = options;
        st.areas.get_mut::<CompactState>().answer = Some(answer);
        Ok(())
    }
}

step! {
    compactor_returned_nothing: Expectations, r#"^the compactor returned nothing$"#,
    "the answer's `messages` is null (the no-op: the loop keeps its transcript as it is) and `summarize` was never called",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let answer = answer(st)?;
        if !answer["messages"].is_null() {
            return fail_as(Kind::Pinned, format!("the compactor returned {} messages; a no-op returns nothing", len_of(&answer["messages"])));
        }
        match calls(st)?.len() {
            0 => Ok(()),
            n => fail_as(Kind::Pinned, format!("summarize was called {n} time(s) on a no-op")),
        }
    }
}

step! {
    compactor_returned_transcript_smaller_than_input: Expectations, r#"^the compactor returned a transcript smaller than the input$"#,
    "`messages` is an array with fewer characters of JSON than the input, and no more messages",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let out = compacted(st)?;
        let input = &st.areas.get_mut::<CompactState>().input;
        let size = |m: &[Value]| m.iter().map(|v| v.to_string().chars().count()).sum::<usize>();
        if out.len() <= input.len() && size(&out) < size(input) {
            Ok(())
        } else {
            fail_as(Kind::Pinned, format!("the result ({} messages, {} chars) is not smaller than the input ({} messages, {} chars)", out.len(), size(&out), input.len(), size(input)))
        }
    }
}

step! {
    compacted_transcript_starts_input_system_prompt_unchanged: Expectations, r#"^the compacted transcript starts with the input's system prompt, unchanged$"#,
    "the input's first message is a system message and the result's first message equals it exactly",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let out = compacted(st)?;
        let first = st.areas.get_mut::<CompactState>().input.first().cloned().unwrap_or(Value::Null);
        if first["role"] != "system" {
            return fail("the scenario's input does not start with a system message");
        }
        if out.first() == Some(&first) { Ok(()) } else {
            fail_as(Kind::Pinned, format!("the result starts with {}, not the input's system prompt {first}", out.first().cloned().unwrap_or(Value::Null)))
        }
    }
}

step! {
    summary_system_message_prefix_followed_summarizer_answer: Expectations, r#"^the summary is a system message "(?P<PREFIX>[^"]*)" followed by the summarizer's answer$"#,
    "the message after the system prompt (the first one when the input has none) is `{\"role\":\"system\",\"content\": PREFIX + answer}`, `\\n` in PREFIX unescaped; the answer is the sent `summarize.text`, or its `template` with `<N>` = the messages of the one summarize call",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let out = compacted(st)?;
        let calls = calls(st)?;
        let [older] = calls.as_slice() else {
            return fail_as(Kind::Pinned, format!("summarize was called {} times, not once", calls.len()));
        };
        let summarize = &st.areas.get_mut::<CompactState>().options["summarize"];
        let said = match (summarize["text"].as_str(), summarize["template"].as_str()) {
            (Some(text), _) => text.to_string(),
            (None, Some(t)) => t.replace("<N>", &len_of(older).to_string()),
            _ => return fail("the scenario's options have no summarize text or template"),
        };
        let want = json!({"role": "system", "content": format!("{}{said}", unescape(&arg.at(1)))});
        let got = out.get(head(st)).cloned().unwrap_or(Value::Null);
        if got == want { Ok(()) } else {
            fail_as(Kind::Pinned, format!("the summary message is {got}, not {want}"))
        }
    }
}

step! {
    summarizer_called_once_exactly_input_between_system: Expectations, r#"^the summarizer was called once, with exactly the input between the system prompt and the retained tail$"#,
    "one summarize call whose messages are the input's, from after its system prompt (if any) on; the rest of the result after the summary (and the flush reminder, when sent) is exactly the input's remaining suffix: older + tail + system prompt = the whole input",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let calls = calls(st)?;
        let [Value::Array(older)] = calls.as_slice() else {
            return fail_as(Kind::Pinned, format!("summarize was called {} times, not once", calls.len()));
        };
        let input = input(st);
        let h = head(st);
        let n = older.len();
        if n == 0 || input.get(h..h + n) != Some(older.as_slice()) {
            return fail_as(Kind::Pinned, format!("summarize got {n} messages that are not the input's messages {h}..{}", h + n));
        }
        let tail = tail(st)?;
        if h + n + tail.len() != input.len() || input[h + n..] != tail[..] {
            return fail_as(Kind::Pinned, format!("the retained tail ({} messages) is not the input's rest after the {n} summarized ones ({} messages)", tail.len(), input.len() - h - n));
        }
        Ok(())
    }
}

step! {
    retained_tail_last_k_input_messages: Expectations, r#"^the retained tail is the last (?P<K>\d+) input messages$"#,
    "the result's messages after the summary (and flush reminder) are exactly the input's last K messages",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        last_messages(st, arg.at(1).parse().unwrap_or(usize::MAX))
    }
}

step! {
    retained_tail_empty: Expectations, r#"^the retained tail is empty$"#,
        "nothing follows the summary (and flush reminder)",
        records Kind::Pinned,
        |StepCtx { st, .. }| { last_messages(st, 0) }
}

step! {
    retained_tail_starts_at_user_message_that: Expectations, r#"^the retained tail starts at a user message that carries no tool result$"#,
    "the tail's first message has role `user` and no `tool_result` content block",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let tail = tail(st)?;
        match tail.first() {
            None => fail_as(Kind::Pinned, "the retained tail is empty"),
            Some(m) if m["role"] == "user" && !carries_tool_result(m) => Ok(()),
            Some(m) => fail_as(Kind::Pinned, format!("the retained tail starts with {}", port::truncate(&m.to_string(), 200))),
        }
    }
}

step! {
    first_non_system_message_compacted_transcript_user: Expectations, r#"^the first non-system message of the compacted transcript is a user message$"#,
    "the fixture's `firstNonSystemMessageRole`",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let out = compacted(st)?;
        match out.iter().find(|m| m["role"] != "system") {
            Some(m) if m["role"] == "user" => Ok(()),
            other => fail_as(Kind::Pinned, format!("the first non-system message is {}", other.map_or("missing".to_string(), |m| port::truncate(&m.to_string(), 200)))),
        }
    }
}

step! {
    compacted_transcript_tool_pair_safe: Expectations, r#"^the compacted transcript is tool-pair safe$"#,
    "every tool result (an openai `tool` message's `tool_call_id`, an anthropic `tool_result` block's `tool_use_id`) follows an assistant message calling that id (`tool_calls[].id`, a `tool_use` block's `id`)",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let out = compacted(st)?;
        match orphan(&out) {
            None => Ok(()),
            Some(id) => fail_as(Kind::Pinned, format!("the tool result for {id} is orphaned: no earlier assistant message calls it")),
        }
    }
}

step! {
    compacted_transcript_flush_reminder_mentioning_word_before: Expectations, r#"^the compacted transcript has a flush reminder mentioning "(?P<WORD>[^"]+)" before the retained tail$"#,
    "the message right after the summary is a system message whose content contains WORD (case-insensitive) and is not the summary's text",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let out = compacted(st)?;
        let h = head(st);
        let reminder = out.get(h + 1).cloned().unwrap_or(Value::Null);
        let text = reminder["content"].as_str().unwrap_or_default().to_lowercase();
        if reminder["role"] == "system" && text.contains(&arg.at(1).to_lowercase()) && out.get(h) != Some(&reminder) {
            Ok(())
        } else {
            fail_as(Kind::Pinned, format!("the message after the summary is {}, not a system reminder mentioning {:?}", port::truncate(&reminder.to_string(), 200), arg.at(1)))
        }
    }
}

step! {
    compacted_transcript_no_system_message_after_summary: Expectations, r#"^the compacted transcript has no system message after the summary$"#,
    "no flush reminder (or any other system message) follows the summary",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let out = compacted(st)?;
        match out.iter().skip(head(st) + 1).find(|m| m["role"] == "system") {
            None => Ok(()),
            Some(m) => fail_as(Kind::Pinned, format!("a system message follows the summary: {}", port::truncate(&m.to_string(), 200))),
        }
    }
}

/// The compaction fixture's transcript (examples/compaction `input.generator`), in either shape.
fn generate(turns: usize, anthropic: bool, system: Option<&str>) -> Vec<Value> {
    let mut out: Vec<Value> = system
        .map(|s| json!({"role": "system", "content": s}))
        .into_iter()
        .collect();
    for i in 0..turns {
        let (id, question) = (
            format!("c{i}"),
            format!("question {i} {}", "pad ".repeat(40)),
        );
        let result = format!("result {i} {}", "data ".repeat(40));
        out.push(json!({"role": "user", "content": question}));
        if anthropic {
            out.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "lookup", "input": {}}]}));
            out.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": result}]}));
        } else {
            out.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]}));
            out.push(json!({"role": "tool", "tool_call_id": id, "content": result}));
        }
        out.push(json!({"role": "assistant", "content": format!("answer {i}")}));
    }
    out
}

/// The retained tail is the input's last `k` messages, exactly.
fn last_messages(st: &ScenarioState, k: usize) -> Result<(), StepFailure> {
    let tail = tail(st)?;
    let input = input(st);
    let want = input
        .get(input.len().saturating_sub(k)..)
        .unwrap_or_default();
    if tail.len() == k && tail[..] == *want {
        Ok(())
    } else {
        fail_as(
            Kind::Pinned,
            format!(
                "the retained tail has {} messages, not the input's last {k}",
                tail.len()
            ),
        )
    }
}

/// The transcript the scenario built (empty before any).
fn input(st: &ScenarioState) -> &[Value] {
    st.areas
        .get::<CompactState>()
        .map_or(&[], |c| c.input.as_slice())
}

fn answer(st: &ScenarioState) -> Result<&Value, StepFailure> {
    st.areas
        .get::<CompactState>()
        .and_then(|c| c.answer.as_ref())
        .ok_or_else(|| StepFailure::failed("no `compact` was sent in this scenario"))
}

fn compacted(st: &ScenarioState) -> Result<Vec<Value>, StepFailure> {
    match &answer(st)?["messages"] {
        Value::Array(m) => Ok(m.clone()),
        _ => fail_as(
            Kind::Pinned,
            "the compactor returned nothing (a no-op) where a compaction was expected",
        ),
    }
}

fn calls(st: &ScenarioState) -> Result<Vec<Value>, StepFailure> {
    match &answer(st)?["summarizeCalls"] {
        Value::Array(c) => Ok(c.clone()),
        other => fail(format!(
            "the answer's summarizeCalls is {other}, not an array"
        )),
    }
}

fn len_of(v: &Value) -> usize {
    v.as_array().map_or(0, Vec::len)
}

/// How many messages precede the summary: the input's leading system prompt, if any.
fn head(st: &ScenarioState) -> usize {
    usize::from(input(st).first().is_some_and(|m| m["role"] == "system"))
}

/// The result after the system prompt, the summary and (when sent) the flush reminder.
fn tail(st: &ScenarioState) -> Result<Vec<Value>, StepFailure> {
    let out = compacted(st)?;
    let flush = st
        .areas
        .get::<CompactState>()
        .is_some_and(|c| c.options["flushToMemory"] == true);
    let skip = head(st) + 1 + usize::from(flush);
    Ok(out.get(skip..).map(<[Value]>::to_vec).unwrap_or_default())
}

fn blocks<'a>(m: &'a Value, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    m["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(move |b| b["type"] == kind)
}

fn carries_tool_result(m: &Value) -> bool {
    blocks(m, "tool_result").next().is_some()
}

/// The first tool-result id with no earlier assistant call of that id, in either shape.
fn orphan(messages: &[Value]) -> Option<String> {
    let mut called = std::collections::BTreeSet::new();
    for m in messages {
        if m["role"] == "assistant" {
            let openai = m["tool_calls"].as_array().into_iter().flatten();
            called.extend(
                openai
                    .chain(blocks(m, "tool_use"))
                    .map(|c| c["id"].to_string()),
            );
        }
        let mut results: Vec<&Value> = blocks(m, "tool_result")
            .map(|b| &b["tool_use_id"])
            .collect();
        if m["role"] == "tool" {
            results.push(&m["tool_call_id"]);
        }
        if let Some(id) = results
            .into_iter()
            .find(|id| !called.contains(&id.to_string()))
        {
            return Some(id.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_follows_the_fixture() {
        let t = generate(30, false, Some("You are Ava. SOUL."));
        assert_eq!(t.len(), 121);
        assert_eq!(t[3]["tool_call_id"], "c0");
        assert!(t[1]["content"].as_str().unwrap().ends_with("pad pad "));
        assert_eq!(
            generate(2, true, None)[2]["content"][0]["tool_use_id"],
            "c0"
        );
    }

    #[test]
    fn orphans_are_found_in_both_shapes() {
        let t = generate(2, false, None);
        assert_eq!(orphan(&t), None);
        assert_eq!(orphan(&t[2..]), Some("\"c0\"".to_string()));
        let a = generate(2, true, Some("s"));
        assert_eq!(orphan(&a), None);
        assert_eq!(orphan(&a[3..]), Some("\"c0\"".to_string()));
    }
}
