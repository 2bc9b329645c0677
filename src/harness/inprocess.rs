//! The reference as an in-process port: the same request handling the driver uses, minus
//! the pipe.

use async_trait::async_trait;
use serde_json::Value;

use super::port::{Port, PortError};
use crate::protocol::reference_port::ReferenceSession;

/// The reference implementation, called in-process.
#[derive(Default)]
pub struct InProcessPort {
    session: ReferenceSession,
}

impl InProcessPort {
    /// A fresh in-process reference port.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl Port for InProcessPort {
    async fn call(&mut self, request: Value) -> Result<Value, PortError> {
        Ok(self.session.handle(request).await)
    }

    async fn shutdown(&mut self) {
        self.session.close_all().await;
    }
}
