//! Toolkit options (PROTOCOL.md §6) and the behaviour catalogue (§7): host code named as data.
//!
//! `null` values are taken as absent (§6: drivers SHOULD treat `null` as absent).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::messages::ToolSource;
pub use crate::source_options::{AgentDecl, Builtins, McpConfig};

/// Every option key (§6); an unknown key is a `bad_request`.
pub const OPTION_KEYS: [&str; 13] = [
    "builtins",
    "skillsDir",
    "skills",
    "skillProvider",
    "skillsFilter",
    "skillSampleLimit",
    "disableSkills",
    "extraTools",
    "disableTools",
    "waitFor",
    "mcpConfig",
    "agents",
    "relayTools",
];

/// `createToolkit` options, the SPEC's JS spelling (§6).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolkitOptions {
    /// §2/§4 MCP config: an object, a JSON text, or a file path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("type" = ["object", "string"]))]
    pub mcp_config: Option<McpConfig>,
    /// §3/§4 skill roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills_dir: Option<SkillsDir>,
    /// §3 S1 skills as data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<SkillDef>>,
    /// §3 S1 lazy provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_provider: Option<SkillProviderBehaviour>,
    /// §3 S2 name → keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills_filter: Option<BTreeMap<String, bool>>,
    /// §3 S5 sample limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_sample_limit: Option<i64>,
    /// §4 extra tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_tools: Option<Vec<ExtraTool>>,
    /// SPEC §10 addendum (a preview): relay tools, declared after the extra tools; a port
    /// without relay tools answers `unsupported`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay_tools: Option<Vec<RelayToolDecl>>,
    /// §4A toggle: a boolean or an object (and, on purpose, anything else).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtins: Option<Builtins>,
    /// §7A agent declarations, passed to the port's agent parser as they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<AgentDecl>>,
    /// §10 the `waitFor` slot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for: Option<WaitForBehaviour>,
    /// Final tool names dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_tools: Option<Vec<String>>,
    /// Skill names dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_skills: Option<Vec<String>>,
}

/// The skill-source keys of the options; `list_skills` reads only these and ignores the rest.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkillSourceOptions {
    /// §3/§4 skill roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills_dir: Option<SkillsDir>,
    /// §3 S1 skills as data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<SkillDef>>,
    /// §3 S1 lazy provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_provider: Option<SkillProviderBehaviour>,
}

impl ToolkitOptions {
    /// The skill-source part (what `list_skills` would read).
    pub fn skill_sources(&self) -> SkillSourceOptions {
        SkillSourceOptions {
            skills_dir: self.skills_dir.clone(),
            skills: self.skills.clone(),
            skill_provider: self.skill_provider.clone(),
        }
    }
}

/// `skillsDir`: one root or several.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum SkillsDir {
    /// One root.
    One(String),
    /// Several, searched in order.
    Many(Vec<String>),
}

impl SkillsDir {
    /// The roots, in order.
    pub fn paths(&self) -> Vec<String> {
        match self {
            SkillsDir::One(p) => vec![p.clone()],
            SkillsDir::Many(ps) => ps.clone(),
        }
    }
}

/// SPEC §3 S1 SkillDef. An empty or missing name is sendable on purpose (the port skips it).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillDef {
    /// The name (may be empty or absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Resource names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<String>>,
    /// The logical base.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
}

/// An extra tool (§7): a named behaviour, or an SPEC §7 HTTP tool's `http` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExtraTool {
    /// The tool name.
    pub name: String,
    /// Defaults to `""`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Defaults to `{"type":"object","properties":{}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    /// Defaults to `native`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ToolSource>,
    /// What the tool does (exactly one of `behaviour` and `http`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behaviour: Option<ToolBehaviour>,
    /// An HTTP tool's declaration, passed to the port's `httpTool` key for key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<Map<String, Value>>,
}

/// A relay tool's declaration (SPEC §10 addendum): `relayTool(name, description, schema)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RelayToolDecl {
    /// The tool name.
    pub name: String,
    /// Defaults to `""`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Defaults to `{"type":"object","properties":{}}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
}

/// A tool behaviour: an object with exactly one key (§7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ToolBehaviour {
    /// `{"echo": true}`: the arguments as compact JSON.
    Echo(bool),
    /// `{"text": T}`: success with `T`.
    Text(String),
    /// `{"fail": M}`: the native error path with `M`.
    Fail(String),
    /// `{"panic": M}`: an unexpected failure with `M`.
    Panic(String),
    /// `{"suspend": {...}}`: SPEC §10 pending, then the answer's data.
    Suspend(SuspendSpec),
    /// `{"awaitCancel": {"ms"?: N}}`: waits for the call's cancellation or `N` ms (§5.25).
    AwaitCancel(AwaitCancelSpec),
    /// `{"template": "data({{q}})"}`: success with each `{{arg}}` replaced by that string
    /// argument (other JSON values as compact JSON, absent ones as empty).
    Template(String),
    /// `{"parts": {output, parts}}`: success with `output` and these SPEC §1B parts, built
    /// with the port's own part type (§7).
    Parts(PartsSpec),
}

/// The `parts` behaviour's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PartsSpec {
    /// The result's `output`.
    pub output: String,
    /// The result's `parts`, in the SPEC's wire form.
    pub parts: Vec<crate::messages::ContentPart>,
}

/// The `awaitCancel` behaviour's bound.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AwaitCancelSpec {
    /// How long to wait for the cancellation signal; defaults to 10000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
}

/// The `suspend` behaviour's Request template.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SuspendSpec {
    /// Defaults to `approval`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Defaults to `""`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Present only when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Present only when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Present only when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// `true`: suspends on the retry with an answer too (the §10 `unresolved:` case).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub always: Option<bool>,
    /// `true`: the retry with an answer outputs the compact JSON of its arguments (as `echo`)
    /// instead of `answer.data`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo_args: Option<bool>,
    /// The retry with an `ok` answer outputs exactly this text (the shared agent fixtures'
    /// `check_secret`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_text: Option<String>,
}

/// A skill provider behaviour (§7): exactly one key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SkillProviderBehaviour {
    /// Returns these defs.
    Skills(Vec<SkillDef>),
    /// Raises this message.
    Fail(String),
}

/// A `waitFor` behaviour (§7): exactly one key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum WaitForBehaviour {
    /// Answers `{id: request.id, ok, data?, reason?}`.
    Answer(AnswerTemplate),
    /// `{"echoRequest": true}`: accepts with the Request flattened as `data`.
    EchoRequest(bool),
}

/// The answer a `waitFor` `answer` behaviour gives (the id comes from the request).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerTemplate {
    /// Defaults to `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ok: Option<bool>,
    /// The payload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Why not, when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
