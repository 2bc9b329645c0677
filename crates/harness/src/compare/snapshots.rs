//! Reads the bodies of insta snapshots so any port's output is compared with the same text
//! `cargo insta review` shows.

use std::path::Path;

/// The body of `snapshots/<name>.snap` (everything after the insta header), or why not.
pub fn body(dir: &Path, name: &str) -> Result<String, String> {
    let path = dir.join(format!("{name}.snap"));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read snapshot {}: {e}", path.display()))?;
    Ok(strip_header(&text))
}

/// Removes an insta `---`-fenced header and the trailing newline insta adds.
pub fn strip_header(text: &str) -> String {
    let body = match text.strip_prefix("---\n") {
        Some(rest) => match rest.find("\n---\n") {
            Some(i) => &rest[i + 5..],
            None => rest,
        },
        None => text,
    };
    body.strip_suffix('\n').unwrap_or(body).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn strips_header() {
        assert_eq!(
            super::strip_header("---\nsource: x\n---\nbody\nline\n"),
            "body\nline"
        );
    }
}
