//! The canary secret: a value every run puts in its environment so scenarios can expand it
//! into MCP headers (`${TOOLNEXUS_CONFORMANCE_SECRET}`) and check no report ever repeats it.

/// The environment variable the scenarios' configs expand.
pub const SECRET_VAR: &str = "TOOLNEXUS_CONFORMANCE_SECRET";

/// The secret of this run: the variable's value when the caller set one (so a test can look
/// for a known canary), else a fresh random value that is set in the environment.
///
/// Call it first thing in `main`, before any thread exists: changing the environment while
/// other threads may read it is undefined behaviour on some platforms.
///
/// It also puts the §8 client keys in this process's environment (see [`CLIENT_KEY_VARS`]):
/// an in-process port reads its keys from the harness's own environment, and this is the one
/// moment the harness may change it (the crate is edition 2021, where `set_var` is safe to
/// call, but only single-threaded is it sound on every platform).
pub fn ensure() -> String {
    let secret = ensure_secret();
    for var in CLIENT_KEY_VARS {
        std::env::set_var(var, client_key(var, &secret));
    }
    for var in REMOVED_KEY_VARS {
        std::env::remove_var(var);
    }
    secret
}

/// The provider key variables a §8 client reads when created without `apiKey`; every driver
/// (and the harness itself, for in-process ports) gets a value derived from the secret in
/// each, one per variable ([`client_key`], PROTOCOL.md §10).
pub const CLIENT_KEY_VARS: [&str; 2] = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

/// What the harness puts in the client key variable `var`: the secret itself for
/// `OPENAI_API_KEY`, the secret and `-anthropic` for `ANTHROPIC_API_KEY`. Each variable holds
/// a value of its own, so a mock that requires one of them (`MOCK_LLM_BEARER`,
/// `MOCK_LLM_API_KEY`) tells which variable a port read; each still contains the secret, so
/// a report that repeats either is caught and redacted like the secret.
pub fn client_key(var: &str, secret: &str) -> String {
    match var {
        "ANTHROPIC_API_KEY" => format!("{secret}-anthropic"),
        _ => secret.to_string(),
    }
}

/// Provider keys removed from every driver's environment, so no real key of the caller's
/// reaches a mock (PROTOCOL.md §10).
pub const REMOVED_KEY_VARS: [&str; 1] = ["OPENROUTER_API_KEY"];

/// Gives a driver's command the §10 key environment: the client keys set to their values
/// derived from the current secret ([`client_key`]), the removed ones unset (explicitly, so a
/// driver started by a harness used as a library without [`ensure`] is held to the same rule).
pub fn driver_env(cmd: &mut tokio::process::Command) {
    if let Some(s) = current() {
        for var in CLIENT_KEY_VARS {
            cmd.env(var, client_key(var, &s));
        }
    }
    for var in REMOVED_KEY_VARS {
        cmd.env_remove(var);
    }
}

fn ensure_secret() -> String {
    // Plain characters only, so the secret reads the same inside escaped JSON.
    let plain = |v: &str| {
        v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    match std::env::var(SECRET_VAR) {
        Ok(v) if v.len() >= 8 && plain(&v) => v,
        _ => {
            let fresh = fresh_value();
            std::env::set_var(SECRET_VAR, &fresh);
            fresh
        }
    }
}

/// The secret currently in the environment, if any.
pub fn current() -> Option<String> {
    std::env::var(SECRET_VAR).ok().filter(|v| !v.is_empty())
}

/// `text` with the current secret replaced by `***`.
pub fn redact(text: &str) -> String {
    match current() {
        Some(secret) => text.replace(&secret, "***"),
        None => text.to_string(),
    }
}

fn fresh_value() -> String {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    format!("tnx-canary-{:016x}", h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_key_variable_gets_a_value_of_its_own_holding_the_secret() {
        let secret = "tnx-canary-0123456789abcdef";
        let values: Vec<String> = CLIENT_KEY_VARS
            .iter()
            .map(|v| client_key(v, secret))
            .collect();
        assert_eq!(values[0], secret, "OPENAI_API_KEY is the secret itself");
        assert_ne!(
            values[0], values[1],
            "a mock must tell the two variables apart"
        );
        assert!(
            values.iter().all(|v| v.contains(secret)),
            "a leaked key is still caught"
        );
    }
}
