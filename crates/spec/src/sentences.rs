//! A SPEC section's text cut into sentences (prose, table cells, headings and code lines
//! apart), and which sentences are normative: what the wholeness lint and `spec-diff` read.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

use crate::text::collapse_ws;

/// What a sentence of a section is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Running prose, a list item or a table cell.
    Prose,
    /// A `#` heading line.
    Heading,
    /// A line of a fenced code block.
    Code,
}

/// One sentence of a section: a byte range of [`Section::text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    /// Where it is in the collapsed text.
    pub span: Range<usize>,
    /// Prose, heading or code.
    pub kind: Kind,
}

/// A section's text, whitespace collapsed exactly as clause quotes are compared, and its
/// sentences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The collapsed text (`collapse_ws` of the raw body, headings and code included).
    pub text: String,
    /// Its sentences in order; list markers, table pipes and the spaces between sentences
    /// belong to none.
    pub sentences: Vec<Sentence>,
}

impl Section {
    /// Reads a raw section body (as [`crate::sections::split`] returns it).
    pub fn parse(body: &str) -> Section {
        let mut text = String::new();
        let mut units: Vec<(Range<usize>, Kind)> = Vec::new();
        let mut open: Option<usize> = None; // start of the prose unit being built
        let mut fenced = false;
        let close =
            |open: &mut Option<usize>, end: usize, units: &mut Vec<(Range<usize>, Kind)>| {
                if let Some(start) = open.take() {
                    if end > start {
                        units.push((start..end, Kind::Prose));
                    }
                }
            };
        for line in body.lines() {
            let t = line.trim();
            let fence = t.starts_with("```");
            let starts_unit = fence
                || fenced
                || t.is_empty()
                || t.starts_with('#')
                || t.starts_with('|')
                || t.starts_with("- ")
                || t.starts_with("* ")
                || t.starts_with("> ")
                || list_number(t).is_some();
            if starts_unit {
                close(&mut open, text.len(), &mut units);
            }
            if t.is_empty() {
                continue;
            }
            if !text.is_empty() {
                text.push(' ');
            }
            let at = text.len();
            text.push_str(&collapse_ws(t));
            let end = text.len();
            if fence {
                fenced = !fenced;
                continue;
            }
            if fenced {
                units.push((at..end, Kind::Code));
            } else if t.starts_with('#') {
                units.push((at..end, Kind::Heading));
            } else if t.starts_with('|') {
                // Each cell is its own unit; the pipes belong to none.
                let row = &text[at..end];
                let mut offset = at;
                for cell in row.split('|') {
                    let lead = cell.len() - cell.trim_start().len();
                    let body = cell.trim();
                    if !body.is_empty() && !body.bytes().all(|b| matches!(b, b'-' | b':' | b' ')) {
                        let start = offset + lead;
                        units.push((start..start + body.len(), Kind::Prose));
                    }
                    offset += cell.len() + 1;
                }
            } else {
                let marker = ["- ", "* ", "> "]
                    .iter()
                    .find(|m| t.starts_with(**m))
                    .map(|m| m.len())
                    .or_else(|| list_number(t))
                    .unwrap_or(0);
                if open.is_none() {
                    open = Some(at + marker);
                }
            }
        }
        close(&mut open, text.len(), &mut units);
        let mut sentences = Vec::new();
        for (range, kind) in units {
            if kind == Kind::Prose {
                for span in split_sentences(&text, range) {
                    sentences.push(Sentence { span, kind });
                }
            } else {
                sentences.push(Sentence { span: range, kind });
            }
        }
        Section { text, sentences }
    }

    /// The sentence's text.
    pub fn sentence(&self, s: &Sentence) -> &str {
        &self.text[s.span.clone()]
    }

    /// Every byte range where `quote` (collapsed) occurs in the text.
    pub fn find_all(&self, quote: &str) -> Vec<Range<usize>> {
        let q = collapse_ws(quote);
        if q.is_empty() {
            return Vec::new();
        }
        self.text
            .match_indices(q.as_str())
            .map(|(i, m)| i..i + m.len())
            .collect()
    }
}

/// `12. ` at the start of a line: the marker's length.
fn list_number(t: &str) -> Option<usize> {
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    (digits > 0 && t[digits..].starts_with(". ")).then_some(digits + 2)
}

/// Splits a prose unit after `.`, `!` or `?` when a space and a sentence start follow
/// (a capital, a backtick, `*`, `(` or `"`), except after `e.g.`, `i.e.` and `vs.`.
fn split_sentences(text: &str, unit: Range<usize>) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = unit.start + label_len(&text[unit.clone()]);
    for i in unit.clone() {
        let ends = matches!(bytes[i], b'.' | b'!' | b'?')
            && i + 2 < unit.end
            && bytes[i + 1] == b' '
            && (bytes[i + 2].is_ascii_uppercase()
                || matches!(bytes[i + 2], b'`' | b'*' | b'(' | b'"'));
        // `i` is an ASCII punctuation byte when `ends`, so slicing at it is safe.
        if ends
            && !["e.g.", "i.e.", "vs."]
                .iter()
                .any(|a| text[start..=i].ends_with(a))
        {
            out.push(start..i + 1);
            start = i + 2;
        }
    }
    if start < unit.end {
        out.push(start..unit.end);
    }
    out
}

/// A leading bold label (`**Adapters** (schema only): `), which names what follows and is
/// part of no sentence: its length in bytes, else 0.
fn label_len(unit: &str) -> usize {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\*\*[^*]{1,60}\*\*(?: \([^()]{0,80}\))?: ")
            .unwrap_or_else(|e| panic!("static pattern: {e}"))
    })
    .find(unit)
    .map_or(0, |m| m.end())
}

/// Whether a sentence states a rule: RFC 2119 words, or `never`, `always`, `default`,
/// `only`, `required`, `must`, `exactly`, or a `⇒`.
pub fn is_normative(sentence: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"\b(?:MUST|SHOULD|MAY|REQUIRED)\b|(?i:\b(?:never|always|default(?:s|ed)?|only|required|must|exactly)\b)|⇒",
        )
        .unwrap_or_else(|e| panic!("static pattern: {e}"))
    })
    .is_match(sentence)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(s: &Section) -> Vec<(&str, Kind)> {
        s.sentences
            .iter()
            .map(|x| (s.sentence(x), x.kind))
            .collect()
    }

    #[test]
    fn prose_lists_tables_headings_and_code_are_cut_apart() {
        let body = "## 4A. Built-ins\n**Rule** (`x`): Ports MUST do it. The rest\nruns on, e.g. `x` here.\n\n- `a`⇒one; b.\n2. Two. Three\n\n| name | rule |\n|---|---|\n| `bash` | Run it. Default 5. |\n```js\nconst x = 1. Y\n```\n> quoted\n";
        let s = Section::parse(body);
        assert_eq!(s.text, collapse_ws(body));
        assert_eq!(
            shown(&s),
            vec![
                ("## 4A. Built-ins", Kind::Heading),
                ("Ports MUST do it.", Kind::Prose),
                ("The rest runs on, e.g. `x` here.", Kind::Prose),
                ("`a`⇒one; b.", Kind::Prose),
                ("Two.", Kind::Prose),
                ("Three", Kind::Prose),
                ("name", Kind::Prose),
                ("rule", Kind::Prose),
                ("`bash`", Kind::Prose),
                ("Run it.", Kind::Prose),
                ("Default 5.", Kind::Prose),
                ("const x = 1. Y", Kind::Code),
                ("quoted", Kind::Prose),
            ]
        );
        assert_eq!(
            s.find_all("rest\n runs"),
            vec![s.text.find("rest").unwrap()..s.text.find("rest").unwrap() + 9]
        );
        assert!(is_normative("Default 5.") && is_normative("`a`⇒one") && !is_normative("Run it."));
    }
}
