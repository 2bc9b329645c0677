//! Text helpers every comparison of SPEC wording shares: quotes are compared with their
//! whitespace collapsed, and long texts are cut for one-line messages.

/// Collapses every run of whitespace to one space and trims, as quotes are compared.
pub fn collapse_ws(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` cut to `max` characters, with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", text[..i].trim_end()),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_collapses_and_long_text_is_cut_at_a_character() {
        assert_eq!(collapse_ws("  a\n\t b  c "), "a b c");
        assert_eq!(shorten("abc def", 4), "abc…");
        assert_eq!(shorten("§§§", 3), "§§§");
        assert_eq!(shorten("§§§§", 2), "§§…");
    }
}
