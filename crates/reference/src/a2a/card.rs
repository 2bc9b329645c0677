//! §7A agent declarations and Agent Card resolution.

use std::time::Duration;

use serde_json::Value;

use super::error::{CardError, SpecError};
use crate::env_expand::{expand_headers, Redactor};
use crate::http_tool::{send, Prepared};
use crate::mcp::config::entry_disabled;

/// §7A default task timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 300_000;
/// §7A default poll interval.
pub const DEFAULT_POLL_EVERY_MS: u64 = 1_000;
/// The longest a card fetch may take (the task timeout is for tasks, not for the card).
const CARD_TIMEOUT: Duration = Duration::from_secs(30);

/// `agent({card, headers?, timeout?, pollEvery?})`.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSpec {
    /// The Agent Card URL.
    pub card: String,
    /// Headers sent with every request; values expand `${ENV}`.
    pub headers: Vec<(String, String)>,
    /// Task timeout in milliseconds.
    pub timeout_ms: u64,
    /// Poll interval in milliseconds.
    pub poll_every_ms: u64,
    /// `disabled:true` / `enabled:false`.
    pub disabled: bool,
}

impl AgentSpec {
    /// Reads `{card, headers?, timeout?, pollEvery?, enabled?, disabled?}`.
    pub fn from_json(v: &Value) -> Result<AgentSpec, SpecError> {
        let card = v
            .get("card")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .ok_or(SpecError::MissingCard)?
            .to_string();
        let headers = match v.get("headers") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| {
                    v.as_str()
                        .map(|s| (k.clone(), s.to_string()))
                        .ok_or_else(|| SpecError::HeaderNotString { name: k.clone() })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(SpecError::HeadersNotObject),
        };
        let ms = |key: &str, default: u64| {
            v.get(key)
                .and_then(Value::as_u64)
                .filter(|ms| *ms > 0)
                .unwrap_or(default)
        };
        Ok(AgentSpec {
            card,
            headers,
            timeout_ms: ms("timeout", DEFAULT_TIMEOUT_MS),
            poll_every_ms: ms("pollEvery", DEFAULT_POLL_EVERY_MS),
            disabled: entry_disabled(v),
        })
    }

    /// The headers with `${ENV}` expanded, and a redactor for their values.
    pub fn expanded_headers(&self) -> (Vec<(String, String)>, Redactor) {
        expand_headers(&self.headers)
    }
}

/// One card skill.
#[derive(Debug, Clone, PartialEq)]
pub struct CardSkill {
    /// `skill.id ?? skill.name`.
    pub key: String,
    /// The skill's description (or name).
    pub description: String,
}

/// What the client needs from an Agent Card.
#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    /// `card.name`.
    pub name: String,
    /// `card.description`.
    pub description: String,
    /// The JSON-RPC endpoint: `card.url`, else the card URL's origin.
    pub endpoint: String,
    /// The skills, in card order.
    pub skills: Vec<CardSkill>,
}

/// `GET <card>` and read it; every failure is a message, secrets redacted (a server may
/// echo a header back in its error body).
pub async fn resolve(spec: &AgentSpec) -> Result<Card, CardError> {
    let (headers, redactor) = spec.expanded_headers();
    let prepared = Prepared {
        url: spec.card.clone(),
        headers,
        body: None,
        redactor,
    };
    fetch(spec, &prepared)
        .await
        .map_err(|e| e.redacted(&prepared.redactor))
}

async fn fetch(spec: &AgentSpec, prepared: &Prepared) -> Result<Card, CardError> {
    let bound = CARD_TIMEOUT.min(Duration::from_millis(spec.timeout_ms));
    let (status, text) = send(&crate::http_client::client(), "GET", prepared, bound)
        .await
        .map_err(|e| CardError::Fetch {
            detail: e.to_string(),
        })?;
    if !(200..300).contains(&status) {
        return Err(CardError::Status {
            status,
            excerpt: excerpt(&text),
        });
    }
    let card: Value = serde_json::from_str(&text).map_err(|e| CardError::NotJson {
        detail: e.to_string(),
        excerpt: excerpt(&text),
    })?;
    parse_card(&card, &spec.card)
}

/// Reads a card document; `card_url` gives the origin fallback for the endpoint.
pub fn parse_card(card: &Value, card_url: &str) -> Result<Card, CardError> {
    let name = card
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or(CardError::NoName)?
        .to_string();
    let skills = match card.get("skills") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|s| {
                let text = |k: &str| s.get(k).and_then(Value::as_str).filter(|t| !t.is_empty());
                let key = text("id").or_else(|| text("name"))?;
                Some(CardSkill {
                    key: key.to_string(),
                    description: text("description")
                        .or_else(|| text("name"))
                        .unwrap_or(key)
                        .to_string(),
                })
            })
            .collect(),
        Some(_) => return Err(CardError::SkillsNotArray),
    };
    let endpoint = match card
        .get("url")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())
    {
        Some(url) => url.to_string(),
        None => origin(card_url).ok_or_else(|| CardError::NoOrigin {
            card_url: card_url.to_string(),
        })?,
    };
    Ok(Card {
        description: card
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        name,
        endpoint,
        skills,
    })
}

/// `scheme://host[:port]` of a URL.
fn origin(url: &str) -> Option<String> {
    let parsed = reqwest::Url::parse(url).ok()?;
    let origin = parsed.origin();
    origin.is_tuple().then(|| origin.ascii_serialization())
}

/// The first 200 characters of a body, for messages.
pub fn excerpt(text: &str) -> String {
    let mut out: String = text.chars().take(200).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cards_give_skills_and_an_endpoint() {
        let card = json!({"name": "Research Bot", "url": "http://h:1/rpc",
            "skills": [{"id": "summarize", "name": "Summarize", "description": "Sums"},
                       {"name": "Translate text"}, {"description": "no key"}]});
        let c = parse_card(&card, "http://h:1/.well-known/agent-card.json").unwrap();
        assert_eq!(c.endpoint, "http://h:1/rpc");
        let keys: Vec<&str> = c.skills.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, ["summarize", "Translate text"]);
        let c = parse_card(&json!({"name": "x"}), "http://h:8080/a/b.json").unwrap();
        assert_eq!(c.endpoint, "http://h:8080");
        assert!(parse_card(&json!({"skills": []}), "http://h/").is_err());
        assert!(parse_card(&json!({"name": "x", "skills": {}}), "http://h/").is_err());
    }

    #[test]
    fn specs_take_defaults_and_toggles() {
        let s = AgentSpec::from_json(&json!({"card": "http://h/c", "enabled": false})).unwrap();
        assert_eq!(
            (s.timeout_ms, s.poll_every_ms, s.disabled),
            (300_000, 1_000, true)
        );
        assert!(AgentSpec::from_json(&json!({"timeout": 5})).is_err());
    }
}
