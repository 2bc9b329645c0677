//! §4 the toolkit: every source assembled into one ordered, deduplicated namespace.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use serde_json::Value;

use super::a2a;
use super::adapters::{self, Format};
use super::builtins;
use super::mcp::{self, config as mcp_config};
use super::relay;
use super::sanitize::sanitize;
use super::skills::{self, SkillInfo, SkillSources};
use super::suspension::WaitFor;
use super::tool::{Context, Source, Tool, ToolResult};

/// Everything `createToolkit` accepts (seed 001's option list, SPEC §4 spelling).
#[derive(Clone, Default)]
pub struct ToolkitOptions {
    /// §2 MCP config: a parsed object, a JSON string, or a file path.
    pub mcp_config: Option<Value>,
    /// §3 skill roots, data skills and provider.
    pub skills: SkillSources,
    /// §3 S2 name→bool filter over the catalog.
    pub skills_filter: BTreeMap<String, bool>,
    /// §3 S5 sample cap: 0 ⇒ 10, n>0 ⇒ n, -1 ⇒ no `<skill_files>` block.
    pub skill_sample_limit: i64,
    /// Skill names dropped from the catalog (folded in before `skills_filter`).
    pub disable_skills: Vec<String>,
    /// §4A toggle; `None` means on.
    pub builtins: Option<Value>,
    /// §7A remote agents.
    pub agents: Vec<Value>,
    /// Host tools (native, HTTP, ...).
    pub extra_tools: Vec<Tool>,
    /// Final exposed names dropped across every source.
    pub disable_tools: Vec<String>,
    /// The §10 host resolver, carried for the MCP elicitation bridge and the client.
    pub wait_for: Option<WaitFor>,
}

/// §4 Toolkit.
#[derive(Default)]
pub struct Toolkit {
    mcp: mcp::McpSource,
    tools: Vec<Tool>,
    catalog: Arc<Vec<SkillInfo>>,
    statuses: BTreeMap<String, String>,
    errors: BTreeMap<String, String>,
    warnings: Vec<String>,
    wait_for: Option<WaitFor>,
    /// The config file's reserved `a2a` and `mcpServer` blocks, kept for `serve` (§7B, §7C).
    serve_blocks: ServeBlocks,
    closed: bool,
    /// A §7D handle's view: no skill catalog at all, so no skills prompt either.
    no_catalog: bool,
}

/// The config file's reserved serve profiles, as written.
#[derive(Debug, Clone, Default)]
pub(crate) struct ServeBlocks {
    /// The top-level `a2a` block (§7B).
    pub(crate) a2a: Option<Value>,
    /// The top-level `mcpServer` block (§7C).
    pub(crate) mcp_server: Option<Value>,
}

/// The status key of the builtin source.
pub const BUILTIN_STATUS_KEY: &str = "builtin";
/// The error key of a failing skill provider.
pub const SKILL_PROVIDER_ERROR_KEY: &str = "<skill-provider>";

impl Toolkit {
    /// A toolkit of exactly these tools (no builtins, skills or MCP): the filtered view a
    /// §7D agent handle runs with.
    pub fn from_tools(tools: Vec<Tool>) -> Toolkit {
        Toolkit {
            tools,
            no_catalog: true,
            ..Toolkit::default()
        }
    }

    /// `createToolkit` with the §10 relay guard: a relay tool among `extra_tools` named like a
    /// builtin fails construction, whether builtins are on or off (the only build failure;
    /// every other failing source stays a status and an error entry).
    pub async fn try_build(options: ToolkitOptions) -> Result<Toolkit, relay::RelayCollision> {
        relay::check_collisions(&options.extra_tools)?;
        Ok(Toolkit::build(options).await)
    }

    /// Builds a toolkit; every failing source becomes a status and an error entry, never a panic.
    /// It does not apply the relay guard: hosts declaring relay tools use `try_build`.
    pub async fn build(options: ToolkitOptions) -> Toolkit {
        let mut tk = Toolkit {
            wait_for: options.wait_for.clone(),
            ..Toolkit::default()
        };

        let mut builtins_cfg = options.builtins.clone();
        let parsed = tk.parse_config(options.mcp_config.as_ref(), &mut builtins_cfg);
        let agents_block = parsed.as_ref().and_then(|p| p.root.get("agents").cloned());
        tk.serve_blocks = ServeBlocks {
            a2a: parsed.as_ref().and_then(|p| p.root.get("a2a").cloned()),
            mcp_server: parsed
                .as_ref()
                .and_then(|p| p.root.get("mcpServer").cloned()),
        };
        // MCP servers and agents are independent sources: load them side by side.
        let (mcp_source, (agent_tools, agent_errors)) = futures::future::join(
            mcp::load_opt(parsed.as_ref(), tk.wait_for.clone()),
            load_agents(&options.agents, agents_block.as_ref()),
        )
        .await;
        tk.statuses.extend(mcp_source.statuses.clone());
        tk.errors.extend(mcp_source.errors.clone());
        tk.errors.extend(agent_errors);
        tk.warnings.extend(mcp_source.warnings.clone());
        tk.mcp = mcp_source;
        let mcp_tools = std::mem::take(&mut tk.mcp.tools);

        let skill_tool = tk.load_skills(&options);

        let builtin_on = !builtins::source_disabled(builtins_cfg.as_ref());
        tk.statuses.insert(
            BUILTIN_STATUS_KEY.to_string(),
            if builtin_on { "connected" } else { "disabled" }.to_string(),
        );
        let builtin_tools = builtins::select_builtins(builtins_cfg.as_ref());

        tk.tools = assemble(
            mcp_tools,
            skill_tool,
            builtin_tools,
            agent_tools,
            sanitize_names(options.extra_tools, &mut tk.warnings),
        );
        let disabled: HashSet<&str> = options.disable_tools.iter().map(String::as_str).collect();
        tk.tools.retain(|t| !disabled.contains(t.name.as_str()));
        tk
    }

    /// Parses the MCP config (its errors go under `<config>`); also honours a top-level
    /// `builtins` key in the parsed config when the option itself is absent (§4).
    fn parse_config(
        &mut self,
        config: Option<&Value>,
        builtins_cfg: &mut Option<Value>,
    ) -> Option<mcp_config::McpConfig> {
        let parsed = match mcp_config::parse(config?) {
            Ok(parsed) => parsed,
            Err(e) => {
                self.errors
                    .insert(mcp_config::CONFIG_ERROR_KEY.to_string(), e.to_string());
                return None;
            }
        };
        if builtins_cfg.is_none() {
            *builtins_cfg = parsed.root.get("builtins").cloned();
        }
        Some(parsed)
    }

    /// Loads, filters and wraps the skill catalog into the one `skill` tool.
    fn load_skills(&mut self, options: &ToolkitOptions) -> Tool {
        let inventory = skills::load(&options.skills);
        if let Some(err) = &inventory.provider_error {
            self.errors.insert(
                SKILL_PROVIDER_ERROR_KEY.to_string(),
                format!("skill provider failed: {err}"),
            );
        }
        self.warnings.extend(inventory.warnings.iter().cloned());
        let mut filter: BTreeMap<String, bool> = options
            .disable_skills
            .iter()
            .map(|n| (n.clone(), false))
            .collect();
        filter.extend(options.skills_filter.iter().map(|(k, v)| (k.clone(), *v)));
        let (catalog, warning) = skills::catalog(inventory.skills, &filter);
        self.warnings.extend(warning);
        // One catalog, shared by the `skill` tool and the prompt: a large tree is not copied
        // (not even once into an `Arc<[_]>`: a vector's buffer is shared as it is).
        self.catalog = Arc::new(catalog);
        skills::skill_tool(Arc::clone(&self.catalog), options.skill_sample_limit)
    }

    /// `tools()`: the assembled tools in §4 order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool names, sorted, so two runtimes emit the same array.
    pub fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tools.iter().map(|t| t.name.clone()).collect();
        names.sort();
        names
    }

    /// `get(name)`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// `execute(name, args, ctx)`: unknown names are an `isError` result.
    pub async fn execute(&self, name: &str, args: Value, ctx: &Context) -> ToolResult {
        match self.get(name) {
            Some(tool) => tool.execute(args, ctx).await,
            None => ToolResult::error(format!("Unknown tool: {name}")),
        }
    }

    /// `skillsPrompt()`, derived from the same catalog the `skill` tool reads.
    pub fn skills_prompt(&self) -> String {
        if self.no_catalog {
            return String::new();
        }
        skills::skills_prompt(&self.catalog)
    }

    /// The filtered skill catalog.
    pub fn skills(&self) -> &[SkillInfo] {
        &self.catalog
    }

    /// Source statuses: `builtin` plus one per MCP server.
    pub fn statuses(&self) -> &BTreeMap<String, String> {
        &self.statuses
    }

    /// Failures only, keyed by source (`<config>`, server name, `agent:<card>`, ...).
    pub fn errors(&self) -> &BTreeMap<String, String> {
        &self.errors
    }

    /// Warnings raised while building (duplicate skills, unknown filter names).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The host resolver passed at build.
    pub fn wait_for(&self) -> Option<&WaitFor> {
        self.wait_for.as_ref()
    }

    /// One provider's schema array.
    pub fn adapter(&self, format: Format) -> Value {
        adapters::render(format, &self.tools)
    }

    /// Closes every connection the toolkit opened; calling it again does nothing.
    pub async fn close(&mut self) {
        self.mcp.close().await;
        self.closed = true;
    }

    /// Whether `close` has run.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The config file's serve profiles (§7B `a2a`, §7C `mcpServer`).
    pub(crate) fn serve_blocks(&self) -> &ServeBlocks {
        &self.serve_blocks
    }

    /// A view sharing this toolkit's tools and catalog but owning no connections, so a
    /// server can hold it for its lifetime; closing the original still ends its sessions.
    pub(crate) fn shared_view(&self) -> Toolkit {
        Toolkit {
            mcp: mcp::McpSource::default(),
            tools: self.tools.clone(),
            catalog: self.catalog.clone(),
            statuses: self.statuses.clone(),
            errors: self.errors.clone(),
            warnings: self.warnings.clone(),
            wait_for: self.wait_for.clone(),
            serve_blocks: self.serve_blocks.clone(),
            closed: false,
            no_catalog: self.no_catalog,
        }
    }
}

/// Resolves every enabled agent (option list, then the config's `agents` block) side by
/// side; a failing one contributes an `agent:<card>` error entry and no tools.
async fn load_agents(
    option: &[Value],
    block: Option<&Value>,
) -> (Vec<Tool>, BTreeMap<String, String>) {
    let specs = a2a::specs(option, block);
    let loads = specs.iter().map(|(label, spec)| async move {
        match spec {
            Err(e) => (label.clone(), Err(e.to_string())),
            Ok(spec) if spec.disabled => (label.clone(), Ok(Vec::new())),
            Ok(spec) => (
                label.clone(),
                a2a::load_agent(spec).await.map_err(|e| e.to_string()),
            ),
        }
    });
    let mut tools = Vec::new();
    let mut errors = BTreeMap::new();
    for (label, outcome) in futures::future::join_all(loads).await {
        match outcome {
            Ok(t) => tools.extend(t),
            Err(e) => {
                errors.insert(
                    a2a::error_key(&label),
                    format!("agent \"{label}\" failed: {e}"),
                );
            }
        }
    }
    (tools, errors)
}

/// §1 "name … sanitized to [a-zA-Z0-9_-]": the toolkit renames a host's tool rather than hand
/// an adapter a name no provider accepts (NOTES #122); each rename is a build warning.
fn sanitize_names(tools: Vec<Tool>, warnings: &mut Vec<String>) -> Vec<Tool> {
    tools
        .into_iter()
        .map(|mut t| {
            let clean = sanitize(&t.name);
            if clean != t.name {
                warnings.push(format!("tool name {:?} sanitized to {:?}", t.name, clean));
                t.name = clean;
            }
            t
        })
        .collect()
}

/// §4 assembly: drop builtins an extra tool shadows, concatenate MCP → skill → builtin →
/// A2A → extra (the published ports' order; §4 names no place for agents), dedupe by name
/// with the first occurrence winning.
pub fn assemble(
    mcp: Vec<Tool>,
    skill: Tool,
    builtins: Vec<Tool>,
    agents: Vec<Tool>,
    extra: Vec<Tool>,
) -> Vec<Tool> {
    let extra_names: HashSet<String> = extra.iter().map(|t| t.name.clone()).collect();
    let builtins = builtins
        .into_iter()
        .filter(|t| !(t.source == Source::Builtin && extra_names.contains(&t.name)));
    let mut seen = HashSet::new();
    mcp.into_iter()
        .chain(std::iter::once(skill))
        .chain(builtins)
        .chain(agents)
        .chain(extra)
        .filter(|t| seen.insert(t.name.clone()))
        .collect()
}
