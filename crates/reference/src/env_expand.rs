//! `${ENV_VAR}` expansion for header values (§2 remote MCP headers, §7 HTTP tools), and the
//! redaction that keeps every expanded value out of errors and logs.

/// Expands `${NAME}` from the process environment; an unset variable expands to "" (as the
/// published ports do). Returns the text and the non-empty values substituted, so callers
/// can redact them from anything they report.
pub fn expand(text: &str) -> (String, Vec<String>) {
    expand_with(text, |name| std::env::var(name).ok())
}

/// [`expand`] over any variable lookup (tests use a map instead of the real environment).
pub fn expand_with(text: &str, lookup: impl Fn(&str) -> Option<String>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut secrets = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) if is_env_name(&after[..end]) => {
                let value = lookup(&after[..end]).unwrap_or_default();
                if !value.is_empty() {
                    secrets.push(value.clone());
                }
                out.push_str(&value);
                rest = &after[end + 1..];
            }
            // Not a variable reference: keep the text as written.
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (out, secrets)
}

/// Expands every header value, and returns a redactor for the values substituted.
pub fn expand_headers(headers: &[(String, String)]) -> (Vec<(String, String)>, Redactor) {
    let mut redactor = Redactor::default();
    let expanded = headers
        .iter()
        .map(|(k, v)| {
            let (value, secrets) = expand(v);
            redactor.add(secrets);
            (k.clone(), value)
        })
        .collect();
    (expanded, redactor)
}

fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Replaces every known secret in a message with `***` before it is reported anywhere.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// Adds values to hide; longer values are replaced first so a secret containing another
    /// is never half-revealed.
    pub fn add(&mut self, values: impl IntoIterator<Item = String>) {
        self.secrets
            .extend(values.into_iter().filter(|v| !v.is_empty()));
        self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        self.secrets.dedup();
    }

    /// The message with every secret replaced.
    pub fn redact(&self, message: &str) -> String {
        self.secrets
            .iter()
            .fold(message.to_string(), |acc, s| acc.replace(s.as_str(), "***"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("s3cret".to_string()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn expands_known_unset_and_malformed_references() {
        let (out, secrets) = expand_with("Bearer ${TOKEN}", env);
        assert_eq!(out, "Bearer s3cret");
        assert_eq!(secrets, vec!["s3cret"]);
        assert_eq!(expand_with("a${UNSET}b", env).0, "ab");
        assert_eq!(expand_with("a${EMPTY}b", env), ("ab".to_string(), vec![]));
        assert_eq!(expand_with("${1X} ${ ${TOKEN", env).0, "${1X} ${ ${TOKEN");
        assert_eq!(expand_with("$TOKEN {TOKEN}", env).0, "$TOKEN {TOKEN}");
    }

    #[test]
    fn redacts_longest_first() {
        let mut r = Redactor::default();
        r.add(["abc".to_string(), "abcdef".to_string(), String::new()]);
        assert_eq!(r.redact("x abcdef y abc"), "x *** y ***");
    }
}
