//! The SPEC's clause index (`conformance/clauses/<version>.json`): every normative clause
//! with its verbatim quote, kind and arrival, the sentences judged not to be clauses, and the
//! checks a loaded index must pass.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sections::valid_section;
use crate::text::{collapse_ws, shorten};
use crate::version::version_key;

/// Whether a port's protocol driver can show a clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A scenario can check it through the protocol.
    Observable,
    /// It constrains a language binding's surface, which the protocol abstracts away.
    LanguageSpecific,
    /// No protocol request can show it (timing, internals, host-side duties).
    Unobservable,
}

/// One normative clause of the SPEC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clause {
    /// Stable id `<section>.<topic>.<slug>`.
    pub id: String,
    /// The SPEC section as the SPEC numbers it (`0`, `4A`, `7D`, ...).
    pub section: String,
    /// Verbatim excerpt of SPEC.md (compared whitespace-collapsed).
    pub quote: String,
    /// Observable, language-specific or unobservable.
    pub kind: Kind,
    /// For a non-observable clause: why a driver cannot show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// For an observable clause no scenario checks yet: the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncovered: Option<String>,
    /// Why the quote leaves out part of the sentence(s) it is cut from, when it does and no
    /// other clause quotes the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    /// The first SPEC release from which every text holds the quote (computed from the
    /// SPEC history by `clauses arrivals --write`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrived: Option<String>,
    /// Releases before `arrived` where an earlier wording of the clause first appeared or
    /// changed, oldest first (computed likewise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reworded: Vec<String>,
    /// A reviewer's finding that an earlier wording (one of `reworded`) already stated the
    /// same rule, so scenarios checking it hold from there, not from `arrived`.
    #[serde(default, rename = "sameRule", skip_serializing_if = "Option::is_none")]
    pub same_rule: Option<SameRule>,
    /// For a clause a later text changed the rule of: the last release whose text states
    /// it (its quote is that text's), so scenarios checking it hold up to there. The index
    /// of the later text keeps it beside the clause that replaced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// An earlier wording that states the same rule as the quote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SameRule {
    /// The release whose wording already states the rule (one of the clause's `reworded`).
    pub since: String,
    /// What changed in the words and why the rule did not.
    pub why: String,
}

impl Clause {
    /// The first release whose SPEC text states this clause's rule: a reviewed earlier
    /// wording's release, else its arrival.
    pub fn rule_since(&self) -> Option<&str> {
        self.same_rule
            .as_ref()
            .map(|r| r.since.as_str())
            .or(self.arrived.as_deref())
    }

    /// Whether the index's own text states this clause (no later text retired it).
    pub fn is_current(&self) -> bool {
        self.until.is_none()
    }
}

/// A sentence of the SPEC that reads as normative but states no rule of its own, with the
/// reason; the wholeness lint accepts it without a clause.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prose {
    /// The SPEC section.
    pub section: String,
    /// Verbatim excerpt (compared whitespace-collapsed).
    pub text: String,
    /// Why it is not a clause (a heading-like lead-in, a rationale, a clause elsewhere).
    pub why: String,
}

/// The whole index file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClauseIndex {
    /// The SPEC version the quotes come from.
    pub spec: String,
    /// Every clause, in SPEC order.
    pub clauses: Vec<Clause>,
    /// Normative-looking sentences that are not clauses, each with its reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prose: Vec<Prose>,
}

/// Where the index for SPEC `version` (the pinned one, as a rule) lives under a checkout.
pub fn index_path(root: &Path, version: &str) -> PathBuf {
    root.join("conformance/clauses")
        .join(format!("{version}.json"))
}

impl ClauseIndex {
    /// Reads and checks the index file; every problem is a message naming `file` (and the
    /// clause id), so a malformed index is reported, never a panic.
    pub fn load(file: &Path, shown: &str) -> Result<ClauseIndex, Vec<String>> {
        let text = std::fs::read_to_string(file)
            .map_err(|e| vec![format!("{shown}: cannot read the clause index: {e}")])?;
        ClauseIndex::parse(&text, shown)
    }

    /// Parses and checks index text (see [`ClauseIndex::load`]).
    pub fn parse(text: &str, shown: &str) -> Result<ClauseIndex, Vec<String>> {
        let index: ClauseIndex = serde_json::from_str(text)
            .map_err(|e| vec![format!("{shown}: not a clause index: {e}")])?;
        let mut errors = Vec::new();
        let mut seen = BTreeSet::new();
        for c in &index.clauses {
            let mut bad = |why: String| errors.push(format!("{shown}: clause \"{}\": {why}", c.id));
            if !seen.insert(c.id.as_str()) {
                bad("duplicate id".into());
            }
            if !valid_section(&c.section) {
                bad(format!(
                    "section \"{}\" is not a SPEC section number",
                    c.section
                ));
            }
            match c.id.strip_prefix(&format!("{}.", c.section)) {
                Some(rest)
                    if rest.split('.').count() >= 2
                        && rest.split('.').all(|p| {
                            !p.is_empty()
                                && p.bytes().all(|b| {
                                    b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'
                                })
                        }) => {}
                _ => bad(format!(
                    "id must be <section>.<topic>.<slug> with section {} and lowercase [a-z0-9-] parts",
                    c.section
                )),
            }
            if c.quote.trim().is_empty() {
                bad("empty quote".into());
            }
            if c.same_rule
                .as_ref()
                .is_some_and(|r| r.why.trim().is_empty() || version_key(&r.since).is_none())
            {
                bad("\"sameRule\" needs a release number and a why".into());
            }
            if c.part.as_deref().is_some_and(|p| p.trim().is_empty()) {
                bad("\"part\" needs a reason".into());
            }
            for v in c.arrived.iter().chain(&c.reworded).chain(&c.until) {
                if version_key(v).is_none() {
                    bad(format!("\"{v}\" is not a release number"));
                }
            }
            match c.kind {
                Kind::Observable => {}
                _ if c.uncovered.is_some() => {
                    bad("\"uncovered\" is only for observable clauses".into())
                }
                _ if c.why.as_deref().is_none_or(|w| w.trim().is_empty()) => {
                    bad("a non-observable clause needs \"why\"".into())
                }
                _ => {}
            }
        }
        for p in &index.prose {
            if !valid_section(&p.section) || p.text.trim().is_empty() || p.why.trim().is_empty() {
                errors.push(format!(
                    "{shown}: prose entry \"{}\": needs a section number, a text and a why",
                    shorten(&collapse_ws(&p.text), 40)
                ));
            }
        }
        if errors.is_empty() {
            Ok(index)
        } else {
            Err(errors)
        }
    }

    /// The clauses the index's own text states, without those it keeps `until` an earlier
    /// release.
    pub fn current(&self) -> impl Iterator<Item = &Clause> {
        self.clauses.iter().filter(|c| c.is_current())
    }

    /// The clause with this id.
    pub fn get(&self, id: &str) -> Option<&Clause> {
        self.clauses.iter().find(|c| c.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_index_is_a_list_of_errors() {
        let bad = r#"{"spec": "0.16.0", "clauses": [
          {"id": "0.a.one", "section": "0", "quote": "x", "kind": "observable"},
          {"id": "0.a.one", "section": "0", "quote": "y", "kind": "observable"},
          {"id": "4A.Bad", "section": "4A", "quote": "z", "kind": "observable"},
          {"id": "5.a.b", "section": "5", "quote": " ", "kind": "unobservable"},
          {"id": "6.a.b", "section": "6", "quote": "q", "kind": "language-specific", "why": "w", "uncovered": "u"}
        ]}"#;
        let errors = ClauseIndex::parse(bad, "idx.json").unwrap_err();
        let expect = [
            "clause \"0.a.one\": duplicate id",
            "clause \"4A.Bad\": id must be",
            "clause \"5.a.b\": empty quote",
            "clause \"5.a.b\": a non-observable clause needs \"why\"",
            "clause \"6.a.b\": \"uncovered\" is only for observable",
        ];
        for e in expect {
            assert!(
                errors
                    .iter()
                    .any(|x| x.starts_with("idx.json: ") && x.contains(e)),
                "{e}: {errors:?}"
            );
        }
        assert_eq!(errors.len(), expect.len(), "{errors:?}");
        let typo = ClauseIndex::parse(
            r#"{"spec": "x", "clauses": [{"id": "0.a.b", "section": "0", "quote": "q", "kind": "visible"}]}"#,
            "i",
        );
        assert!(typo.unwrap_err()[0].starts_with("i: not a clause index"));
        assert_eq!(
            index_path(Path::new("/r"), "0.16.0"),
            Path::new("/r/conformance/clauses/0.16.0.json")
        );
    }
}
