//! The clause index (`conformance/clauses/<spec>.json`, issue 12) against the pinned SPEC:
//! well-formed entries, every quote verbatim inside its own section, ≥ 250 clauses for §0–§7A
//! and at least one clause per numbered section — so a SPEC edit that moves a clause fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use regex::Regex;
use serde::Deserialize;
use toolnexus_harness::reporting::bounds;
use toolnexus_harness::scenario::features;
use toolnexus_spec::clauses::{self, ClauseIndex};
use toolnexus_spec::diff::{compare, Change};
use toolnexus_spec::{arrival, texts, wholeness};

/// The index file, as the lead fixed its format.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Index {
    spec: String,
    clauses: Vec<Clause>,
    #[allow(dead_code)] // checked by the wholeness lint
    prose: Option<Vec<serde_json::Value>>,
}

/// One normative clause of the SPEC.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Clause {
    id: String,
    section: String,
    quote: String,
    kind: String,
    why: Option<String>,
    uncovered: Option<String>,
    part: Option<String>,
    arrived: Option<String>,
    #[allow(dead_code)] // checked against the history below
    reworded: Option<Vec<String>>,
    #[allow(dead_code)] // checked against the history below
    #[serde(rename = "sameRule")]
    same_rule: Option<serde_json::Value>,
}

/// The sections §0–§7A, which the issue asks to be indexed densely.
const EARLY_SECTIONS: [&str; 10] = ["0", "1", "2", "3", "4", "4A", "5", "6", "7", "7A"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pinned SPEC; like the features' `../shared` examples, a missing checkout is a failure.
fn spec_text() -> String {
    let path = root()
        .join("..")
        .join("shared")
        .join("spec")
        .join("SPEC.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the pinned SPEC at {} ({e}); the clause index is checked against it",
            path.display()
        )
    })
}

fn index() -> Index {
    let path = root()
        .join("conformance")
        .join("clauses")
        .join(format!("{}.json", toolnexus_protocol::SPEC_VERSION));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()))
}

/// Every run of whitespace collapsed to one space, the comparison the index format fixes.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The numbered sections (`## N.` / `## NX.`) and their text: from the heading to the next `## `
/// heading. Lines inside fenced code blocks are never headings (§3's prompt example carries a
/// `## Available Skills` line that belongs to §3).
fn sections(spec: &str) -> BTreeMap<String, String> {
    let numbered = Regex::new(r"^## ([0-9]+[A-Z]?)\. ").unwrap();
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Vec<&str>)> = None;
    let mut fenced = false;
    for line in spec.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if !fenced && line.starts_with("## ") {
            if let Some((id, lines)) = current.take() {
                out.insert(id, lines.join("\n"));
            }
            current = numbered
                .captures(line)
                .map(|c| (c[1].to_string(), Vec::new()));
        }
        if let Some((_, lines)) = current.as_mut() {
            lines.push(line);
        }
    }
    if let Some((id, lines)) = current {
        out.insert(id, lines.join("\n"));
    }
    out
}

/// The ids of the clauses whose quote is not verbatim (whitespace-collapsed) in its section's text.
fn misplaced_quotes(spec: &str, clauses: &[Clause]) -> Vec<String> {
    let sections: BTreeMap<String, String> = sections(spec)
        .into_iter()
        .map(|(id, text)| (id, collapse(&text)))
        .collect();
    clauses
        .iter()
        .filter(|c| {
            sections
                .get(&c.section)
                .is_none_or(|text| !text.contains(&collapse(&c.quote)))
        })
        .map(|c| c.id.clone())
        .collect()
}

#[test]
fn the_index_is_well_formed() {
    let index = index();
    assert_eq!(
        index.spec,
        toolnexus_protocol::SPEC_VERSION,
        "the index pins another SPEC"
    );
    let id_shape = Regex::new(r"^[0-9]+[A-Z]?(\.[a-z0-9-]+)+$").unwrap();
    let mut seen = BTreeSet::new();
    let mut problems = Vec::new();
    for c in &index.clauses {
        if !seen.insert(c.id.as_str()) {
            problems.push(format!("{}: duplicate id", c.id));
        }
        if !id_shape.is_match(&c.id) {
            problems.push(format!("{}: id does not match {}", c.id, id_shape.as_str()));
        }
        if c.id.split('.').next() != Some(c.section.as_str()) {
            problems.push(format!(
                "{}: section {:?} is not the id's first part",
                c.id, c.section
            ));
        }
        let quote = collapse(&c.quote);
        if quote.is_empty() || c.quote.chars().count() > 300 {
            problems.push(format!(
                "{}: quote empty or longer than 300 characters",
                c.id
            ));
        }
        let why = c.why.as_deref().map(str::trim).unwrap_or("");
        match c.kind.as_str() {
            "observable" if c.why.is_some() => {
                problems.push(format!("{}: an observable clause carries a why", c.id))
            }
            "observable" => {}
            "language-specific" | "unobservable" if why.is_empty() => {
                problems.push(format!("{}: kind {} without a why", c.id, c.kind))
            }
            "language-specific" | "unobservable" => {}
            other => problems.push(format!("{}: unknown kind {other:?}", c.id)),
        }
        if c.uncovered.is_some() && c.kind != "observable" {
            problems.push(format!(
                "{}: only observable clauses can be uncovered",
                c.id
            ));
        }
        if c.uncovered.as_deref().is_some_and(|r| r.trim().is_empty()) {
            problems.push(format!("{}: uncovered without a reason", c.id));
        }
        if c.part.as_deref().is_some_and(|r| r.trim().is_empty()) {
            problems.push(format!("{}: part without a reason", c.id));
        }
        if c.arrived.is_none() {
            problems.push(format!(
                "{}: no arrival (run `clauses arrivals --write`)",
                c.id
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "clause index problems:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_quote_is_verbatim_in_its_section() {
    let spec = spec_text();
    let index = index();
    let misplaced = misplaced_quotes(&spec, &index.clauses);
    assert!(
        misplaced.is_empty(),
        "{} clause(s) whose quote is not in its SPEC section (a SPEC edit moved them?):\n{}",
        misplaced.len(),
        misplaced.join("\n")
    );
}

#[test]
fn the_index_covers_every_section_and_early_sections_densely() {
    let spec = spec_text();
    let index = index();
    let sections = sections(&spec);
    assert!(
        sections.len() >= 19,
        "the SPEC parser found only {:?}",
        sections.keys()
    );
    let mut per_section: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &index.clauses {
        *per_section.entry(c.section.as_str()).or_default() += 1;
    }
    let without: Vec<&String> = sections
        .keys()
        .filter(|s| !per_section.contains_key(s.as_str()))
        .collect();
    assert!(
        without.is_empty(),
        "SPEC sections without a clause: {without:?}"
    );
    let unknown: Vec<&&str> = per_section
        .keys()
        .filter(|s| !sections.contains_key(**s))
        .collect();
    assert!(
        unknown.is_empty(),
        "clauses name sections the SPEC lacks: {unknown:?}"
    );
    let early: usize = EARLY_SECTIONS
        .iter()
        .map(|s| per_section.get(s).copied().unwrap_or(0))
        .sum();
    assert!(
        early >= 250,
        "only {early} clauses for §0–§7A (at least 250 wanted)"
    );
}

#[test]
fn an_edited_sentence_names_its_clause() {
    let spec = spec_text();
    let index = index();
    // The grep row's default limit: the edit changes one rule and must name exactly that clause.
    let sentence = "Output = `file:line:text` matches, capped at `limit` (default 100).";
    assert!(
        spec.contains(sentence),
        "the bite check's sentence left the SPEC; pick another"
    );
    let edited = spec.replacen(
        sentence,
        "Output = `file:line:text` matches, capped at `limit` (default 50).",
        1,
    );
    assert_eq!(
        misplaced_quotes(&edited, &index.clauses),
        vec!["4A.grep.default-limit".to_string()]
    );
}

#[test]
fn a_quote_from_another_section_is_misplaced() {
    let spec = spec_text();
    let index = index();
    // §4A's grep rule, filed under §3, is not in §3's text even though the SPEC holds it.
    let mut moved: Clause = index
        .clauses
        .iter()
        .find(|c| c.id == "4A.grep.output-format")
        .cloned()
        .expect("the clause 4A.grep.output-format");
    moved.id = "3.grep.output-format".to_string();
    moved.section = "3".to_string();
    assert_eq!(
        misplaced_quotes(&spec, &[moved]),
        vec!["3.grep.output-format".to_string()]
    );
    // §3's prompt example holds a fenced `## Available Skills` line; it must not end §3.
    assert!(collapse(&sections(&spec)["3"]).contains("The skill name must match one of the skills"));
}

/// The SPEC history beside the checkout; like the pinned SPEC, a missing checkout is a failure.
fn history() -> Vec<texts::SpecText> {
    let dir = root().join("../shared/spec/history");
    texts::load_history(&dir).unwrap_or_else(|e| panic!("{e}"))
}

fn harness_index() -> ClauseIndex {
    let file = clauses::index_path(&root(), toolnexus_protocol::SPEC_VERSION);
    ClauseIndex::load(&file, "the clause index").unwrap_or_else(|e| panic!("{}", e.join("\n")))
}

#[test]
fn every_clause_arrival_is_what_the_spec_history_gives() {
    let history = history();
    assert_eq!(
        history.last().map(|h| h.version.as_str()),
        Some(toolnexus_protocol::SPEC_VERSION),
        "the history's newest text is not the pinned SPEC"
    );
    let index = harness_index();
    let stale = arrival::stale(&index, &arrival::compute(&index, &history));
    assert!(
        stale.is_empty(),
        "{} stale arrival(s); `cargo run -- clauses arrivals --write` recomputes them:\n{}",
        stale.len(),
        stale.join("\n")
    );
    // Bite: a clause moved one release later is stale.
    let mut moved = index.clone();
    moved.clauses[0].arrived = Some("0.2.0".into());
    assert_eq!(
        arrival::stale(&moved, &arrival::compute(&moved, &history)).len(),
        usize::from(index.clauses[0].arrived.as_deref() != Some("0.2.0"))
    );
}

/// `spec-diff` over each consecutive pair of history texts names as arriving exactly the
/// clauses whose stored arrival is the pair's newer release.
#[test]
fn spec_diff_over_each_consecutive_pair_agrees_with_the_arrivals() {
    let history = history();
    let index = harness_index();
    let mut problems = Vec::new();
    for pair in history.windows(2) {
        let (old, new) = (&pair[0], &pair[1]);
        let d = compare(&index, &old.text, &new.text);
        let arriving: BTreeSet<&str> = d
            .clauses
            .iter()
            .filter(|c| c.change == Change::NewOnly)
            .map(|c| c.id.as_str())
            .collect();
        let stored: BTreeSet<&str> = index
            .clauses
            .iter()
            .filter(|c| c.arrived.as_deref() == Some(new.version.as_str()))
            .map(|c| c.id.as_str())
            .collect();
        if arriving != stored {
            problems.push(format!(
                "{} → {}: spec-diff says arriving {:?}, the index {:?}",
                old.version,
                new.version,
                arriving.difference(&stored).collect::<Vec<_>>(),
                stored.difference(&arriving).collect::<Vec<_>>()
            ));
        }
        // Nothing of the index is removed or changed between texts older than it.
        let lost: Vec<&str> = d
            .clauses
            .iter()
            .filter(|c| matches!(c.change, Change::Removed | Change::Changed))
            .map(|c| c.id.as_str())
            .collect();
        if !lost.is_empty() {
            problems.push(format!(
                "{} → {}: clauses of the pinned SPEC lost: {lost:?}",
                old.version, new.version
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // 0.15.0 → 0.16.0 names the in-process model clauses, and only those (the four the
    // index had before its sentences were made whole, split into seven).
    let in_process: Vec<&str> = index
        .clauses
        .iter()
        .filter(|c| c.arrived.as_deref() == Some("0.16.0"))
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(in_process.len(), 7, "{in_process:?}");
    assert!(in_process.iter().all(|id| id.starts_with("8.in-process.")));
}

/// Every normative sentence of the pinned SPEC is in the index whole: a quote cut from a
/// sentence whose rest no clause quotes must say why (`part`); a normative sentence in no
/// clause must be a `prose` entry with its reason.
#[test]
fn every_normative_sentence_is_tracked_whole() {
    let findings = wholeness::check(&harness_index(), &spec_text());
    assert!(
        findings.is_empty(),
        "{} finding(s) (`cargo run -- clauses lint` lists them):\n{}",
        findings.len(),
        findings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// No scenario claims a SPEC text that lacks one of its clauses, and every bound read off a
/// port's releases says so; a `@since-` below a clause's arrival is caught.
#[test]
fn version_bounds_follow_the_clauses() {
    let index = harness_index();
    let versions: Vec<String> = history().into_iter().map(|h| h.version).collect();
    let (scenarios, errors) = features::load(&root().join("features"));
    assert!(errors.is_empty(), "{errors:?}");
    let lint = bounds::bounds_lint(&index, &scenarios, &versions);
    assert!(lint.is_empty(), "{}", lint.join("\n"));

    let late = index
        .clauses
        .iter()
        .find(|c| c.arrived.as_deref() == Some("0.10.0"))
        .expect("a clause arriving in 0.10.0");
    let dir = tempfile::tempdir().expect("temp dir");
    let feature = format!(
        "@pin-0.16.0 @spec-{s}\nFeature: f\n\n  @since-0.9.0 @clause-{id}\n  Scenario: too early\n    Given a step\n\n  @since-0.19.0 @clause-{id}\n  Scenario: observed, unsaid\n    Given a step\n\n  @since-0.19.0 @clause-{id}\n  Scenario: observed, said\n    python sorts since 0.19.0.\n\n    Given a step\n\n  @clause-{id}\n  Scenario: derived\n    Given a step\n",
        s = late.section,
        id = late.id
    );
    std::fs::write(dir.path().join("f.feature"), feature).expect("write");
    let (mut bad, errors) = features::load(dir.path());
    assert!(errors.is_empty(), "{errors:?}");
    let lint = bounds::bounds_lint(&index, &bad, &versions);
    assert_eq!(lint.len(), 2, "{lint:?}");
    assert!(lint[0].contains("too early\": @since-0.9.0 claims SPEC 0.9.0 but its clause"));
    assert!(lint[0].ends_with("arrived in 0.10.0"));
    assert!(lint[1].contains("observed, unsaid\": @since-0.19.0 is a bound read off a port"));
    // Without a since- tag, the bound is the clause's arrival, not the pin.
    bounds::derive_bounds(&index, &mut bad);
    assert_eq!(bad[3].bounds.describe(), "SPEC ≥ 0.10.0");
    assert_eq!(bad[0].bounds.describe(), "SPEC ≥ 0.9.0");
}

/// The index that bounds the scenarios: the newest text's, which keeps the clauses it
/// changed `until` their last release.
fn bounding_index() -> ClauseIndex {
    let file = clauses::index_path(&root(), texts::NEWEST);
    ClauseIndex::load(&file, "the newest text's clause index")
        .unwrap_or_else(|e| panic!("{}", e.join("\n")))
}

/// Every text with an index: each normative sentence of it is in its own index whole, and a
/// clause kept `until` a release quotes that release's text.
#[test]
fn every_indexed_text_is_tracked_whole_by_its_own_index() {
    let texts = texts::load_all(&root(), &root().join("../shared/spec/history"))
        .unwrap_or_else(|e| panic!("{e}"));
    for label in [toolnexus_protocol::SPEC_VERSION, texts::NEWEST] {
        let index = ClauseIndex::load(&clauses::index_path(&root(), label), label)
            .unwrap_or_else(|e| panic!("{}", e.join("\n")));
        assert_eq!(index.spec, label);
        let text = std::fs::read_to_string(texts::text_file(&root(), label))
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let findings = wholeness::check(&index, &text);
        assert!(findings.is_empty(), "{label}: {findings:?}");
        let retired = wholeness::check_retired(&index, &texts);
        assert!(retired.is_empty(), "{label}: {retired:?}");
    }
    // The newest text's index keeps 0.16.0's abort rule, and lints it against 0.16.0 only.
    let newest = bounding_index();
    let abort = newest.get("7A.map.abort").expect("7A.map.abort kept");
    assert_eq!(abort.until.as_deref(), Some("0.16.0"));
    assert!(!newest.current().any(|c| c.id == abort.id));
    let mut late = newest.clone();
    if let Some(c) = late.clauses.iter_mut().find(|c| c.id == "7A.map.abort") {
        c.until = Some("0.1.1".into());
    }
    assert_eq!(wholeness::check_retired(&late, &texts).len(), 1, "bite");
}

/// The newest text's arrivals: what the texts up to it give, a clause first in it being of
/// a release after 0.16.0 (the CHANGELOG's 0.17.0) or none yet (read off ports later).
#[test]
fn the_newest_index_arrivals_are_what_the_texts_give() {
    let texts = texts::load_all(&root(), &root().join("../shared/spec/history"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        texts.last().map(|t| t.version.as_str()),
        Some(texts::NEWEST)
    );
    let index = bounding_index();
    let computed = arrival::compute(&index, &texts);
    let stale = arrival::stale(&index, &computed);
    assert!(stale.is_empty(), "{}", stale.join("\n"));
    let at_0_17: Vec<&str> = index
        .current()
        .filter(|c| c.arrived.as_deref() == Some("0.17.0"))
        .map(|c| c.id.as_str())
        .collect();
    assert!(
        at_0_17.contains(&"1.content-part.exactly-one-source"),
        "{at_0_17:?}"
    );
    // Bite: a clause first in the newest text stored as 0.16.0 is stale.
    let mut early = index.clone();
    let i = early
        .clauses
        .iter()
        .position(|c| c.arrived.as_deref() == Some("0.17.0") && c.same_rule.is_none())
        .expect("a clause arriving in 0.17.0");
    early.clauses[i].arrived = Some("0.16.0".into());
    assert_eq!(arrival::stale(&early, &computed).len(), 1);
}

/// The scenarios' bounds under the newest index: its lint is clean, and a scenario tagging
/// a clause kept until 0.16.0 holds up to 0.16.0 only.
#[test]
fn the_newest_index_bounds_the_scenarios() {
    let index = bounding_index();
    let versions: Vec<String> = texts::load_all(&root(), &root().join("../shared/spec/history"))
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .map(|t| t.version)
        .collect();
    let (scenarios, errors) = features::load(&root().join("features"));
    assert!(errors.is_empty(), "{errors:?}");
    let lint = bounds::bounds_lint(&index, &scenarios, &versions);
    assert!(lint.is_empty(), "{}", lint.join("\n"));
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("f.feature"),
        "@pin-0.16.0 @spec-7A\nFeature: f\n\n  @clause-7A.map.abort\n  Scenario: old abort\n    Given a step\n\n  @clause-7A.map.abort-anywhere\n  Scenario: new abort\n    Given a step\n",
    )
    .expect("write");
    let (mut two, errors) = features::load(dir.path());
    assert!(errors.is_empty(), "{errors:?}");
    bounds::derive_bounds(&index, &mut two);
    let arrived = index
        .get("7A.map.abort")
        .and_then(|c| c.arrived.clone())
        .expect("7A.map.abort arrived");
    assert_eq!(two[0].bounds.describe(), format!("SPEC {arrived} … 0.16.0"));
    assert_eq!(two[1].bounds.describe(), "SPEC ≥ 0.17.0");
}

/// The reference declares the newest text the SPEC crate knows, written in two crates that
/// do not depend on each other.
#[test]
fn the_reference_declares_the_newest_text() {
    assert_eq!(toolnexus_protocol::REFERENCE_SPEC, texts::NEWEST);
}
