//! `${ENV_VAR}` expansion for header values (§2 remote MCP headers, §7 HTTP tools), and the
//! redaction that keeps every expanded secret ([`is_secret`]) out of errors, logs and results.

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
    expand_headers_with(headers, |name| std::env::var(name).ok())
}

/// [`expand_headers`] over any variable lookup.
pub fn expand_headers_with(
    headers: &[(String, String)],
    lookup: impl Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Redactor) {
    let mut redactor = Redactor::default();
    let expanded = headers
        .iter()
        .map(|(k, v)| {
            let (value, secrets) = expand_with(v, &lookup);
            redactor.add_header(k, secrets);
            (k.clone(), value)
        })
        .collect();
    (expanded, redactor)
}

/// Expanded values at least this long count as secrets whatever header carries them: a
/// shorter value (`o`, `eu`, `1`) is also common text, and hiding it would corrupt results.
pub const MIN_SECRET_LEN: usize = 8;

/// Whether an expanded `value` of header `name` is a secret to redact (NOTES #120): any
/// non-empty value of a header whose name names a credential, or any value of at least
/// [`MIN_SECRET_LEN`] characters.
pub fn is_secret(name: &str, value: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let credential = [
        "auth", "key", "token", "secret", "cookie", "password", "session",
    ]
    .iter()
    .any(|w| name.contains(w));
    !value.is_empty() && (credential || value.chars().count() >= MIN_SECRET_LEN)
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

    /// Adds the values expanded into header `name` that count as secrets ([`is_secret`]).
    pub fn add_header(&mut self, name: &str, values: impl IntoIterator<Item = String>) {
        self.add(values.into_iter().filter(|v| is_secret(name, v)));
    }

    /// The message with every secret replaced ([`replace_secret`]).
    pub fn redact(&self, message: &str) -> String {
        self.secrets
            .iter()
            .fold(message.to_string(), |acc, s| replace_secret(&acc, s, "***"))
    }
}

/// `text` with `secret` replaced by `mark`: everywhere when the secret has at least
/// [`MIN_SECRET_LEN`] characters; a shorter one (an `apiKey` of `k`, a token `ab12`) only
/// where it stands as a whole token, not inside a word. A one-letter key replaced
/// everywhere turned "key must be a string" into "[redacted]ey must be a string", while
/// where a short key can leak (a header echoed back, `key=k`, `Bearer k`) it is a token of
/// its own.
pub fn replace_secret(text: &str, secret: &str, mark: &str) -> String {
    if secret.is_empty() || !text.contains(secret) {
        return text.to_string();
    }
    if secret.chars().count() >= MIN_SECRET_LEN {
        return text.replace(secret, mark);
    }
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    // A secret that itself starts or ends with a word character needs a non-word neighbour
    // on that side; one that starts with, say, `-` is a token boundary itself.
    let starts_word = word(secret.chars().next());
    let ends_word = word(secret.chars().next_back());
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for (at, _) in text.match_indices(secret) {
        if at < copied {
            continue; // overlaps the occurrence just replaced
        }
        let end = at + secret.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        if (starts_word && word(before)) || (ends_word && word(after)) {
            continue;
        }
        out.push_str(&text[copied..at]);
        out.push_str(mark);
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
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

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn region(name: &str) -> Option<String> {
        match name {
            "REGION" => Some("o".to_string()),
            "TOKEN" => Some("s3cret".to_string()),
            "LONG" => Some("abcdefgh12".to_string()),
            _ => None,
        }
    }

    #[test]
    fn a_short_common_value_of_a_plain_header_is_not_a_secret() {
        let (expanded, r) = expand_headers_with(&headers(&[("X-Region", "${REGION}")]), region);
        assert_eq!(expanded, headers(&[("X-Region", "o")]));
        assert_eq!(r.redact("hello there, everyone"), "hello there, everyone");
        assert_eq!(r.redact("HTTP 404: body-404"), "HTTP 404: body-404");
    }

    #[test]
    fn credential_headers_and_long_values_are_secrets() {
        let (_, r) = expand_headers_with(
            &headers(&[
                ("Authorization", "Bearer ${TOKEN}"),
                ("X-Custom", "${LONG}"),
            ]),
            region,
        );
        assert_eq!(
            r.redact("invalid token s3cret; echo abcdefgh12"),
            "invalid token ***; echo ***"
        );
    }

    #[test]
    fn a_short_secret_is_replaced_as_a_whole_token_only() {
        // The no-mangle case: a one-letter key inside words stays.
        assert_eq!(
            replace_secret("key must be a string", "k", "[redacted]"),
            "key must be a string"
        );
        // The leak cases: the key standing alone, after `=` or a scheme, at either end.
        assert_eq!(
            replace_secret("invalid key k; url ?key=k&x=1 Bearer k", "k", "***"),
            "invalid key ***; url ?key=***&x=1 Bearer ***"
        );
        assert_eq!(replace_secret("k", "k", "***"), "***");
        assert_eq!(replace_secret("kk k", "k", "***"), "kk ***");
        assert_eq!(replace_secret("é-ab12-é ab12x", "ab12", "*"), "é-*-é ab12x");
        // A long secret goes everywhere, even inside a word.
        assert_eq!(replace_secret("xabcdefgh12y", "abcdefgh12", "***"), "x***y");
    }

    #[test]
    fn redacts_longest_first() {
        let mut r = Redactor::default();
        r.add(["abc".to_string(), "abcdef".to_string(), String::new()]);
        assert_eq!(r.redact("x abcdef y abc"), "x *** y ***");
    }
}
