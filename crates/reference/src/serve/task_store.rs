//! §7B TaskStore: where served A2A Tasks live (memory, one file per task, or the host's).

use super::error::{ProfileError, StoreDirError};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::Value;

/// Pluggable Task persistence; every served Task read and write goes through it.
#[async_trait]
pub trait TaskStore: Send + Sync {
    /// The Task saved under `id`, if any; `Err` is a store failure, not "not found".
    async fn get(&self, id: &str) -> Result<Option<Value>, String>;
    /// Saves `task` under its `id` (replacing an earlier version).
    async fn save(&self, task: &Value) -> Result<(), String>;
}

/// The `a2a.store` selector.
#[derive(Clone, Default)]
pub enum StoreSpec {
    /// In-memory (the default).
    #[default]
    Memory,
    /// One `<id>.json` per task under this directory.
    File(PathBuf),
    /// A host object used as it is.
    Custom(Arc<dyn TaskStore>),
}

impl StoreSpec {
    /// Reads the JSON spelling: absent or `"memory"`, or `"file:<dir>"`; anything else is an
    /// error, as Python's `resolve_store` raises for an unknown string.
    pub fn from_value(value: Option<&Value>) -> Result<StoreSpec, ProfileError> {
        match value {
            None | Some(Value::Null) => Ok(StoreSpec::Memory),
            Some(Value::String(s)) if s == "memory" => Ok(StoreSpec::Memory),
            Some(Value::String(s)) => match s.strip_prefix("file:") {
                Some(dir) if !dir.is_empty() => Ok(StoreSpec::File(PathBuf::from(dir))),
                _ => Err(ProfileError::UnknownStore {
                    selector: s.clone(),
                }),
            },
            Some(other) => Err(ProfileError::StoreNotString { got: other.clone() }),
        }
    }
}

/// `resolveStore(store?)`: the concrete store a selector names.
pub fn resolve_store(spec: &StoreSpec) -> Result<Arc<dyn TaskStore>, StoreDirError> {
    match spec {
        StoreSpec::Memory => Ok(Arc::new(InMemoryTaskStore::default())),
        StoreSpec::File(dir) => Ok(Arc::new(FileTaskStore::new(dir)?)),
        StoreSpec::Custom(store) => Ok(Arc::clone(store)),
    }
}

/// How many tasks the in-memory store keeps: a peer sending messages for ever must not grow
/// the server for ever (at most 1,024 are outstanding, so the evicted ones have ended).
pub const MEMORY_STORE_CAPACITY: usize = 10_000;

/// Tasks live as long as the server, the newest [`MEMORY_STORE_CAPACITY`] of them: beyond
/// that the oldest ended task is dropped (the oldest task when none has ended), and a
/// `GetTask` for it is "not found", as for any unknown id.
pub struct InMemoryTaskStore {
    capacity: usize,
    tasks: Mutex<Tasks>,
}

/// The tasks by id, and their ids from the oldest saved.
#[derive(Default)]
struct Tasks {
    by_id: HashMap<String, Value>,
    order: VecDeque<String>,
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::with_capacity(MEMORY_STORE_CAPACITY)
    }
}

impl InMemoryTaskStore {
    /// A store keeping at most `capacity` tasks (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            tasks: Mutex::new(Tasks::default()),
        }
    }
}

/// Whether a task has reached a state it never leaves.
fn ended(task: &Value) -> bool {
    matches!(
        task.pointer("/status/state").and_then(Value::as_str),
        Some("completed" | "failed" | "canceled" | "rejected")
    )
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn get(&self, id: &str) -> Result<Option<Value>, String> {
        let tasks = self.tasks.lock().map_err(|_| "task store lock poisoned")?;
        Ok(tasks.by_id.get(id).cloned())
    }

    async fn save(&self, task: &Value) -> Result<(), String> {
        let id = task_id(task)?;
        let mut tasks = self.tasks.lock().map_err(|_| "task store lock poisoned")?;
        if tasks.by_id.insert(id.to_string(), task.clone()).is_none() {
            tasks.order.push_back(id.to_string());
        }
        while tasks.order.len() > self.capacity {
            let Tasks { by_id, order } = &mut *tasks;
            let at = order
                .iter()
                .position(|k| by_id.get(k).is_some_and(ended))
                .unwrap_or(0);
            if let Some(gone) = order.remove(at) {
                by_id.remove(&gone);
            }
        }
        Ok(())
    }
}

/// One `<id>.json` per task; ids that are not plain file names never touch the disk.
pub struct FileTaskStore {
    dir: PathBuf,
}

impl FileTaskStore {
    /// Creates `dir` (and its parents) when missing.
    pub fn new(dir: &Path) -> Result<FileTaskStore, StoreDirError> {
        std::fs::create_dir_all(dir).map_err(|source| StoreDirError {
            dir: dir.to_path_buf(),
            source,
        })?;
        Ok(FileTaskStore {
            dir: dir.to_path_buf(),
        })
    }

    /// The file for `id`, or `None` when `id` could name anything outside `dir`.
    fn file(&self, id: &str) -> Option<PathBuf> {
        safe_name(id).then(|| self.dir.join(format!("{id}.json")))
    }
}

/// Only `[A-Za-z0-9_-]`, 1–128 chars: no separators, dots or NULs can escape the dir.
fn safe_name(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn task_id(task: &Value) -> Result<&str, String> {
    task.get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| "a task without a string id cannot be saved".to_string())
}

#[async_trait]
impl TaskStore for FileTaskStore {
    async fn get(&self, id: &str) -> Result<Option<Value>, String> {
        let Some(path) = self.file(id) else {
            return Ok(None);
        };
        match tokio::fs::read(&path).await {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| format!("task file {} is not JSON: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("cannot read task file {}: {e}", path.display())),
        }
    }

    async fn save(&self, task: &Value) -> Result<(), String> {
        let id = task_id(task)?;
        let path = self
            .file(id)
            .ok_or_else(|| format!("task id {id:?} is not a safe file name"))?;
        // Write then rename, so a concurrent get never reads half a file.
        let tmp = self.dir.join(format!("{id}.json.tmp"));
        let body = serde_json::to_vec(task).map_err(|e| format!("cannot encode task: {e}"))?;
        tokio::fs::write(&tmp, body)
            .await
            .map_err(|e| format!("cannot write task file {}: {e}", tmp.display()))?;
        tokio::fs::rename(&tmp, &path)
            .await
            .map_err(|e| format!("cannot write task file {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn file_store_round_trips_and_refuses_unsafe_ids() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTaskStore::new(&dir.path().join("nested/tasks")).unwrap();
        let task = json!({"id": "abc-1", "status": {"state": "submitted"}});
        store.save(&task).await.unwrap();
        assert_eq!(store.get("abc-1").await.unwrap(), Some(task));
        assert!(dir.path().join("nested/tasks/abc-1.json").is_file());
        for bad in ["../abc-1", "abc-1/..", "", ".", "a.b", "a\0b"] {
            assert_eq!(store.get(bad).await.unwrap(), None, "{bad:?}");
        }
        assert!(store.save(&json!({"id": "../x"})).await.is_err());
        assert!(store.save(&json!({"status": {}})).await.is_err());
    }

    #[tokio::test]
    async fn the_memory_store_keeps_the_newest_tasks_and_drops_ended_ones_first() {
        let store = InMemoryTaskStore::with_capacity(3);
        let task = |id: &str, state: &str| json!({"id": id, "status": {"state": state}});
        store.save(&task("a", "working")).await.unwrap();
        store.save(&task("b", "completed")).await.unwrap();
        store.save(&task("c", "completed")).await.unwrap();
        // A fourth task drops the oldest ended one (b), not the older running one (a).
        store.save(&task("d", "submitted")).await.unwrap();
        assert_eq!(store.get("b").await.unwrap(), None);
        for kept in ["a", "c", "d"] {
            assert!(store.get(kept).await.unwrap().is_some(), "{kept}");
        }
        // Saving a known task again updates it in place and drops nothing.
        store.save(&task("a", "completed")).await.unwrap();
        assert_eq!(store.get("a").await.unwrap(), Some(task("a", "completed")));
        assert!(store.get("c").await.unwrap().is_some());
        // With every task running, the oldest goes.
        let running = InMemoryTaskStore::with_capacity(2);
        for id in ["x", "y", "z"] {
            running.save(&task(id, "working")).await.unwrap();
        }
        assert_eq!(running.get("x").await.unwrap(), None);
        assert!(running.get("z").await.unwrap().is_some());
    }

    #[test]
    fn selectors_parse() {
        assert!(matches!(StoreSpec::from_value(None), Ok(StoreSpec::Memory)));
        assert!(matches!(
            StoreSpec::from_value(Some(&json!("memory"))),
            Ok(StoreSpec::Memory)
        ));
        assert!(matches!(
            StoreSpec::from_value(Some(&json!("file:/tmp/x"))),
            Ok(StoreSpec::File(_))
        ));
        for bad in [json!("redis"), json!("file:"), json!(3)] {
            assert!(StoreSpec::from_value(Some(&bad)).is_err(), "{bad}");
        }
    }
}
