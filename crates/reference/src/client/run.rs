//! The §8 loop, shared by `run`, `stream`, `ask` and `send`: build the body, call the
//! model, run the tools it asks for, repeat until it answers in text or `maxTurns`.

use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use super::error::ClientError;
use super::hooks::{AfterLlm, AfterTool, BeforeLlm, BeforeTool, ToolOverride};
use super::http::{retryable_set, snippet, Answer, Secrets, Transport, DEFAULT_RETRYABLE_STATUSES};
use super::metrics::MetricEvent;
use super::options::{Generated, Style};
use super::result::{RunResult, RunStatus, StreamEvent, ToolCallRecord};
use super::wire::{self, ToolReply, Usage};
use super::{resume, sse, Backend, Client, RunOptions};
use crate::adapters::{self, Format};
use crate::relay;
use crate::suspension::{pending_of, Answer as Resolution, Request};
use crate::tool::{Context, Source, ToolResult};
use crate::toolkit::Toolkit;

/// Where incremental output goes; both absent ⇒ the non-streaming wire.
#[derive(Default, Clone, Copy)]
pub(super) struct Sinks<'s> {
    /// Every stream event (`stream()`).
    pub events: Option<&'s (dyn Fn(StreamEvent) + Send + Sync)>,
    /// Text deltas only (`ask(on_text)`).
    pub on_text: Option<&'s (dyn Fn(&str) + Send + Sync)>,
}

impl Sinks<'_> {
    fn streaming(&self) -> bool {
        self.events.is_some() || self.on_text.is_some()
    }

    /// Builds the event only when someone listens: the non-streaming loop clones no ids,
    /// args or outputs for it.
    fn event(&self, ev: impl FnOnce() -> StreamEvent) {
        if let Some(f) = self.events {
            f(ev());
        }
    }

    fn text(&self, delta: &str) {
        if let Some(f) = self.on_text {
            f(delta);
        }
        self.event(|| StreamEvent::Text {
            delta: delta.to_string(),
        });
    }
}

/// How a run enters the loop: a new user turn, or a durable resume (§10 preview).
pub(super) enum Entry {
    /// `run`/`ask`: the prompt (a string or parts) becomes the user turn.
    Prompt(super::parts::Prompt),
    /// `runWithAnswer`/`askWithAnswer`: the halted turn's slots are filled from the answer.
    Resume(Box<Request>, Box<Resolution>),
}

impl Client {
    /// One whole run: the thread's history (when `id`), the guarded loop, the `run` metric,
    /// and the thread saved back on success.
    pub(super) async fn execute(
        &self,
        entry: Entry,
        opts: RunOptions<'_>,
        id: Option<String>,
        sinks: Sinks<'_>,
    ) -> Result<RunResult, ClientError> {
        let started = Instant::now();
        let mut history = opts.history;
        if let Some(id) = &id {
            if let Some(saved) = self.inner.store.get(id).await {
                history = saved;
            }
        }
        let cancel = opts.cancel.unwrap_or_default();
        let mut progress = Progress::default();
        let outcome = self
            .guarded(
                self.agent_loop(entry, opts.toolkit, history, &cancel, sinks, &mut progress),
                &cancel,
            )
            .await;
        let model = self.inner.options.model.clone();
        self.metric(MetricEvent::Run {
            model,
            turns: progress.turns,
            tool_calls: progress.tool_calls,
            total_tokens: progress.usage.total_tokens,
            ms: millis(started.elapsed()),
            error: outcome.as_ref().err().map(ClientError::message),
        });
        let result = outcome?;
        if let Some(id) = &id {
            self.inner.store.save(id, result.messages.clone()).await;
        }
        Ok(result)
    }

    /// Races the loop against the whole-run deadline and the external cancel: an abort
    /// drops the in-flight request and is never retried nor shown to `onError`.
    async fn guarded(
        &self,
        work: impl std::future::Future<Output = Result<RunResult, ClientError>>,
        cancel: &CancellationToken,
    ) -> Result<RunResult, ClientError> {
        let timeout_ms = self.inner.options.timeout_ms;
        let deadline = async {
            match timeout_ms {
                Some(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
                None => std::future::pending().await,
            }
        };
        let outcome = tokio::select! {
            r = work => r,
            () = cancel.cancelled() => Err(ClientError::Cancelled),
            () = deadline => Err(ClientError::TimedOut { ms: timeout_ms.unwrap_or(0) }),
        };
        if outcome.as_ref().is_err_and(ClientError::aborted) {
            // Tools still holding the token see the abort too.
            cancel.cancel();
        }
        outcome
    }

    async fn agent_loop(
        &self,
        entry: Entry,
        toolkit: Option<&Toolkit>,
        history: Vec<Value>,
        cancel: &CancellationToken,
        sinks: Sinks<'_>,
        progress: &mut Progress,
    ) -> Result<RunResult, ClientError> {
        let o = &self.inner.options;
        let style = o.style;
        let all_tools = match toolkit {
            Some(tk) => tool_schema(style, tk),
            None => Vec::new(),
        };
        let skills = toolkit.map(Toolkit::skills_prompt).unwrap_or_default();
        let system = wire::system_text(o.system_prompt.as_deref(), &skills);
        let mut records = Vec::new();
        // The descriptors of the parts sent so far: every later request carries them too.
        let sent_parts = Mutex::new(Vec::new());
        let mut messages = match entry {
            Entry::Prompt(prompt) => {
                // Assembly of the attached parts: a refused one fails before any HTTP call.
                let content =
                    super::parts::user_content(&prompt, &self.part_policy_keeping(&sent_parts))?;
                wire::initial_messages(style, system.as_deref(), history, content)
            }
            Entry::Resume(pending, answer) => {
                let mut messages = wire::resumed_messages(style, system.as_deref(), history);
                self.fill_slots(
                    toolkit,
                    &mut messages,
                    &pending,
                    *answer,
                    cancel,
                    &mut records,
                )
                .await?;
                progress.tool_calls = records.len();
                messages
            }
        };
        let mut text = String::new();
        // §8A openai: the synthetic `user` messages of relocated tool-result parts, each
        // after the tool message of its call id; sent, never in the transcript.
        let mut relocated: Vec<(String, Value)> = Vec::new();

        // The last body's size, so the next (one turn longer) is written without regrowing.
        let mut body_capacity = 0;
        let seams = o.agent.as_ref();
        for turn in 1..=o.max_turns {
            // §7D: the live budget walk comes before each turn.
            if let Some(guard) = seams.and_then(|a| a.guard.as_ref()) {
                let seen = super::options::TurnProgress {
                    turns: progress.turns,
                    tool_calls: progress.tool_calls,
                    usage: progress.usage,
                };
                if let Some(limit) = guard(&seen) {
                    let ended = Ended::Limit(limit);
                    return Ok(self.result(text, messages, records, progress, ended));
                }
            }
            // Only a `beforeLlm` override replaces this turn's tools; otherwise they are sent
            // borrowed.
            let mut replaced_tools = None;
            if let Some(h) = &o.hooks {
                let ctx = BeforeLlm {
                    messages: messages.clone(),
                    tools: all_tools.clone(),
                    model: o.model.clone(),
                    turn,
                };
                if let Some(over) = h
                    .before_llm(ctx)
                    .await
                    .map_err(|message| ClientError::Hook { message })?
                {
                    if let Some(m) = over.messages {
                        messages = m;
                    }
                    replaced_tools = over.tools;
                }
            }
            let tools = replaced_tools.as_deref().unwrap_or(&all_tools);
            let wire_messages;
            let sent: &[Value] = if relocated.is_empty() {
                &messages
            } else {
                wire_messages = super::parts::with_relocated(&messages, &relocated);
                &wire_messages
            };
            let body = self.body(
                system.as_deref(),
                sent,
                tools,
                sinks.streaming(),
                body_capacity,
            )?;
            if let Outgoing::Bytes(b) = &body {
                body_capacity = b.len() + b.len() / 4;
            }
            // The descriptors of every part this request carries, for its `llm` event.
            let parts_now = sent_parts.lock().map(|p| p.clone()).unwrap_or_default();
            let raw = match seams.and_then(|a| a.turn_gate.as_ref()) {
                // The gate wraps the LLM call only, never the tools (§7D gate 3).
                Some(gate) => {
                    let _slot = gate.enter().await;
                    self.call_model(body, turn, &parts_now, sinks).await?
                }
                None => self.call_model(body, turn, &parts_now, sinks).await?,
            };
            progress.turns = turn;
            if let Some(h) = &o.hooks {
                let ctx = AfterLlm {
                    response: raw.clone(),
                    model: o.model.clone(),
                    turn,
                };
                h.after_llm(ctx).await;
            }
            let answer = wire::parse_answer(style, &raw)?;
            progress.usage.add(answer.usage);
            sinks.event(|| StreamEvent::Usage {
                usage: answer.usage,
            });
            messages.push(answer.message);
            text = answer.text;
            if answer.calls.is_empty() {
                return Ok(self.result(text, messages, records, progress, Ended::Done));
            }
            let mut replies = Vec::new();
            let mut halted = None;
            // §10 addendum: all of the turn's relay calls ride one request, asked once.
            let relayed = relay_request(toolkit, &answer.calls);
            let mut relay_answer = None;
            let concurrent = relayed.is_none() && seams.is_some_and(|a| a.concurrent_tools);
            if concurrent {
                let runs = answer
                    .calls
                    .into_iter()
                    .map(|call| self.tool_call(toolkit, call, turn, cancel, sinks));
                for (record, reply, halt) in futures::future::join_all(runs).await {
                    if halted.is_some() {
                        // §10 first-in-order: later calls leave no trace in the transcript.
                        break;
                    }
                    progress.tool_calls += 1;
                    records.push(record);
                    replies.push(reply);
                    halted = halt;
                }
                self.append_results(&sent_parts, &mut messages, &mut relocated, &replies)?;
                if let Some(request) = halted {
                    let ended = Ended::Pending(request);
                    return Ok(self.result(text, messages, records, progress, ended));
                }
                continue;
            }
            for call in answer.calls {
                let (record, reply, halt) = match &relayed {
                    Some(request) if is_relay(toolkit, &call.name) => {
                        self.relay_call(toolkit, call, turn, request, &mut relay_answer, sinks)
                            .await
                    }
                    _ => self.tool_call(toolkit, call, turn, cancel, sinks).await,
                };
                progress.tool_calls += 1;
                records.push(record);
                replies.push(reply);
                if halt.is_some() {
                    // §10 first-in-order: the later calls of the turn never run here and
                    // leave no placeholder (they re-suspend on resume).
                    halted = halt;
                    break;
                }
            }
            self.append_results(&sent_parts, &mut messages, &mut relocated, &replies)?;
            if let Some(request) = halted {
                return Ok(self.result(text, messages, records, progress, Ended::Pending(request)));
            }
        }
        // maxTurns used up while the model still asked for tools: a §7D limit stop.
        Ok(self.result(
            text,
            messages,
            records,
            progress,
            Ended::Limit("maxTurns".to_string()),
        ))
    }

    /// The policy assembly applies to parts (§8A, §1B `maxPartBytes`).
    pub(super) fn part_policy(&self) -> super::parts::Policy<'_> {
        let o = &self.inner.options;
        super::parts::Policy {
            style: o.style,
            on_unsupported: o.on_unsupported_part,
            max_part_bytes: o.max_part_bytes,
            warned: &self.inner.warned_parts,
            sent: None,
        }
    }

    /// The policy of a run's assembly, keeping the descriptor of each part it sends.
    fn part_policy_keeping<'a>(&'a self, sent: &'a Mutex<Vec<Value>>) -> super::parts::Policy<'a> {
        super::parts::Policy {
            sent: Some(sent),
            ..self.part_policy()
        }
    }

    /// A turn's tool results into the transcript; openai's relocated parts beside it.
    fn append_results(
        &self,
        sent_parts: &Mutex<Vec<Value>>,
        messages: &mut Vec<Value>,
        relocated: &mut Vec<(String, Value)>,
        replies: &[ToolReply],
    ) -> Result<(), ClientError> {
        let (results, synthetic) =
            wire::tool_results_with_parts(&self.part_policy_keeping(sent_parts), replies)?;
        messages.extend(results);
        relocated.extend(synthetic);
        Ok(())
    }

    fn result(
        &self,
        text: String,
        messages: Vec<Value>,
        tool_calls: Vec<ToolCallRecord>,
        progress: &Progress,
        ended: Ended,
    ) -> RunResult {
        let (status, limit, pending) = match ended {
            Ended::Done => (RunStatus::Done, None, None),
            Ended::Pending(r) => (RunStatus::Pending, None, Some(r)),
            Ended::Limit(l) => (RunStatus::Incomplete, Some(l), None),
        };
        RunResult {
            status,
            limit,
            pending,
            text,
            messages,
            tool_call_count: tool_calls.len(),
            tool_calls,
            turns: progress.turns,
            usage: progress.usage,
            model: self.inner.options.model.clone(),
        }
    }

    /// Gap 1 ordering: base body (hooks already applied) → `requestParams` → `bodyTransform`.
    /// Without params or transform, an HTTP body is written straight to bytes from the
    /// borrowed transcript and tools (no per-turn deep clone); `capacity` presizes it.
    fn body(
        &self,
        system: Option<&str>,
        messages: &[Value],
        tools: &[Value],
        stream: bool,
        capacity: usize,
    ) -> Result<Outgoing, ClientError> {
        let o = &self.inner.options;
        let plain = o.request_params.is_empty() && o.body_transform.is_none();
        if plain && matches!(self.inner.backend, Backend::Http(_)) {
            return wire::base_body_bytes(
                o.style, &o.model, system, messages, tools, stream, capacity,
            )
            .map(Outgoing::Bytes)
            .map_err(|e| ClientError::RequestBody {
                detail: e.to_string(),
            });
        }
        let mut body = wire::base_body(o.style, &o.model, system, messages, tools, stream);
        let stripped = wire::merge_params(&mut body, &o.request_params);
        if !stripped.is_empty() && !self.inner.warned_params.swap(true, Ordering::Relaxed) {
            eprintln!(
                "toolnexus: requestParams may not set {}; ignored",
                stripped.join(", ")
            );
        }
        let body = Value::Object(body);
        Ok(Outgoing::Value(match &o.body_transform {
            Some(f) => f(body),
            None => body,
        }))
    }

    /// One LLM call (with its retries), answering the raw (or reassembled) payload.
    pub(super) async fn call_model(
        &self,
        body: Outgoing,
        turn: u32,
        parts: &[Value],
        sinks: Sinks<'_>,
    ) -> Result<Value, ClientError> {
        let o = &self.inner.options;
        let client = match &self.inner.backend {
            Backend::InProcess(generate) => {
                let body = match body {
                    Outgoing::Value(v) => v,
                    // `body` writes bytes for the HTTP backend only.
                    Outgoing::Bytes(b) => {
                        serde_json::from_slice(&b).map_err(|e| ClientError::RequestBody {
                            detail: e.to_string(),
                        })?
                    }
                };
                return self.call_generate(generate, body, turn, parts).await;
            }
            Backend::Http(client) => client,
        };
        let body = match body {
            Outgoing::Bytes(b) => b,
            // What `RequestBuilder::json` wrote; a `Value` always serializes.
            Outgoing::Value(v) => serde_json::to_vec(&v).map_err(|e| ClientError::RequestBody {
                detail: e.to_string(),
            })?,
        };
        let api_key = o.resolved_api_key();
        // An extra header of the same name replaces the client's own (names are
        // case-insensitive), rather than being sent twice.
        let mut headers: Vec<(String, String)> = wire::auth_headers(o.style, api_key.as_deref())
            .into_iter()
            .filter(|(k, _)| !o.headers.keys().any(|e| e.eq_ignore_ascii_case(k)))
            .collect();
        headers.extend(o.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
        let secrets = Secrets::new(api_key.as_deref(), &o.headers);
        let retryable = retryable_set(&DEFAULT_RETRYABLE_STATUSES, &o.retryable_statuses);
        let transport = Transport {
            client,
            url: wire::endpoint(o.style, &o.base_url),
            headers,
            retries: o.retries,
            retry_base_ms: o.retry_base_ms,
            retryable_statuses: &retryable,
            jitter: true,
            timeout: None,
            on_error: o.on_error.as_ref(),
            secrets: &secrets,
        };
        let failed = |d: Duration| self.llm_metric("error", d, Usage::default(), parts);
        let (answer, started) = transport.send(body, sinks.streaming(), &failed).await?;
        let response = match answer {
            Answer::Json(raw) => {
                let usage = Usage::from_json(raw.get("usage"));
                self.llm_metric("ok", started.elapsed(), usage, parts);
                return Ok(raw);
            }
            Answer::Stream(response) => response,
        };
        // A stream that fails midway is final: its deltas have already been delivered, so
        // a retry would repeat them.
        let mut on_text = |t: &str| sinks.text(t);
        match sse::read_stream(o.style, response, &mut on_text).await {
            Ok(raw) => {
                let usage = Usage::from_json(raw.get("usage"));
                self.llm_metric("ok", started.elapsed(), usage, parts);
                Ok(raw)
            }
            Err(message) => {
                self.llm_metric("error", started.elapsed(), Usage::default(), parts);
                // The server chose part of this text (an `error` event): no secrets, bounded.
                Err(ClientError::Stream {
                    message: snippet(&secrets.redact(&message), false),
                })
            }
        }
    }

    /// The in-process model: one `generate` call, final on failure, wrapped in the
    /// OpenAI `choices` envelope.
    async fn call_generate(
        &self,
        generate: &super::options::Generate,
        body: Value,
        turn: u32,
        parts: &[Value],
    ) -> Result<Value, ClientError> {
        let started = Instant::now();
        match generate(body).await {
            Ok(g) => {
                let raw = envelope(&self.inner.options.model, g, turn);
                let usage = Usage::from_json(raw.get("usage"));
                self.llm_metric("ok", started.elapsed(), usage, parts);
                Ok(raw)
            }
            Err(m) => {
                self.llm_metric("error", started.elapsed(), Usage::default(), parts);
                Err(ClientError::Generate { message: m })
            }
        }
    }

    /// One tool call with its hooks, events and metric; a suspension is resolved through
    /// `waitFor` (§10), or answered as the halting request when there is none.
    async fn tool_call(
        &self,
        toolkit: Option<&Toolkit>,
        call: wire::Call,
        turn: u32,
        cancel: &CancellationToken,
        sinks: Sinks<'_>,
    ) -> (ToolCallRecord, ToolReply, Option<Request>) {
        let hooks = self.inner.options.hooks.as_ref();
        sinks.event(|| StreamEvent::ToolCall {
            id: call.id.clone(),
            name: call.name.clone(),
            args: call.args.clone(),
        });
        let mut args = call.args;
        let mut short_circuit = None;
        if let Some(h) = hooks {
            let ctx = BeforeTool {
                name: call.name.clone(),
                args: args.clone(),
                id: call.id.clone(),
                turn,
            };
            match h.before_tool(ctx).await {
                Some(ToolOverride::Result(r)) => short_circuit = Some(r),
                Some(ToolOverride::Args(a)) => args = a,
                None => {}
            }
        }
        let mut result = match short_circuit {
            Some(r) => {
                // A guard-raised suspension is still a (pending) tool call for metrics.
                if pending_of(r.metadata.as_ref()).is_some() {
                    self.tool_metric(toolkit, &call.name, &r, Instant::now());
                }
                r
            }
            None => {
                self.run_tool(toolkit, &call.name, args.clone(), cancel, None)
                    .await
            }
        };
        let mut halted = None;
        let suspended = pending_of(result.metadata.as_ref());
        if let Some(request) = &suspended {
            sinks.event(|| StreamEvent::Pending {
                request: request.clone(),
            });
            match &self.inner.options.wait_for {
                Some(wait_for) => {
                    result = self
                        .resolve(toolkit, &call.name, &args, request, wait_for, cancel)
                        .await;
                }
                None => halted = Some(request.clone()),
            }
        }
        // The afterTool failure path never runs on a suspension, only on a resolved result.
        let resolved = pending_of(result.metadata.as_ref()).is_none();
        let call = wire::Call { args, ..call };
        let (record, reply) = self.finish_call(call, result, turn, resolved, sinks).await;
        (record, reply, halted)
    }

    /// The end of every call, executed or relayed: `afterTool` (only when `after_tool`: a
    /// call that halted the run never reaches its failure path), the `tool_result` event,
    /// and what goes back to the model and into the `RunResult`.
    async fn finish_call(
        &self,
        call: wire::Call,
        mut result: ToolResult,
        turn: u32,
        after_tool: bool,
        sinks: Sinks<'_>,
    ) -> (ToolCallRecord, ToolReply) {
        if let Some(h) = self.inner.options.hooks.as_ref().filter(|_| after_tool) {
            let ctx = AfterTool {
                name: call.name.clone(),
                args: call.args.clone(),
                result: result.clone(),
                id: call.id.clone(),
                turn,
            };
            if let Some(r) = h.after_tool(ctx).await {
                result = r;
            }
        }
        sinks.event(|| StreamEvent::ToolResult {
            id: call.id.clone(),
            name: call.name.clone(),
            output: result.output.clone(),
            is_error: result.is_error,
        });
        let reply = ToolReply {
            id: call.id,
            name: call.name.clone(),
            output: result.output.clone(),
            is_error: result.is_error,
            parts: result.parts.clone().unwrap_or_default(),
        };
        let record = ToolCallRecord {
            name: call.name,
            args: call.args,
            output: result.output,
            is_error: result.is_error,
            metadata: result.metadata,
        };
        (record, reply)
    }

    /// One relayed call (§10 addendum): nothing runs here. The turn's request is asked of
    /// `waitFor` once (at the first relay call) and each call takes its own result, or the
    /// run halts on it; the `tool` event is pending, never an error.
    async fn relay_call(
        &self,
        toolkit: Option<&Toolkit>,
        call: wire::Call,
        turn: u32,
        request: &Request,
        answered: &mut Option<Resolution>,
        sinks: Sinks<'_>,
    ) -> (ToolCallRecord, ToolReply, Option<Request>) {
        sinks.event(|| StreamEvent::ToolCall {
            id: call.id.clone(),
            name: call.name.clone(),
            args: call.args.clone(),
        });
        let suspension = relay::suspension_result(request);
        self.tool_metric(toolkit, &call.name, &suspension, Instant::now());
        let (result, halted) = match &self.inner.options.wait_for {
            Some(wait_for) => {
                let answer = match answered {
                    Some(a) => a.clone(),
                    None => {
                        sinks.event(|| StreamEvent::Pending {
                            request: request.clone(),
                        });
                        let a = wait_for(request.clone()).await;
                        *answered = Some(a.clone());
                        a
                    }
                };
                (relay::relay_result(&answer, &call.id), None)
            }
            None => {
                sinks.event(|| StreamEvent::Pending {
                    request: request.clone(),
                });
                (suspension, Some(request.clone()))
            }
        };
        let resolved = halted.is_none();
        let (record, reply) = self.finish_call(call, result, turn, resolved, sinks).await;
        (record, reply, halted)
    }

    /// §10 durable resume: the answer must echo the pending id; then every call of the
    /// halted turn gets exactly one result — kept ones verbatim, relayed calls from the
    /// answer, the halted call re-executed with it, any other an explicit error — replacing
    /// the placeholder, with no new user turn.
    async fn fill_slots(
        &self,
        toolkit: Option<&Toolkit>,
        messages: &mut Vec<Value>,
        pending: &Request,
        answer: Resolution,
        cancel: &CancellationToken,
        records: &mut Vec<ToolCallRecord>,
    ) -> Result<(), ClientError> {
        if answer.id != pending.id {
            return Err(ClientError::AnswerIdMismatch {
                answer: answer.id,
                pending: pending.id.clone(),
            });
        }
        let style = self.inner.options.style;
        let halted_turn = resume::outstanding(style, messages)?;
        let relayed = relay::call_ids(pending);
        // The halt's placeholder: every relayed call's, else the last result appended.
        let halted_call = if relayed.is_empty() {
            halted_turn.last.clone()
        } else {
            None
        };
        let mut kept = halted_turn.kept;
        for id in relayed.iter().chain(halted_call.iter()) {
            kept.remove(id);
        }
        let mut items = Vec::new();
        for call in halted_turn.calls {
            if let Some(item) = kept.remove(&call.id) {
                items.push(item);
                continue;
            }
            let result = if relayed.contains(&call.id) {
                relay::relay_result(&answer, &call.id)
            } else if halted_call.as_deref() == Some(call.id.as_str()) {
                self.retry_with(
                    toolkit,
                    &call.name,
                    &call.args,
                    pending,
                    answer.clone(),
                    cancel,
                )
                .await
            } else {
                ToolResult::error(format!(
                    "no result was supplied for tool call {:?} when the run resumed",
                    call.id
                ))
            };
            let reply = ToolReply {
                id: call.id,
                name: call.name.clone(),
                output: result.output.clone(),
                is_error: result.is_error,
                parts: Vec::new(),
            };
            items.push(resume::result_item(style, &reply));
            records.push(ToolCallRecord {
                name: call.name,
                args: call.args,
                output: result.output,
                is_error: result.is_error,
                metadata: result.metadata,
            });
        }
        messages.truncate(halted_turn.at + 1);
        messages.extend(resume::tail(style, items));
        Ok(())
    }

    /// §10 rule 1: `waitFor`, then (on `ok`) the same tool once more with the answer; a
    /// second suspension is `unresolved`, never another round.
    async fn resolve(
        &self,
        toolkit: Option<&Toolkit>,
        name: &str,
        args: &Value,
        request: &Request,
        wait_for: &crate::suspension::WaitFor,
        cancel: &CancellationToken,
    ) -> ToolResult {
        let answer: Resolution = wait_for(request.clone()).await;
        self.retry_with(toolkit, name, args, request, answer, cancel)
            .await
    }

    /// The answer's branch of rule 1: declined, or the tool once more with `Context.answer`.
    async fn retry_with(
        &self,
        toolkit: Option<&Toolkit>,
        name: &str,
        args: &Value,
        request: &Request,
        answer: Resolution,
        cancel: &CancellationToken,
    ) -> ToolResult {
        if !answer.ok {
            return ToolResult::error(format!("declined/expired: {}", request.prompt));
        }
        let retried = self
            .run_tool(toolkit, name, args.clone(), cancel, Some(answer))
            .await;
        if pending_of(retried.metadata.as_ref()).is_some() {
            return ToolResult::error(format!("unresolved: {}", request.prompt));
        }
        retried
    }

    /// Executes through the toolkit (an absent toolkit knows no tool) and records the
    /// `tool` metric; a short-circuited call never gets here.
    async fn run_tool(
        &self,
        toolkit: Option<&Toolkit>,
        name: &str,
        args: Value,
        cancel: &CancellationToken,
        answer: Option<Resolution>,
    ) -> ToolResult {
        let started = Instant::now();
        let ctx = Context {
            cancel: Some(cancel.child_token()),
            answer,
            ..Context::default()
        };
        let result = match toolkit {
            Some(tk) => tk.execute(name, args, &ctx).await,
            None => ToolResult::error(format!("Unknown tool: {name}")),
        };
        self.tool_metric(toolkit, name, &result, started);
        result
    }

    /// The `tool` record: a suspension is `pending`, never an error (§10).
    fn tool_metric(
        &self,
        toolkit: Option<&Toolkit>,
        name: &str,
        result: &ToolResult,
        started: Instant,
    ) {
        let source = toolkit
            .and_then(|tk| tk.get(name))
            .map(|t| t.source.as_str())
            .unwrap_or("unknown");
        let pending = pending_of(result.metadata.as_ref()).is_some();
        self.metric(MetricEvent::Tool {
            tool: name.to_string(),
            source: source.to_string(),
            is_error: result.is_error && !pending,
            pending,
            ms: millis(started.elapsed()),
        });
    }

    fn llm_metric(&self, status: &str, took: Duration, usage: Usage, parts: &[Value]) {
        self.metric(MetricEvent::Llm {
            model: self.inner.options.model.clone(),
            status: status.to_string(),
            ms: millis(took),
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            parts: parts.to_vec(),
        });
    }

    fn metric(&self, event: MetricEvent) {
        self.inner.registry.record(&event);
        if let Some(f) = &self.inner.options.on_metric {
            f(&event);
        }
    }
}

/// One turn's request body: already bytes, or a `Value` (params, a transform, or the
/// in-process backend need one).
pub(super) enum Outgoing {
    Value(Value),
    Bytes(Vec<u8>),
}

/// How the loop ended (§10 `status`).
enum Ended {
    Done,
    Pending(Request),
    Limit(String),
}

/// What a run got through, kept even when it raises (for the `run` metric).
#[derive(Default)]
struct Progress {
    turns: u32,
    tool_calls: usize,
    usage: Usage,
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Whether `name` is a relay (declaration-only) tool of the toolkit.
fn is_relay(toolkit: Option<&Toolkit>, name: &str) -> bool {
    toolkit
        .and_then(|tk| tk.get(name))
        .is_some_and(|t| t.source == Source::Relay)
}

/// The one request carrying every relay call of a turn, in tool-call order, each stamped
/// with its provider call id and its raw arguments text; `None` when the turn relays nothing.
fn relay_request(toolkit: Option<&Toolkit>, calls: &[wire::Call]) -> Option<Request> {
    let entries: Vec<Value> = calls
        .iter()
        .filter(|c| is_relay(toolkit, &c.name))
        .map(|c| relay::relay_call(&c.id, &c.name, &c.args, &c.arguments))
        .collect();
    (!entries.is_empty()).then(|| relay::relay_request(entries))
}

pub(super) fn tool_schema(style: Style, tk: &Toolkit) -> Vec<Value> {
    let format = match style {
        Style::OpenAi => Format::OpenAi,
        Style::Anthropic => Format::Anthropic,
    };
    match adapters::render(format, tk.tools()) {
        Value::Array(a) => a,
        _ => Vec::new(),
    }
}

/// `generate`'s answer as an OpenAI `chat.completion`: `finish_reason` derived, tool
/// arguments encoded unless already a string, missing call ids generated.
fn envelope(model: &str, g: Generated, turn: u32) -> Value {
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert(
        "content".into(),
        g.content.map(Value::String).unwrap_or(Value::Null),
    );
    let finish = if g.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    if !g.tool_calls.is_empty() {
        let calls: Vec<Value> = g
            .tool_calls
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let arguments = match c.arguments {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                let id = c.id.unwrap_or_else(|| format!("call_{turn}_{i}"));
                json!({"id": id, "type": "function",
                       "function": {"name": c.name, "arguments": arguments}})
            })
            .collect();
        message.insert("tool_calls".into(), json!(calls));
    }
    let mut out = json!({
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    });
    if let Some(u) = g.usage {
        out["usage"] = u;
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use serde_json::{json, Value};

    use crate::client::{
        Client, ClientOptions, Generate, Generated, GeneratedCall, RunOptions, RunStatus,
    };
    use crate::native::{define_tool, NativeReturn};
    use crate::suspension::{Answer, Request, WaitFor};
    use crate::tool::ToolResult;
    use crate::toolkit::{Toolkit, ToolkitOptions};

    /// Turn 1 calls `gate`; any later turn answers with the last tool message's content.
    fn model() -> Generate {
        Arc::new(|body: Value| {
            let messages = body["messages"].as_array().cloned().unwrap_or_default();
            let last = messages.last().cloned().unwrap_or(Value::Null);
            Box::pin(async move {
                if last["role"] == "tool" {
                    return Ok(Generated {
                        content: Some(format!("after: {}", last["content"].as_str().unwrap_or(""))),
                        ..Generated::default()
                    });
                }
                Ok(Generated {
                    tool_calls: vec![GeneratedCall {
                        id: Some("c1".into()),
                        name: "gate".into(),
                        arguments: json!({"item": "book"}),
                    }],
                    ..Generated::default()
                })
            })
        })
    }

    /// A tool that suspends unless given an answer (`always`: even then), counting runs.
    async fn toolkit(always: bool, runs: Arc<AtomicUsize>) -> Toolkit {
        let gate = define_tool("gate", "", json!({"type": "object"}), move |args, ctx| {
            runs.fetch_add(1, Ordering::SeqCst);
            let answered = ctx.answer.clone().filter(|_| !always);
            async move {
                if let Some(a) = answered {
                    return Ok(NativeReturn::Text(format!(
                        "{args} {}",
                        a.data.unwrap_or(Value::Null)
                    )));
                }
                let request = Request {
                    id: "r1".into(),
                    kind: "approval".into(),
                    prompt: "Approve?".into(),
                    url: None,
                    data: None,
                    expires_at: None,
                };
                let pending = serde_json::to_value(&request).unwrap_or(Value::Null);
                Ok(NativeReturn::Result(
                    ToolResult::error("Approve?").with_meta("pending", pending),
                ))
            }
        });
        Toolkit::build(ToolkitOptions {
            builtins: Some(json!(false)),
            extra_tools: vec![gate],
            ..ToolkitOptions::default()
        })
        .await
    }

    fn answering(ok: bool, calls: Arc<AtomicUsize>) -> WaitFor {
        Arc::new(move |r: Request| {
            calls.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                Answer {
                    id: r.id,
                    ok,
                    data: Some(json!("yes")),
                    reason: None,
                }
            })
        })
    }

    async fn run(wait_for: Option<WaitFor>, tk: &Toolkit) -> crate::client::RunResult {
        let options = ClientOptions {
            model: "m".into(),
            wait_for,
            ..ClientOptions::default()
        };
        let client = Client::in_process(options, model());
        let opts = RunOptions {
            toolkit: Some(tk),
            ..RunOptions::default()
        };
        client.run("go", opts).await.unwrap()
    }

    #[tokio::test]
    async fn ok_answer_retries_once_with_the_answer_and_the_same_args() {
        let (runs, waits) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let tk = toolkit(false, runs.clone()).await;
        let r = run(Some(answering(true, waits.clone())), &tk).await;
        assert_eq!(r.text, "after: {\"item\":\"book\"} \"yes\"");
        assert_eq!(r.status, RunStatus::Done);
        assert_eq!(
            (runs.load(Ordering::SeqCst), waits.load(Ordering::SeqCst)),
            (2, 1)
        );
    }

    #[tokio::test]
    async fn a_second_suspension_is_unresolved_and_a_decline_continues() {
        let runs = Arc::new(AtomicUsize::new(0));
        let tk = toolkit(true, runs.clone()).await;
        let r = run(Some(answering(true, Arc::new(AtomicUsize::new(0)))), &tk).await;
        assert_eq!(r.text, "after: unresolved: Approve?");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        let r = run(Some(answering(false, Arc::new(AtomicUsize::new(0)))), &tk).await;
        assert_eq!(r.text, "after: declined/expired: Approve?");
    }

    #[tokio::test]
    async fn a_relay_halt_resumes_with_the_answer_replacing_the_placeholder() {
        let relay = crate::relay::relay_tool("gate", "", json!({"type": "object"}));
        let tk = Toolkit::build(ToolkitOptions {
            builtins: Some(json!(false)),
            extra_tools: vec![relay],
            ..ToolkitOptions::default()
        })
        .await;
        let halted = run(None, &tk).await;
        let pending = halted.pending.clone().unwrap();
        assert_eq!(pending.kind, "tool_call");
        assert_eq!(
            pending.data.clone().unwrap()["calls"],
            json!([{"id": "c1", "name": "gate", "input": {"item": "book"}, "arguments": "{\"item\":\"book\"}"}])
        );
        let client = Client::in_process(
            ClientOptions {
                model: "m".into(),
                ..ClientOptions::default()
            },
            model(),
        );
        let opts = || RunOptions {
            toolkit: Some(&tk),
            history: halted.messages.clone(),
            ..RunOptions::default()
        };
        let answer = |id: &str| Answer {
            id: id.into(),
            ok: true,
            data: Some(json!({"output": "42"})),
            reason: None,
        };
        let err = client
            .run_with_answer(opts(), pending.clone(), answer("stale"))
            .await
            .unwrap_err();
        assert!(err.message().contains("stale"), "{err}");
        let r = client
            .run_with_answer(opts(), pending.clone(), answer(&pending.id))
            .await
            .unwrap();
        assert_eq!(r.text, "after: 42");
        let roles: Vec<&str> = r
            .messages
            .iter()
            .filter_map(|m| m["role"].as_str())
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool", "assistant"]);
    }

    #[tokio::test]
    async fn without_wait_for_the_run_halts_pending_with_the_placeholder() {
        let tk = toolkit(false, Arc::new(AtomicUsize::new(0))).await;
        let r = run(None, &tk).await;
        assert_eq!(r.status, RunStatus::Pending);
        assert_eq!(r.pending.map(|p| p.id), Some("r1".to_string()));
        assert_eq!(r.limit, None);
        let last = r.messages.last().cloned().unwrap_or(Value::Null);
        assert_eq!(
            last,
            json!({"role": "tool", "tool_call_id": "c1", "content": "Approve?"})
        );
    }
}
