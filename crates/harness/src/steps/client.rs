//! The §8 client steps (PROTOCOL.md §5.13–§5.20): the mock LLM, creating a client, the loop
//! commands, and checks on their answers and on the requests the mock LLM recorded.

use serde_json::{json, Map, Value};
use toolnexus_protocol::{Command, Request, TypedResponse};

use super::helpers::{absent, at_path, contains, expect_json, expect_text, inline_json, matches};
use super::StepCtx;
use crate::compare::expectation::Kind;
use crate::compare::json_path;
use crate::compare::recorded;
use crate::scenario::state::{fail, fail_as, ScenarioState, StepFailure, StepResult};
use crate::steps::serve::ServeState;
use crate::{compare::snapshots, scenario::surroundings, steps::prometheus};
use toolnexus_ports::port::{self, Port};
use toolnexus_ports::{mock_launch, secret};

pub(super) mod order;
pub(super) mod resume;
pub(super) mod translate;

/// The observed lists a loop answer may carry (§5.13), then the `serve_records` lists (§5.25).
const LISTS: &str =
    "hookCalls|metricEvents|onErrorCalls|generateCalls|waitForCalls|evaluateCalls|onTask|onCall|storeCalls|toolCancels";

step! {
    mock_llm_name_runs_file: Setup, r#"^a mock LLM(?: "(?P<NAME>[^"]+)")? runs "(?P<FILE>[^"]+)"$"#,
    "starts `{{BIN}} mock llm --scenario {{MOCKS}}/llm/FILE` with `MOCK_LLM_API_KEY` = the `ANTHROPIC_API_KEY` value (`<secret>-anthropic`) and `MOCK_LLM_BEARER` = `Bearer ` + the `OPENAI_API_KEY` value (the secret); `{{LLM}}` (or `{{LLM:NAME}}`) is its base URL; stopped when the scenario ends",
    |StepCtx { env, st, arg, .. }| {
        let scenario = env.mocks.join("llm").join(arg.at(2));
        let mock = mock_launch::llm(&env.mock_bin, &scenario)
            .await
            .map_err(StepFailure::failed)?;
        let name = arg.opt(1).map(str::to_string);
        let placeholder = match &name {
            Some(n) => format!("{{{{LLM:{n}}}}}"),
            None => "{{LLM}}".to_string(),
        };
        st.placeholders.add_text(&placeholder, &mock.url);
        st.llms.push((name, mock.url.clone()));
        st.mocks.push(mock);
        Ok(())
    }
}

step! {
    client_created: Setup, r#"^a client created with:$"# + "JSON client options (PROTOCOL.md §6A)",
    "`client` (ids `c1`, `c2`, …; the newest is the one later steps use)",
    |StepCtx { port, st, step, .. }| {
        let options = st.json_doc(step)?;
        st.counter += 1;
        let id = format!("c{}", st.counter);
        let fields = Map::from_iter([("id".into(), json!(id)), ("options".into(), options)]);
        port::send_object(port, Command::Client, fields).await?;
        st.client = Some(id);
        Ok(())
    }
}

step! {
    client_runs_prompt: Actions, r#"^the client runs "(?P<PROMPT>[^"]*)"$"#,
    "`run` with the built toolkit (if any)",
    |StepCtx { port, st, arg, .. }| {
        loop_command(port, st, Command::Run, json!({"prompt": arg.at(1)})).await
    }
}

step! {
    client_runs_prompt_with: Actions, r#"^the client runs "(?P<PROMPT>[^"]*)" with:$"# + "JSON request fields (`history`, `cancelAfterMs`)",
    "`run` with these extra request fields",
    |StepCtx { port, st, step, arg, .. }| {
        let mut request = st.json_doc(step)?;
        request["prompt"] = json!(arg.at(1));
        loop_command(port, st, Command::Run, request).await
    }
}

step! {
    client_loop_prompt_parts: Actions, r#"^the client (?P<VERB>runs|streams|asks) with the prompt parts:$"# + "JSON array of SPEC §1B ContentParts",
    "`run`, `stream` or `ask` whose `prompt` is this list of parts (SPEC 0.17.0, PROTOCOL.md §5.15)",
    |StepCtx { port, st, step, arg, .. }| {
        let parts = st.json_doc(step)?;
        if !parts.is_array() {
            return fail("the prompt parts must be a JSON array");
        }
        let cmd = match arg.at(1).as_str() {
            "runs" => Command::Run,
            "streams" => Command::Stream,
            _ => Command::Ask,
        };
        loop_command(port, st, cmd, json!({"prompt": parts})).await
    }
}

step! {
    loop_answer_text_only_in_transcript: Expectations, r#"^the loop answer mentions "(?P<TEXT>[^"]+)" only in its transcript$"#,
    "the last loop answer's compact JSON, with every `messages` transcript (the result's, a `done` event's) taken out, lacks TEXT: a part's `data` is never rendered in an error, an event or a record (SPEC §8: `{type, mimeType, bytes}` only)",
    |StepCtx { st, arg, .. }| {
        let (cmd, mut answer) = last_loop(st)?;
        fn strip(v: &mut Value) {
            match v {
                Value::Object(m) => {
                    m.remove("messages");
                    m.values_mut().for_each(strip);
                }
                Value::Array(a) => a.iter_mut().for_each(strip),
                _ => {}
            }
        }
        strip(&mut answer);
        let text = answer.to_string();
        let needle = arg.at(1);
        match text.find(needle.as_str()) {
            None => Ok(()),
            Some(at) => {
                // From a char boundary about 120 characters before the find.
                let from = text[..at].char_indices().rev().nth(120).map_or(0, |(i, _)| i);
                fail(format!("the `{cmd}` answer renders {needle:?} outside its transcript: …{}",
                    toolnexus_ports::port::truncate(&text[from..], 300)))
            }
        }
    }
}

step! {
    llm_events_parts_descriptor: Expectations, r#"^every llm event of metricEvents that has parts describes them as:$"# + "JSON (matchers allowed)",
    "SPEC §8's optional `parts` descriptor: each `llm` event carrying one must match the expected JSON (events without one pass, a MAY); at least one `llm` event is required",
    records Kind::Lenient("where present"),
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let events = observed(st, "metricEvents")?;
        let llm: Vec<&Value> = events.iter().filter(|e| e.get("event").and_then(Value::as_str) == Some("llm")).collect();
        if llm.is_empty() {
            return fail_as(Kind::Lenient("where present"), "metricEvents has no llm event");
        }
        for e in llm {
            if let Some(parts) = e.get("parts") {
                expect_json(st, &expected, &st.norm(parts))?;
            }
        }
        Ok(())
    }
}

step! {
    client_streams_prompt: Actions, r#"^the client streams "(?P<PROMPT>[^"]*)"$"#,
    "`stream` with the built toolkit (if any)",
    |StepCtx { port, st, arg, .. }| {
        loop_command(port, st, Command::Stream, json!({"prompt": arg.at(1)})).await
    }
}

step! {
    client_streams_prompt_with: Actions, r#"^the client streams "(?P<PROMPT>[^"]*)" with:$"# + "JSON request fields (`id`, `history`, `cancelAfterMs`)",
    "`stream` with these extra request fields",
    |StepCtx { port, st, step, arg, .. }| {
        let mut request = st.json_doc(step)?;
        request["prompt"] = json!(arg.at(1));
        loop_command(port, st, Command::Stream, request).await
    }
}

step! {
    client_asks_prompt_thread_id_ontext: Actions, r#"^the client asks "(?P<PROMPT>[^"]*)"(?: in thread "(?P<ID>[^"]+)")?(?: with onText)?$"#,
    "`ask` (with `id` for a thread; `onText: true` when the step ends `with onText`)",
    |StepCtx { port, st, arg, .. }| {
        let mut request = json!({"prompt": arg.at(1)});
        if let Some(id) = arg.opt(2) {
            request["id"] = json!(id);
        }
        if arg.at(0).ends_with(" with onText") {
            request["onText"] = json!(true);
        }
        loop_command(port, st, Command::Ask, request).await
    }
}

step! {
    client_holds_conversation: Actions, r#"^the client holds a conversation:$"# + r#"JSON steps `[{"send": "…"}, {"reset": true}, …]`"#,
    "`conversation`",
    |StepCtx { port, st, step, .. }| {
        let steps = st.json_doc(step)?;
        loop_command(port, st, Command::Conversation, json!({"steps": steps})).await
    }
}

step! {
    client_store_saves_id: Actions, r#"^the client's store saves "(?P<ID>[^"]+)":$"# + "JSON messages",
    "`store_save`",
    |StepCtx { port, st, step, arg, .. }| {
        let messages = st.json_doc(step)?;
        let client = client_id(st)?;
        let Value::Array(messages) = messages else {
            return fail("the messages to save must be a JSON array");
        };
        port::send(port, Request::StoreSave { client, id: arg.at(1), messages }).await?;
        Ok(())
    }
}

step! {
    client_store_read_at_id: Actions, r#"^the client's store is read at "(?P<ID>[^"]+)"$"#,
    "`store_get`",
    |StepCtx { port, st, arg, .. }| {
        let client = client_id(st)?;
        let (answer, typed) = port::send(port, Request::StoreGet { client, id: arg.at(1) }).await?;
        leak_check(&answer, "the `store_get` answer")?;
        let TypedResponse::StoreGet(messages) = typed else {
            return fail("`store_get` answered with another command's shape");
        };
        st.stored = Some(messages.map_or(Value::Null, Value::Array));
        Ok(())
    }
}

step! {
    client_metrics_read: Actions, r#"^the client's metrics are read$"#,
    "`metrics`",
    |StepCtx { port, st, .. }| {
        let client = client_id(st)?;
        let (answer, typed) = port::send(port, Request::Metrics { client }).await?;
        leak_check(&answer, "the `metrics` answer")?;
        let TypedResponse::Metrics(text) = typed else {
            return fail("`metrics` answered with another command's shape");
        };
        st.metrics_text = Some(text);
        Ok(())
    }
}

step! {
    run_did_not_raise: Expectations, r#"^the run did not raise$"#,
        "the last loop command answered `result` (a stream: a `done` event), not `raised`",
        records Kind::Pinned,
        |StepCtx { st, .. }| { run_result(st).map(|_| ()) }
}

step! {
    run_raised_error_mentioning_text: Expectations, r#"^the run raised an error mentioning "(?P<TEXT>.*)"$"#,
    "the last loop command answered `raised` containing TEXT (normalised); TEXT may be empty (any message): where the SPEC gives a raise no words, use `\"\"` and check the cause with another step (NOTES #320)",
    records Kind::Lenient("contains"),
    |StepCtx { st, arg, .. }| {
        let needle = crate::steps::helpers::unescape(&arg.at(1));
        match outcome(st)? {
            (_, Some(raised)) if st.placeholders.normalise_text(&raised).contains(&needle) => Ok(()),
            (_, Some(raised)) => fail_as(Kind::Lenient("contains"), format!(
                "the run raised {:?}, which does not mention {needle:?}",
                st.placeholders.normalise_text(&raised)
            )),
            (Some(result), None) => fail_as(Kind::Lenient("contains"), format!(
                "the run did not raise; it returned {}",
                toolnexus_ports::port::truncate(&st.norm(&result).to_string(), 300)
            )),
            (None, None) => fail("the last answer has neither `result` nor `raised`"),
        }
    }
}

step! {
    run_text_text: Expectations, r#"^the run text is "(?P<TEXT>.*)"$"#,
    "`result.text` exactly (normalised; escaped quotes and `\\n` unescaped)",
    |StepCtx { st, arg, .. }| {
        let result = run_result(st)?;
        let text = crate::steps::sent::str_field(&result, "/text", "the run's result")?;
        expect_text(st, &crate::steps::helpers::unescape(&arg.at(1)), text)
    }
}

step! {
    run_result_at_path: Expectations, r#"^the run result at "(?P<PATH>[^"]*)" is:$"# + "JSON (matchers allowed)",
    "the value at PATH of the run's `result` (normalised)",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let result = run_result(st)?;
        let actual = at_path(&result, &arg.at(1), "the run result")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    run_result_at_path_json: Expectations, r#"^the run result at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "the same, the expected JSON inline (`2`, `\"It is sunny.\"`, `true`)",
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(2))?;
        let result = run_result(st)?;
        let actual = at_path(&result, &arg.at(1), "the run result")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    run_result_at_path_contains_text: Expectations, r#"^the run result at "(?P<PATH>[^"]*)" contains "(?P<TEXT>.*)"$"#,
    "the string at PATH contains TEXT (another value: its compact JSON does)",
    records Kind::Lenient("contains"),
    |StepCtx { st, arg, .. }| {
        let result = run_result(st)?;
        let actual = at_path(&result, &arg.at(1), "the run result")?;
        contains(&actual, &crate::steps::helpers::unescape(&arg.at(2)))
    }
}

step! {
    run_result_at_path_matches_regex: Expectations, r#"^the run result at "(?P<PATH>[^"]*)" matches "(?P<REGEX>.*)"$"#,
    "the string at PATH matches the regex (searched, not anchored)",
    records Kind::Lenient("regex"),
    |StepCtx { st, arg, .. }| {
        let result = run_result(st)?;
        let actual = at_path(&result, &arg.at(1), "the run result")?;
        matches(&actual, &arg.at(2))
    }
}

step! {
    run_result_nothing_at_path: Expectations, r#"^the run result has nothing at "(?P<PATH>[^"]+)"$"#,
    "PATH is absent from the run's `result`",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let result = run_result(st)?;
        absent(&result, &arg.at(1), "the run result")
    }
}

step! {
    tool_calls: Expectations, r#"^the tool calls are:$"# + "JSON array (matchers allowed)",
    "`result.toolCalls` whole (normalised)",
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let result = run_result(st)?;
        let actual = result.get("toolCalls").cloned().unwrap_or(Value::Null);
        expect_json(st, &expected, &actual)
    }
}

step! {
    usage_p_prompt_c_completion_t_total: Expectations, r#"^the usage is (?P<P>\d+) prompt, (?P<C>\d+) completion and (?P<T>\d+) total tokens$"#,
    "`result.usage` exactly",
    |StepCtx { st, arg, .. }| {
        let number = |i: usize| arg.at(i).parse::<u64>().unwrap_or(u64::MAX);
        let expected = json!({"promptTokens": number(1), "completionTokens": number(2), "totalTokens": number(3)});
        let result = run_result(st)?;
        expect_json(st, &expected, result.get("usage").unwrap_or(&Value::Null))
    }
}

step! {
    stream_event_types: Expectations, r#"^the stream event types are:$"# + "JSON array of types",
    "`events[].type` in order",
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let types: Vec<Value> = events(st)?
            .iter()
            .map(|e| e.get("type").cloned().unwrap_or(Value::Null))
            .collect();
        expect_json(st, &expected, &Value::Array(types))
    }
}

step! {
    stream_events_type_type: Expectations, r#"^the stream events of type "(?P<TYPE>[^"]+)" are:$"# + "JSON array (matchers allowed)",
    "the events of that type, in order (normalised)",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let wanted = arg.at(1);
        let picked: Vec<Value> = events(st)?
            .into_iter()
            .filter(|e| e.get("type").and_then(Value::as_str) == Some(wanted.as_str()))
            .collect();
        expect_json(st, &expected, &st.norm(&Value::Array(picked)))
    }
}

step! {
    text_deltas_join_text: Expectations, r#"^the text deltas join to "(?P<TEXT>.*)"$"#,
    "`ask`'s `textDeltas`, or a stream's `text` event deltas, joined (unescapes `\\n`)",
    |StepCtx { st, arg, .. }| {
        let joined = text_deltas(st)?;
        expect_text(st, &crate::steps::helpers::unescape(&arg.at(1)), &joined)
    }
}

step! {
    there_were_several_text_deltas: Expectations, r#"^there were several text deltas$"#,
    "more than one delta (a real stream, not one chunk)",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        let (cmd, answer) = last_loop(st)?;
        let n = if cmd == "stream" {
            events(st)?.iter().filter(|e| e.get("type").and_then(Value::as_str) == Some("text")).count()
        } else {
            answer.get("textDeltas").and_then(Value::as_array).map_or(0, Vec::len)
        };
        if n > 1 { Ok(()) } else { fail_as(Kind::Pinned, format!("{n} text delta(s)")) }
    }
}

step! {
    list_n_entries: Expectations, r#"^(?P<LIST>hookCalls|metricEvents|onErrorCalls|generateCalls|waitForCalls|evaluateCalls|onTask|onCall|storeCalls|toolCancels) has (?P<N>\d+) entries$"#,
    "the observed list of the last loop command (§5.13) or `evaluate` (§5.30), or of the last `serve_records` (§5.25: `onTask`, `onCall`, `storeCalls`, `toolCancels`), has N entries",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let list = observed(st, &arg.at(1))?;
        let want: usize = arg.at(2).parse().unwrap_or(usize::MAX);
        if list.len() == want { Ok(()) } else {
            fail_as(Kind::Pinned, format!("{} has {} entries, not {want}: {}", arg.at(1), list.len(),
                toolnexus_ports::port::truncate(&st.norm(&Value::Array(list)).to_string(), 400)))
        }
    }
}

step! {
    list_n_entries_path_equal_json: Expectations, r#"^(?P<LIST>hookCalls|metricEvents|onErrorCalls|generateCalls|waitForCalls|evaluateCalls|onTask|onCall|storeCalls|toolCancels) has (?P<N>\d+) entries with "(?P<PATH>[^"]+)" equal to (?P<JSON>.+)$"#,
    "N entries of the list hold that JSON value at PATH",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let list = observed(st, &arg.at(1))?;
        let value = inline_json(&arg.at(4))?;
        let want: usize = arg.at(2).parse().unwrap_or(usize::MAX);
        let path = arg.at(3);
        let mut n = 0;
        for entry in &list {
            if json_path::get(entry, &path).map_err(StepFailure::failed)? == Some(&value) {
                n += 1;
            }
        }
        if n == want { Ok(()) } else {
            fail_as(Kind::Pinned, format!("{n} {} entries have {path} = {value}, not {want}", arg.at(1)))
        }
    }
}

step! {
    list_at_path: Expectations, r#"^(?P<LIST>hookCalls|metricEvents|onErrorCalls|generateCalls|waitForCalls|evaluateCalls|onTask|onCall|storeCalls|toolCancels) at "(?P<PATH>[^"]*)" is:$"# + "JSON (matchers allowed)",
    "the value at PATH of the list (`[0].name`, `[-1].turn`; normalised); an entry is compared on the keys the expectation names (a key the driver added is no mismatch, NOTES #429), a `waitForCalls` entry (the SPEC's Request) whole",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let list = Value::Array(observed(st, &arg.at(1))?);
        let actual = at_path(&list, &arg.at(2), &arg.at(1))?;
        let actual = if recorded::tolerates_added_keys(&arg.at(1)) {
            recorded::without_added_keys(&arg.at(2), &expected, actual)
        } else {
            actual
        };
        expect_json(st, &expected, &actual)
    }
}

step! {
    list_at_path_json: Expectations, r#"^(?P<LIST>hookCalls|metricEvents|onErrorCalls|generateCalls|waitForCalls|evaluateCalls|onTask|onCall|storeCalls|toolCancels) at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "the same, the expected JSON inline",
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(3))?;
        let list = Value::Array(observed(st, &arg.at(1))?);
        let actual = at_path(&list, &arg.at(2), &arg.at(1))?;
        let actual = if recorded::tolerates_added_keys(&arg.at(1)) {
            recorded::without_added_keys(&arg.at(2), &expected, actual)
        } else {
            actual
        };
        expect_json(st, &expected, &actual)
    }
}

step! {
    elapsed_time_at_least_n_ms: Expectations, r#"^the elapsed time is at least (?P<N>\d+) ms$"#,
    "`elapsedMs` (else the harness's round trip) ≥ N",
    records Kind::UpperBound,
    |StepCtx { st, arg, .. }| {
        let (ms, whose) = elapsed(st)?;
        let bound: f64 = arg.at(1).parse().unwrap_or(f64::MAX);
        if ms >= bound { Ok(()) } else { fail_as(Kind::LowerBound, format!("{whose} {ms} ms, less than {bound} ms")) }
    }
}

step! {
    elapsed_time_below_n_ms: Expectations, r#"^the elapsed time is below (?P<N>\d+) ms$"#,
    "`elapsedMs` (else the harness's round trip) < N",
    records Kind::UpperBound,
    |StepCtx { st, arg, .. }| {
        let (ms, whose) = elapsed(st)?;
        let bound: f64 = arg.at(1).parse().unwrap_or(0.0);
        if ms < bound { Ok(()) } else { fail_as(Kind::UpperBound, format!("{whose} {ms} ms, not below {bound} ms")) }
    }
}

step! {
    conversation_transcript: Expectations, r#"^the conversation transcript is:$"# + "JSON (matchers allowed)",
    "`conversation`'s `messages` (normalised)",
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let (cmd, answer) = last_loop(st)?;
        if cmd != "conversation" {
            return fail(format!("the last loop command was `{cmd}`, not `conversation`"));
        }
        expect_json(st, &expected, &st.norm(answer.get("messages").unwrap_or(&Value::Null)))
    }
}

step! {
    conversation_step_k_at_path_json: Expectations, r#"^conversation step (?P<K>\d+) at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "the K-th (1-based) entry of `conversation`'s `steps` at PATH (`result.text`, `raised`)",
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(3))?;
        let (cmd, answer) = last_loop(st)?;
        if cmd != "conversation" {
            return fail(format!("the last loop command was `{cmd}`, not `conversation`"));
        }
        let k: i64 = arg.at(1).parse().unwrap_or(0);
        let steps = answer.get("steps").cloned().unwrap_or(Value::Null);
        let entry = at_path(&steps, &format!("[{}]", k - 1), "conversation steps")?;
        let actual = at_path(&entry, &arg.at(2), "the conversation step")?;
        expect_json(st, &expected, &st.norm(&actual))
    }
}

step! {
    stored_messages: Expectations, r#"^the stored messages are:$"# + "JSON (matchers allowed)",
    "the last `store_get`'s `messages` (normalised)",
    |StepCtx { st, step, .. }| {
        let expected = st.expect_doc(step)?;
        let stored = st.stored.clone().ok_or_else(|| StepFailure::failed("the store has not been read"))?;
        expect_json(st, &expected, &st.norm(&stored))
    }
}

step! {
    store_nothing_there: Expectations, r#"^the store has nothing there$"#,
    "the last `store_get` answered `messages: null`",
    records Kind::Pinned,
    |StepCtx { st, .. }| {
        match &st.stored {
            Some(Value::Null) => Ok(()),
            Some(other) => fail_as(Kind::Pinned, format!("the store holds {}", st.norm(other))),
            None => fail("the store has not been read"),
        }
    }
}

step! {
    metrics_text: Expectations, r#"^the metrics text is:$"# + "text (durations as `<sum>` / `<n>`)",
    "the `metrics` text exactly, after the §10 duration normalisation (which itself fails on non-cumulative buckets or `+Inf` ≠ `_count`)",
    |StepCtx { st, step, .. }| {
        let expected = st.raw_doc(step)?;
        let actual = metrics(st)?;
        // A doc string cannot end in a newline; the exposition always does.
        expect_text(st, &format!("{expected}\n"), &actual)
    }
}

step! {
    metrics_text_matches_snapshot_name: Expectations, r#"^the metrics text matches snapshot "(?P<NAME>[^"]+)"$"#,
    "the normalised `metrics` text against `snapshots/NAME.snap`'s body (plus the final newline)",
    |StepCtx { env, st, arg, .. }| {
        let body = snapshots::body(&env.snapshots, &arg.at(1)).map_err(StepFailure::failed)?;
        let actual = metrics(st)?;
        expect_text(st, &format!("{body}\n"), &actual)
    }
}

step! {
    metrics_text_line_line: Expectations, r#"^the metrics text has the line "(?P<LINE>.*)"$"#,
    "one line of the normalised `metrics` text equals LINE",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let text = metrics(st)?;
        let line = arg.at(1);
        if text.lines().any(|l| l == line) { Ok(()) } else {
            fail_as(Kind::Pinned, format!("no line {line:?} in:\n{text}"))
        }
    }
}

step! {
    metrics_text_matches_regex: Expectations, r#"^the metrics text matches "(?P<REGEX>.*)"$"#,
    "the raw `metrics` text matches the regex (multi-line mode; for bucket placement)",
    records Kind::Lenient("regex"),
    |StepCtx { st, arg, .. }| {
        let text = st.metrics_text.clone().ok_or_else(|| StepFailure::failed("the metrics have not been read"))?;
        let re = regex::Regex::new(&format!("(?m){}", arg.at(1))).map_err(|e| StepFailure::failed(format!("bad regex: {e}")))?;
        if re.is_match(&text) { Ok(()) } else {
            fail_as(Kind::Lenient("regex"), format!("the metrics text does not match {}:\n{text}", arg.at(1)))
        }
    }
}

step! {
    llm_name_received_n_requests: Expectations, r#"^the LLM(?: "(?P<NAME>[^"]+)")? received (?P<N>\d+) requests?$"#,
    "the mock LLM's `GET /_mock/requests` lists N requests",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let requests = llm_requests(st, arg.opt(1)).await?;
        let want: usize = arg.at(2).parse().unwrap_or(usize::MAX);
        if requests.len() == want { Ok(()) } else {
            let routes: Vec<String> = requests.iter().map(|r| format!("{} {}",
                r.get("method").and_then(Value::as_str).unwrap_or("?"),
                r.get("path").and_then(Value::as_str).unwrap_or("?"))).collect();
            fail_as(Kind::Pinned, format!("the LLM received {} requests, not {want}: {routes:?}", requests.len()))
        }
    }
}

step! {
    llm_name_received_at_most_n_requests: Expectations, r#"^the LLM(?: "(?P<NAME>[^"]+)")? received at most (?P<N>\d+) requests$"#,
    "the mock LLM's `GET /_mock/stats` counts at most N requests (those recorded plus those the recording's caps evicted, so a flood still counts)",
    records Kind::Lenient("at most"),
    |StepCtx { st, arg, .. }| {
        let stats = llm_get(st, arg.opt(1), "/_mock/stats").await?;
        let count = |k: &str| stats.get(k).and_then(Value::as_u64);
        let (Some(kept), Some(evicted)) = (count("recorded"), count("recordedEvicted")) else {
            return fail(format!("the mock LLM's stats have no request counts: {}", toolnexus_ports::port::truncate(&stats.to_string(), 300)));
        };
        let most: u64 = arg.at(2).parse().unwrap_or(0);
        let received = kept.saturating_add(evicted);
        if received <= most { Ok(()) } else {
            fail_as(Kind::Lenient("at most"), format!("the LLM received {received} requests, more than {most}"))
        }
    }
}

step! {
    llm_request_k_path_path: Expectations, r#"^LLM request (?P<K>\d+|last) path is "(?P<PATH>[^"]+)"$"#,
    "the K-th (1-based) recorded request's path",
    |StepCtx { st, arg, .. }| {
        let request = llm_request(st, &arg.at(1)).await?;
        expect_json(st, &json!(arg.at(2)), request.get("path").unwrap_or(&Value::Null))
    }
}

step! {
    llm_request_k_header_h_v: Expectations, r#"^LLM request (?P<K>\d+|last) header "(?P<H>[^"]+)" is "(?P<V>.*)"$"#,
    "a recorded header (lower-case name; `authorization` and `x-api-key` read `<redacted>`)",
    |StepCtx { st, arg, .. }| {
        let request = llm_request(st, &arg.at(1)).await?;
        let name = arg.at(2).to_ascii_lowercase();
        let actual = request.pointer(&format!("/headers/{}", name.replace('~', "~0").replace('/', "~1")));
        expect_json(st, &json!(arg.at(3)), actual.unwrap_or(&Value::Null))
    }
}

step! {
    llm_request_k_header_h_absent: Expectations, r#"^LLM request (?P<K>\d+|last) header "(?P<H>[^"]+)" is absent$"#,
    "the recorded request has no such header",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let request = llm_request(st, &arg.at(1)).await?;
        let name = arg.at(2).to_ascii_lowercase();
        match request.get("headers").and_then(|h| h.get(&name)) {
            None => Ok(()),
            Some(v) => fail_as(Kind::Pinned, format!("header {name} is present: {v}")),
        }
    }
}

step! {
    llm_request_k_body_at_path: Expectations, r#"^LLM request (?P<K>\d+|last) body at "(?P<PATH>[^"]*)" is:$"# + "JSON (matchers allowed)",
    "the recorded JSON body at PATH (normalised)",
    |StepCtx { st, step, arg, .. }| {
        let expected = st.expect_doc(step)?;
        let request = llm_request(st, &arg.at(1)).await?;
        let actual = at_path(request.get("body").unwrap_or(&Value::Null), &arg.at(2), "the request body")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    llm_request_k_body_at_path_json: Expectations, r#"^LLM request (?P<K>\d+|last) body at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "the same, the expected JSON inline",
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(3))?;
        let request = llm_request(st, &arg.at(1)).await?;
        let actual = at_path(request.get("body").unwrap_or(&Value::Null), &arg.at(2), "the request body")?;
        expect_json(st, &expected, &actual)
    }
}

step! {
    llm_request_k_body_at_path_contains: Expectations, r#"^LLM request (?P<K>\d+|last) body at "(?P<PATH>[^"]*)" contains "(?P<TEXT>.*)"$"#,
    "the string at PATH contains TEXT (another value: its compact JSON does; unescapes `\\n`)",
    records Kind::Lenient("contains"),
    |StepCtx { st, arg, .. }| {
        let request = llm_request(st, &arg.at(1)).await?;
        let actual = at_path(request.get("body").unwrap_or(&Value::Null), &arg.at(2), "the request body")?;
        contains(&actual, &crate::steps::helpers::unescape(&arg.at(3)))
    }
}

step! {
    llm_request_k_body_at_path_matches: Expectations, r#"^LLM request (?P<K>\d+|last) body at "(?P<PATH>[^"]*)" matches "(?P<REGEX>.*)"$"#,
    "the string at PATH matches the regex (searched, not anchored)",
    records Kind::Lenient("regex"),
    |StepCtx { st, arg, .. }| {
        let request = llm_request(st, &arg.at(1)).await?;
        let actual = at_path(request.get("body").unwrap_or(&Value::Null), &arg.at(2), "the request body")?;
        matches(&actual, &arg.at(3))
    }
}

step! {
    llm_request_k_body_nothing_at_path: Expectations, r#"^LLM request (?P<K>\d+|last) body has nothing at "(?P<PATH>[^"]+)"$"#,
    "PATH is absent from the recorded body (e.g. `tools` with no tools)",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let request = llm_request(st, &arg.at(1)).await?;
        absent(request.get("body").unwrap_or(&Value::Null), &arg.at(2), "the request body")
    }
}

step! {
    every_llm_request_body_at_path_json: Expectations, r#"^every LLM request body at "(?P<PATH>[^"]*)" is (?P<JSON>[^:].*)$"#,
    "every recorded request (at least one) has that JSON at PATH",
    records Kind::Pinned,
    |StepCtx { st, arg, .. }| {
        let expected = inline_json(&arg.at(2))?;
        let requests = llm_requests(st, None).await?;
        if requests.is_empty() {
            return fail_as(Kind::Pinned, "the LLM received no request");
        }
        for (i, r) in requests.iter().enumerate() {
            let actual = json_path::get(r.get("body").unwrap_or(&Value::Null), &arg.at(1)).map_err(StepFailure::failed)?;
            if actual != Some(&expected) {
                return fail_as(Kind::Pinned, format!("LLM request {} has {} at {}, not {expected}",
                    i + 1, actual.map_or("nothing".to_string(), Value::to_string), arg.at(1)));
            }
        }
        Ok(())
    }
}

fn client_id(st: &ScenarioState) -> Result<String, StepFailure> {
    st.client
        .clone()
        .ok_or_else(|| StepFailure::failed("no client has been created in this scenario"))
}

/// Fails (without printing it) when `answer` carries the canary secret.
pub(super) fn leak_check(answer: &Value, what: &str) -> StepResult {
    match secret::current() {
        Some(s) if answer.to_string().contains(&s) => {
            fail_as(Kind::Pinned, format!("the secret appears in {what}"))
        }
        _ => Ok(()),
    }
}

/// Sends a loop command for the current client (with the built toolkit, if any), keeps its
/// answer, and fails at once if the answer repeats the secret.
async fn loop_command(
    port: &mut dyn Port,
    st: &mut ScenarioState,
    cmd: Command,
    request: Value,
) -> StepResult {
    let Value::Object(mut fields) = request else {
        return fail(format!(
            "the `{}` request must be a JSON object",
            cmd.as_str()
        ));
    };
    fields.insert("client".into(), json!(client_id(st)?));
    if let Some(toolkit) = &st.toolkit {
        fields.entry("toolkit").or_insert_with(|| json!(toolkit));
    }
    let started = std::time::Instant::now();
    let (answer, _) = port::send_object(port, cmd, fields).await?;
    st.loop_ms = Some(started.elapsed().as_millis());
    leak_check(&answer, &format!("the `{}` answer", cmd.as_str()))?;
    st.loop_answer = Some((cmd.as_str().to_string(), answer));
    Ok(())
}

fn last_loop(st: &ScenarioState) -> Result<(String, Value), StepFailure> {
    st.loop_answer.clone().ok_or_else(|| {
        StepFailure::failed("no run, stream, ask or conversation has been sent in this scenario")
    })
}

fn events(st: &ScenarioState) -> Result<Vec<Value>, StepFailure> {
    let (cmd, answer) = last_loop(st)?;
    if cmd != "stream" {
        return fail(format!("the last loop command was `{cmd}`, not `stream`"));
    }
    Ok(crate::steps::sent::array_field(&answer, "/events", "the `stream` answer")?.clone())
}

/// The last loop command's outcome: its `result` (a stream's `done` result, a conversation's
/// last step) and its `raised` message.
fn outcome(st: &ScenarioState) -> Result<(Option<Value>, Option<String>), StepFailure> {
    let (cmd, answer) = last_loop(st)?;
    let holder = match cmd.as_str() {
        "conversation" => answer
            .get("steps")
            .and_then(Value::as_array)
            .and_then(|s| s.last())
            .cloned()
            .unwrap_or(Value::Null),
        _ => answer.clone(),
    };
    let raised = holder
        .get("raised")
        .and_then(Value::as_str)
        .map(str::to_string);
    let result = if cmd == "stream" {
        events(st)?
            .into_iter()
            .rev()
            .find(|e| e.get("type").and_then(Value::as_str) == Some("done"))
            .and_then(|e| e.get("result").cloned())
    } else {
        holder.get("result").cloned()
    };
    Ok((result, raised))
}

/// The run's result, normalised; a run that raised fails the step with its message.
fn run_result(st: &ScenarioState) -> Result<Value, StepFailure> {
    match outcome(st)? {
        (Some(result), None) => Ok(st.norm(&result)),
        (_, Some(raised)) => fail(format!(
            "the run raised instead of returning: {}",
            st.placeholders.normalise_text(&raised)
        )),
        (None, None) => fail("the stream ended without a `done` event"),
    }
}

fn observed(st: &ScenarioState, list: &str) -> Result<Vec<Value>, StepFailure> {
    debug_assert!(LISTS.split('|').any(|l| l == list));
    let (cmd, answer) = if super::serve::SERVE_LISTS.contains(&list) {
        let records = st
            .areas
            .get::<ServeState>()
            .and_then(|s| s.records.clone())
            .ok_or_else(|| {
                StepFailure::failed("the serve records have not been read in this scenario")
            })?;
        ("serve_records".to_string(), records)
    } else {
        last_loop(st)?
    };
    match answer.get(list).and_then(Value::as_array) {
        Some(items) => Ok(st
            .norm(&Value::Array(items.clone()))
            .as_array()
            .cloned()
            .unwrap_or_default()),
        None => fail(format!(
            "the `{cmd}` answer has no `{list}` (is the seam installed on the client?)"
        )),
    }
}

fn text_deltas(st: &ScenarioState) -> Result<String, StepFailure> {
    let (cmd, answer) = last_loop(st)?;
    let deltas: Vec<String> = if cmd == "stream" {
        events(st)?
            .iter()
            .filter(|e| e.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|e| e.get("delta").and_then(Value::as_str).map(str::to_string))
            .collect()
    } else {
        let Some(list) = answer.get("textDeltas").and_then(Value::as_array) else {
            return fail(format!("the `{cmd}` answer has no `textDeltas`"));
        };
        list.iter()
            .filter_map(|d| d.as_str().map(str::to_string))
            .collect()
    };
    Ok(st.placeholders.normalise_text(&deltas.concat()))
}

fn elapsed(st: &ScenarioState) -> Result<(f64, &'static str), StepFailure> {
    let (_, answer) = last_loop(st)?;
    match answer.get("elapsedMs").and_then(Value::as_f64) {
        Some(ms) => Ok((ms, "the port measured")),
        None => Ok((
            st.loop_ms.unwrap_or_default() as f64,
            "(no elapsedMs) the round trip took",
        )),
    }
}

/// The last `metrics` text with its durations normalised (§10) and placeholders put back.
fn metrics(st: &ScenarioState) -> Result<String, StepFailure> {
    let text = st
        .metrics_text
        .clone()
        .ok_or_else(|| StepFailure::failed("the metrics have not been read"))?;
    let normalised = prometheus::normalise_durations(&text).map_err(|why| {
        StepFailure::kind(
            Kind::Pinned,
            format!("the metrics histograms are malformed: {why}"),
        )
    })?;
    Ok(st.placeholders.normalise_text(&normalised))
}

/// The requests the mock LLM (named, else the unnamed or first one) recorded, normalised;
/// they too must not carry the secret (the mock redacts the key headers, not bodies).
async fn llm_requests(st: &ScenarioState, name: Option<&str>) -> Result<Vec<Value>, StepFailure> {
    let recorded = llm_get(st, name, "/_mock/requests").await?;
    leak_check(&recorded, "a request the mock LLM recorded")?;
    Ok(st.norm(&recorded).as_array().cloned().unwrap_or_default())
}

/// `GET path` of the scenario's mock LLM `name` (the first one when unnamed), with the key
/// headers the mock may require on every route.
async fn llm_get(st: &ScenarioState, name: Option<&str>, path: &str) -> Result<Value, StepFailure> {
    let url = st
        .llms
        .iter()
        .find(|(n, _)| n.as_deref() == name)
        .or_else(|| name.is_none().then(|| st.llms.first()).flatten())
        .map(|(_, url)| url.clone())
        .ok_or_else(|| StepFailure::failed("no such mock LLM runs in this scenario"))?;
    // The mock may require the key headers on every route, `/_mock/requests` included.
    let headers = match secret::current() {
        Some(s) => vec![
            (
                "authorization",
                format!("Bearer {}", secret::client_key("OPENAI_API_KEY", &s)),
            ),
            ("x-api-key", secret::client_key("ANTHROPIC_API_KEY", &s)),
        ],
        None => Vec::new(),
    };
    surroundings::get_json(&url, path, &headers)
        .await
        .map_err(StepFailure::failed)
}

pub(super) async fn llm_request(st: &ScenarioState, k: &str) -> Result<Value, StepFailure> {
    let requests = llm_requests(st, None).await?;
    let index = match k {
        "last" => requests.len().checked_sub(1),
        n => n.parse::<usize>().ok().and_then(|n| n.checked_sub(1)),
    };
    index.and_then(|i| requests.get(i).cloned()).ok_or_else(|| {
        StepFailure::kind(
            Kind::Pinned,
            format!(
                "the LLM received {} requests; there is no request {k}",
                requests.len()
            ),
        )
    })
}
