//! `spec-diff OLD NEW` as a review list: the SPEC crate's comparison of the two texts
//! (`toolnexus_spec::diff`: where each indexed clause went, the new normative sentences no
//! clause quotes), and for each clause that did not stay put the scenarios tagging it and the
//! snapshots they compare with.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use toolnexus_spec::clauses::ClauseIndex;
use toolnexus_spec::diff::{compare, AddedSentence, Change, ClauseDiff};
use toolnexus_spec::text::shorten;

use super::coverage::{ScenarioRef, Ties};
use crate::scenario::features::ScenarioSpec;

/// One clause that did not stay put, with what cites it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClauseReview {
    /// Where the clause went (its fields are this one's, in the JSON too).
    #[serde(flatten)]
    pub clause: ClauseDiff,
    /// Scenarios tagging the clause.
    pub scenarios: Vec<ScenarioRef>,
    /// The snapshot files those scenarios compare with (`snapshots/NAME.snap`).
    pub snapshots: Vec<String>,
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
    pub clauses: Vec<ClauseReview>,
    /// Normative sentences (MUST / never / always / default) new in NEW and in no clause.
    pub added: Vec<AddedSentence>,
}

impl SpecDiff {
    /// Whether anything needs review.
    pub fn is_empty(&self) -> bool {
        self.clauses.is_empty() && self.added.is_empty()
    }
}

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

/// Compares OLD and NEW clause by clause (`toolnexus_spec::diff::compare`) and names, for
/// each clause that did not stay put, the scenarios tagging it and their snapshots.
pub fn diff(
    index: &ClauseIndex,
    old: &str,
    new: &str,
    scenarios: &[ScenarioSpec],
    ties: &Ties,
    names: Names<'_>,
) -> SpecDiff {
    let compared = compare(index, old, new);
    let by_name: BTreeMap<&str, &ScenarioSpec> =
        scenarios.iter().map(|s| (s.id.as_str(), s)).collect();
    let clauses = compared
        .clauses
        .into_iter()
        .map(|clause| {
            let refs = ties.by_clause.get(&clause.id).cloned().unwrap_or_default();
            let snapshots: BTreeSet<String> = refs
                .iter()
                .filter_map(|r| by_name.get(r.name.as_str()))
                .flat_map(|s| snapshots_of(s))
                .collect();
            ClauseReview {
                clause,
                scenarios: refs,
                snapshots: snapshots.into_iter().collect(),
            }
        })
        .collect();
    SpecDiff {
        old: names.old.to_string(),
        new: names.new.to_string(),
        index: names.index.to_string(),
        unchanged: compared.unchanged,
        clauses,
        added: compared.added,
    }
}

/// The diff as a review list.
pub fn text(d: &SpecDiff) -> String {
    let mut out = String::new();
    let count = |c: Change| d.clauses.iter().filter(|x| x.clause.change == c).count();
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
        let list: Vec<&ClauseReview> = d
            .clauses
            .iter()
            .filter(|c| c.clause.change == change)
            .collect();
        if list.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title} ({}):", list.len());
        let label = match change {
            Change::Changed | Change::Removed => "was",
            _ => "quote",
        };
        for review in list {
            let c = &review.clause;
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
            if review.scenarios.is_empty() {
                let _ = writeln!(out, "    no scenario tags it");
            }
            for s in &review.scenarios {
                let partial = if s.partial { " (partly)" } else { "" };
                let _ = writeln!(
                    out,
                    "    scenario features/{}:{}  {}{partial}",
                    s.file, s.line, s.name
                );
            }
            for snap in &review.snapshots {
                let _ = writeln!(out, "    snapshot {snap}");
            }
        }
    }
    let absent: Vec<&str> = d
        .clauses
        .iter()
        .filter(|c| c.clause.change == Change::NotFound)
        .map(|c| c.clause.id.as_str())
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
    use crate::reporting::coverage::tie;
    use crate::scenario::features;

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
        let changed = &d.clauses[0];
        assert_eq!(
            (changed.clause.id.as_str(), changed.clause.change),
            ("4A.grep.default-limit", Change::Changed)
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
        // The clause's own fields and its citations sit side by side in the JSON.
        let json = serde_json::to_value(&d).unwrap();
        let keys: Vec<&str> = json["clauses"][0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            vec![
                "id",
                "section",
                "change",
                "quote",
                "now",
                "similarity",
                "scenarios",
                "snapshots"
            ]
        );
    }

    #[test]
    fn a_moved_clause_and_an_earlier_wording_are_shown() {
        let (index, scenarios, ties) = setup();
        let moved = SPEC
            .replace("- `glob` sorts by path.\n", "")
            .replace("Nothing normative.", "`glob` sorts by path.");
        let d = diff(&index, &moved, SPEC, &scenarios, &ties, names());
        assert!(text(&d).contains("    in OLD under §5\n"), "{}", text(&d));

        let earlier = SPEC.replace("at most 100 matches by default", "at most 100 matches");
        let d = diff(&index, &earlier, SPEC, &scenarios, &ties, names());
        assert!(text(&d).contains("earlier wording in OLD: \"`grep` returns at most 100 matches."));
    }
}
