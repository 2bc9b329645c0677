//! The §8 client commands (PROTOCOL.md §5.13–§5.20) answered by the reference client.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolnexus_reference::client::Prompt;

use futures::StreamExt;
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

use toolnexus_protocol::client::TranslateRequest as ProtoTranslateRequest;
use toolnexus_protocol::client::{ClientOptions as ProtoClientOptions, ConversationStep};
use toolnexus_protocol::ErrorKind;
use toolnexus_reference::client::{
    AskOptions, ClientError, RunOptions, RunResult, StreamEvent, Usage,
};
use toolnexus_reference::client::{TranslateRequest, TranslateResult};
use toolnexus_reference::suspension::{Answer, Request};
use toolnexus_reference::toolkit::Toolkit;

use crate::client_behaviours::{build_client, DriverClient};
use crate::reply::{bad_request, Reply};

/// The clients of a session, by id.
#[derive(Default)]
pub struct Clients {
    clients: BTreeMap<String, DriverClient>,
}

/// A loop command, decoded.
pub enum LoopCommand {
    /// §5.15.
    Run {
        /// The user prompt (a string or parts).
        prompt: Prompt,
        /// A prior transcript.
        history: Vec<Value>,
        /// Fire the cancel this long after the start.
        cancel_after_ms: Option<u64>,
    },
    /// §5.16.
    Stream {
        /// The user prompt (a string or parts).
        prompt: Prompt,
        /// The thread id.
        id: Option<String>,
        /// A prior transcript.
        history: Vec<Value>,
        /// Fire the cancel this long after the start.
        cancel_after_ms: Option<u64>,
    },
    /// §5.17.
    Ask {
        /// The user prompt (a string or parts).
        prompt: Prompt,
        /// The thread id.
        id: Option<String>,
        /// Collect `on_text` deltas.
        on_text: bool,
    },
    /// §5.18.
    Conversation {
        /// Sends and resets.
        steps: Vec<ConversationStep>,
    },
    /// §5.22 `run_with_answer`.
    RunWithAnswer {
        /// The halted transcript.
        history: Vec<Value>,
        /// The halted run's Request.
        pending: Value,
        /// The host's Answer.
        answer: Value,
    },
    /// §5.22 `ask_with_answer`.
    AskWithAnswer {
        /// The thread id.
        id: String,
        /// The halted run's Request.
        pending: Value,
        /// The host's Answer.
        answer: Value,
    },
}

impl Clients {
    /// §5.14: creates (or replaces) the client `id`.
    pub fn create(&mut self, id: String, options: &ProtoClientOptions) -> Reply {
        let client = build_client(options).map_err(bad_request)?;
        self.clients.insert(id.clone(), client);
        Ok(json!({ "client": id }))
    }

    /// The reference client `id` (a shared clone), for `serve` to fulfil tasks with.
    pub fn reference(
        &self,
        id: &str,
    ) -> Result<toolnexus_reference::client::Client, (ErrorKind, String)> {
        self.get(id).map(|c| c.client.clone())
    }

    fn get(&self, id: &str) -> Result<&DriverClient, (ErrorKind, String)> {
        self.clients
            .get(id)
            .ok_or_else(|| bad_request(format!("no client \"{id}\"")))
    }

    /// §5.19 `store_get`.
    pub async fn store_get(&self, client: &str, id: &str) -> Reply {
        let c = self.get(client)?;
        let messages = c.client.conversation_store().get(id).await;
        Ok(json!({ "messages": messages }))
    }

    /// §5.19 `store_save`.
    pub async fn store_save(&self, client: &str, id: &str, messages: Vec<Value>) -> Reply {
        let c = self.get(client)?;
        c.client.conversation_store().save(id, messages).await;
        Ok(json!({}))
    }

    /// §5.20.
    pub fn metrics(&self, client: &str) -> Reply {
        Ok(json!({ "text": self.get(client)?.client.metrics() }))
    }

    /// §5.15–§5.18: one loop command, with what the seams recorded and `elapsedMs`.
    pub async fn run_loop(
        &self,
        client: &str,
        toolkit: Option<&Toolkit>,
        command: LoopCommand,
    ) -> Reply {
        let c = self.get(client)?;
        c.recorder.reset();
        let started = Instant::now();
        let mut body = match command {
            LoopCommand::Run {
                prompt,
                history,
                cancel_after_ms,
            } => {
                let opts = RunOptions {
                    toolkit,
                    history,
                    cancel: cancel_after(cancel_after_ms),
                };
                outcome(c.client.run(prompt, opts).await)
            }
            LoopCommand::Stream {
                prompt,
                id,
                history,
                cancel_after_ms,
            } => {
                let opts = RunOptions {
                    toolkit,
                    history,
                    cancel: cancel_after(cancel_after_ms),
                };
                let mut events = Vec::new();
                let mut raised = None;
                let mut stream = c.client.stream(prompt, opts, id);
                while let Some(item) = stream.next().await {
                    match item {
                        Ok(ev) => events.push(event_json(&ev)),
                        Err(e) => raised = Some(e.message()),
                    }
                }
                let mut body = Map::new();
                body.insert("events".into(), Value::Array(events));
                if let Some(r) = raised {
                    body.insert("raised".into(), json!(r));
                }
                body
            }
            LoopCommand::Ask {
                prompt,
                id,
                on_text,
            } => {
                let deltas = Arc::new(Mutex::new(Vec::<String>::new()));
                let sink = deltas.clone();
                let opts = AskOptions {
                    toolkit,
                    id,
                    on_text: on_text.then(|| {
                        Arc::new(move |t: &str| {
                            sink.lock()
                                .unwrap_or_else(|p| p.into_inner())
                                .push(t.to_string())
                        }) as toolnexus_reference::client::OnText
                    }),
                    cancel: None,
                };
                let mut body = outcome(c.client.ask(prompt, opts).await);
                if on_text {
                    let d = std::mem::take(&mut *deltas.lock().unwrap_or_else(|p| p.into_inner()));
                    body.insert("textDeltas".into(), json!(d));
                }
                body
            }
            LoopCommand::Conversation { steps } => {
                let mut convo = c.client.conversation(toolkit);
                let mut answers = Vec::new();
                for step in steps {
                    match (step.send, step.reset) {
                        (Some(prompt), None) => {
                            answers.push(Value::Object(outcome(convo.send(&prompt).await)))
                        }
                        (None, Some(true)) => {
                            convo.reset();
                            answers.push(json!({}));
                        }
                        _ => {
                            return Err(bad_request(
                                "a conversation step is {\"send\": prompt} or {\"reset\": true}",
                            ))
                        }
                    }
                }
                let mut body = Map::new();
                body.insert("steps".into(), Value::Array(answers));
                body.insert("messages".into(), json!(convo.messages()));
                body
            }
            LoopCommand::RunWithAnswer {
                history,
                pending,
                answer,
            } => {
                let (pending, answer) = suspension_pair(pending, answer)?;
                let opts = RunOptions {
                    toolkit,
                    history,
                    cancel: None,
                };
                outcome(c.client.run_with_answer(opts, pending, answer).await)
            }
            LoopCommand::AskWithAnswer {
                id,
                pending,
                answer,
            } => {
                let (pending, answer) = suspension_pair(pending, answer)?;
                outcome(
                    c.client
                        .ask_with_answer(toolkit, &id, pending, answer)
                        .await,
                )
            }
        };
        c.observed_into(&mut body);
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        body.insert("elapsedMs".into(), json!(ms));
        Ok(Value::Object(body))
    }
}

/// The protocol's `pending` and `answer` as the SPEC §10 types; malformed ⇒ `bad_request`.
fn suspension_pair(
    pending: Value,
    answer: Value,
) -> Result<(Request, Answer), (ErrorKind, String)> {
    let pending = serde_json::from_value(pending)
        .map_err(|e| bad_request(format!("pending is not a SPEC §10 Request: {e}")))?;
    let answer = serde_json::from_value(answer)
        .map_err(|e| bad_request(format!("answer is not a SPEC §10 Answer: {e}")))?;
    Ok((pending, answer))
}

impl Clients {
    /// §5.21: SPEC §11 `translate`, with what the seams recorded and `elapsedMs`.
    pub async fn translate(
        &self,
        client: &str,
        toolkit: Option<&Toolkit>,
        request: ProtoTranslateRequest,
    ) -> Reply {
        let c = self.get(client)?;
        c.recorder.reset();
        let started = Instant::now();
        let request = TranslateRequest {
            messages: request.messages,
            tools: request.tools.unwrap_or_default(),
            toolkit,
            tool_choice: request.tool_choice,
            system: request.system,
            max_tokens: request.max_tokens.unwrap_or(0),
        };
        let mut body = Map::new();
        match c.client.translate(request).await {
            Ok(r) => body.insert("result".into(), translate_json(&r)),
            Err(e) => body.insert("raised".into(), json!(e.message())),
        };
        c.observed_into(&mut body);
        let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        body.insert("elapsedMs".into(), json!(ms));
        Ok(Value::Object(body))
    }
}

/// SPEC §11 `result` in the protocol's spelling.
fn translate_json(r: &TranslateResult) -> Value {
    let calls: Vec<Value> = r
        .tool_calls
        .iter()
        .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
        .collect();
    json!({
        "text": r.text, "toolCalls": calls, "finishReason": r.finish_reason,
        "usage": usage_json(&r.usage), "model": r.model, "raw": r.raw,
    })
}

/// The external cancel, fired by a timer the driver starts: a token cancelled `ms` after now (`None` without `ms`): `cancelAfterMs`, `abortAfterMs`.
pub(crate) fn cancel_after(ms: Option<u64>) -> Option<CancellationToken> {
    let ms = ms?;
    let token = CancellationToken::new();
    let trigger = token.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(ms)).await;
        trigger.cancel();
    });
    Some(token)
}

fn outcome(r: Result<RunResult, ClientError>) -> Map<String, Value> {
    let mut body = Map::new();
    match r {
        Ok(mut result) => {
            // The transcript moved, not copied: an attached 64 MiB image is in it.
            let messages = std::mem::take(&mut result.messages);
            let mut v = result_json(&result);
            v["messages"] = Value::Array(messages);
            body.insert("result".into(), v)
        }
        Err(e) => body.insert("raised".into(), json!(e.message())),
    };
    body
}

fn usage_json(u: &Usage) -> Value {
    json!({"promptTokens": u.prompt_tokens, "completionTokens": u.completion_tokens,
           "totalTokens": u.total_tokens})
}

/// `RunResult` in the protocol's spelling.
pub fn result_json(r: &RunResult) -> Value {
    let calls: Vec<Value> = r
        .tool_calls
        .iter()
        .map(|c| {
            let mut v = json!({"name": c.name, "args": c.args, "output": c.output,
                               "isError": c.is_error});
            if let Some(m) = c.metadata.as_ref().filter(|m| !m.is_empty()) {
                v["metadata"] = Value::Object(m.clone());
            }
            v
        })
        .collect();
    let mut v = json!({
        "text": r.text, "messages": r.messages, "toolCalls": calls,
        "toolCallCount": r.tool_call_count, "turns": r.turns, "usage": usage_json(&r.usage),
        "model": r.model, "status": r.status.as_str(),
    });
    if let Some(limit) = &r.limit {
        v["limit"] = json!(limit);
    }
    if let Some(pending) = &r.pending {
        v["pending"] = serde_json::to_value(pending).unwrap_or(Value::Null);
    }
    v
}

fn event_json(ev: &StreamEvent) -> Value {
    match ev {
        StreamEvent::Text { delta } => json!({"type": "text", "delta": delta}),
        StreamEvent::ToolCall { id, name, args } => {
            json!({"type": "tool_call", "id": id, "name": name, "args": args})
        }
        StreamEvent::ToolResult {
            id,
            name,
            output,
            is_error,
        } => json!({"type": "tool_result", "id": id, "name": name, "output": output,
                    "isError": is_error}),
        StreamEvent::Pending { request } => json!({"type": "pending",
            "request": serde_json::to_value(request).unwrap_or(Value::Null)}),
        StreamEvent::Usage { usage } => json!({"type": "usage", "usage": usage_json(usage)}),
        StreamEvent::Done { result } => json!({"type": "done", "result": result_json(result)}),
    }
}

/// A protocol `prompt` as the reference's: a string as it is, each part through the
/// reference's own validating construction (its serde form).
pub fn prompt_of(p: toolnexus_protocol::client::Prompt) -> Result<Prompt, String> {
    use toolnexus_protocol::client::Prompt as Wire;
    match p {
        Wire::Text(s) => Ok(Prompt::Text(s)),
        Wire::Parts(parts) => parts
            .into_iter()
            .map(|part| {
                serde_json::to_value(part)
                    .map_err(|e| e.to_string())
                    .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Prompt::Parts)
            .map_err(|e| format!("prompt: {e}")),
    }
}
