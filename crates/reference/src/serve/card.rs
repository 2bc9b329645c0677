//! §7B the Agent Card served at `/.well-known/agent-card.json`.

use serde_json::{json, Value};

use super::config::A2AConfig;
use crate::skills::SkillInfo;

/// The card's fixed A2A protocol version.
pub const PROTOCOL_VERSION: &str = "0.3.0";

/// Builds the card from the toolkit's skills (never its raw tools), in catalog order,
/// filtered to `a2a.skills` when given; `url` is the JSON-RPC endpoint (`<base>/`).
pub fn agent_card(cfg: &A2AConfig, skills: &[SkillInfo], url: &str) -> Value {
    let selected = skills.iter().filter(|s| {
        cfg.skills
            .as_ref()
            .is_none_or(|wanted| wanted.iter().any(|w| w == &s.name))
    });
    let skills: Vec<Value> = selected
        .map(|s| {
            json!({
                "id": s.name,
                "name": s.name,
                "description": s.description.clone().unwrap_or_default(),
            })
        })
        .collect();
    let mut card = json!({
        "name": cfg.name.as_deref().unwrap_or("toolnexus-agent"),
        "description": cfg.description.as_deref().unwrap_or(""),
        "version": cfg.version.as_deref().unwrap_or("0.1.0"),
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {"streaming": false, "pushNotifications": false},
        "defaultInputModes": ["text"],
        "defaultOutputModes": ["text"],
        "skills": skills,
        "url": url,
    });
    if let Some(provider) = &cfg.provider {
        card["provider"] = provider.clone();
    }
    card
}
