//! §7B asynchronous fulfilment: `submitted → working → completed | input-required | failed`.
//! Nothing here can take the server down: a raise, a panic or a store error ends as data.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use super::{uuid_v4, Shared, TaskEvent, MAX_OUTSTANDING_TASKS};
use crate::client::{AskOptions, RunOptions, RunResult, RunStatus};
use crate::tool::panic_message;

/// A Task object; `contextId` rides along on every state when the peer sent one.
pub(crate) fn task(id: &str, context_id: Option<&str>, status: Value) -> Value {
    let mut task = json!({"id": id, "status": status});
    if let Some(ctx) = context_id {
        task["contextId"] = json!(ctx);
    }
    task
}

/// Takes one outstanding-task place, or `None` when `MAX_OUTSTANDING_TASKS` are taken.
pub(crate) fn reserve(shared: &Arc<Shared>) -> Option<Reservation> {
    let counter = Arc::clone(&shared.outstanding);
    let taken = counter.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
        (n < MAX_OUTSTANDING_TASKS).then_some(n + 1)
    });
    taken.is_ok().then_some(Reservation(counter))
}

/// An outstanding-task place, given back when dropped (the task ended, or never started).
pub(crate) struct Reservation(Arc<AtomicUsize>);

impl Drop for Reservation {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Starts fulfilling one task in the background; `place` is held until it ends.
pub(crate) fn spawn(
    shared: Arc<Shared>,
    place: Reservation,
    id: String,
    text: String,
    context_id: Option<String>,
) {
    tokio::spawn(async move {
        let _place = place;
        // Bounded concurrency: a flood of tasks queues here instead of running at once.
        let Ok(_slot) = Arc::clone(&shared.slots).acquire_owned().await else {
            return;
        };
        fulfil(&shared, &id, text, context_id).await;
    });
}

async fn fulfil(shared: &Arc<Shared>, id: &str, text: String, context_id: Option<String>) {
    let Some(a2a) = &shared.a2a else { return };
    let ctx = context_id.as_deref();
    let outcome = match a2a
        .store
        .save(&task(id, ctx, json!({"state": "working"})))
        .await
    {
        Err(e) => Err(format!("task store failed: {e}")),
        Ok(()) => run(shared, text, context_id.clone()).await,
    };
    let (state, final_task, result) = match outcome {
        Ok(result) if result.status == RunStatus::Pending => {
            let prompt = result
                .pending
                .as_ref()
                .map(|p| p.prompt.clone())
                .unwrap_or_default();
            let status = json!({"state": "input-required", "message": agent_message(&prompt)});
            ("input-required", task(id, ctx, status), Some(result))
        }
        Ok(result) => {
            let mut done = task(id, ctx, json!({"state": "completed"}));
            done["artifacts"] = json!([{
                "artifactId": uuid_v4(),
                "parts": [{"kind": "text", "text": result.text}],
            }]);
            ("completed", done, Some(result))
        }
        Err(message) => {
            let status = json!({"state": "failed", "message": agent_message(&message)});
            ("failed", task(id, ctx, status), None)
        }
    };
    // A store write failure leaves the task at its last saved state; the server lives on.
    let _ = a2a.store.save(&final_task).await;
    if let Some(on_task) = &shared.on_task {
        let event = TaskEvent {
            id: id.to_string(),
            skill: None,
            task: final_task,
            result,
            state: state.to_string(),
        };
        // Host callback panics are isolated like tool panics.
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| on_task(event)));
    }
}

/// Runs the task through the client in its own tokio task, so a panic anywhere in the loop
/// surfaces as a `JoinError` here rather than unwinding through the server.
async fn run(
    shared: &Arc<Shared>,
    text: String,
    context_id: Option<String>,
) -> Result<RunResult, String> {
    let Some(client) = shared.client.clone() else {
        return Err("serve was given no client to fulfil A2A tasks".to_string());
    };
    let toolkit = Arc::clone(&shared.toolkit);
    let cancel = shared.shutdown.child_token();
    let handle = tokio::spawn(async move {
        match context_id {
            Some(id) => {
                let opts = AskOptions {
                    toolkit: Some(&toolkit),
                    id: Some(id),
                    cancel: Some(cancel),
                    ..AskOptions::default()
                };
                client.ask(&text, opts).await
            }
            None => {
                let opts = RunOptions {
                    toolkit: Some(&toolkit),
                    cancel: Some(cancel),
                    ..RunOptions::default()
                };
                client.run(&text, opts).await
            }
        }
    });
    match handle.await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(e)) => Err(e.message()),
        Err(join) if join.is_panic() => Err(format!(
            "fulfilment panicked: {}",
            panic_message(join.into_panic().as_ref())
        )),
        Err(_) => Err("fulfilment was cancelled".to_string()),
    }
}

fn agent_message(text: &str) -> Value {
    json!({"role": "agent", "parts": [{"kind": "text", "text": text}]})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::toolkit::Toolkit;
    use tokio::sync::Semaphore;
    use tokio_util::sync::CancellationToken;

    #[test]
    fn outstanding_tasks_are_bounded_and_given_back() {
        let shared = Arc::new(Shared {
            toolkit: Arc::new(Toolkit::default()),
            client: None,
            a2a: None,
            on_task: None,
            base_url: String::new(),
            shutdown: CancellationToken::new(),
            slots: Arc::new(Semaphore::new(1)),
            outstanding: Arc::new(AtomicUsize::new(0)),
        });
        let mut held: Vec<Reservation> = (0..MAX_OUTSTANDING_TASKS)
            .map(|_| reserve(&shared).unwrap())
            .collect();
        assert!(reserve(&shared).is_none());
        held.pop();
        assert!(reserve(&shared).is_some());
    }
}
