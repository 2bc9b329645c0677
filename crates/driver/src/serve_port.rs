//! §5.23–§5.25: `serve`, `serve_stop`, `serve_records` — served toolkits by handle id, with
//! what their host callbacks observed.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{json, Map, Value};

use toolnexus_reference::client::Client;
use toolnexus_reference::serve::{
    A2AConfig, CallEvent, McpServeConfig, OnCall, OnTask, ServeHandle, ServeOptions, StoreSpec,
    TaskEvent, TaskStore,
};
use toolnexus_reference::toolkit::Toolkit;

use crate::client_port::result_json;
use crate::recorder::push_capped;
use crate::reply::{bad_request, Reply};

/// A bounded, shared list of recorded entries.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<Value>>>);

impl Log {
    fn push(&self, entry: Value) {
        push_capped(&mut self.0.lock().unwrap_or_else(|p| p.into_inner()), entry);
    }

    fn snapshot(&self) -> Vec<Value> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

struct Served {
    handle: ServeHandle,
    toolkit: String,
    on_task: Log,
    on_call: Log,
    store_calls: Log,
}

/// The session's served handles, by id.
#[derive(Default)]
pub struct Serves {
    handles: BTreeMap<String, Served>,
}

/// A decoded `serve` request.
pub struct ServeRequest {
    /// The handle id.
    pub id: String,
    /// The toolkit id.
    pub toolkit_id: String,
    /// The client, already looked up.
    pub client: Option<Client>,
    /// `a2a` as given.
    pub a2a: Option<Value>,
    /// `mcp` as given.
    pub mcp: Option<Value>,
    /// Record `onTask`.
    pub on_task: bool,
    /// Record `onCall`.
    pub on_call: bool,
    /// The session declares a SPEC before 0.17.0: `tools/call` answers SPEC 0.16.0's single
    /// text block ([`McpServeConfig::text_only`]).
    pub text_only: bool,
}

impl Serves {
    /// `serve`: serves `toolkit` on an ephemeral loopback port; reusing an id stops the
    /// earlier handle first.
    pub async fn serve(&mut self, toolkit: &Toolkit, req: ServeRequest) -> Reply {
        let store_calls = Log::default();
        let a2a = req
            .a2a
            .as_ref()
            .map(|v| a2a_config(v, &store_calls))
            .transpose()
            .map_err(bad_request)?;
        let mcp = req
            .mcp
            .as_ref()
            .map(McpServeConfig::from_value)
            .transpose()
            .map_err(|e| bad_request(e.to_string()))?
            .map(|cfg| McpServeConfig {
                text_only: req.text_only,
                ..cfg
            });
        if let Some(old) = self.handles.remove(&req.id) {
            old.handle.stop().await;
        }
        let on_task_log = Log::default();
        let on_call_log = Log::default();
        let on_task: Option<OnTask> = req.on_task.then(|| {
            let log = on_task_log.clone();
            Arc::new(move |ev: TaskEvent| log.push(task_event_json(&ev))) as OnTask
        });
        let on_call: Option<OnCall> = req.on_call.then(|| {
            let log = on_call_log.clone();
            Arc::new(move |ev: CallEvent| log.push(call_event_json(&ev))) as OnCall
        });
        let options = ServeOptions {
            client: req.client,
            a2a,
            on_task,
            mcp,
            on_call,
        };
        // The port's `serve` throwing is `raised` (PROTOCOL.md §5.23), not a driver error.
        let handle = match toolkit.serve("127.0.0.1:0", options).await {
            Ok(handle) => handle,
            Err(e) => return Ok(json!({ "raised": e.to_string() })),
        };
        let url = handle.url().to_string();
        self.handles.insert(
            req.id,
            Served {
                handle,
                toolkit: req.toolkit_id,
                on_task: on_task_log,
                on_call: on_call_log,
                store_calls,
            },
        );
        Ok(json!({ "url": url }))
    }

    /// `serve_stop`: stops the handle, whose records stay readable (§5.24) until its id is
    /// served again or the session ends; an id never served is `bad_request`, one already
    /// stopped is not an error.
    pub async fn stop(&mut self, id: &str) -> Reply {
        match self.handles.get(id) {
            Some(served) => {
                served.handle.stop().await;
                Ok(json!({}))
            }
            None => Err(bad_request(format!("no serve handle \"{id}\""))),
        }
    }

    /// `serve_records`: the handle's lists (a stopped handle's too) plus the session's
    /// `toolCancels` (the calls since the latest `build`).
    pub fn records(&self, id: &str, tool_cancels: Vec<Value>) -> Reply {
        let served = self
            .handles
            .get(id)
            .ok_or_else(|| bad_request(format!("no serve handle \"{id}\"")))?;
        Ok(json!({
            "onTask": served.on_task.snapshot(),
            "onCall": served.on_call.snapshot(),
            "storeCalls": served.store_calls.snapshot(),
            "toolCancels": tool_cancels,
        }))
    }

    /// Stops every handle serving `toolkit` (the toolkit is being closed).
    pub async fn stop_toolkit(&mut self, toolkit: &str) {
        for served in self.handles.values().filter(|s| s.toolkit == toolkit) {
            served.handle.stop().await;
        }
    }

    /// Stops every handle (end of session).
    pub async fn stop_all(&mut self) {
        for served in self.handles.values() {
            served.handle.stop().await;
        }
    }
}

/// `a2a` as given, with `store: {"recording": true}` turned into a recording host store.
fn a2a_config(value: &Value, store_calls: &Log) -> Result<A2AConfig, String> {
    let mut value = value.clone();
    let recording = match value.get("store") {
        Some(Value::Object(o))
            if o.get("recording") == Some(&Value::Bool(true)) && o.len() == 1 =>
        {
            true
        }
        Some(Value::Object(o)) => {
            return Err(format!(
                "a2a.store object must be {{\"recording\": true}}, got {}",
                Value::Object(o.clone())
            ))
        }
        _ => false,
    };
    if recording {
        if let Some(map) = value.as_object_mut() {
            map.remove("store");
        }
    }
    let mut config = A2AConfig::from_value(&value).map_err(|e| e.to_string())?;
    if recording {
        config.store = StoreSpec::Custom(Arc::new(RecordingStore {
            tasks: Mutex::new(HashMap::new()),
            calls: store_calls.clone(),
        }));
    }
    Ok(config)
}

/// A host TaskStore object: an in-memory map whose every call is recorded.
struct RecordingStore {
    tasks: Mutex<HashMap<String, Value>>,
    calls: Log,
}

#[async_trait]
impl TaskStore for RecordingStore {
    async fn get(&self, id: &str) -> Result<Option<Value>, String> {
        self.calls.push(json!({"op": "get", "id": id}));
        let tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        Ok(tasks.get(id).cloned())
    }

    async fn save(&self, task: &Value) -> Result<(), String> {
        let id = task.get("id").and_then(Value::as_str).unwrap_or_default();
        let state = task
            .pointer("/status/state")
            .cloned()
            .unwrap_or(Value::Null);
        self.calls
            .push(json!({"op": "save", "id": id, "state": state}));
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        tasks.insert(id.to_string(), task.clone());
        Ok(())
    }
}

fn task_event_json(ev: &TaskEvent) -> Value {
    let mut out = Map::new();
    out.insert("id".into(), json!(ev.id));
    out.insert("state".into(), json!(ev.state));
    out.insert("task".into(), ev.task.clone());
    if let Some(skill) = &ev.skill {
        out.insert("skill".into(), json!(skill));
    }
    if let Some(result) = &ev.result {
        out.insert("result".into(), result_json(result));
    }
    Value::Object(out)
}

fn call_event_json(ev: &CallEvent) -> Value {
    json!({"name": ev.name, "source": ev.source.as_str(), "ms": ev.ms, "isError": ev.is_error})
}
