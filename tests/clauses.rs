//! The clause index (`conformance/clauses/<spec>.json`, issue 12) against the pinned SPEC:
//! well-formed entries, every quote verbatim inside its own section, ≥ 250 clauses for §0–§7A
//! and at least one clause per numbered section — so a SPEC edit that moves a clause fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use regex::Regex;
use serde::Deserialize;

/// The index file, as the lead fixed its format.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Index {
    spec: String,
    clauses: Vec<Clause>,
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
