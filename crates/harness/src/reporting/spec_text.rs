//! A SPEC.md text as the clause tools read it: its numbered sections, each section's
//! whitespace-collapsed text cut into sentences (prose, table cells, headings and code lines
//! apart), which sentences are normative, and the SPEC history directory
//! (`SPEC-<version>.md`, one text per upstream release).

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use similar::{capture_diff_slices, Algorithm, DiffOp};

use super::clauses::{collapse_ws, valid_section};
use super::history::cmp_versions;

/// The section bodies of a SPEC text: a `## N.` heading line and the text up to the next
/// `## ` heading (the heading kept, as an index may quote it). Lines inside ``` fences are
/// body text, never headings (the SPEC quotes markdown that has its own `## `).
pub fn sections(text: &str) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if !fenced {
            if let Some(heading) = line.strip_prefix("## ") {
                current = heading
                    .split_once('.')
                    .map(|(n, _)| n.trim().to_string())
                    .filter(|n| valid_section(n));
            }
        }
        if let Some(section) = &current {
            let body = out.entry(section.clone()).or_default();
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

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
    /// Reads a raw section body (as [`sections`] returns it).
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

/// Word-level similarity: twice the words in common (in order) over both lengths. Words
/// compare without surrounding punctuation and case, so `(\`skill\`` matches `\`skill\``.
pub fn similarity(a: &[&str], b: &[&str]) -> f32 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (a, b): (Vec<String>, Vec<String>) = (
        a.iter().map(|w| word_key(w)).collect(),
        b.iter().map(|w| word_key(w)).collect(),
    );
    let same: usize = capture_diff_slices(Algorithm::Myers, &a, &b)
        .iter()
        .map(|op| match op {
            DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    2.0 * same as f32 / (a.len() + b.len()) as f32
}

fn word_key(w: &str) -> String {
    w.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

/// How many of the best windows by shared words get the exact (ordered) similarity.
const CANDIDATES: usize = 8;

/// The run of `text`'s words most like `quote` (windows of about the quote's length) and
/// its [`similarity`]. Windows are first ranked by the words they share with the quote, in
/// one pass per window length; only the best few are compared in order.
pub fn closest(quote: &str, text: &str) -> Option<(String, f32)> {
    let q: Vec<&str> = quote.split_whitespace().collect();
    let words: Vec<&str> = text.split_whitespace().collect();
    if q.is_empty() || words.is_empty() {
        return None;
    }
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut id = |w: &str| {
        let n = ids.len();
        *ids.entry(word_key(w)).or_insert(n)
    };
    let q_ids: Vec<usize> = q.iter().map(|w| id(w)).collect();
    let w_ids: Vec<usize> = words.iter().map(|w| id(w)).collect();
    let mut want = vec![0i32; ids.len()];
    for &i in &q_ids {
        want[i] += 1;
    }
    let n = q.len();
    // (bag score, start, len), the quote's own length tried first so ties go to it.
    let mut ranked: Vec<(f32, usize, usize)> = Vec::new();
    for len in [n, n - n / 4, n + n / 4] {
        let len = len.clamp(1, words.len());
        let mut have = vec![0i32; want.len()];
        let mut shared = 0i32;
        for (end, &w) in w_ids.iter().enumerate() {
            if have[w] < want[w] {
                shared += 1;
            }
            have[w] += 1;
            if end >= len {
                let out = w_ids[end - len];
                have[out] -= 1;
                if have[out] < want[out] {
                    shared -= 1;
                }
            }
            if end + 1 >= len {
                let score = 2.0 * shared as f32 / (n + len) as f32;
                ranked.push((score, end + 1 - len, len));
            }
        }
    }
    // Stable sort keeps the earlier (quote-length, leftmost) window first among equals.
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut best: Option<(usize, usize, f32)> = None;
    for &(bag, start, len) in ranked.iter().take(CANDIDATES) {
        if best.is_some_and(|(_, _, b)| bag <= b) {
            break; // the bag score bounds the ordered one
        }
        let score = similarity(&q, &words[start..start + len]);
        if best.is_none_or(|(_, _, b)| score > b) {
            best = Some((start, len, score));
        }
    }
    best.map(|(start, len, score)| (words[start..start + len].join(" "), score))
}

/// The pinned SPEC.md beside a checkout (`../shared/spec/SPEC.md`).
pub fn pinned_spec_file(root: &Path) -> PathBuf {
    root.join("../shared/spec/SPEC.md")
}

/// The SPEC history beside a checkout (`../shared/spec/history`, one `SPEC-<version>.md`
/// per release).
pub fn history_dir(root: &Path) -> PathBuf {
    root.join("../shared/spec/history")
}

/// One SPEC text of the history directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecText {
    /// The release, `0.9.5`.
    pub version: String,
    /// The whole SPEC.md.
    pub text: String,
}

/// Reads every `SPEC-<version>.md` of `dir`, oldest first. Other files are ignored; an
/// unreadable directory or file is an error naming it.
pub fn load_history(dir: &Path) -> Result<Vec<SpecText>, String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the SPEC history {}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot read the SPEC history {}: {e}", dir.display()))?
            .path();
        let Some(version) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("SPEC-"))
            .and_then(|n| n.strip_suffix(".md"))
            .filter(|v| super::history::version_key(v).is_some())
            .map(str::to_string)
        else {
            continue;
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        out.push(SpecText { version, text });
    }
    if out.is_empty() {
        return Err(format!("{} holds no SPEC-<version>.md text", dir.display()));
    }
    out.sort_by(|a, b| cmp_versions(&a.version, &b.version));
    Ok(out)
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

    #[test]
    fn sections_skip_fenced_headings() {
        let text = "# SPEC\n## 0. Zero\nA.\n```md\n## 1. Not a heading\n```\n## 1. One\nB.\n## Appendix\nC.\n";
        let s = sections(text);
        assert_eq!(s.keys().collect::<Vec<_>>(), vec!["0", "1"]);
        assert!(s["0"].contains("Not a heading"));
        assert!(!s["1"].contains("C."));
    }
}
