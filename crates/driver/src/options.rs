//! Protocol toolkit options (typed, `toolnexus_protocol::options`) → reference `ToolkitOptions`.

use std::path::PathBuf;

use toolnexus_protocol::options as proto;
use toolnexus_reference::skills::SkillSources;
use toolnexus_reference::toolkit::ToolkitOptions;

use crate::behaviours;

/// Every option key a driver must understand (unknown keys are a `bad_request`).
pub use toolnexus_protocol::options::OPTION_KEYS;

/// Builds the reference's options from decoded protocol options; a behaviour the protocol
/// types admit but the catalogue does not (say `{"echo": false}`) is a `bad_request` message.
/// `cancels` is the session's `toolCancels` list the `awaitCancel` behaviour records into.
pub fn toolkit_options(
    o: &proto::ToolkitOptions,
    cancels: &behaviours::ToolCancels,
) -> Result<ToolkitOptions, String> {
    Ok(ToolkitOptions {
        mcp_config: o.mcp_config.as_ref().map(proto::McpConfig::to_value),
        skills: skill_sources(&o.skill_sources())?,
        skills_filter: o.skills_filter.clone().unwrap_or_default(),
        skill_sample_limit: o.skill_sample_limit.unwrap_or(0),
        disable_skills: o.disable_skills.clone().unwrap_or_default(),
        builtins: o.builtins.as_ref().map(proto::Builtins::to_value),
        agents: o
            .agents
            .iter()
            .flatten()
            .map(proto::AgentDecl::to_value)
            .collect(),
        extra_tools: o
            .extra_tools
            .iter()
            .flatten()
            .map(|t| behaviours::extra_tool(t, cancels))
            // Relay tools follow the extra tools: they are host tools the host executes.
            .chain(o.relay_tools.iter().flatten().map(behaviours::relay_tool))
            .collect::<Result<_, _>>()?,
        disable_tools: o.disable_tools.clone().unwrap_or_default(),
        wait_for: o.wait_for.as_ref().map(behaviours::wait_for).transpose()?,
    })
}

/// The skill-source part of the options (also used by `list_skills`).
pub fn skill_sources(o: &proto::SkillSourceOptions) -> Result<SkillSources, String> {
    Ok(SkillSources {
        dirs: o
            .skills_dir
            .as_ref()
            .map(|d| d.paths().into_iter().map(PathBuf::from).collect())
            .unwrap_or_default(),
        defs: o
            .skills
            .iter()
            .flatten()
            .map(behaviours::skill_def)
            .collect(),
        provider: o.skill_provider.as_ref().map(behaviours::skill_provider),
    })
}
