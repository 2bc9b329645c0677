//! Percent-encoding (RFC 3986) for the reference: every byte but the unreserved characters
//! `A-Za-z0-9-._~` becomes `%XX` (uppercase hex). HTTP-tool placeholders (§7) and form
//! bodies use that set; `file://` URIs (Python's `Path.as_uri()`) keep `/` as well.

use percent_encoding::{percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Everything but RFC 3986's unreserved characters.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// [`COMPONENT`] with `/` kept: a path of segments.
const PATH: &AsciiSet = &COMPONENT.remove(b'/');

/// `s` as one URI component: a path segment or query value (`/` encoded too).
pub(crate) fn component(s: &str) -> String {
    percent_encode(s.as_bytes(), COMPONENT).to_string()
}

/// `bytes` as a URI path: like [`component`], but `/` stays.
pub(crate) fn path(bytes: &[u8]) -> String {
    percent_encode(bytes, PATH).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte, against the hand-written encoders these replaced.
    #[test]
    fn every_byte_encodes_as_before() {
        for b in 0..=255u8 {
            let unreserved = b.is_ascii_alphanumeric() || b"-._~".contains(&b);
            let expected = |kept: bool| {
                if kept {
                    char::from(b).to_string()
                } else {
                    format!("%{b:02X}")
                }
            };
            assert_eq!(path(&[b]), expected(unreserved || b == b'/'), "byte {b}");
            if b.is_ascii() {
                let s = char::from(b).to_string();
                assert_eq!(component(&s), expected(unreserved), "byte {b}");
            }
        }
        assert_eq!(component("a b/é"), "a%20b%2F%C3%A9");
        assert_eq!(path("/a b/é~".as_bytes()), "/a%20b/%C3%A9~");
    }
}
