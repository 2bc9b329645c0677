//! The canary secret: a value every run puts in its environment so scenarios can expand it
//! into MCP headers (`${TOOLNEXUS_CONFORMANCE_SECRET}`) and check no report ever repeats it.

/// The environment variable the scenarios' configs expand.
pub const SECRET_VAR: &str = "TOOLNEXUS_CONFORMANCE_SECRET";

/// The secret of this run: the variable's value when the caller set one (so a test can look
/// for a known canary), else a fresh random value that is set in the environment.
///
/// Call it first thing in `main`, before any thread exists: changing the environment while
/// other threads may read it is undefined behaviour on some platforms.
pub fn ensure() -> String {
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
