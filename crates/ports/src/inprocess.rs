//! An in-process port: any protocol `Handler` (the reference's request handler, in practice)
//! called without the pipe, so the two transports differ only in serialisation.

use async_trait::async_trait;
use serde_json::Value;
use toolnexus_protocol::{Framed, Handler};

use crate::port::{Port, PortError};
use crate::trace::Tracer;

/// A protocol handler called in-process.
pub struct InProcessPort {
    handler: Box<dyn Handler>,
    tracer: Option<Tracer>,
    seq: u64,
    timeout: Option<std::time::Duration>,
}

impl InProcessPort {
    /// Wraps a handler as a port.
    pub fn new(handler: impl Handler + 'static) -> Self {
        Self {
            handler: Box::new(handler),
            tracer: None,
            seq: 0,
            timeout: None,
        }
    }

    /// Bounds every request like a driver's (`--timeout-ms`): a reference that hangs is then
    /// a failed scenario, not a hung run.
    pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    async fn answer(&mut self, request: Value) -> Result<Value, PortError> {
        let Some(limit) = self.timeout else {
            return Ok(self.handler.handle(request).await);
        };
        let cmd = request
            .get("cmd")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string();
        let note = crate::spec_default::longer_than_limit(&request, limit);
        tokio::time::timeout(limit, self.handler.handle(request))
            .await
            .map_err(|_| {
                let mut message = format!(
                    "{} (the request limit, `--timeout-ms`)",
                    crate::late::no_answer("the in-process reference", "answer", &cmd, limit)
                );
                if let Some(note) = note {
                    message.push_str("; ");
                    message.push_str(&note);
                }
                PortError::NoAnswer {
                    command: cmd,
                    limit_ms: u64::try_from(limit.as_millis()).unwrap_or(u64::MAX),
                    message,
                }
            })
    }
}

#[async_trait]
impl Port for InProcessPort {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        if self.tracer.is_none() {
            return self.answer(request).await;
        }
        // Traced requests carry a `seq` like a subprocess driver's, so the trace reads (and
        // validates) the same for both transports; the handler echoes it.
        let request = Framed::number(request, self.seq);
        self.seq += 1;
        if let Some(t) = &self.tracer {
            t.request(&request);
        }
        let answer = self.answer(request).await?;
        if let Some(t) = &self.tracer {
            t.answer(&answer);
        }
        Ok(answer)
    }

    fn set_tracer(&mut self, tracer: Tracer) {
        self.tracer = Some(tracer);
    }

    fn begin_scenario(&mut self, name: &str) {
        if let Some(t) = &self.tracer {
            t.scenario(name);
        }
    }

    async fn shutdown(&mut self) {
        self.handler.close_all().await;
    }
}
