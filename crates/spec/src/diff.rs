//! `spec-diff`'s comparison of two SPEC texts: where each indexed clause went between OLD and
//! NEW (changed, removed, arriving, moved, or in neither), and the normative sentences new in
//! NEW that no clause quotes. What cites a clause is not known here: the harness adds it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::clauses::ClauseIndex;
use crate::sections::{self, cmp_sections};
use crate::sentences::{is_normative, Kind, Section};
use crate::similarity::{closest, similarity, REWORDED_AT};
use crate::text::collapse_ws;

/// What happened to a clause between OLD and NEW.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// Its quote is gone from NEW, but its section holds a close match.
    Changed,
    /// Its quote is gone from NEW and nothing close is left in its section.
    Removed,
    /// Its quote is in NEW but nowhere in OLD: the clause arrives in NEW.
    NewOnly,
    /// Its quote is in both texts, but not in its own section of both (`from`: where OLD
    /// has it).
    Moved,
    /// Its quote is in neither text: the index does not match OLD.
    NotFound,
}

/// One clause that did not stay put.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClauseDiff {
    /// Clause id.
    pub id: String,
    /// SPEC section.
    pub section: String,
    /// What happened.
    pub change: Change,
    /// The quote, whitespace collapsed.
    pub quote: String,
    /// For a changed clause: the closest text of NEW's section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    /// For a changed clause: word-level similarity of `now` to the quote (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f32>,
    /// For a clause arriving in NEW: the closest text of OLD's section when it is close
    /// enough to be an earlier wording of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// For a moved clause: the sections of OLD that hold the quote (none: only outside any
    /// numbered section).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from: Vec<String>,
}

/// A normative sentence of NEW that is neither in OLD nor in any clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedSentence {
    /// SPEC section in NEW.
    pub section: String,
    /// The sentence, whitespace collapsed.
    pub sentence: String,
}

/// The two texts compared against the index.
#[derive(Debug, Clone, PartialEq)]
pub struct TextDiff {
    /// Clauses whose quote is in both texts, in its own section of both.
    pub unchanged: usize,
    /// The other clauses, in index order.
    pub clauses: Vec<ClauseDiff>,
    /// Normative sentences (MUST / never / always / default) new in NEW and in no clause,
    /// in section order.
    pub added: Vec<AddedSentence>,
}

impl TextDiff {
    /// Whether anything needs review.
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty() && self.added.is_empty()
    }
}

/// Compares OLD and NEW clause by clause (see the module doc).
pub fn compare(index: &ClauseIndex, old: &str, new: &str) -> TextDiff {
    let old_sections: BTreeMap<String, String> = sections::split(old)
        .into_iter()
        .map(|(k, v)| (k, collapse_ws(&v)))
        .collect();
    let new_raw = sections::split(new);
    let new_sections: BTreeMap<String, String> = new_raw
        .iter()
        .map(|(k, v)| (k.clone(), collapse_ws(v)))
        .collect();
    let in_section = |secs: &BTreeMap<String, String>, section: &str, quote: &str| {
        secs.get(section).is_some_and(|body| body.contains(quote))
    };
    let (old_all, new_all) = (collapse_ws(old), collapse_ws(new));
    let mut unchanged = 0;
    let mut clauses = Vec::new();
    for c in &index.clauses {
        let quote = collapse_ws(&c.quote);
        // Presence is over the whole text, as clause arrivals are computed; sections only
        // tell a moved sentence from one that stayed.
        let (in_old, in_new) = (old_all.contains(&quote), new_all.contains(&quote));
        let stayed = in_section(&old_sections, &c.section, &quote)
            && in_section(&new_sections, &c.section, &quote);
        let (change, now, similarity, from) = match (in_old, in_new) {
            (true, true) if stayed => {
                unchanged += 1;
                continue;
            }
            (true, true) => {
                let from = old_sections
                    .iter()
                    .filter(|(_, body)| body.contains(&quote))
                    .map(|(k, _)| k.clone())
                    .collect();
                (Change::Moved, None, None, from)
            }
            (false, true) => (Change::NewOnly, None, None, Vec::new()),
            (false, false) => (Change::NotFound, None, None, Vec::new()),
            (true, false) => match new_sections
                .get(&c.section)
                .and_then(|body| closest(&quote, body))
            {
                Some((text, score)) if score >= REWORDED_AT => {
                    (Change::Changed, Some(text), Some(score), Vec::new())
                }
                _ => (Change::Removed, None, None, Vec::new()),
            },
        };
        let before = (change == Change::NewOnly)
            .then(|| old_sections.get(&c.section))
            .flatten()
            .and_then(|body| closest(&quote, body))
            .filter(|(_, score)| *score >= REWORDED_AT)
            .map(|(text, _)| text);
        clauses.push(ClauseDiff {
            id: c.id.clone(),
            section: c.section.clone(),
            change,
            quote,
            now,
            similarity,
            before,
            from,
        });
    }
    let added = added_sentences(index, &old_all, &new_raw, &clauses);
    TextDiff {
        unchanged,
        clauses,
        added,
    }
}

/// The normative sentences of NEW's sections (`new_raw`) that OLD does not have, no clause or
/// prose entry quotes, and no changed clause's new wording accounts for.
fn added_sentences(
    index: &ClauseIndex,
    old_all: &str,
    new_raw: &BTreeMap<String, String>,
    clauses: &[ClauseDiff],
) -> Vec<AddedSentence> {
    // Prose entries are sentences the index has judged: they are not "new" either.
    let quotes: Vec<String> = index
        .clauses
        .iter()
        .map(|c| collapse_ws(&c.quote))
        .chain(index.prose.iter().map(|p| collapse_ws(&p.text)))
        .collect();
    let nows: Vec<Vec<&str>> = clauses
        .iter()
        .filter_map(|c| c.now.as_deref())
        .map(|n| n.split_whitespace().collect())
        .collect();
    let mut added = Vec::new();
    for (section, body) in new_raw {
        let parsed = Section::parse(body);
        // Code lines count too: the SPEC states rules in code comments (`// "pending" ⇒ …`).
        for one in parsed.sentences.iter().filter(|s| s.kind != Kind::Heading) {
            let sentence = parsed.sentence(one);
            if !is_normative(sentence) {
                continue;
            }
            let words: Vec<&str> = sentence.split_whitespace().collect();
            let known = old_all.contains(sentence)
                || quotes
                    .iter()
                    .any(|q| sentence.contains(q.as_str()) || q.contains(sentence))
                // A changed clause's new wording is reported with the clause.
                || nows.iter().any(|n| {
                    let now = n.join(" ");
                    sentence.contains(&now)
                        || now.contains(sentence)
                        || similarity(n, &words) >= REWORDED_AT
                });
            if !known {
                added.push(AddedSentence {
                    section: section.clone(),
                    sentence: sentence.to_string(),
                });
            }
        }
    }
    added.sort_by(|a, b| {
        cmp_sections(&a.section, &b.section).then_with(|| a.sentence.cmp(&b.sentence))
    });
    added.dedup();
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "# Title\n\nPreamble MUST be ignored.\n\n## 0. Contract\n\nA port MUST answer every request\nwith exactly one line. Other prose.\n\n```\n## Not a heading\n```\n\n## 4A. Built-ins\n\n- `grep` returns at most 100 matches by default.\n- `glob` sorts by path.\n\n## 5. Usage\n\nNothing normative.\n";

    const INDEX: &str = r#"{"spec": "0.16.0", "clauses": [
      {"id": "0.wire.one-line", "section": "0", "quote": "A port MUST answer every request with exactly one line.", "kind": "observable"},
      {"id": "4A.grep.default-limit", "section": "4A", "quote": "`grep` returns at most 100 matches by default.", "kind": "observable"},
      {"id": "4A.glob.sorted", "section": "4A", "quote": "`glob` sorts by path.", "kind": "observable"}
    ]}"#;

    fn index() -> ClauseIndex {
        ClauseIndex::parse(INDEX, "i").unwrap()
    }

    #[test]
    fn the_same_text_has_nothing_to_review() {
        let d = compare(&index(), SPEC, SPEC);
        assert_eq!(d.unchanged, 3);
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn an_edited_sentence_is_changed_a_dropped_one_removed_and_new_rules_added() {
        let new = SPEC
            .replace("at most 100 matches", "at most 250 matches")
            .replace("- `glob` sorts by path.\n", "")
            .replace("Nothing normative.", "Hosts MUST log. Ports never retry.");
        let d = compare(&index(), SPEC, &new);
        assert_eq!(d.unchanged, 1);
        let changed = &d.clauses[0];
        assert_eq!(
            (changed.id.as_str(), changed.change),
            ("4A.grep.default-limit", Change::Changed)
        );
        assert_eq!(
            changed.now.as_deref(),
            Some("`grep` returns at most 250 matches by default.")
        );
        assert!(changed
            .similarity
            .is_some_and(|s| (REWORDED_AT..1.0).contains(&s)));
        assert_eq!(
            (d.clauses[1].id.as_str(), d.clauses[1].change),
            ("4A.glob.sorted", Change::Removed)
        );
        // The edited grep sentence is reported with its clause, not again as added.
        let added: Vec<(&str, &str)> = d
            .added
            .iter()
            .map(|a| (a.section.as_str(), a.sentence.as_str()))
            .collect();
        assert_eq!(
            added,
            vec![("5", "Hosts MUST log."), ("5", "Ports never retry.")]
        );
    }

    #[test]
    fn a_quote_missing_from_old_is_flagged() {
        let old = SPEC.replace("exactly one line", "one line");
        let d = compare(&index(), &old, SPEC);
        assert_eq!(d.clauses[0].change, Change::NewOnly);
        let d = compare(&index(), &old, &old);
        assert_eq!(d.clauses[0].change, Change::NotFound);
    }

    #[test]
    fn a_sentence_moved_between_sections_is_moved_and_a_reworded_arrival_shows_its_earlier_words() {
        let moved = SPEC
            .replace("- `glob` sorts by path.\n", "")
            .replace("Nothing normative.", "`glob` sorts by path.");
        let d = compare(&index(), &moved, SPEC);
        let glob = d.clauses.iter().find(|c| c.id == "4A.glob.sorted").unwrap();
        assert_eq!(
            (glob.change, glob.from.clone()),
            (Change::Moved, vec!["5".to_string()])
        );

        let earlier = SPEC.replace("at most 100 matches by default", "at most 100 matches");
        let d = compare(&index(), &earlier, SPEC);
        let grep = &d.clauses[0];
        assert_eq!(grep.change, Change::NewOnly);
        assert_eq!(
            grep.before.as_deref(),
            Some("`grep` returns at most 100 matches.")
        );
    }
}
