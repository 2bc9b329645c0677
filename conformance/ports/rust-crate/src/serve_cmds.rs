//! PROTOCOL.md §5.23–§5.25 (`serve`, `serve_stop`, `serve_records`) and the §7 `awaitCancel`
//! extra-tool behaviour, over the crate's public `Toolkit::serve` (SPEC §7B/§7C).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map, Value};

use toolnexus::a2a::A2aTask;
use toolnexus::mcp_serve::{McpServeConfig, OnCallEvent};
use toolnexus::serve::{
    A2aConfig, OnTaskEvent, ServeHandle, ServeOptions, TaskStore, TaskStoreSpec,
};
use toolnexus::{define_tool, Tool, ToolContext, Toolkit};

use crate::{bad, client_cmds, compact, str_field, Res};

/// Every list the protocol answers is bounded at this many entries.
const CAP: usize = 1000;

/// PROTOCOL.md §5.25 `toolCancels`: every finished `awaitCancel` call since the latest build.
static TOOL_CANCELS: Mutex<Vec<Value>> = Mutex::new(Vec::new());

/// Empties `toolCancels`: `build` calls it (PROTOCOL.md §5.25), so one scenario never reads
/// another's calls.
pub fn clear_tool_cancels() {
    TOOL_CANCELS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
}

fn push(list: &Mutex<Vec<Value>>, v: Value) {
    let mut l = list.lock().unwrap_or_else(|e| e.into_inner());
    if l.len() < CAP {
        l.push(v);
    }
}

fn snapshot(list: &Mutex<Vec<Value>>) -> Value {
    Value::Array(list.lock().unwrap_or_else(|e| e.into_inner()).clone())
}

/// Records one `awaitCancel` call when dropped: a future dropped before it finished (the
/// Rust form of a cancelled task) counts as cancelled.
struct CancelRecord {
    name: String,
    cancelled: Option<bool>,
}

impl Drop for CancelRecord {
    fn drop(&mut self) {
        push(
            &TOOL_CANCELS,
            json!({"name": self.name, "cancelled": self.cancelled.unwrap_or(true)}),
        );
    }
}

/// §7 `{"awaitCancel": {"ms": N}}`: wait for the context's cancellation token or `N` ms.
pub fn await_cancel_tool(
    name: String,
    description: String,
    schema: Value,
    arg: &Value,
    w: &str,
) -> Res<Tool> {
    let ms = match arg {
        Value::Object(m) => match m.get("ms") {
            None | Some(Value::Null) => 10_000,
            Some(v) => v.as_u64().ok_or_else(|| {
                bad(format!(
                    "{w}.behaviour.awaitCancel.ms must be a non-negative integer"
                ))
            })?,
        },
        _ => return Err(bad(format!("{w}.behaviour.awaitCancel must be an object"))),
    };
    let tool_name = name.clone();
    Ok(define_tool(
        name,
        description,
        Some(schema),
        move |_args: Value, ctx: ToolContext| {
            let mut record = CancelRecord {
                name: tool_name.clone(),
                cancelled: None,
            };
            async move {
                let fired = tokio::select! {
                    _ = ctx.cancel.cancelled() => true,
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => false,
                };
                record.cancelled = Some(fired);
                drop(record);
                Ok::<String, String>(if fired { "cancelled" } else { "not cancelled" }.into())
            }
        },
    ))
}

/// What one served toolkit's host code observed (PROTOCOL.md §5.25).
#[derive(Default)]
struct ServeRec {
    on_task: Mutex<Vec<Value>>,
    on_call: Mutex<Vec<Value>>,
    store_calls: Mutex<Vec<Value>>,
}

/// `a2a.store: {"recording": true}`: a host TaskStore keeping tasks in a map and recording
/// every call.
struct RecordingStore {
    rec: Arc<ServeRec>,
    tasks: Mutex<HashMap<String, A2aTask>>,
}

impl TaskStore for RecordingStore {
    fn get(&self, id: &str) -> Result<Option<A2aTask>, String> {
        push(&self.rec.store_calls, json!({"op": "get", "id": id}));
        Ok(self
            .tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned())
    }
    fn save(&self, task: A2aTask) -> Result<(), String> {
        push(
            &self.rec.store_calls,
            json!({"op": "save", "id": task.id, "state": task.status.state}),
        );
        self.tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(task.id.clone(), task);
        Ok(())
    }
}

/// One `serve` handle: the crate's ServeHandle, its toolkit id and its records.
pub struct Served {
    toolkit: String,
    handle: ServeHandle,
    rec: Arc<ServeRec>,
}

impl Served {
    /// The crate's stop is idempotent.
    fn stop(&self) {
        self.handle.stop();
    }
}

/// Every served handle of the session, by id.
#[derive(Default)]
pub struct Serves {
    handles: HashMap<String, Served>,
}

impl Serves {
    /// `close` of a toolkit stops the handles serving it.
    pub fn stop_toolkit(&self, toolkit: &str) {
        self.handles
            .values()
            .filter(|s| s.toolkit == toolkit)
            .for_each(Served::stop);
    }

    /// `shutdown` (and EOF) stop every handle.
    pub fn stop_all(&self) {
        self.handles.values().for_each(Served::stop);
    }

    /// PROTOCOL.md §5.23.
    pub async fn serve(
        &mut self,
        req: &Map<String, Value>,
        tk: &Toolkit,
        client: Option<&client_cmds::ClientEntry>,
    ) -> Res<Map<String, Value>> {
        let id = str_field(req, "id")?.to_owned();
        let tid = str_field(req, "toolkit")?.to_owned();
        let rec = Arc::new(ServeRec::default());
        let mut opts = ServeOptions {
            client: client.map(client_cmds::ClientEntry::client),
            ..Default::default()
        };
        if let Some(a2a) = req.get("a2a").filter(|v| !v.is_null()) {
            let mut a2a = a2a
                .as_object()
                .cloned()
                .ok_or_else(|| bad("\"a2a\" must be an object"))?;
            let recording = match a2a.get("store") {
                Some(Value::Object(o))
                    if o.len() == 1 && o.get("recording") == Some(&Value::Bool(true)) =>
                {
                    true
                }
                Some(s @ Value::Object(_)) => {
                    return Err(bad(format!(
                        "a2a.store object must be {{\"recording\": true}}, got {}",
                        compact(s)
                    )))
                }
                _ => false,
            };
            if recording {
                a2a.remove("store");
            }
            let mut cfg: A2aConfig =
                serde_json::from_value(Value::Object(a2a)).map_err(|e| bad(format!("a2a: {e}")))?;
            if recording {
                cfg.store = TaskStoreSpec::Custom(Arc::new(RecordingStore {
                    rec: rec.clone(),
                    tasks: Mutex::default(),
                }));
            }
            opts.a2a = Some(cfg);
        }
        if let Some(mcp) = req.get("mcp").filter(|v| !v.is_null()) {
            if !mcp.is_object() {
                return Err(bad("\"mcp\" must be an object"));
            }
            let cfg: McpServeConfig =
                serde_json::from_value(mcp.clone()).map_err(|e| bad(format!("mcp: {e}")))?;
            opts.mcp = Some(cfg);
        }
        if flag(req, "onTask")? {
            let r = rec.clone();
            opts.on_task = Some(Arc::new(move |ev: OnTaskEvent| {
                push(&r.on_task, on_task_json(&ev))
            }));
        }
        if flag(req, "onCall")? {
            let r = rec.clone();
            opts.on_call = Some(Arc::new(move |ev: OnCallEvent| {
                push(
                    &r.on_call,
                    json!({"name": ev.name, "source": ev.source, "ms": ev.ms, "isError": ev.is_error}),
                )
            }));
        }
        if let Some(old) = self.handles.remove(&id) {
            old.stop();
        }
        // PROTOCOL.md §5.23: the crate's serve failing is `raised`, not a driver error.
        let handle = match tk.serve("127.0.0.1:0", opts).await {
            Ok(handle) => handle,
            Err(e) => {
                let mut out = Map::new();
                out.insert("raised".into(), Value::String(e.to_string()));
                return Ok(out);
            }
        };
        let mut out = Map::new();
        out.insert("url".into(), Value::String(handle.url.clone()));
        self.handles.insert(
            id,
            Served {
                toolkit: tid,
                handle,
                rec,
            },
        );
        Ok(out)
    }

    /// PROTOCOL.md §5.24.
    pub fn stop(&self, req: &Map<String, Value>) -> Res<Map<String, Value>> {
        self.get(req)?.stop();
        Ok(Map::new())
    }

    /// PROTOCOL.md §5.25.
    pub fn records(&self, req: &Map<String, Value>) -> Res<Map<String, Value>> {
        let s = self.get(req)?;
        let mut out = Map::new();
        out.insert("onTask".into(), snapshot(&s.rec.on_task));
        out.insert("onCall".into(), snapshot(&s.rec.on_call));
        out.insert("storeCalls".into(), snapshot(&s.rec.store_calls));
        out.insert("toolCancels".into(), snapshot(&TOOL_CANCELS));
        Ok(out)
    }

    fn get(&self, req: &Map<String, Value>) -> Res<&Served> {
        let id = str_field(req, "serve")?;
        self.handles
            .get(id)
            .ok_or_else(|| bad(format!("no serve handle \"{id}\"")))
    }
}

fn flag(req: &Map<String, Value>, key: &str) -> Res<bool> {
    match req.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(bad(format!("\"{key}\" must be a boolean"))),
    }
}

/// The crate's `OnTaskEvent` as JSON: `skill` only when non-empty (the crate's "not given"),
/// `result` only when `Some`, as `run` answers a RunResult.
fn on_task_json(ev: &OnTaskEvent) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), Value::String(ev.id.clone()));
    if !ev.skill.is_empty() {
        m.insert("skill".into(), Value::String(ev.skill.clone()));
    }
    m.insert(
        "task".into(),
        serde_json::to_value(&ev.task).unwrap_or(Value::Null),
    );
    if let Some(r) = &ev.result {
        m.insert("result".into(), client_cmds::run_result_json(r));
    }
    m.insert("state".into(), Value::String(ev.state.clone()));
    Value::Object(m)
}
