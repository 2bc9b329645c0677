//! Protocol toolkit options (camelCase, the SPEC's JS spelling) → reference `ToolkitOptions`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::behaviours;
use toolnexus_reference::skills::SkillSources;
use toolnexus_reference::toolkit::ToolkitOptions;

/// Every option key a driver must understand (unknown keys are a `bad_request`).
pub const OPTION_KEYS: [&str; 12] = [
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
];

/// Parses protocol options; a malformed option is a `bad_request` message.
pub fn toolkit_options(v: &Value) -> Result<ToolkitOptions, String> {
    let empty = Map::new();
    let map = match v {
        Value::Null => &empty,
        Value::Object(m) => m,
        _ => return Err("options must be an object".to_string()),
    };
    if let Some(unknown) = map.keys().find(|k| !OPTION_KEYS.contains(&k.as_str())) {
        return Err(format!("unknown option \"{unknown}\""));
    }
    Ok(ToolkitOptions {
        mcp_config: map.get("mcpConfig").cloned(),
        skills: skill_sources(map)?,
        skills_filter: bool_map(map.get("skillsFilter"), "skillsFilter")?,
        skill_sample_limit: match map.get("skillSampleLimit") {
            None | Some(Value::Null) => 0,
            Some(v) => v.as_i64().ok_or("skillSampleLimit must be an integer")?,
        },
        disable_skills: strings(map.get("disableSkills"), "disableSkills")?,
        builtins: map.get("builtins").cloned().filter(|v| !v.is_null()),
        agents: match map.get("agents") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(_) => return Err("agents must be an array".to_string()),
        },
        extra_tools: match map.get("extraTools") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(behaviours::extra_tool)
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("extraTools must be an array".to_string()),
        },
        disable_tools: strings(map.get("disableTools"), "disableTools")?,
        wait_for: present(map.get("waitFor"))
            .map(behaviours::wait_for)
            .transpose()?,
    })
}

/// The skill-source part of the options (also used by `list_skills`).
pub fn skill_sources(map: &Map<String, Value>) -> Result<SkillSources, String> {
    let dirs = match map.get("skillsDir") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![PathBuf::from(s)],
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(PathBuf::from)
                    .ok_or("skillsDir entries must be strings")
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("skillsDir must be a string or an array of strings".to_string()),
    };
    let defs = match map.get("skills") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(behaviours::skill_def)
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("skills must be an array of skill defs".to_string()),
    };
    let provider = present(map.get("skillProvider"))
        .map(behaviours::skill_provider)
        .transpose()?;
    Ok(SkillSources {
        dirs,
        defs,
        provider,
    })
}

/// An option that is absent or `null` is not given.
fn present(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

fn bool_map(v: Option<&Value>, what: &str) -> Result<BTreeMap<String, bool>, String> {
    match v {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                v.as_bool()
                    .map(|b| (k.clone(), b))
                    .ok_or_else(|| format!("{what} values must be booleans"))
            })
            .collect(),
        Some(_) => Err(format!("{what} must be an object of name → boolean")),
    }
}

fn strings(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{what} entries must be strings"))
            })
            .collect(),
        Some(_) => Err(format!("{what} must be an array of strings")),
    }
}
