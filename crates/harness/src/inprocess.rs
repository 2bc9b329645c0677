//! An in-process port: any protocol `Handler` (the reference's request handler, in practice)
//! called without the pipe, so the two transports differ only in serialisation.

use async_trait::async_trait;
use serde_json::Value;
use toolnexus_protocol::Handler;

use super::port::{Port, PortError};
use super::trace::Tracer;

/// A protocol handler called in-process.
pub struct InProcessPort {
    handler: Box<dyn Handler>,
    tracer: Option<Tracer>,
    seq: u64,
}

impl InProcessPort {
    /// Wraps a handler as a port.
    pub fn new(handler: impl Handler + 'static) -> Self {
        Self {
            handler: Box::new(handler),
            tracer: None,
            seq: 0,
        }
    }
}

#[async_trait]
impl Port for InProcessPort {
    async fn call(&mut self, mut request: Value) -> Result<Value, PortError> {
        let Some(tracer) = &self.tracer else {
            return Ok(self.handler.handle(request).await);
        };
        // Traced requests carry a `seq` like a subprocess driver's, so the trace reads (and
        // validates) the same for both transports; the handler echoes it.
        if let Some(obj) = request.as_object_mut() {
            obj.insert("seq".into(), Value::from(self.seq));
        }
        self.seq += 1;
        tracer.request(&request);
        let answer = self.handler.handle(request).await;
        tracer.answer(&answer);
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
