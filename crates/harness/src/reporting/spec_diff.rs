//! `spec-diff OLD NEW`: where each indexed clause went between two SPEC texts, the new
//! normative sentences no clause quotes, and the scenarios and snapshots to review for each.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::clauses::{collapse_ws, shorten, ClauseIndex, ScenarioRef, Ties};
use super::spec_text::{closest, is_normative, similarity, Kind, Section};
use crate::features::ScenarioSpec;

/// The lowest word-level similarity at which a vanished quote counts as changed, not removed.
const CHANGED_AT: f32 = 0.6;

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
    /// Scenarios tagging the clause.
    pub scenarios: Vec<ScenarioRef>,
    /// The snapshot files those scenarios compare with (`snapshots/NAME.snap`).
    pub snapshots: Vec<String>,
}

/// A normative sentence of NEW that is neither in OLD nor in any clause.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddedSentence {
    /// SPEC section in NEW.
    pub section: String,
    /// The sentence, whitespace collapsed.
    pub sentence: String,
}

/// The `spec-diff --format json` shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpecDiff {
    /// The OLD file, as given.
    pub old: String,
    /// The NEW file, as given.
    pub new: String,
    /// The index file, as given.
    pub index: String,
    /// Clauses whose quote is in both texts.
    pub unchanged: usize,
    /// The other clauses, in index order.
    pub clauses: Vec<ClauseDiff>,
    /// Normative sentences (MUST / never / always / default) new in NEW and in no clause.
    pub added: Vec<AddedSentence>,
}

impl SpecDiff {
    /// Whether anything needs review.
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty() && self.added.is_empty()
    }
}

pub use super::spec_text::sections;

/// Snapshot files a scenario compares with: steps `… matches snapshot "NAME"`.
pub fn snapshots_of(scenario: &ScenarioSpec) -> Vec<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r#"matches snapshot "([^"]+)""#)
            .unwrap_or_else(|e| panic!("static pattern: {e}"))
    });
    scenario
        .steps
        .iter()
        .filter_map(|s| re.captures(&s.text))
        .filter_map(|c| c.get(1))
        .map(|m| format!("snapshots/{}.snap", m.as_str()))
        .collect()
}

/// The names shown for the OLD, NEW and index files.
pub struct Names<'a> {
    /// OLD, as given.
    pub old: &'a str,
    /// NEW, as given.
    pub new: &'a str,
    /// The index, as given.
    pub index: &'a str,
}

/// Compares OLD and NEW clause by clause (see the module doc).
pub fn diff(
    index: &ClauseIndex,
    old: &str,
    new: &str,
    scenarios: &[ScenarioSpec],
    ties: &Ties,
    names: Names<'_>,
) -> SpecDiff {
    let old_sections: BTreeMap<String, String> = sections(old)
        .into_iter()
        .map(|(k, v)| (k, collapse_ws(&v)))
        .collect();
    let new_raw = sections(new);
    let new_sections: BTreeMap<String, String> = new_raw
        .iter()
        .map(|(k, v)| (k.clone(), collapse_ws(v)))
        .collect();
    let by_name: BTreeMap<&str, &ScenarioSpec> =
        scenarios.iter().map(|s| (s.id.as_str(), s)).collect();
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
                Some((text, score)) if score >= CHANGED_AT => {
                    (Change::Changed, Some(text), Some(score), Vec::new())
                }
                _ => (Change::Removed, None, None, Vec::new()),
            },
        };
        let refs = ties.by_clause.get(&c.id).cloned().unwrap_or_default();
        let snapshots: BTreeSet<String> = refs
            .iter()
            .filter_map(|r| by_name.get(r.name.as_str()))
            .flat_map(|s| snapshots_of(s))
            .collect();
        let before = (change == Change::NewOnly)
            .then(|| old_sections.get(&c.section))
            .flatten()
            .and_then(|body| closest(&quote, body))
            .filter(|(_, score)| *score >= CHANGED_AT)
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
            scenarios: refs,
            snapshots: snapshots.into_iter().collect(),
        });
    }
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
    for (section, body) in &new_raw {
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
                        || similarity(n, &words) >= CHANGED_AT
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
        crate::sections::cmp_sections(&a.section, &b.section)
            .then_with(|| a.sentence.cmp(&b.sentence))
    });
    added.dedup();
    SpecDiff {
        old: names.old.to_string(),
        new: names.new.to_string(),
        index: names.index.to_string(),
        unchanged,
        clauses,
        added,
    }
}

/// The diff as a review list.
pub fn text(d: &SpecDiff) -> String {
    let mut out = String::new();
    let count = |c: Change| d.clauses.iter().filter(|x| x.change == c).count();
    let _ = writeln!(
        out,
        "spec-diff {} → {} (clauses from {})\n{} unchanged, {} changed, {} removed, {} added sentences not indexed",
        d.old,
        d.new,
        d.index,
        d.unchanged,
        count(Change::Changed),
        count(Change::Removed),
        d.added.len()
    );
    for (change, title) in [
        (Change::Changed, "Changed clauses"),
        (Change::Removed, "Removed clauses"),
        (
            Change::NewOnly,
            "Clauses arriving in NEW (found in NEW only)",
        ),
        (
            Change::Moved,
            "Clauses moved between sections (OLD has them elsewhere)",
        ),
    ] {
        let list: Vec<&ClauseDiff> = d.clauses.iter().filter(|c| c.change == change).collect();
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title} ({}):", list.len());
        let label = match change {
            Change::Changed | Change::Removed => "was",
            _ => "quote",
        };
        for c in list {
            let _ = writeln!(out, "  {} (§{})", c.id, c.section);
            let _ = writeln!(out, "    {label}: \"{}\"", shorten(&c.quote, 200));
            if let Some(before) = &c.before {
                let _ = writeln!(
                    out,
                    "    earlier wording in OLD: \"{}\"",
                    shorten(before, 200)
                );
            }
            if !c.from.is_empty() {
                let _ = writeln!(out, "    in OLD under §{}", c.from.join(", §"));
            }
            if let (Some(now), Some(score)) = (&c.now, c.similarity) {
                let _ = writeln!(
                    out,
                    "    now: \"{}\"  (similarity {score:.2})",
                    shorten(now, 200)
                );
            }
            if c.scenarios.is_empty() {
                let _ = writeln!(out, "    no scenario tags it");
            }
            for s in &c.scenarios {
                let partial = if s.partial { " (partly)" } else { "" };
                let _ = writeln!(
                    out,
                    "    scenario features/{}:{}  {}{partial}",
                    s.file, s.line, s.name
                );
            }
            for snap in &c.snapshots {
                let _ = writeln!(out, "    snapshot {snap}");
            }
        }
    }
    let absent: Vec<&str> = d
        .clauses
        .iter()
        .filter(|c| c.change == Change::NotFound)
        .map(|c| c.id.as_str())
        .collect();
    if !absent.is_empty() {
        // Between two texts older than the index's, these are the clauses still to come.
        let _ = writeln!(
            out,
            "\nClauses in neither text ({}): they arrive after NEW, or the index does not match these texts:\n  {}",
            absent.len(),
            absent.join(", ")
        );
    }
    if !d.added.is_empty() {
        let _ = writeln!(
            out,
            "\nNormative sentences new in NEW and in no clause ({}):",
            d.added.len()
        );
        for a in &d.added {
            let _ = writeln!(out, "  §{}  \"{}\"", a.section, shorten(&a.sentence, 200));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features;
    use crate::reporting::clauses::tie;

    const SPEC: &str = "# Title\n\nPreamble MUST be ignored.\n\n## 0. Contract\n\nA port MUST answer every request\nwith exactly one line. Other prose.\n\n```\n## Not a heading\n```\n\n## 4A. Built-ins\n\n- `grep` returns at most 100 matches by default.\n- `glob` sorts by path.\n\n## 5. Usage\n\nNothing normative.\n";

    const INDEX: &str = r#"{"spec": "0.16.0", "clauses": [
      {"id": "0.wire.one-line", "section": "0", "quote": "A port MUST answer every request with exactly one line.", "kind": "observable"},
      {"id": "4A.grep.default-limit", "section": "4A", "quote": "`grep` returns at most 100 matches by default.", "kind": "observable"},
      {"id": "4A.glob.sorted", "section": "4A", "quote": "`glob` sorts by path.", "kind": "observable"}
    ]}"#;

    const FEATURE: &str = "@pin-0.16.0 @spec-4A\nFeature: grep\n\n  @clause-4A.grep.default-limit\n  Scenario: grep stops at the limit\n    Then the output matches snapshot \"grep-limit\"\n\n  @partial-clause-4A.grep.default-limit @clause-4A.glob.sorted\n  Scenario: glob and grep\n    Given a step\n";

    fn setup() -> (ClauseIndex, Vec<ScenarioSpec>, Ties) {
        let index = ClauseIndex::parse(INDEX, "i").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("grep.feature"), FEATURE).unwrap();
        let (scenarios, errors) = features::load(dir.path());
        assert!(errors.is_empty(), "{errors:?}");
        let ties = tie(&index, &scenarios, "i");
        assert!(ties.errors.is_empty(), "{:?}", ties.errors);
        (index, scenarios, ties)
    }

    fn names() -> Names<'static> {
        Names {
            old: "OLD.md",
            new: "NEW.md",
            index: "i",
        }
    }

    #[test]
    fn sections_skip_fenced_headings_and_the_preamble() {
        let s = sections(SPEC);
        assert_eq!(s.keys().collect::<Vec<_>>(), vec!["0", "4A", "5"]);
        assert!(s["0"].contains("## Not a heading"));
        assert!(s["0"].starts_with("## 0. Contract\n"));
        assert!(!s["0"].contains("Built-ins"));
    }

    #[test]
    fn the_same_text_has_nothing_to_review() {
        let (index, scenarios, ties) = setup();
        let d = diff(&index, SPEC, SPEC, &scenarios, &ties, names());
        assert_eq!(d.unchanged, 3);
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn an_edited_sentence_names_its_clause_scenarios_and_snapshots() {
        let (index, scenarios, ties) = setup();
        let new = SPEC
            .replace("at most 100 matches", "at most 250 matches")
            .replace("- `glob` sorts by path.\n", "")
            .replace("Nothing normative.", "Hosts MUST log. Ports never retry.");
        let d = diff(&index, SPEC, &new, &scenarios, &ties, names());
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
        let tagged: Vec<(&str, usize, bool)> = changed
            .scenarios
            .iter()
            .map(|s| (s.name.as_str(), s.line, s.partial))
            .collect();
        assert_eq!(
            tagged,
            vec![
                ("grep: glob and grep", 9, true),
                ("grep: grep stops at the limit", 5, false)
            ]
        );
        assert_eq!(changed.snapshots, vec!["snapshots/grep-limit.snap"]);
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
        let shown = text(&d);
        assert!(
            shown.contains("1 unchanged, 1 changed, 1 removed, 2 added"),
            "{shown}"
        );
        assert!(
            shown.contains("    scenario features/grep.feature:5  grep: grep stops at the limit\n"),
            "{shown}"
        );
        assert!(
            shown.contains("    snapshot snapshots/grep-limit.snap\n"),
            "{shown}"
        );
    }

    #[test]
    fn a_quote_missing_from_old_is_flagged() {
        let (index, scenarios, ties) = setup();
        let old = SPEC.replace("exactly one line", "one line");
        let d = diff(&index, &old, SPEC, &scenarios, &ties, names());
        assert_eq!(d.clauses[0].change, Change::NewOnly);
        let d = diff(&index, &old, &old, &scenarios, &ties, names());
        assert_eq!(d.clauses[0].change, Change::NotFound);
    }

    #[test]
    fn a_sentence_moved_between_sections_is_moved_and_a_reworded_arrival_shows_its_earlier_words() {
        let (index, scenarios, ties) = setup();
        let moved = SPEC
            .replace("- `glob` sorts by path.\n", "")
            .replace("Nothing normative.", "`glob` sorts by path.");
        let d = diff(&index, &moved, SPEC, &scenarios, &ties, names());
        let glob = d.clauses.iter().find(|c| c.id == "4A.glob.sorted").unwrap();
        assert_eq!(
            (glob.change, glob.from.clone()),
            (Change::Moved, vec!["5".to_string()])
        );
        assert!(text(&d).contains("    in OLD under §5\n"), "{}", text(&d));

        let earlier = SPEC.replace("at most 100 matches by default", "at most 100 matches");
        let d = diff(&index, &earlier, SPEC, &scenarios, &ties, names());
        let grep = &d.clauses[0];
        assert_eq!(grep.change, Change::NewOnly);
        assert_eq!(
            grep.before.as_deref(),
            Some("`grep` returns at most 100 matches.")
        );
        assert!(text(&d).contains("earlier wording in OLD: \"`grep` returns at most 100 matches."));
    }
}
