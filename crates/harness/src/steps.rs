//! The step vocabulary: a registry of named steps, each a `step!` item declaring its pattern,
//! its doc line and its handler (protocol requests and comparisons) together, in a module per
//! SPEC area (`setup`, `toolkit`, `results`, `skills`, `builtins`, `mcp`, `client` with its
//! `order`/`translate`/`resume` children, `agents`, `relay`, `serve`, `compact`; what several
//! share is in `helpers`). `STEPS` lists them in registry order, from which features/STEPS.md
//! is rendered. Both the CLI runner and the cucumber test drive scenarios through `run_step`.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;

use regex::Regex;

use crate::compare::expectation::Kind;
use crate::scenario::features::StepSpec;
use crate::scenario::state::{fail, Env, ScenarioState, StepFailure, StepResult};
use toolnexus_ports::port::Port;

/// Where a step belongs in a scenario; STEPS.md lists the steps under these headings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// `Given` steps: files, servers, options and builds.
    Setup,
    /// `When` steps: one request to the port.
    Actions,
    /// `Then` steps: comparisons with what the port answered.
    Expectations,
}

impl Group {
    /// Every group, in the order STEPS.md lists them.
    pub const ALL: [Group; 3] = [Group::Setup, Group::Actions, Group::Expectations];

    /// The group's heading on STEPS.md.
    pub fn heading(self) -> &'static str {
        match self {
            Group::Setup => "Setup",
            Group::Actions => "Actions",
            Group::Expectations => "Expectations",
        }
    }

    /// What the second column of the group's table says about each step.
    fn column(self) -> &'static str {
        match self {
            Group::Setup => "does",
            Group::Actions => "sends",
            Group::Expectations => "checks",
        }
    }

    /// Prose shown above the group's table, if any.
    fn intro(self) -> &'static str {
        match self {
            Group::Expectations => {
                "Steps about the tool list ask the port afresh (`tools`) and fail if that listing differs\nfrom what `build` answered."
            }
            Group::Setup | Group::Actions => "",
        }
    }
}

/// The capture groups of a matched step text (group 0 is the whole text).
pub struct Args(Vec<Option<String>>);

impl Args {
    /// Group `i`, or `""` when it took no part in the match.
    pub fn at(&self, i: usize) -> String {
        self.opt(i).unwrap_or_default().to_string()
    }

    /// Group `i`, when it took part in the match.
    pub fn opt(&self, i: usize) -> Option<&str> {
        self.0.get(i).and_then(Option::as_deref)
    }
}

/// What a step's handler works with.
pub struct StepCtx<'a> {
    /// The port under test.
    pub port: &'a mut dyn Port,
    /// Where inputs and snapshots live.
    pub env: &'a Env,
    /// The scenario's accumulated state.
    pub st: &'a mut ScenarioState,
    /// The step as written (its doc string included).
    pub step: &'a StepSpec,
    /// The pattern's capture groups.
    pub arg: Args,
}

/// A running step handler. Not `Send`: the runners drive steps on their own task.
pub type StepFuture<'a> = Pin<Box<dyn Future<Output = StepResult> + 'a>>;

/// What a step does once its pattern matched.
pub type Handler = for<'a> fn(StepCtx<'a>) -> StepFuture<'a>;

/// One step of the vocabulary: its pattern, its documentation and its handler, declared
/// together so that adding a step is one edit (STEPS.md is rendered from these).
pub struct StepDef {
    /// The heading STEPS.md lists the step under.
    pub group: Group,
    /// The regex a step text must match, whole; named groups name the placeholders STEPS.md shows.
    pub pattern: &'static str,
    /// What the step's doc string holds (`text`, `JSON`, ...); empty when it takes none.
    pub takes: &'static str,
    /// One line for STEPS.md: what the step does, sends or checks.
    pub doc: &'static str,
    /// The expectation kind a passing step records when it compares without the helpers.
    pub records: Option<Kind>,
    /// Runs the step.
    pub handler: Handler,
    re: Regex,
}

impl StepDef {
    /// Whether `text` is a step this item handles.
    pub fn matches(&self, text: &str) -> bool {
        self.re.is_match(text)
    }
}

fn boxed<'a>(body: impl Future<Output = StepResult> + 'a) -> StepFuture<'a> {
    Box::pin(body)
}

fn compile(pattern: &str) -> Regex {
    // The patterns are this file's constants, not input: a bad one is a build defect.
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad step regex {pattern}: {e}"))
}

/// `step! { name: Group, pattern [+ "what the doc string holds"], "doc line", [records Kind::…,]
/// |StepCtx { .. }| { body } }`: one step as a named item, `fn name() -> StepDef`, its pattern,
/// doc and handler (an `async fn handler` whose body is `body`) declared together. Braces keep
/// rustfmt out: it cannot format the `name: Group` head.
macro_rules! step {
    ($name:ident: $group:ident, $pattern:literal $(+ $takes:literal)?, $doc:literal, $(records $records:expr,)? |$cx:pat_param| $body:block) => {
        #[doc = concat!("`", $pattern, "`: ", $doc)]
        pub(in crate::steps) fn $name() -> $crate::steps::StepDef {
            async fn handler($cx: $crate::steps::StepCtx<'_>) -> $crate::scenario::state::StepResult $body
            $crate::steps::StepDef {
                group: $crate::steps::Group::$group,
                pattern: $pattern,
                takes: concat!("" $(, $takes)?),
                doc: $doc,
                records: None $(.or(Some($records)))?,
                handler: |cx| $crate::steps::boxed(handler(cx)),
                re: $crate::steps::compile($pattern),
            }
        }
    };
}

pub(crate) mod agents;
mod builtins;
mod classifier;
mod client;
mod compact;
mod content;
pub mod derived;
mod helpers;
mod log;
pub use log::NO_PORT_LOG;
mod mcp;
pub(crate) mod prometheus;
mod relay;
mod results;
mod sent;
mod serve;
mod setup;
#[cfg(test)]
mod size;
mod skills;
mod toolkit;

/// Every step, in registry order: STEPS.md lists each group's steps in this order.
const STEPS: &[fn() -> StepDef] = &[
    setup::file_path_containing,
    setup::file_path_containing_invalid_utf_8,
    setup::file_path_containing_utf_8_byte_order,
    setup::file_path_containing_text,
    setup::n_files_path_containing_text,
    setup::directory_path,
    setup::symlink_link_pointing_target,
    setup::files_under_dir_recorded,
    log::port_log_watched_for,
    mcp::mock_mcp_server_over_http_runs_file,
    setup::mock_a2a_agent_name_runs_file,
    setup::http_server_answers,
    toolkit::toolkit_options,
    toolkit::toolkit_built_with,
    toolkit::toolkit_built_no_options,
    toolkit::toolkit_built,
    results::name_executed,
    results::name_executed_with,
    results::name_executed_aborted_after_ms_with,
    results::same_call_executed_again_answer,
    builtins::builtins_selected,
    skills::skills_listed,
    builtins::this_value_sanitized,
    toolkit::toolkit_closed,
    mcp::mcp_tools_listed,
    toolkit::toolkit_no_longer_known_port,
    toolkit::tool_names,
    toolkit::tool_names_match,
    toolkit::sorted_tool_names,
    toolkit::toolkit_n_tools,
    toolkit::toolkit_has_tool,
    toolkit::toolkit_has_no_tool,
    toolkit::tool_has_source,
    toolkit::tool_matches,
    results::result_is_error,
    results::result_is_not_error,
    results::output_is,
    results::output_is_text,
    results::output_contains_text,
    results::output_does_not_contain_text,
    results::output_matches,
    results::output_matches_snapshot_name,
    results::output_parses_json_matching,
    results::result_matches,
    content::content_part_made_from,
    content::content_part_is,
    content::content_part_field_is,
    content::content_part_refused_naming,
    content::content_part_refused,
    content::content_part_does_not_contain,
    results::result_suspends_kind_request,
    skills::skills_prompt_is,
    skills::skills_prompt_matches,
    skills::skills_prompt_matches_snapshot_name,
    skills::skills_prompt_does_not_mention_text,
    toolkit::format_adapter_output_matches,
    toolkit::format_adapter_output_matches_snapshot_name_without,
    toolkit::three_adapters_list_tools_toolkit_order,
    toolkit::status_source,
    toolkit::no_status_for_source,
    toolkit::no_errors,
    toolkit::error_mentions_text,
    toolkit::error_key_mentions_text,
    toolkit::an_error_for_key,
    toolkit::warning_mentions_text,
    toolkit::a_warning,
    skills::skill_catalog_names,
    builtins::selected_builtin_names,
    builtins::selected_builtins_match,
    builtins::selected_builtins_match_snapshot_name_ignoring_builtin,
    skills::skill_inventory_matches,
    builtins::sanitized_value_is,
    builtins::sanitized_value_is_either,
    setup::file_path_now_contains,
    setup::file_path_does_not_exist,
    setup::files_under_dir_unchanged,
    results::call_took_less_than_n_ms,
    setup::http_server_last_request_matches,
    toolkit::build_took_less_than_n_ms,
    mcp::mcp_inventory_matches,
    toolkit::nothing_port_reported_mentions_secret,
    setup::process_whose_pid_path_gone,
    client::mock_llm_name_runs_file,
    client::client_created,
    classifier::classifier_created,
    classifier::classifier_evaluates,
    classifier::classifier_evaluates_fixture,
    client::client_runs_prompt,
    client::client_runs_prompt_with,
    client::client_loop_prompt_parts,
    client::client_streams_prompt,
    client::client_streams_prompt_with,
    client::client_asks_prompt_thread_id_ontext,
    client::client_holds_conversation,
    client::client_store_saves_id,
    client::client_store_read_at_id,
    client::client_metrics_read,
    client::run_did_not_raise,
    client::run_raised_error_mentioning_text,
    client::loop_answer_text_only_in_transcript,
    client::llm_events_parts_descriptor,
    log::port_log_never_mentioned,
    client::order::run_result_at_path_does_not_contain,
    client::order::stored_messages_do_not_contain,
    client::run_text_text,
    client::run_result_at_path,
    client::run_result_at_path_json,
    client::run_result_at_path_contains_text,
    client::run_result_at_path_matches_regex,
    client::run_result_nothing_at_path,
    client::tool_calls,
    client::usage_p_prompt_c_completion_t_total,
    client::stream_event_types,
    client::stream_events_type_type,
    client::text_deltas_join_text,
    client::there_were_several_text_deltas,
    client::list_n_entries,
    client::list_n_entries_path_equal_json,
    client::list_at_path,
    client::list_at_path_json,
    client::elapsed_time_at_least_n_ms,
    client::elapsed_time_below_n_ms,
    client::conversation_transcript,
    client::conversation_step_k_at_path_json,
    client::stored_messages,
    client::store_nothing_there,
    client::metrics_text,
    client::metrics_text_matches_snapshot_name,
    client::metrics_text_line_line,
    client::metrics_text_matches_regex,
    client::llm_name_received_n_requests,
    client::llm_name_received_at_most_n_requests,
    client::llm_request_k_path_path,
    client::llm_request_k_header_h_v,
    client::llm_request_k_header_h_absent,
    client::llm_request_k_body_at_path,
    client::llm_request_k_body_at_path_json,
    client::llm_request_k_body_at_path_contains,
    client::llm_request_k_body_at_path_matches,
    client::llm_request_k_body_nothing_at_path,
    client::every_llm_request_body_at_path_json,
    classifier::evaluation_did_not_raise,
    classifier::evaluation_raised_mentioning,
    classifier::decision_at_path,
    classifier::decision_at_path_json,
    classifier::decision_nothing_at_path,
    classifier::systemone_request_canonical_bytes,
    classifier::systemone_request_text_contains,
    classifier::warning_event_names_key,
    classifier::evaluate_answer_secret_free,
    client::order::stream_event_types_repeats_collapsed,
    client::order::stream_event_types_include_this_order,
    client::order::last_stream_event_type_type,
    client::order::list_values_at_path_strictly_increase,
    client::order::llm_request_k_body_at_path_does,
    client::translate::client_translates,
    client::translate::finish_reason_r,
    client::translate::every_translated_tool_call_arguments_json_string,
    client::translate::translated_tool_call_k_arguments_parse,
    client::translate::translate_result_raw_when_present_at_path,
    client::translate::http_server_received_no_request,
    client::resume::client_resumes_run_answer,
    client::resume::client_resumes_thread_id_answer,
    agents::shared_agent_fixture_path,
    agents::agent_runtime,
    agents::bootstrapdir_written_dir_notdue,
    agents::file_path_n_bytes_c,
    agents::agent_store_holds_id_system_message_n,
    agents::run_driven,
    agents::steps_driven,
    agents::scenario_name_driven,
    agents::resumed_answer,
    agents::agent_command_cmd_sent,
    agents::block_block_holds,
    agents::agent_answer_at_path,
    agents::agent_answer_at_path_json,
    agents::agent_answer_at_path_contains_text,
    agents::agent_answer_at_path_not_regex,
    agents::file_path_not_text,
    agents::file_path_n_bytes_long,
    agents::agent_answer_nothing_at_path,
    agents::llm_request_k_body_same_llm_request,
    agents::transitions_h,
    agents::agent_trace_at_path,
    relay::building_toolkit_fails_error_mentioning_text,
    serve::toolkit_tk_served_id,
    serve::a2a_peer_gets_path_from_id,
    serve::a2a_peer_sends_message_text_context_ctx,
    serve::a2a_peer_asks_task_task,
    serve::a2a_peer_polls_task_until_leaves_submitted,
    serve::a2a_peer_calls_method,
    serve::a2a_peer_posts_raw_body,
    serve::mcp_client_connects_id,
    serve::mcp_client_lists_tools,
    serve::mcp_client_calls_name,
    serve::mcp_client_calls_name_abandons_after_ms,
    serve::mcp_client_posts_raw_body,
    serve::id_stopped,
    serve::serve_records_id_read_once_list_n,
    serve::a2a_status_n,
    serve::a2a_answer_at_path,
    serve::a2a_answer_at_path_json,
    serve::a2a_answer_at_path_contains_text,
    serve::a2a_answer_nothing_at_path,
    serve::a2a_answer_json_rpc_error_code,
    serve::task_file_dir,
    serve::id_refuses_connections,
    serve::mcp_server_info_at_path_json,
    serve::mcp_answer_at_path,
    serve::mcp_answer_at_path_json,
    serve::mcp_answer_at_path_contains_text,
    serve::mcp_answer_nothing_at_path,
    serve::mcp_tool_names_any_order,
    serve::mcp_tool_name_listed,
    serve::mcp_answer_error_code,
    serve::mcp_answer_does_not_mention_text,
    serve::mcp_answer_first_text_output_last_execution,
    serve::stored_messages_end,
    serve::mcp_status_n,
    serve::mcp_call_result_not_error,
    serve::mcp_server_lists_every_toolkit_tool_toolkit,
    compact::transcript_n_tool_turns_style_shape_after,
    compact::transcript_system_prompt_system_user_message_n,
    compact::transcript,
    compact::transcript_compacted,
    compact::compactor_returned_nothing,
    compact::compactor_returned_transcript_smaller_than_input,
    compact::compacted_transcript_starts_input_system_prompt_unchanged,
    compact::summary_system_message_prefix_followed_summarizer_answer,
    compact::summarizer_called_once_exactly_input_between_system,
    compact::retained_tail_last_k_input_messages,
    compact::retained_tail_empty,
    compact::retained_tail_starts_at_user_message_that,
    compact::first_non_system_message_compacted_transcript_user,
    compact::compacted_transcript_tool_pair_safe,
    compact::compacted_transcript_flush_reminder_mentioning_word_before,
    compact::compacted_transcript_no_system_message_after_summary,
];

/// The step vocabulary, in the order STEPS.md lists it.
pub fn registry() -> &'static [StepDef] {
    static REGISTRY: OnceLock<Vec<StepDef>> = OnceLock::new();
    REGISTRY.get_or_init(|| STEPS.iter().map(|step| step()).collect())
}

/// Every step pattern, in registry order (for listings and STEPS.md).
pub fn patterns() -> Vec<&'static str> {
    registry().iter().map(|d| d.pattern).collect()
}

/// The registry items whose pattern matches `text`; more than one is an ambiguity.
pub fn matching(text: &str) -> Vec<&'static StepDef> {
    registry().iter().filter(|d| d.matches(text)).collect()
}

/// Runs one step against `port`: the single registry item matching its text handles it; no
/// match or several (cucumber's rule: ambiguity is an error) fail the step.
pub async fn run_step(
    port: &mut dyn Port,
    env: &Env,
    st: &mut ScenarioState,
    step: &StepSpec,
) -> StepResult {
    let (def, arg) = select(registry(), &step.text)?;
    (def.handler)(StepCtx {
        port,
        env,
        st: &mut *st,
        step,
        arg,
    })
    .await?;
    // Checks that compare without the expectation helpers still say what kind they were.
    if let Some(kind) = def.records {
        st.record(kind.label());
    }
    Ok(())
}

/// The single item of `defs` matching `text`, with its capture groups.
fn select<'r>(defs: &'r [StepDef], text: &str) -> Result<(&'r StepDef, Args), StepFailure> {
    let mut found = defs
        .iter()
        .filter_map(|d| d.re.captures(text).map(|c| (d, c)));
    let Some((def, caps)) = found.next() else {
        return fail(format!("unknown step `{text}` (see features/STEPS.md)"));
    };
    let others: Vec<&str> = found.map(|(d, _)| d.pattern).collect();
    if !others.is_empty() {
        return fail(format!(
            "ambiguous step `{text}`: it matches `{}` and `{}` (see features/STEPS.md)",
            def.pattern,
            others.join("` and `")
        ));
    }
    let arg = caps
        .iter()
        .map(|m| m.map(|m| m.as_str().to_string()))
        .collect();
    Ok((def, Args(arg)))
}

/// The text of features/STEPS.md: `head` (the hand-written conventions) followed by one
/// table per group, rendered from the registry.
pub fn steps_markdown(head: &str) -> String {
    let mut out = head.trim_end().to_string();
    out.push('\n');
    for group in Group::ALL {
        out.push_str(&format!("\n## {}\n\n", group.heading()));
        if !group.intro().is_empty() {
            out.push_str(group.intro());
            out.push_str("\n\n");
        }
        out.push_str(&format!("| step | {} |\n|---|---|\n", group.column()));
        for def in registry().iter().filter(|d| d.group == group) {
            let mut shown = format!("`{}`", readable(def.pattern));
            if !def.takes.is_empty() {
                shown.push_str(&format!(" + {}", def.takes));
            }
            out.push_str(&format!(
                "| {} | {} |\n",
                shown.replace('|', "\\|"),
                def.doc.replace('|', "\\|")
            ));
        }
    }
    out
}

/// A step pattern as a reader writes the step: a named group shows its name, an optional
/// part is bracketed, escapes and anchors go.
pub fn readable(pattern: &str) -> String {
    let p = pattern.strip_prefix('^').unwrap_or(pattern);
    let p = p.strip_suffix('$').unwrap_or(p);
    render(p)
}

fn render(p: &str) -> String {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                out.extend(chars.get(i + 1));
                i += 2;
            }
            '(' => {
                let Some(close) = group_end(&chars, i) else {
                    out.extend(&chars[i..]);
                    break;
                };
                let inner: String = chars[i + 1..close].iter().collect();
                let shown = if let Some(named) = inner
                    .strip_prefix("?P<")
                    .or_else(|| inner.strip_prefix("?<"))
                {
                    named.split('>').next().unwrap_or(named).to_string()
                } else {
                    render(inner.strip_prefix("?:").unwrap_or(&inner))
                };
                if chars.get(close + 1) == Some(&'?') {
                    out.push_str(&format!("[{shown}]"));
                    i = close + 2;
                } else {
                    out.push_str(&shown);
                    i = close + 1;
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The index of the `)` closing the group opened at `open` (escapes and classes skipped).
fn group_end(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut in_class = false;
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => depth += 1,
            ')' if !in_class => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Ends a scenario: closes its toolkits so nothing is left running in the port.
pub async fn finish(port: &mut dyn Port, st: &mut ScenarioState) {
    agents::finish(port, st).await;
    if let Some(id) = st.toolkit.take() {
        let _ = port.close(&id).await;
    }
    // wiremock's MockServer blocks in its Drop (it verifies expectations with a nested
    // executor). Dropped on an async thread, that stalls every other task there — a bash
    // timeout in a concurrent scenario would never fire — so it is dropped on a blocking
    // thread instead.
    st.mocks.clear();
    if let Some(server) = st.http.take() {
        let _ = tokio::task::spawn_blocking(move || drop(server)).await;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::scenario::features;

    fn repo() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    const REGENERATE: &str = "UPDATE_STEPS=1 cargo test -p toolnexus-harness --lib steps_md";

    /// STEPS.md is the contract other runners implement: it must be what the registry says.
    #[test]
    fn steps_md_is_current() {
        let head = std::fs::read_to_string(repo().join("features/STEPS.head.md")).unwrap();
        let generated = steps_markdown(&head);
        let path = repo().join("features/STEPS.md");
        if std::env::var_os("UPDATE_STEPS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == generated,
            "features/STEPS.md differs from what the step registry generates; regenerate it with \
             `{REGENERATE}`\n{}",
            similar::TextDiff::from_lines(&checked_in, &generated)
                .unified_diff()
                .header("features/STEPS.md", "generated")
        );
    }

    /// cucumber's rule: a step text matching several patterns is an error, as is one
    /// matching none; every step of every feature (outlines expanded) is checked.
    #[test]
    fn every_feature_step_matches_exactly_one_pattern() {
        let (scenarios, errors) = features::load(&repo().join("features"));
        assert!(errors.is_empty(), "{errors:?}");
        let mut seen = BTreeSet::new();
        let mut problems = Vec::new();
        for scenario in &scenarios {
            for step in &scenario.steps {
                if !seen.insert((scenario.file.clone(), step.text.clone())) {
                    continue;
                }
                let patterns: Vec<&str> = matching(&step.text).iter().map(|d| d.pattern).collect();
                match patterns.as_slice() {
                    [_] => {}
                    [] => problems.push(format!(
                        "{}: step `{}` matches no pattern",
                        scenario.file, step.text
                    )),
                    several => problems.push(format!(
                        "{}: step `{}` is ambiguous, it matches `{}`",
                        scenario.file,
                        step.text,
                        several.join("` and `")
                    )),
                }
            }
        }
        assert!(seen.len() > 300, "only {} step texts found", seen.len());
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn run_time_selection_refuses_unknown_and_ambiguous_steps() {
        step! {
            one: Setup, r#"^a file "(?P<PATH>[^"]+)"$"#, "one", |StepCtx { .. }| { Ok(()) }
        }
        step! {
            two: Setup, r#"^a (?P<WHAT>\w+) "x"$"#, "two", |StepCtx { .. }| { Ok(()) }
        }
        let defs = vec![one(), two()];
        let (def, arg) = select(&defs, r#"a file "y""#).unwrap();
        assert_eq!((def.doc, arg.at(1), arg.opt(2)), ("one", "y".into(), None));
        let Err(StepFailure::Failed(m)) = select(&defs, r#"a file "x""#) else {
            panic!("an ambiguous step was accepted");
        };
        let m = m.to_string();
        assert!(m.contains("ambiguous step `a file \"x\"`"), "{m}");
        assert!(
            m.contains(defs[0].pattern) && m.contains(defs[1].pattern),
            "{m}"
        );
        let Err(StepFailure::Failed(m)) = select(&defs, "no such step") else {
            panic!("an unknown step was accepted");
        };
        let m = m.to_string();
        assert!(m.contains("unknown step `no such step`"), "{m}");
    }

    #[test]
    fn patterns_are_anchored_unique_documented_and_readable() {
        let mut unique = BTreeSet::new();
        for def in registry() {
            assert!(unique.insert(def.pattern), "`{}` twice", def.pattern);
            assert!(
                def.pattern.starts_with('^') && def.pattern.ends_with('$'),
                "`{}` must match whole step texts",
                def.pattern
            );
            assert!(!def.doc.trim().is_empty(), "`{}` has no doc", def.pattern);
            let shown = readable(def.pattern);
            assert!(
                !shown.contains(['\\', '^', '$', '*', '+', '(', ')', '|']),
                "`{}` reads as `{shown}`: name its capture groups",
                def.pattern
            );
        }
        assert_eq!(patterns().len(), registry().len());
        let shown: Vec<String> = registry().iter().map(|d| readable(d.pattern)).collect();
        for expected in [
            r#"N files "PATH" containing "TEXT""#,
            r#"a mock A2A agent[ "NAME"] runs "FILE""#,
            r#"the "FORMAT" adapter output matches snapshot "NAME"[ without the skill tool][ ignoring builtin descriptions]"#,
            "the HTTP server's last request matches:",
        ] {
            assert!(
                shown.iter().any(|s| s == expected),
                "{expected} not in {shown:#?}"
            );
        }
        assert_eq!(readable(r"^a \(b\) (c"), "a (b) (c");
    }
}
