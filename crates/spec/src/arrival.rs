//! When each clause arrived: read from the SPEC history (`SPEC-<version>.md`, one text per
//! upstream release), the first release from which every text holds the clause's quote, and
//! the earlier releases where a former wording of it first appeared or changed; and the
//! lower bound a set of clauses gives (the first release stating all their rules).
//!
//! A text that is no release (`main-after-X`, [`crate::version::after_release`]) can be
//! where a quote first appears. Its changes shipped in some release after the text before
//! it, which the texts cannot say, so the computed arrival is that label and a stored
//! arrival agrees with it when it is a release after the previous text, or is absent (not
//! yet read off a port's releases). A clause kept `until` a release is looked for in the
//! texts up to that release only.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::clauses::{Clause, ClauseIndex};
use crate::sections;
use crate::similarity::{closest, REWORDED_AT};
use crate::text::collapse_ws;
use crate::texts::SpecText;
use crate::version::{after_release, cmp_versions, version_key, SpecVersion};

/// One clause's history, as computed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Arrival {
    /// Clause id.
    pub id: String,
    /// The first release from which every later text holds the quote; `None` when the
    /// newest text lacks it.
    pub arrived: Option<String>,
    /// Releases before `arrived` where an earlier wording first appeared or changed.
    pub reworded: Vec<String>,
    /// When `arrived` is a text that is no release: the text before it, after which the
    /// release that brought the quote came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

impl Arrival {
    /// Whether a stored arrival says what the texts say: the same release, or, when the
    /// quote first appears in a text that is no release, a release after the text before
    /// it, or none yet.
    pub fn agrees(&self, stored: Option<&str>) -> bool {
        if self.arrived.as_deref().and_then(after_release).is_none() {
            return stored == self.arrived.as_deref();
        }
        match stored {
            None => true,
            Some(s) => {
                version_key(s).is_some()
                    && self
                        .after
                        .as_deref()
                        .is_none_or(|prev| cmp_versions(s, prev) == std::cmp::Ordering::Greater)
            }
        }
    }

    /// What `--write` stores: the computed release; for a text that is no release, the
    /// stored value when it agrees, else the release the text follows.
    fn stored_value(&self, stored: Option<&str>) -> Option<String> {
        match self.arrived.as_deref().and_then(after_release) {
            Some(_) if self.agrees(stored) => stored.map(str::to_string),
            Some(release) => Some(release.to_string()),
            None => self.arrived.clone(),
        }
    }
}

/// A history text, collapsed once.
struct Text {
    version: String,
    all: String,
    sections: BTreeMap<String, String>,
}

/// Each clause's arrival in `history` (oldest first, as `load_history` returns it).
/// A quote counts as present in a text wherever the text holds it: a sentence moved
/// between sections did not arrive anew (`spec-diff` reports it as moved).
pub fn compute(index: &ClauseIndex, history: &[SpecText]) -> Vec<Arrival> {
    let texts: Vec<Text> = history
        .iter()
        .map(|h| Text {
            version: h.version.clone(),
            all: collapse_ws(&h.text),
            sections: sections::split(&h.text)
                .into_iter()
                .map(|(k, v)| (k, collapse_ws(&v)))
                .collect(),
        })
        .collect();
    index.clauses.iter().map(|c| one(c, &texts)).collect()
}

fn one(c: &Clause, texts: &[Text]) -> Arrival {
    // A retired clause is looked for in the texts that still state it.
    let upto = c.until.as_deref().map_or(texts.len(), |until| {
        texts
            .iter()
            .take_while(|t| cmp_versions(&t.version, until) != std::cmp::Ordering::Greater)
            .count()
    });
    let texts = &texts[..upto];
    let quote = collapse_ws(&c.quote);
    let present = |t: &Text| t.all.contains(&quote);
    let mut first = texts.len();
    while first > 0 && present(&texts[first - 1]) {
        first -= 1;
    }
    let Some(arrived) = texts.get(first).map(|t| t.version.clone()) else {
        return Arrival {
            id: c.id.clone(),
            arrived: None,
            reworded: Vec::new(),
            after: None,
        };
    };
    let after = after_release(&arrived)
        .and_then(|_| first.checked_sub(1))
        .and_then(|i| texts.get(i))
        .map(|t| t.version.clone());
    // Walk back while the section holds something close: an earlier wording.
    let mut earlier: Vec<(usize, String)> = Vec::new();
    let mut i = first;
    while i > 0 {
        i -= 1;
        match texts[i]
            .sections
            .get(&c.section)
            .and_then(|s| closest(&quote, s))
        {
            Some((wording, score)) if score >= REWORDED_AT => earlier.push((i, wording)),
            _ => break,
        }
    }
    earlier.reverse();
    let mut reworded = Vec::new();
    let mut last: Option<&str> = None;
    for (i, wording) in &earlier {
        if last != Some(wording.as_str()) {
            reworded.push(texts[*i].version.clone());
        }
        last = Some(wording);
    }
    Arrival {
        id: c.id.clone(),
        arrived: Some(arrived),
        reworded,
        after,
    }
}

/// Stores computed arrivals in the index; returns how many clauses changed.
pub fn apply(index: &mut ClauseIndex, arrivals: &[Arrival]) -> usize {
    let by_id: BTreeMap<&str, &Arrival> = arrivals.iter().map(|a| (a.id.as_str(), a)).collect();
    let mut changed = 0;
    for c in &mut index.clauses {
        let Some(a) = by_id.get(c.id.as_str()) else {
            continue;
        };
        let arrived = a.stored_value(c.arrived.as_deref());
        if c.arrived != arrived || c.reworded != a.reworded {
            c.arrived = arrived;
            c.reworded = a.reworded.clone();
            changed += 1;
        }
    }
    changed
}

/// One message per clause whose stored arrival differs from the computed one, or whose
/// `sameRule` names a release that is not one of its computed earlier wordings.
pub fn stale(index: &ClauseIndex, arrivals: &[Arrival]) -> Vec<String> {
    let by_id: BTreeMap<&str, &Arrival> = arrivals.iter().map(|a| (a.id.as_str(), a)).collect();
    let show = |a: &Option<String>, after: Option<&str>, r: &[String]| {
        let a = a.as_deref().unwrap_or("none");
        let a = match (after_release(a), after) {
            (Some(_), Some(prev)) => format!("none yet or a release after {prev} ({a})"),
            _ => a.to_string(),
        };
        if r.is_empty() {
            a.to_string()
        } else {
            format!("{a} (reworded {})", r.join(", "))
        }
    };
    let mut out: Vec<String> = index
        .clauses
        .iter()
        .filter_map(|c| {
            let a = by_id.get(c.id.as_str())?;
            (!a.agrees(c.arrived.as_deref()) || c.reworded != a.reworded).then(|| {
                format!(
                    "{}: stored {}, the history gives {}",
                    c.id,
                    show(&c.arrived, None, &c.reworded),
                    show(&a.arrived, a.after.as_deref(), &a.reworded)
                )
            })
        })
        .collect();
    for c in &index.clauses {
        let Some(rule) = &c.same_rule else { continue };
        let earlier = by_id.get(c.id.as_str()).map(|a| a.reworded.as_slice());
        if !earlier.unwrap_or_default().contains(&rule.since) {
            out.push(format!(
                "{}: sameRule.since {} is not one of its earlier wordings ({})",
                c.id,
                rule.since,
                earlier.unwrap_or_default().join(", ")
            ));
        }
    }
    out
}

/// Per history version: how many clauses of the index its text has (arrived at or before
/// it), in version order.
pub fn per_version<'a>(
    index: &'a ClauseIndex,
    versions: &[String],
) -> Vec<(String, Vec<&'a Clause>)> {
    versions
        .iter()
        .map(|v| {
            let has: Vec<&Clause> = index
                .clauses
                .iter()
                .filter(|c| {
                    let arrived = c
                        .arrived
                        .as_deref()
                        .is_some_and(|a| cmp_versions(a, v) != std::cmp::Ordering::Greater);
                    let retired = c
                        .until
                        .as_deref()
                        .is_some_and(|u| cmp_versions(v, u) == std::cmp::Ordering::Greater);
                    arrived && !retired
                })
                .collect();
            (v.clone(), has)
        })
        .collect()
}

/// The latest first release stating a rule among the clauses `ids` name ([`Clause::rule_since`]),
/// and that clause; `None` when `ids` is empty, or names a clause the index lacks or one whose
/// arrival it does not know.
pub fn rule_floor<'a, 'i>(
    index: &'a ClauseIndex,
    ids: impl IntoIterator<Item = &'i str>,
) -> Option<(SpecVersion, &'a str)> {
    let mut floor: Option<(SpecVersion, &str)> = None;
    for id in ids {
        let clause = index.get(id)?;
        let arrived = SpecVersion::parse(clause.rule_since()?)?;
        if floor.is_none_or(|(f, _)| arrived > f) {
            floor = Some((arrived, clause.id.as_str()));
        }
    }
    floor
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(version: &str, body: &str) -> SpecText {
        SpecText {
            version: version.into(),
            text: body.into(),
        }
    }

    #[test]
    fn arrival_is_the_start_of_the_last_unbroken_run_and_rewordings_are_listed() {
        let index = ClauseIndex::parse(
            r#"{"spec": "0.3.0", "clauses": [
              {"id": "0.a.old", "section": "0", "quote": "Ports MUST answer every request with exactly one line.", "kind": "observable"},
              {"id": "0.a.new", "section": "0", "quote": "Timeouts default to 30000 ms for every server.", "kind": "observable"},
              {"id": "4.a.moved", "section": "4", "quote": "The toolkit concatenates sources in a fixed order.", "kind": "observable"},
              {"id": "4.a.gone", "section": "4", "quote": "Never in any text at all.", "kind": "observable"}
            ]}"#,
            "i",
        )
        .unwrap();
        let h = [
            text("0.1.0", "## 0. C\nPorts MUST answer each request with one line.\n## 2. X\nThe toolkit concatenates sources in a fixed order.\n"),
            text("0.2.0", "## 0. C\nPorts MUST answer every request with one line.\n## 2. X\nThe toolkit concatenates sources in a fixed order.\n"),
            text("0.3.0", "## 0. C\nPorts MUST answer every request with exactly one line. Timeouts default to 30000 ms for every server.\n## 4. T\nThe toolkit concatenates sources in a fixed order.\n"),
        ];
        let got = compute(&index, &h);
        let shown: Vec<(&str, Option<&str>, Vec<&str>)> = got
            .iter()
            .map(|a| {
                (
                    a.id.as_str(),
                    a.arrived.as_deref(),
                    a.reworded.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            shown,
            vec![
                ("0.a.old", Some("0.3.0"), vec!["0.1.0", "0.2.0"]),
                ("0.a.new", Some("0.3.0"), vec![]),
                ("4.a.moved", Some("0.1.0"), vec![]),
                ("4.a.gone", None, vec![]),
            ]
        );
        let mut stored = index.clone();
        assert_eq!(stale(&stored, &got).len(), 3);
        assert_eq!(apply(&mut stored, &got), 3);
        assert!(stale(&stored, &got).is_empty());
        stored.clauses[1].arrived = Some("0.2.0".into());
        assert_eq!(
            stale(&stored, &got),
            vec!["0.a.new: stored 0.2.0, the history gives 0.3.0"]
        );
        // A reviewed earlier wording must be one the history shows.
        stored.clauses[1].arrived = Some("0.3.0".into());
        stored.clauses[0].same_rule = Some(crate::clauses::SameRule {
            since: "0.2.0".into(),
            why: "only \"each\" became \"every\"".into(),
        });
        assert!(stale(&stored, &got).is_empty());
        assert_eq!(stored.clauses[0].rule_since(), Some("0.2.0"));
        stored.clauses[0].same_rule.as_mut().unwrap().since = "0.3.0".into();
        assert_eq!(
            stale(&stored, &got),
            vec!["0.a.old: sameRule.since 0.3.0 is not one of its earlier wordings (0.1.0, 0.2.0)"]
        );
        stored.clauses[1].arrived = Some("0.2.0".into());
        let counts: Vec<(String, usize)> = per_version(&stored, &["0.1.0".into(), "0.3.0".into()])
            .into_iter()
            .map(|(v, c)| (v, c.len()))
            .collect();
        assert_eq!(counts, vec![("0.1.0".into(), 1), ("0.3.0".into(), 3)]);
    }

    #[test]
    fn a_quote_first_in_a_text_that_is_no_release_arrived_in_some_release_after_the_one_before() {
        let index = ClauseIndex::parse(
            r#"{"spec": "main-after-0.17.0", "clauses": [
              {"id": "0.a.kept", "section": "0", "quote": "Every port answers.", "kind": "observable"},
              {"id": "0.a.new", "section": "0", "quote": "Parts are base64.", "kind": "observable"},
              {"id": "0.a.later", "section": "0", "quote": "Classifiers decide.", "kind": "observable"},
              {"id": "0.a.old", "section": "0", "quote": "Read a UTF-8 text file.", "kind": "observable", "until": "0.16.0"}
            ]}"#,
            "i",
        )
        .unwrap();
        let h = [
            text(
                "0.15.0",
                "## 0. C\nEvery port answers. Read a UTF-8 text file.\n",
            ),
            text(
                "0.16.0",
                "## 0. C\nEvery port answers. Read a UTF-8 text file.\n",
            ),
            text(
                "main-after-0.17.0",
                "## 0. C\nEvery port answers. Parts are base64. Classifiers decide. Read a file.\n",
            ),
        ];
        let got = compute(&index, &h);
        let arrived: Vec<(Option<&str>, Option<&str>)> = got
            .iter()
            .map(|a| (a.arrived.as_deref(), a.after.as_deref()))
            .collect();
        assert_eq!(
            arrived,
            vec![
                (Some("0.15.0"), None),
                (Some("main-after-0.17.0"), Some("0.16.0")),
                (Some("main-after-0.17.0"), Some("0.16.0")),
                // Retired after 0.16.0: the texts up to there hold it throughout.
                (Some("0.15.0"), None),
            ]
        );
        // The CHANGELOG's release, one read off a later port, or none yet: all agree.
        assert!(got[1].agrees(Some("0.17.0")) && got[2].agrees(Some("0.18.0")));
        assert!(got[2].agrees(None));
        assert!(!got[1].agrees(Some("0.16.0")) && !got[1].agrees(Some("main-after-0.17.0")));
        let mut stored = index.clone();
        stored.clauses[0].arrived = Some("0.15.0".into());
        stored.clauses[1].arrived = Some("0.17.0".into());
        stored.clauses[3].arrived = Some("0.15.0".into());
        assert!(
            stale(&stored, &got).is_empty(),
            "{:?}",
            stale(&stored, &got)
        );
        stored.clauses[1].arrived = Some("0.9.0".into());
        assert_eq!(
            stale(&stored, &got),
            vec!["0.a.new: stored 0.9.0, the history gives none yet or a release after 0.16.0 (main-after-0.17.0)"]
        );
        // --write keeps what agrees and puts the release the text follows where it does not.
        assert_eq!(apply(&mut stored, &got), 1);
        assert_eq!(stored.clauses[1].arrived.as_deref(), Some("0.17.0"));
        assert_eq!(stored.clauses[2].arrived, None);
        // A retired clause counts up to its last release only.
        let counts: Vec<(String, usize)> = per_version(
            &stored,
            &["0.16.0".into(), "0.17.0".into(), "main-after-0.17.0".into()],
        )
        .into_iter()
        .map(|(v, c)| (v, c.len()))
        .collect();
        assert_eq!(
            counts,
            vec![
                ("0.16.0".into(), 2),
                ("0.17.0".into(), 2),
                ("main-after-0.17.0".into(), 2)
            ]
        );
    }

    #[test]
    fn the_floor_is_the_latest_rule_among_the_clauses() {
        let index = ClauseIndex::parse(
            r#"{"spec": "0.3.0", "clauses": [
              {"id": "0.a.one", "section": "0", "quote": "One.", "kind": "observable", "arrived": "0.2.0"},
              {"id": "0.a.two", "section": "0", "quote": "Two.", "kind": "observable", "arrived": "0.3.0",
               "reworded": ["0.1.0"], "sameRule": {"since": "0.1.0", "why": "same rule"}},
              {"id": "0.a.new", "section": "0", "quote": "New.", "kind": "observable"}
            ]}"#,
            "i",
        )
        .unwrap();
        let v = |t: &str| SpecVersion::parse(t).unwrap();
        assert_eq!(
            rule_floor(&index, ["0.a.one", "0.a.two"]),
            Some((v("0.2.0"), "0.a.one"))
        );
        assert_eq!(
            rule_floor(&index, ["0.a.two"]),
            Some((v("0.1.0"), "0.a.two"))
        );
        assert_eq!(rule_floor(&index, []), None);
        assert_eq!(rule_floor(&index, ["0.a.one", "0.a.new"]), None);
        assert_eq!(rule_floor(&index, ["0.a.nope"]), None);
    }
}
