//! What a request asks of a port: its command, the option keys it sets and the named
//! behaviours (PROTOCOL.md §6, §6A, §7) it uses. `porting` adds these up per scenario; a run
//! records which of them a port answered `unsupported` (the scenario's [`Blocker`]).

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use toolnexus_protocol::Command;

/// Which part of a request a [`Need`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NeedKind {
    /// The command itself.
    Command,
    /// An option key (`build`'s `skillsDir`, `client`'s `hooks`) or an optional request field
    /// a port may lack (`execute`'s `context`, `serve`'s `mcp`). `build`'s `builtins` is a
    /// need when the builtin tools are on (the key absent, PROTOCOL.md §6's default, or any
    /// value but an off form), not when it turns them off.
    Option,
    /// A named behaviour (§7), as `slot:name` (`extraTools:echo`, `hooks.beforeLLM:observe`).
    Behaviour,
}

/// One thing a port must implement to answer a request: a command, or an option or behaviour
/// of one. Ordered by command first, so sorted lists keep a command's needs together.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Need {
    /// The command.
    pub command: Command,
    /// Command, option or behaviour.
    pub kind: NeedKind,
    /// The option key or the `slot:name` of the behaviour; absent for a command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Need {
    /// The command alone.
    pub fn command(command: Command) -> Need {
        Need {
            command,
            kind: NeedKind::Command,
            name: None,
        }
    }

    /// An option key of `command`.
    pub fn option(command: Command, key: &str) -> Need {
        Need {
            command,
            kind: NeedKind::Option,
            name: Some(key.to_string()),
        }
    }

    /// A behaviour `slot:name` used by a `command` request.
    pub fn behaviour(command: Command, slot: &str, name: &str) -> Need {
        Need {
            command,
            kind: NeedKind::Behaviour,
            name: Some(format!("{slot}:{name}")),
        }
    }
}

/// `build`, `build.extraTools`, `build.extraTools:echo`: the command, then the option key or
/// behaviour after a dot.
impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            None => f.write_str(self.command.as_str()),
            Some(name) => write!(f, "{}.{name}", self.command.as_str()),
        }
    }
}

/// The commands every session sends whatever the scenario: not counted as a scenario's needs.
pub const ALWAYS: [Command; 2] = [Command::Hello, Command::Shutdown];

/// Optional request fields (outside `options`) that a port may not implement, so that a
/// driver answers `unsupported` to them (PROTOCOL.md §5): counted as options of their command.
const OPTIONAL_FIELDS: [(Command, &str); 10] = [
    (Command::Execute, "context"),
    (Command::Execute, "abortAfterMs"),
    (Command::Run, "cancelAfterMs"),
    (Command::Stream, "cancelAfterMs"),
    (Command::Ask, "onText"),
    (Command::Serve, "a2a"),
    (Command::Serve, "mcp"),
    (Command::Serve, "onTask"),
    (Command::Serve, "onCall"),
    (Command::AgentRuntime, "tools"),
];

/// The option keys whose value is one behaviour object (§7: exactly one key), in `options`
/// and in an agent registry's defs; `hooks` holds one per hook, and an extra tool's
/// `behaviour` (in `extraTools`, `tools`) is one too.
const BEHAVIOUR_SLOTS: [&str; 10] = [
    "skillProvider",
    "waitFor",
    "onError",
    "onMetric",
    "onBudget",
    "store",
    "generate",
    "bodyTransform",
    "summarize",
    "countTokens",
];

/// What `request` (a protocol request object) needs: its command, each option key it sets and
/// each behaviour it names; empty for `hello`, `shutdown` ([`ALWAYS`]) and for an object
/// naming no protocol command. Only option objects, agent defs and tool lists are searched
/// for behaviours: arguments, transcripts and answers are data, whatever their keys.
pub fn of_request(request: &Value) -> BTreeSet<Need> {
    let mut needs = BTreeSet::new();
    let Some(command) = request
        .get("cmd")
        .and_then(Value::as_str)
        .and_then(Command::parse)
    else {
        return needs;
    };
    if ALWAYS.contains(&command) {
        return needs;
    }
    needs.insert(Need::command(command));
    if let Some(options) = request.get("options").and_then(Value::as_object) {
        for (key, value) in options {
            if !value.is_null() {
                needs.insert(Need::option(command, key));
            }
        }
        slots(command, options, &mut needs);
    }
    if command == Command::Build {
        let builtins = Need::option(command, "builtins");
        if builtins_on(request) {
            needs.insert(builtins);
        } else {
            needs.remove(&builtins);
        }
    }
    for (cmd, field) in OPTIONAL_FIELDS {
        if cmd == command && request.get(field).is_some_and(|v| !v.is_null()) {
            needs.insert(Need::option(command, field));
        }
    }
    let defs = request.get("registry").and_then(Value::as_object);
    for def in defs.into_iter().flat_map(|d| d.values()) {
        if let Some(def) = def.as_object() {
            slots(command, def, &mut needs);
        }
    }
    if let Some(tools) = request.get("tools") {
        tool_behaviours(command, "tools", tools, &mut needs);
    }
    needs
}

/// Whether a `build` request leaves the builtin tools on: its `builtins` option, else the
/// `builtins` key of an `mcpConfig` object, is absent or not one of PROTOCOL.md §6's off
/// forms (`false`, `{disabled: true}`, `{enabled: false}`).
fn builtins_on(request: &Value) -> bool {
    let given = |path: &str| request.pointer(path).filter(|v| !v.is_null());
    let value = given("/options/builtins").or_else(|| given("/options/mcpConfig/builtins"));
    let off = |v: &Value| {
        v == &Value::Bool(false)
            || v.get("disabled") == Some(&Value::Bool(true))
            || v.get("enabled") == Some(&Value::Bool(false))
    };
    !value.is_some_and(off)
}

/// Adds the behaviours of an options object (or an agent def).
fn slots(command: Command, object: &Map<String, Value>, out: &mut BTreeSet<Need>) {
    for (key, value) in object {
        match key.as_str() {
            "extraTools" | "tools" => tool_behaviours(command, key, value, out),
            "hooks" => {
                for (hook, behaviour) in value.as_object().into_iter().flatten() {
                    if let Some(name) = one_key(behaviour) {
                        out.insert(Need::behaviour(command, &format!("hooks.{hook}"), name));
                    }
                }
            }
            slot if BEHAVIOUR_SLOTS.contains(&slot) => {
                if let Some(name) = one_key(value) {
                    out.insert(Need::behaviour(command, slot, name));
                }
            }
            _ => {}
        }
    }
}

/// Adds the behaviours of a list of extra tools under `slot`: each tool's `behaviour`, or
/// `http` for an HTTP tool (§7 "HTTP tools"); a list of names (an agent def's `tools`) has none.
fn tool_behaviours(command: Command, slot: &str, tools: &Value, out: &mut BTreeSet<Need>) {
    for tool in tools.as_array().into_iter().flatten() {
        if let Some(name) = tool.get("behaviour").and_then(one_key) {
            out.insert(Need::behaviour(command, slot, name));
        } else if tool.get("http").is_some_and(Value::is_object) {
            out.insert(Need::behaviour(command, slot, "http"));
        }
    }
}

/// The one key of a behaviour object; `None` for anything else.
fn one_key(value: &Value) -> Option<&str> {
    match value.as_object() {
        Some(object) if object.len() == 1 => object.keys().next().map(String::as_str),
        _ => None,
    }
}

/// Why a scenario was skipped, when a port's answer says (the JSON report's `blockedBy`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Blocker {
    /// The port's `hello` did not list the scenario's SPEC section in `implements`.
    Section(String),
    /// The port answered `unsupported` to a request: the option or behaviour of it that the
    /// port's message names, else the command.
    Unsupported(Need),
}

/// `declare §4A in hello`, or the need as [`Need`] shows it.
impl fmt::Display for Blocker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Blocker::Section(s) => write!(f, "declare §{s} in hello's implements"),
            Blocker::Unsupported(need) => need.fmt(f),
        }
    }
}

/// The option keys `command` takes (PROTOCOL.md §6, §6A, §5.26, §5.27); none for the rest.
fn option_keys(command: Command) -> &'static [&'static str] {
    use toolnexus_protocol::{agent, client, compact, options};
    match command {
        Command::Build => &options::OPTION_KEYS,
        Command::Client => &client::CLIENT_OPTION_KEYS,
        Command::Compact => &compact::COMPACT_OPTION_KEYS,
        Command::AgentRuntime => &agent::AGENT_RUNTIME_OPTION_KEYS,
        _ => &[],
    }
}

/// What a port refused when it answered `message` (kind `unsupported`) to a request whose
/// needs ([`of_request`]) are `needs`: the most specific of them that the message names (a
/// behaviour before an option), else an option key of the command that the request left out,
/// so at its default, else the command. `None` when the request needs nothing (`hello`).
pub fn refused(needs: &BTreeSet<Need>, message: &str) -> Option<Need> {
    let command = needs.first().map(|n| n.command)?;
    let said = spellings(message);
    let named = |need: &&Need| {
        let name = need.name.as_deref().unwrap_or_default();
        // `hooks.beforeLLM:observe` is named by `observe`; `extraTools` by itself.
        let last = name.rsplit([':', '.']).next().unwrap_or(name);
        said.contains(&last.to_lowercase())
    };
    let pick = |kind: NeedKind| needs.iter().filter(|n| n.kind == kind).find(named).cloned();
    let unset = || {
        let keys = option_keys(command).iter();
        keys.map(|k| Need::option(command, k)).find(|n| named(&n))
    };
    pick(NeedKind::Behaviour)
        .or_else(|| pick(NeedKind::Option))
        .or_else(unset)
        .or(Some(Need::command(command)))
}

/// The names `message` may spell, lowercased: each word, and each run of two or three words
/// joined, so that `relayTools` is named by `relayTools`, `relay_tools` and `relay tools`.
fn spellings(message: &str) -> BTreeSet<String> {
    let words: Vec<String> = message
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(|w| w.replace('_', "").to_lowercase())
        .collect();
    (1..=3)
        .flat_map(|n| words.windows(n).map(|w| w.concat()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn labels(needs: &BTreeSet<Need>) -> Vec<String> {
        needs.iter().map(Need::to_string).collect()
    }

    #[test]
    fn a_build_needs_its_command_option_keys_and_behaviours() {
        let request = json!({"cmd": "build", "id": "t", "options": {
            "builtins": false,
            "skillsDir": null,
            "extraTools": [
                {"name": "a", "behaviour": {"echo": true}},
                {"name": "b", "behaviour": {"suspend": {"kind": "approval"}}},
                {"name": "h", "http": {"url": "http://x"}}
            ],
            "skillProvider": {"fail": "boom"},
            "waitFor": {"answer": {"ok": true}}
        }});
        assert_eq!(
            labels(&of_request(&request)),
            vec![
                "build",
                "build.extraTools",
                "build.skillProvider",
                "build.waitFor",
                "build.extraTools:echo",
                "build.extraTools:http",
                "build.extraTools:suspend",
                "build.skillProvider:fail",
                "build.waitFor:answer",
            ]
        );
    }

    #[test]
    fn builtins_are_a_need_when_on_by_default_or_by_value_not_when_turned_off() {
        let on = |options: Value| {
            of_request(&json!({"cmd": "build", "id": "t", "options": options}))
                .contains(&Need::option(Command::Build, "builtins"))
        };
        assert!(on(json!({})));
        assert!(on(json!({"builtins": null})));
        assert!(on(json!({"builtins": true})));
        assert!(on(json!({"builtins": {"tools": {"bash": false}}})));
        assert!(on(json!({"builtins": "yes"})));
        assert!(!on(json!({"builtins": false})));
        assert!(!on(json!({"builtins": {"disabled": true}})));
        assert!(!on(json!({"builtins": {"enabled": false}})));
        // An MCP config's own `builtins` applies when the option is absent.
        assert!(!on(
            json!({"mcpConfig": {"mcpServers": {}, "builtins": false}})
        ));
        assert!(on(
            json!({"mcpConfig": {"builtins": false}, "builtins": true})
        ));
        assert!(of_request(&json!({"cmd": "build", "id": "t"}))
            .contains(&Need::option(Command::Build, "builtins")));
    }

    #[test]
    fn client_hooks_optional_fields_and_nested_defs_are_found() {
        let client = json!({"cmd": "client", "id": "c", "options": {
            "baseUrl": "http://llm", "hooks": {"beforeLLM": {"observe": true}, "afterTool": {"prefix": "P"}},
            "onError": {"answer": "retry"}}});
        assert_eq!(
            labels(&of_request(&client)),
            vec![
                "client",
                "client.baseUrl",
                "client.hooks",
                "client.onError",
                "client.hooks.afterTool:prefix",
                "client.hooks.beforeLLM:observe",
                "client.onError:answer",
            ]
        );
        let execute = json!({"cmd": "execute", "toolkit": "t", "name": "n", "args": {"behaviour": {"x": 1}},
            "context": {"answer": {"id": "r", "ok": true}}});
        // Arguments and answers are data, whatever their keys: only the §7 slots are behaviours.
        assert_eq!(
            labels(&of_request(&execute)),
            vec!["execute", "execute.context"]
        );
        let runtime = json!({"cmd": "agent_runtime", "id": "r", "baseUrl": "u", "style": "openai",
            "registry": {"asker": {"does": "d", "model": "m", "waitFor": {"echoRequest": true}}},
            "tools": [{"name": "t", "behaviour": {"text": "T"}}]});
        assert_eq!(
            labels(&of_request(&runtime)),
            vec![
                "agent_runtime",
                "agent_runtime.tools",
                "agent_runtime.tools:text",
                "agent_runtime.waitFor:echoRequest",
            ]
        );
        for always in [
            json!({"cmd": "hello", "protocol": 1}),
            json!({"cmd": "shutdown"}),
            json!({"x": 1}),
        ] {
            assert!(of_request(&always).is_empty(), "{always}");
        }
    }

    #[test]
    fn the_refused_need_is_the_one_the_message_names_else_the_command() {
        let request = json!({"cmd": "build", "id": "t", "options": {
            "builtins": false, "extraTools": [{"name": "a", "behaviour": {"suspend": {}}}]}});
        let refused = |m: &str| refused(&of_request(&request), m).map(|n| n.to_string());
        assert_eq!(
            refused("unknown tool behaviour {\"suspend\":{}}").as_deref(),
            Some("build.extraTools:suspend")
        );
        assert_eq!(
            refused("option builtins is not implemented").as_deref(),
            Some("build.builtins")
        );
        assert_eq!(refused("no such thing").as_deref(), Some("build"));
        // An option at its default: the request left `builtins` out, which means all on.
        let default = json!({"cmd": "build", "id": "t", "options": {"extraTools": []}});
        assert_eq!(
            super::refused(
                &of_request(&default),
                "builtin tools (SPEC §4A); only builtins: false"
            )
            .map(|n| n.to_string()),
            Some("build.builtins".to_string())
        );
        // A camelCase name spelled as words, or in snake case.
        let relay = json!({"cmd": "build", "id": "t", "options": {"relayTools": []}});
        assert_eq!(
            super::refused(&of_request(&relay), "this toolnexus has no relay tools")
                .map(|n| n.to_string()),
            Some("build.relayTools".to_string())
        );
        let ask = json!({"cmd": "ask", "client": "c", "prompt": "p", "onText": true});
        assert_eq!(
            super::refused(&of_request(&ask), "this client's ask takes no \"on_text\"")
                .map(|n| n.to_string()),
            Some("ask.onText".to_string())
        );
        // A word inside another word names nothing.
        assert_eq!(refused("suspended builtinsX").as_deref(), Some("build"));
        assert_eq!(
            super::refused(&of_request(&json!({"cmd": "nope"})), "x"),
            None
        );
    }

    #[test]
    fn a_blocker_reads_as_what_to_do_and_serialises_tagged() {
        let section = Blocker::Section("4A".into());
        assert_eq!(section.to_string(), "declare §4A in hello's implements");
        let need = Blocker::Unsupported(Need::option(Command::Build, "builtins"));
        assert_eq!(need.to_string(), "build.builtins");
        assert_eq!(
            serde_json::to_value(&need).unwrap(),
            json!({"unsupported": {"command": "build", "kind": "option", "name": "builtins"}})
        );
        assert_eq!(
            serde_json::to_value(&section).unwrap(),
            json!({"section": "4A"})
        );
        let back: Blocker = serde_json::from_value(serde_json::to_value(&need).unwrap()).unwrap();
        assert_eq!(back, need);
    }
}
