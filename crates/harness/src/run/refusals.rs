//! A port seen through a scenario's steps, remembering the last request it answered
//! `unsupported`: what a skipped scenario's `blockedBy` names (the text report's "implement
//! next" list adds them up).

use std::collections::BTreeSet;

use async_trait::async_trait;
use serde_json::Value;

use crate::outcome::needs::{self, Blocker, Need};
use toolnexus_ports::port::{Port, PortError};
use toolnexus_ports::trace::Tracer;

/// `inner`, with what the last request it answered `unsupported` needed, and the port's
/// message.
pub(crate) struct Watched<'a> {
    inner: &'a mut dyn Port,
    last: Option<(BTreeSet<Need>, String)>,
}

impl<'a> Watched<'a> {
    /// Watches `inner`.
    pub(crate) fn new(inner: &'a mut dyn Port) -> Self {
        Self { inner, last: None }
    }

    /// What the last `unsupported` answer refused ([`needs::refused`]); `None` when the port
    /// answered none (or only to a request naming no command).
    pub(crate) fn blocker(&self) -> Option<Blocker> {
        let (needs, message) = self.last.as_ref()?;
        needs::refused(needs, message).map(Blocker::Unsupported)
    }
}

/// The message of an `unsupported` answer (PROTOCOL.md §4); `None` for any other answer.
fn unsupported(answer: &Value) -> Option<String> {
    let refused = answer.get("ok") == Some(&Value::Bool(false))
        && answer.pointer("/error/kind").and_then(Value::as_str) == Some("unsupported");
    refused.then(|| {
        answer
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    })
}

#[async_trait]
impl Port for Watched<'_> {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        // The needs, not the request: a request may be large, and most are answered.
        let needs = needs::of_request(&request);
        let answer = self.inner.call(request).await?;
        if let Some(message) = unsupported(&answer) {
            self.last = Some((needs, message));
        }
        Ok(answer)
    }

    async fn ensure_ready(&mut self) -> Result<(), PortError> {
        self.inner.ensure_ready().await
    }

    async fn shutdown(&mut self) {
        self.inner.shutdown().await;
    }

    fn set_tracer(&mut self, tracer: Tracer) {
        self.inner.set_tracer(tracer);
    }

    fn begin_scenario(&mut self, name: &str) {
        self.inner.begin_scenario(name);
    }

    fn watch_log(&mut self, needle: &str) {
        self.inner.watch_log(needle);
    }

    async fn log_mentioned(&mut self, needle: &str) -> Option<bool> {
        self.inner.log_mentioned(needle).await
    }

    fn steps_done(&mut self) {
        self.inner.steps_done();
    }

    async fn end_scenario(&mut self) -> Option<String> {
        self.inner.end_scenario().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toolnexus_protocol::Command;

    /// Answers `build` with `builtins` unsupported, naming the key, and everything else ok.
    struct NoBuiltins;

    #[async_trait]
    impl Port for NoBuiltins {
        async fn call(&mut self, request: Value) -> Result<Value, PortError> {
            let refuses = request.pointer("/options/builtins").is_some();
            Ok(if refuses {
                json!({"ok": false, "error": {"kind": "unsupported", "message": "no \"builtins\" option"}})
            } else {
                json!({"ok": true})
            })
        }
    }

    #[test]
    fn the_last_unsupported_answer_names_the_blocker() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut port = NoBuiltins;
        let mut watched = Watched::new(&mut port);
        rt.block_on(async {
            watched.call(json!({"cmd": "tools", "toolkit": "t"})).await.unwrap();
            assert_eq!(watched.blocker(), None);
            let refused = json!({"cmd": "build", "id": "t", "options": {"builtins": false, "extraTools": []}});
            watched.call(refused).await.unwrap();
            // A later answer that is no refusal keeps the refusal.
            watched.call(json!({"cmd": "close", "toolkit": "t"})).await.unwrap();
        });
        assert_eq!(
            watched.blocker(),
            Some(Blocker::Unsupported(Need::option(
                Command::Build,
                "builtins"
            )))
        );
    }
}
