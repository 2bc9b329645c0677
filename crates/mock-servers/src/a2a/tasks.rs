//! The agent's tasks, kept in memory: each `SendMessage` makes one, each `GetTask` counts a
//! poll on it and answers the state the script puts it in.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use serde_json::{json, Map, Value};

use super::scenario::{FinalState, TaskScript};

/// Every task the agent has made; safe to share between concurrent requests.
#[derive(Debug)]
pub struct Tasks {
    script: TaskScript,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    made: u64,
    tasks: HashMap<String, Task>,
}

#[derive(Debug)]
struct Task {
    context_id: String,
    /// The client's text, kept for `echo`.
    text: String,
    polls: u32,
}

/// A `GetTask` answer: the Task object and, for the log, its state and poll count.
#[derive(Debug, Clone, PartialEq)]
pub struct Polled {
    /// The A2A Task.
    pub task: Value,
    /// Its `status.state`.
    pub state: &'static str,
    /// `GetTask` calls on this task so far, this one included.
    pub polls: u32,
}

impl Tasks {
    /// No tasks yet; every task will run as `script` says.
    pub fn new(script: TaskScript) -> Self {
        Self {
            script,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// Makes a task for the client's text and answers it as just submitted.
    pub fn submit(&self, text: String) -> Value {
        let mut inner = self.lock();
        inner.made += 1;
        let id = format!("task-{}", inner.made);
        let context_id = format!("ctx-{}", inner.made);
        let answer = json!({
            "kind": "task",
            "id": id,
            "contextId": context_id,
            "status": {"state": "submitted"},
        });
        inner.tasks.insert(
            id,
            Task {
                context_id,
                text,
                polls: 0,
            },
        );
        answer
    }

    /// Counts a poll on task `id` and answers it; `None` ⇒ no such task.
    pub fn poll(&self, id: &str) -> Option<Polled> {
        let mut inner = self.lock();
        let task = inner.tasks.get_mut(id)?;
        task.polls = task.polls.saturating_add(1);
        let done = task.polls > self.script.polls;
        let state = match self.script.state {
            FinalState::Working => FinalState::Working,
            s if done => s,
            _ => FinalState::Working,
        };
        Some(Polled {
            task: self.render(id, task, state),
            state: state.as_str(),
            polls: task.polls,
        })
    }

    fn render(&self, id: &str, task: &Task, state: FinalState) -> Value {
        let mut status = Map::new();
        status.insert("state".into(), state.as_str().into());
        if let (Some(text), FinalState::Failed | FinalState::Canceled) =
            (&self.script.message, state)
        {
            status.insert(
                "message".into(),
                json!({
                    "kind": "message",
                    "role": "agent",
                    "messageId": format!("{id}-status"),
                    "parts": [{"kind": "text", "text": text}],
                }),
            );
        }
        let mut out = Map::new();
        out.insert("kind".into(), "task".into());
        out.insert("id".into(), id.into());
        out.insert("contextId".into(), task.context_id.as_str().into());
        out.insert("status".into(), Value::Object(status));
        if state == FinalState::Completed {
            if self.script.echo {
                out.insert(
                    "artifacts".into(),
                    json!([{"artifactId": "echo", "parts": [{"kind": "text", "text": task.text}]}]),
                );
            } else if let Some(artifacts) = &self.script.artifacts {
                out.insert("artifacts".into(), Value::Array(artifacts.clone()));
            }
        }
        if let Some(history) = &self.script.history {
            out.insert("history".into(), Value::Array(history.clone()));
        }
        Value::Object(out)
    }

    /// A panic elsewhere while holding the lock leaves plain counters behind, still usable.
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script(polls: u32, state: FinalState) -> TaskScript {
        TaskScript {
            polls,
            state,
            artifacts: None,
            echo: false,
            history: None,
            message: None,
        }
    }

    fn states(tasks: &Tasks, id: &str, n: usize) -> Vec<&'static str> {
        (0..n)
            .map(|_| tasks.poll(id).map_or("missing", |p| p.state))
            .collect()
    }

    #[test]
    fn polls_say_working_then_the_final_state_sticks() {
        let tasks = Tasks::new(script(2, FinalState::Failed));
        let t = tasks.submit("hi".into());
        assert_eq!(t["status"]["state"], "submitted");
        assert_eq!(
            states(&tasks, "task-1", 4),
            ["working", "working", "failed", "failed"]
        );
        assert_eq!(tasks.poll("task-1").map(|p| p.polls), Some(5));
    }

    #[test]
    fn tasks_are_counted_apart() {
        let tasks = Tasks::new(script(1, FinalState::Completed));
        let a = tasks.submit("a".into());
        let b = tasks.submit("b".into());
        assert_eq!(
            (a["id"].as_str(), b["id"].as_str()),
            (Some("task-1"), Some("task-2"))
        );
        assert_eq!(b["contextId"], "ctx-2");
        assert_eq!(states(&tasks, "task-1", 2), ["working", "completed"]);
        assert_eq!(states(&tasks, "task-2", 1), ["working"]);
        assert!(tasks.poll("task-3").is_none());
    }

    #[test]
    fn working_never_ends() {
        let tasks = Tasks::new(script(0, FinalState::Working));
        tasks.submit(String::new());
        assert!(states(&tasks, "task-1", 50).iter().all(|s| *s == "working"));
    }

    #[test]
    fn artifacts_only_once_completed_and_echo_answers_the_text() {
        let mut s = script(1, FinalState::Completed);
        s.echo = true;
        s.history = Some(vec![json!({"role": "agent"})]);
        let tasks = Tasks::new(s);
        tasks.submit("say this".into());
        let first = tasks.poll("task-1").map(|p| p.task).unwrap_or_default();
        assert!(first.get("artifacts").is_none(), "{first}");
        assert!(first.get("history").is_some(), "{first}");
        let done = tasks.poll("task-1").map(|p| p.task).unwrap_or_default();
        assert_eq!(done["artifacts"][0]["parts"][0]["text"], "say this");
        assert_eq!(
            done.as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>()),
            Some(
                ["kind", "id", "contextId", "status", "artifacts", "history"]
                    .map(String::from)
                    .to_vec()
            )
        );
    }

    #[test]
    fn the_status_message_is_an_agent_message() {
        let mut s = script(0, FinalState::Canceled);
        s.message = Some("stopped by operator".into());
        let tasks = Tasks::new(s);
        tasks.submit(String::new());
        let t = tasks.poll("task-1").map(|p| p.task).unwrap_or_default();
        assert_eq!(t["status"]["state"], "canceled");
        assert_eq!(t["status"]["message"]["role"], "agent");
        assert_eq!(
            t["status"]["message"]["parts"][0]["text"],
            "stopped by operator"
        );
    }
}
