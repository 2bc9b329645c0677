//! SPEC defaults a request leaves in force, named in the message of a request that got no
//! answer: a port that waits out a SPEC default longer than the harness's request limit is
//! killed for it, and the report should say so rather than leave a bare "did not answer".
//! Read from the request alone (no file is opened), so only what the request carries inline.

use std::time::Duration;

use serde_json::Value;

/// The SPEC's default per-phase bound on an MCP server (§2 "Connect with `timeout`", default
/// 30000 ms), in milliseconds.
pub const MCP_TIMEOUT_MS: u64 = 30_000;

/// The keys of an MCP config's server map (PROTOCOL.md §6 `mcpConfig`).
const SERVER_MAPS: [&str; 3] = ["mcpServers", "servers", "mcp"];

/// A note naming each SPEC default `request` leaves in force that is longer than `limit`, or
/// `None`: today the MCP `timeout` of an enabled server that sets none, in the `mcpConfig`
/// option (`build`) or the `config` of `list_mcp_tools`, given as an object or JSON text.
pub fn longer_than_limit(request: &Value, limit: Duration) -> Option<String> {
    if limit.as_millis() >= u128::from(MCP_TIMEOUT_MS) {
        return None;
    }
    let configs = [
        request.pointer("/options/mcpConfig"),
        request
            .get("cmd")
            .filter(|c| c.as_str() == Some("list_mcp_tools"))
            .and(request.get("config")),
    ];
    let mut unbounded: Vec<String> = configs
        .into_iter()
        .flatten()
        .filter_map(config_object)
        .flat_map(|c| servers_without_timeout(&c))
        .collect();
    if unbounded.is_empty() {
        return None;
    }
    unbounded.sort();
    unbounded.dedup();
    Some(format!(
        "the request's MCP server{} {} set{} no `timeout`, so the SPEC default of {MCP_TIMEOUT_MS} ms (§2) was in force, longer than this {} ms limit",
        if unbounded.len() == 1 { "" } else { "s" },
        unbounded
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", "),
        if unbounded.len() == 1 { "s" } else { "" },
        limit.as_millis()
    ))
}

/// The config as an object: given as one, or as JSON text (a string whose first non-blank
/// character is `{`); a path is not read.
fn config_object(config: &Value) -> Option<Value> {
    match config {
        Value::Object(_) => Some(config.clone()),
        Value::String(text) if text.trim_start().starts_with('{') => {
            serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_object)
        }
        _ => None,
    }
}

/// The names of the config's enabled servers that set no `timeout`.
fn servers_without_timeout(config: &Value) -> Vec<String> {
    SERVER_MAPS
        .iter()
        .filter_map(|k| config.get(*k).and_then(Value::as_object))
        .flatten()
        .filter(|(_, server)| {
            let disabled = server.get("disabled") == Some(&Value::Bool(true))
                || server.get("enabled") == Some(&Value::Bool(false));
            server.is_object() && !disabled && server.get("timeout").is_none()
        })
        .map(|(name, _)| name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIMIT: Duration = Duration::from_millis(5000);

    #[test]
    fn an_mcp_server_without_timeout_names_the_default() {
        let build = json!({"cmd": "build", "options": {"mcpConfig": {"mcpServers": {
            "crash": {"command": ["x"]},
            "bounded": {"command": ["y"], "timeout": 1000},
            "off": {"command": ["z"], "disabled": true}
        }}}});
        assert_eq!(
            longer_than_limit(&build, LIMIT).as_deref(),
            Some("the request's MCP server `crash` sets no `timeout`, so the SPEC default of 30000 ms (§2) was in force, longer than this 5000 ms limit")
        );
        // As JSON text, and in list_mcp_tools' `config`.
        let text =
            json!({"cmd": "list_mcp_tools", "config": "{\"servers\": {\"a\": {}, \"b\": {}}}"});
        assert!(
            longer_than_limit(&text, LIMIT).is_some_and(|n| n.contains("servers `a`, `b` set no"))
        );
    }

    #[test]
    fn nothing_is_named_when_every_bound_fits() {
        let bounded = json!({"cmd": "build", "options": {"mcpConfig": {"mcpServers": {
            "a": {"command": ["x"], "timeout": 500}
        }}}});
        assert_eq!(longer_than_limit(&bounded, LIMIT), None);
        let unbounded =
            json!({"cmd": "build", "options": {"mcpConfig": {"mcpServers": {"a": {}}}}});
        assert_eq!(
            longer_than_limit(&unbounded, Duration::from_millis(30_000)),
            None
        );
        // A path is not read; `config` of another command is not an MCP config.
        let path = json!({"cmd": "build", "options": {"mcpConfig": "/tmp/mcp.json"}});
        assert_eq!(longer_than_limit(&path, LIMIT), None);
        let other = json!({"cmd": "run", "config": {"mcpServers": {"a": {}}}});
        assert_eq!(longer_than_limit(&other, LIMIT), None);
    }
}
