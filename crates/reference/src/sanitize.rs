//! §0.2 `sanitize`: every character outside `[a-zA-Z0-9_-]` becomes `_`.

/// Replaces each character (Unicode scalar value) outside `[a-zA-Z0-9_-]` with `_`.
///
/// The SPEC writes this as the JS regex `/[^a-zA-Z0-9_-]/g`, which works on UTF-16 code
/// units; characters outside the Basic Multilingual Plane therefore become `__` in JS and
/// `_` in Python and Go. We follow the per-character reading (see conformance/NOTES.md).
pub fn sanitize(input: &str) -> String {
    input
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The §0.2 MCP (and §7A agent) tool name: `sanitize(prefix)_sanitize(name)`.
pub fn prefixed_name(prefix: &str, name: &str) -> String {
    format!("{}_{}", sanitize(prefix), sanitize(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_outside_class() {
        assert_eq!(sanitize("a.b c"), "a_b_c");
        assert_eq!(sanitize("ok_-9"), "ok_-9");
        assert_eq!(sanitize("héllo"), "h_llo");
        assert_eq!(prefixed_name("my server", "get.x"), "my_server_get_x");
    }
}
