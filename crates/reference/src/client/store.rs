//! §8 `ConversationStore` and the default in-memory provider.

use std::collections::HashMap;
use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::Value;

/// A durable home for transcripts, keyed by conversation id.
#[async_trait]
pub trait ConversationStore: Send + Sync {
    /// The transcript saved under `id`, if any.
    async fn get(&self, id: &str) -> Option<Vec<Value>>;
    /// Replaces the transcript under `id`.
    async fn save(&self, id: &str, messages: Vec<Value>);
}

/// Per-client, process-lifetime store.
#[derive(Default)]
pub struct InMemoryStore {
    threads: Mutex<HashMap<String, Vec<Value>>>,
}

impl InMemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl ConversationStore for InMemoryStore {
    async fn get(&self, id: &str) -> Option<Vec<Value>> {
        // A poisoned lock still holds consistent data (writes are single assignments).
        let threads = self.threads.lock().unwrap_or_else(|p| p.into_inner());
        threads.get(id).cloned()
    }

    async fn save(&self, id: &str, messages: Vec<Value>) {
        let mut threads = self.threads.lock().unwrap_or_else(|p| p.into_inner());
        threads.insert(id.to_string(), messages);
    }
}
