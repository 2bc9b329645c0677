//! The clause index against its SPEC text, sentence by sentence: a quote that tracks only
//! part of a sentence (the rest quoted by no other clause, and the index giving no `part`
//! reason), a normative sentence no clause and no `prose` entry names, and an entry whose
//! text is not in its section.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

use crate::clauses::ClauseIndex;
use crate::sections;
use crate::sentences::{is_normative, Kind, Section};
use crate::text::{collapse_ws, shorten};
use crate::texts::SpecText;
use crate::version::cmp_versions;
use std::cmp::Ordering;

/// One problem the lint found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// Clauses quote part of a sentence; the rest is in no quote and none says why.
    HalfTracked {
        /// SPEC section.
        section: String,
        /// The whole sentence.
        sentence: String,
        /// The words no quote holds.
        missing: String,
        /// The clauses quoting part of it.
        clauses: Vec<String>,
    },
    /// A normative sentence no clause and no prose entry touches.
    Untracked {
        /// SPEC section.
        section: String,
        /// The sentence.
        sentence: String,
    },
    /// A clause quote or prose text that is not in its section.
    NotFound {
        /// Clause id, or `prose` for a prose entry.
        id: String,
        /// SPEC section.
        section: String,
    },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::HalfTracked {
                section,
                sentence,
                missing,
                clauses,
            } => write!(
                f,
                "§{section} half-tracked by {}: \"{}\" — no quote holds \"{}\" (quote the rest, or give \"part\")",
                clauses.join(", "),
                shorten(sentence, 160),
                shorten(missing, 80)
            ),
            Finding::Untracked { section, sentence } => write!(
                f,
                "§{section} untracked normative sentence: \"{}\" (add a clause or a prose entry)",
                shorten(sentence, 200)
            ),
            Finding::NotFound { id, section } => {
                write!(f, "{id}: its text is not in §{section} of the SPEC")
            }
        }
    }
}

/// Where a quote (or prose text) sits in its section, and whose it is: a clause's index in
/// the index, or `None` for a prose entry.
type Held = (Range<usize>, Option<usize>);

/// A clause the index keeps `until` an earlier release must quote that release's text, and
/// that release must come before the index's own text: one message per clause that does not.
pub fn check_retired(index: &ClauseIndex, history: &[SpecText]) -> Vec<String> {
    let mut out = Vec::new();
    for c in &index.clauses {
        let Some(until) = c.until.as_deref() else {
            continue;
        };
        if cmp_versions(until, &index.spec) != Ordering::Less {
            out.push(format!(
                "{}: kept until {until}, which is not before the index's text {}",
                c.id, index.spec
            ));
            continue;
        }
        match history.iter().find(|t| t.version == until) {
            None => out.push(format!(
                "{}: kept until {until}, which the SPEC history has no text of",
                c.id
            )),
            Some(t) => {
                let holds = sections::split(&t.text)
                    .get(&c.section)
                    .is_some_and(|body| collapse_ws(body).contains(&collapse_ws(&c.quote)));
                if !holds {
                    out.push(format!(
                        "{}: kept until {until}, but §{} of SPEC {until} does not hold its quote",
                        c.id, c.section
                    ));
                }
            }
        }
    }
    out
}

/// Lints `index` against the SPEC text it quotes (see the module doc); clauses it keeps
/// `until` an earlier release are [`check_retired`]'s.
pub fn check(index: &ClauseIndex, spec: &str) -> Vec<Finding> {
    let parsed: BTreeMap<String, Section> = sections::split(spec)
        .into_iter()
        .map(|(k, body)| (k, Section::parse(&body)))
        .collect();
    let mut findings = Vec::new();
    let mut spans: BTreeMap<&str, Vec<Held>> = BTreeMap::new();
    for (i, c) in index.clauses.iter().enumerate() {
        if !c.is_current() {
            // Retired: its quote is an earlier text's ([`check_retired`]).
            continue;
        }
        let found = parsed
            .get(&c.section)
            .map(|s| s.find_all(&c.quote))
            .unwrap_or_default();
        if found.is_empty() {
            findings.push(Finding::NotFound {
                id: c.id.clone(),
                section: c.section.clone(),
            });
        }
        let list = spans.entry(c.section.as_str()).or_default();
        list.extend(found.into_iter().map(|r| (r, Some(i))));
    }
    for p in &index.prose {
        let found = parsed
            .get(&p.section)
            .map(|s| s.find_all(&p.text))
            .unwrap_or_default();
        if found.is_empty() {
            findings.push(Finding::NotFound {
                id: format!("prose \"{}\"", shorten(&p.text, 40)),
                section: p.section.clone(),
            });
        }
        let list = spans.entry(p.section.as_str()).or_default();
        list.extend(found.into_iter().map(|r| (r, None)));
    }
    for (name, section) in &parsed {
        let held = spans.get(name.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        for sentence in &section.sentences {
            let span = &sentence.span;
            let touching: Vec<&Held> = held
                .iter()
                .filter(|(r, _)| r.start < span.end && span.start < r.end)
                .collect();
            let text = section.sentence(sentence);
            if touching.is_empty() {
                if sentence.kind != Kind::Heading && is_normative(text) {
                    findings.push(Finding::Untracked {
                        section: name.clone(),
                        sentence: text.to_string(),
                    });
                }
                continue;
            }
            // A prose entry, or a clause saying why it is a part, accounts for the rest.
            let excused = touching.iter().any(|(_, who)| match who {
                None => true,
                Some(i) => index.clauses[*i].part.is_some(),
            });
            if excused {
                continue;
            }
            let missing = uncovered(section, span, &touching);
            if missing.chars().any(char::is_alphanumeric) {
                let mut clauses: Vec<String> = touching
                    .iter()
                    .filter_map(|(_, who)| who.map(|i| index.clauses[i].id.clone()))
                    .collect();
                clauses.sort();
                clauses.dedup();
                findings.push(Finding::HalfTracked {
                    section: name.clone(),
                    sentence: text.to_string(),
                    missing,
                    clauses,
                });
            }
        }
    }
    findings
}

/// The sentence's text outside every touching range, runs joined with `…`.
fn uncovered(section: &Section, span: &Range<usize>, touching: &[&Held]) -> String {
    let mut runs: Vec<&str> = Vec::new();
    let mut at = span.start;
    let mut ranges: Vec<Range<usize>> = touching.iter().map(|(r, _)| r.clone()).collect();
    ranges.sort_by_key(|r| r.start);
    for r in ranges {
        if r.start > at {
            runs.push(section.text[at..r.start.min(span.end)].trim());
        }
        at = at.max(r.end);
        if at >= span.end {
            break;
        }
    }
    if at < span.end {
        runs.push(section.text[at..span.end].trim());
    }
    runs.retain(|r| r.chars().any(char::is_alphanumeric));
    runs.join(" … ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "# T\n## 4A. Built-ins\nPorts MUST do one. Ports MUST do two\nand more. A note.\n\n| `bash` | Default 5. Run it. |\n\nNever three.\n";

    fn index(clauses: &str, prose: &str) -> ClauseIndex {
        ClauseIndex::parse(
            &format!(r#"{{"spec": "0.16.0", "clauses": [{clauses}], "prose": [{prose}]}}"#),
            "i",
        )
        .unwrap()
    }

    fn clause(id: &str, quote: &str, part: Option<&str>) -> String {
        let part = part
            .map(|p| format!(r#", "part": "{p}""#))
            .unwrap_or_default();
        format!(
            r#"{{"id": "4A.x.{id}", "section": "4A", "quote": "{quote}", "kind": "observable"{part}}}"#
        )
    }

    #[test]
    fn a_retired_clause_quotes_its_last_release_not_the_index_text() {
        let text = |version: &str, body: &str| SpecText {
            version: version.into(),
            text: body.into(),
        };
        let history = [
            text("0.15.0", "## 4A. B\nPorts MUST read UTF-8.\n"),
            text("0.16.0", "## 4A. B\nPorts MUST read UTF-8.\n"),
        ];
        let idx = |until: &str| {
            ClauseIndex::parse(
                &format!(
                    r#"{{"spec": "main-after-0.17.0", "clauses": [
                      {{"id": "4A.x.old", "section": "4A", "quote": "Ports MUST read UTF-8.", "kind": "observable", "until": "{until}"}},
                      {{"id": "4A.x.gone", "section": "4A", "quote": "Ports MUST sniff.", "kind": "observable", "until": "0.16.0"}}
                    ]}}"#
                ),
                "i",
            )
            .unwrap()
        };
        // The newer text lacks both quotes, and its lint does not look for them.
        assert!(check(&idx("0.16.0"), "## 4A. B\nPorts MUST read a file.\n")
            .iter()
            .all(|f| !matches!(f, Finding::NotFound { .. })));
        assert_eq!(
            check_retired(&idx("0.16.0"), &history),
            vec!["4A.x.gone: kept until 0.16.0, but §4A of SPEC 0.16.0 does not hold its quote"]
        );
        let late = check_retired(&idx("0.18.0"), &history);
        assert!(
            late[0].contains("not before the index's text main-after-0.17.0"),
            "{late:?}"
        );
        let unknown = check_retired(&idx("0.14.0"), &history);
        assert!(unknown[0].contains("has no text of"), "{unknown:?}");
    }

    #[test]
    fn a_quote_ending_mid_sentence_is_half_tracked_until_the_rest_is_quoted_or_excused() {
        let one = clause("one", "Ports MUST do one.", None);
        let two = clause("two", "Ports MUST do two", None);
        let five = clause("five", "Default 5.", None);
        let three = clause("three", "Never three.", None);
        let all = index(
            &[one.clone(), two, five.clone(), three.clone()].join(","),
            "",
        );
        let found = check(&all, SPEC);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].to_string(),
            "§4A half-tracked by 4A.x.two: \"Ports MUST do two and more.\" — no quote holds \"and more.\" (quote the rest, or give \"part\")"
        );
        // The rest quoted by a second clause, or a part reason, or the whole sentence: clean.
        let rest = clause("rest", "and more.", None);
        let split = index(
            &[
                one.clone(),
                clause("two", "Ports MUST do two", None),
                rest,
                five.clone(),
                three.clone(),
            ]
            .join(","),
            "",
        );
        assert!(check(&split, SPEC).is_empty());
        let excused = index(
            &[
                one.clone(),
                clause("two", "Ports MUST do two", Some("the rest is an example")),
                five.clone(),
                three.clone(),
            ]
            .join(","),
            "",
        );
        assert!(check(&excused, SPEC).is_empty());
        // A normative sentence with no clause is untracked; a prose entry accounts for it.
        let missing = index(
            &[
                one.clone(),
                clause("two", "Ports MUST do two and more.", None),
                five.clone(),
            ]
            .join(","),
            "",
        );
        let found: Vec<String> = check(&missing, SPEC)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(found, vec!["§4A untracked normative sentence: \"Never three.\" (add a clause or a prose entry)"]);
        let prose = index(
            &[
                one,
                clause("two", "Ports MUST do two and more.", None),
                five,
            ]
            .join(","),
            r#"{"section": "4A", "text": "Never three.", "why": "a rationale"}"#,
        );
        assert!(check(&prose, SPEC).is_empty());
        // A quote that is not in its section is named.
        let lost = index(
            &[clause("lost", "Ports MUST do nine.", None), three].join(","),
            "",
        );
        assert!(check(&lost, SPEC)
            .iter()
            .any(|f| f.to_string() == "4A.x.lost: its text is not in §4A of the SPEC"));
    }
}
