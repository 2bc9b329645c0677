//! The `agent_*` commands' typed parts (PROTOCOL.md §5.27, SPEC §7D–§7E): what `agent_runtime`
//! carries (the registry, the runtime options, budgets) and every agent command's answer.
//!
//! Free-form SPEC data stays `serde_json::Value`: tool arguments and results' metadata, stored
//! transcripts, trace entries (whose inner shapes the SPEC leaves partly to the port) and the
//! answers' nested objects the harness compares by JSON path only.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::client::{HookBehaviours, OnMetricBehaviour};
use crate::messages::ToolResult;
use crate::options::WaitForBehaviour;

/// The keys an `agent_runtime` registry entry may carry (an unknown one is `bad_request`).
pub const AGENT_DEF_KEYS: [&str; 11] = [
    "does", "model", "soul", "team", "tools", "budget", "waitFor", "hooks", "onMetric", "home",
    "memory",
];

/// The keys of `agent_runtime`'s `options` (an unknown one is `bad_request`).
pub const AGENT_RUNTIME_OPTION_KEYS: [&str; 6] = [
    "inboxCap",
    "maxConcurrentTurns",
    "shutdownMs",
    "hooks",
    "onMetric",
    "onBudget",
];

/// The refusals of an `agent_runtime` request that name a key (PROTOCOL.md §5.27), checked
/// before the typed decode so their words are the driver's own, not serde's: `options` or a
/// registry entry that is no object, an unknown option, an unknown registry-entry key.
pub fn check_runtime_keys(request: &Value) -> Result<(), String> {
    match request.get("options") {
        None | Some(Value::Null) => {}
        Some(Value::Object(o)) => {
            if let Some(k) = o
                .keys()
                .find(|k| !AGENT_RUNTIME_OPTION_KEYS.contains(&k.as_str()))
            {
                return Err(format!("unknown agent runtime option \"{k}\""));
            }
        }
        Some(_) => return Err("\"options\" must be an object".into()),
    }
    let defs = match request.get("registry") {
        // Missing: serde names the missing field, as for every command.
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Object(defs)) => defs,
        Some(_) => return Err("needs a \"registry\" object {name: def}".into()),
    };
    for (name, d) in defs {
        let Some(d) = d.as_object() else {
            return Err(format!("registry entry \"{name}\" must be an object"));
        };
        if let Some(k) = d.keys().find(|k| !AGENT_DEF_KEYS.contains(&k.as_str())) {
            return Err(format!("registry entry \"{name}\": unknown key \"{k}\""));
        }
    }
    Ok(())
}

/// The keys of a SPEC §7D `Budget`, in the SPEC's order (an unknown one is `bad_request`).
pub const AGENT_BUDGET_KEYS: [&str; 7] = [
    "maxTurns",
    "maxTokens",
    "maxToolCalls",
    "maxWallMs",
    "maxChildren",
    "maxConcurrent",
    "maxDepth",
];

/// SPEC §7D `Budget`: each limit absent (or `null`) is no limit.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentBudget {
    /// LLM round trips of the handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u64>,
    /// Tokens of the handle and everything it spawned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Tool calls of the handle and everything it spawned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u64>,
    /// Virtual milliseconds one run may take.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wall_ms: Option<u64>,
    /// Live children at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_children: Option<u64>,
    /// Running children at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrent: Option<u64>,
    /// Levels below the handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<u64>,
}

/// One registry entry: `{does, model, soul?, team?, tools?, budget?, waitFor?, hooks?,
/// onMetric?, home?, memory?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentDefSpec {
    /// What the agent does (its tool description); absent ⇒ empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub does: Option<String>,
    /// The model its turns ask for.
    pub model: String,
    /// Its system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soul: Option<String>,
    /// The defs it may spawn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<Vec<String>>,
    /// The runtime's extra tools it may call, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Its default budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<AgentBudget>,
    /// Its §10 interpreter: the §7 `waitFor` behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for: Option<WaitForBehaviour>,
    /// Its §8 hooks: the §7 client hook behaviours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks: Option<HookBehaviours>,
    /// Its metric sink: the §7 client `onMetric` behaviour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_metric: Option<OnMetricBehaviour>,
    /// Its home directory (SPEC §7D homes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
    /// Whether it keeps memory in its home.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub memory: bool,
}

/// `registry` {name: def}, in the order the request lists them (a map would sort them, and
/// the order is the runtime's registration order).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgentRegistry(pub Vec<(String, AgentDefSpec)>);

impl Serialize for AgentRegistry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl schemars::JsonSchema for AgentRegistry {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AgentRegistry".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = g.subschema_for::<BTreeMap<String, AgentDefSpec>>();
        schema.insert(
            "description".into(),
            "{name: def}, in the order the runtime registers them.".into(),
        );
        schema
    }
}

impl<'de> Deserialize<'de> for AgentRegistry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = AgentRegistry;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object {name: def}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AgentRegistry, A::Error> {
                let mut defs = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    defs.push(entry);
                }
                Ok(AgentRegistry(defs))
            }
        }
        d.deserialize_map(Entries)
    }
}

/// `onBudget`: the answer the host callback gives for every stop. Kept as text: `suspend` is a
/// SPEC answer a port may not implement (`unsupported`), anything else is `bad_request`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnBudgetBehaviour {
    /// `stop` | `extend` (| `suspend`).
    pub answer: String,
}

/// `agent_runtime`'s `options`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentRuntimeOptions {
    /// Items an inbox holds before a post is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbox_cap: Option<u64>,
    /// LLM calls in flight at once, runtime-wide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrent_turns: Option<u64>,
    /// The close deadline, in virtual ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shutdown_ms: Option<u64>,
    /// The runtime-wide §8 hooks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hooks: Option<HookBehaviours>,
    /// The runtime-wide metric sink.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_metric: Option<OnMetricBehaviour>,
    /// The `onBudget(info)` callback.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_budget: Option<OnBudgetBehaviour>,
}

/// SPEC §7D `AgentResult` as the protocol shows it (open: a port may add keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentResult {
    /// The handle whose run this is.
    pub handle: String,
    /// `done`, `pending`, `incomplete`, `interrupted`, `closed`, `timeout` or `error`; text, so
    /// a port's other word reaches the scenario that names the vocabulary.
    pub status: String,
    /// The final text.
    pub text: String,
    /// Whether the run failed.
    pub is_error: bool,
    /// The run's own LLM round trips.
    pub turns: u64,
    /// The run's tokens with its children's rolled up (`prompt_tokens`, ...: provider-shaped).
    pub usage: Value,
    /// The limit that stopped an `incomplete` run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// The §10 Request a `pending` run is parked on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<crate::messages::SuspensionRequest>")]
    pub pending: Option<Value>,
    /// Why the run failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Whatever else the port sends.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// A verb the port refused answers data, not the error envelope (PROTOCOL.md §5.27).
#[derive(Debug, Clone, PartialEq)]
pub enum Refusable<T> {
    /// The verb's answer.
    Done(T),
    /// `{error}`: the port's words.
    Refused(String),
}

/// `agent_spawn`'s answer.
#[derive(Debug, Clone, PartialEq)]
pub enum SpawnResponse {
    /// `{handle, budget:{effective}}` (`budget` as the port renders it).
    Spawned {
        /// The new handle's id.
        handle: String,
        /// `{effective}`.
        budget: Option<Value>,
    },
    /// `{error: ToolResult}` naming the cap.
    Refused(ToolResult),
}

/// `agent_wake`'s answer when the wake was taken.
#[derive(Debug, Clone, PartialEq)]
pub struct WakeResponse {
    /// The handle's state after the wake.
    pub state: String,
    /// Whether it waits FIFO behind its parent's `maxConcurrent`.
    pub queued: Option<bool>,
}

/// `agent_list`'s one entry (open).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HandleInfo {
    /// The handle id.
    pub id: String,
    /// Its def's name.
    pub def: String,
    /// Its state.
    pub state: String,
    /// Whatever else the port sends.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// `agent_inspect`'s answer (open: the budget, children, usage, inbox, ... stay JSON, compared
/// by path).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectResponse {
    /// The handle id.
    pub id: String,
    /// Its def's name.
    pub def: String,
    /// Its state.
    pub state: String,
    /// Items in its inbox.
    pub inbox_len: u64,
    /// Everything else the port sends.
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

/// `agent_execute`'s answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentExecuteResponse {
    /// `agent(def).asTool()`'s description (checked by the scenario, not by the decode).
    pub tool: Value,
    /// The execute's result.
    pub result: ToolResult,
}

/// `agent_trace`'s answer: per handle, its transitions; the other lists stay JSON (§5.27).
#[derive(Debug, Clone, PartialEq)]
pub struct TraceResponse {
    /// Per handle, `"from→to"` in order.
    pub transitions: BTreeMap<String, Vec<String>>,
    /// Everything else the port sends (`events`, `onSpawn`, `hookCalls`, `now`, ...).
    pub rest: serde_json::Map<String, Value>,
}

/// `agent_post`'s answer: `{accepted}`, with `error` when refused.
#[derive(Debug, Clone, PartialEq)]
pub struct PostResponse {
    /// Whether the inbox took the item.
    pub accepted: bool,
    /// The refusal, when not.
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key list the drivers check a budget against is exactly the typed budget's fields,
    /// in the same order: a field added to one and not the other fails here.
    #[test]
    fn the_budget_keys_are_the_typed_budgets_fields() {
        let all = AgentBudget {
            max_turns: Some(1),
            max_tokens: Some(1),
            max_tool_calls: Some(1),
            max_wall_ms: Some(1),
            max_children: Some(1),
            max_concurrent: Some(1),
            max_depth: Some(1),
        };
        let json = serde_json::to_value(all).unwrap_or_default();
        let fields: Vec<&str> = json
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(fields, AGENT_BUDGET_KEYS);
    }
}
