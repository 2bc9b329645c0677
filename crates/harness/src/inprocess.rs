//! An in-process port: any protocol `Handler` (the reference's request handler, in practice)
//! called without the pipe, so the two transports differ only in serialisation.

use async_trait::async_trait;
use serde_json::Value;
use toolnexus_protocol::Handler;

use super::port::{Port, PortError};

/// A protocol handler called in-process.
pub struct InProcessPort {
    handler: Box<dyn Handler>,
}

impl InProcessPort {
    /// Wraps a handler as a port.
    pub fn new(handler: impl Handler + 'static) -> Self {
        Self {
            handler: Box::new(handler),
        }
    }
}

#[async_trait]
impl Port for InProcessPort {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        Ok(self.handler.handle(request).await)
    }

    async fn shutdown(&mut self) {
        self.handler.close_all().await;
    }
}
