//! Machine-independent inputs and outputs: `{{FIXTURES}}`, `{{EXAMPLES}}`, `{{TMP}}` placeholders.

use std::path::{Path, PathBuf};

use percent_encoding::{percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::Value;

/// The placeholder ↔ path pairs of one scenario.
#[derive(Debug, Clone, Default)]
pub struct Placeholders {
    pairs: Vec<(String, String)>,
}

impl Placeholders {
    /// Adds a placeholder for `path` (its canonical form is recognised in outputs too).
    pub fn add(&mut self, placeholder: &str, path: &Path) {
        let plain = path.to_string_lossy().trim_end_matches('/').to_string();
        self.pairs.push((placeholder.to_string(), plain.clone()));
        if let Ok(real) = path.canonicalize() {
            let real = real.to_string_lossy().to_string();
            if real != plain {
                self.pairs.push((placeholder.to_string(), real));
            }
        }
        // A `file://` URI percent-encodes the path (Python's `as_uri()`), so a checkout under
        // a path with spaces or non-ASCII characters is recognised in URIs too.
        let forms: Vec<String> = self
            .pairs
            .iter()
            .filter(|(p, _)| p == placeholder)
            .map(|(_, path)| uri_path(path))
            .collect();
        for encoded in forms {
            if !self.pairs.iter().any(|(_, p)| *p == encoded) {
                self.pairs.push((placeholder.to_string(), encoded));
            }
        }
        // Longest path first, so a nested root wins over its parent.
        self.pairs.sort_by_key(|p| std::cmp::Reverse(p.1.len()));
    }

    /// Adds a placeholder for a literal text such as a server URL (no path variants).
    pub fn add_text(&mut self, placeholder: &str, text: &str) {
        self.pairs.push((placeholder.to_string(), text.to_string()));
        self.pairs.sort_by_key(|p| std::cmp::Reverse(p.1.len()));
    }

    /// The path a placeholder stands for.
    pub fn path_of(&self, placeholder: &str) -> Option<PathBuf> {
        self.pairs
            .iter()
            .find(|(p, _)| p == placeholder)
            .map(|(_, path)| PathBuf::from(path))
    }

    /// Replaces placeholders in scenario input with real paths.
    pub fn expand(&self, text: &str) -> String {
        let mut out = text.to_string();
        let mut seen = Vec::new();
        for (placeholder, path) in &self.pairs {
            if seen.contains(placeholder) {
                continue;
            }
            seen.push(placeholder.clone());
            out = out.replace(placeholder.as_str(), path);
        }
        out
    }

    /// Replaces real paths in port output with placeholders.
    pub fn normalise_text(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (placeholder, path) in &self.pairs {
            if !path.is_empty() {
                out = out.replace(path.as_str(), placeholder);
            }
        }
        out
    }

    /// Normalises every string (and object key) inside a JSON value.
    pub fn normalise_json(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.normalise_text(s)),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.normalise_json(v)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (self.normalise_text(k), self.normalise_json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// A path as it appears in a `file://` URI: bytes outside the unreserved set and `/`
/// percent-encoded (RFC 3986).
fn uri_path(path: &str) -> String {
    percent_encode(path.as_bytes(), URI_PATH).to_string()
}

/// Everything but RFC 3986's unreserved characters and `/`.
const URI_PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'/');

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut p = Placeholders::default();
        p.add("{{TMP}}", Path::new("/x/tmp"));
        p.add("{{FIXTURES}}", Path::new("/x"));
        assert_eq!(p.expand("{{TMP}}/a {{FIXTURES}}/b"), "/x/tmp/a /x/b");
        assert_eq!(
            p.normalise_text("file:///x/tmp/a /x/b"),
            "file://{{TMP}}/a {{FIXTURES}}/b"
        );
    }

    #[test]
    fn percent_encoded_uris_normalise_too() {
        let mut p = Placeholders::default();
        p.add("{{FIXTURES}}", Path::new("/x/sp ace/é"));
        assert_eq!(
            p.normalise_text("file:///x/sp%20ace/%C3%A9/a and /x/sp ace/é/a"),
            "file://{{FIXTURES}}/a and {{FIXTURES}}/a"
        );
    }

    /// Every ASCII byte, against the hand-written encoder this replaced.
    #[test]
    fn uri_path_encodes_as_before() {
        for b in 0..=127u8 {
            let kept = b.is_ascii_alphanumeric() || b"-._~/".contains(&b);
            let expected = if kept {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            };
            assert_eq!(uri_path(&char::from(b).to_string()), expected, "byte {b}");
        }
        assert_eq!(uri_path("/a b/é%"), "/a%20b/%C3%A9%25");
    }
}
