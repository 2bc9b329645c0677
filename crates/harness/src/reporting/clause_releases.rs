//! Where each rule newer than the SPEC history first holds on a port's releases. The history
//! holds no text after its last release, so for a clause whose rule arrived later (stored as
//! arriving in a later release, or not placed yet) a port's releases are the only witness:
//! per clause, the first release from which every in-scope scenario tagging it passes,
//! through the last release that had it in scope. `history` prints it beside the release
//! matrix.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};
use toolnexus_spec::clauses::{Clause, ClauseIndex, Kind};
use toolnexus_spec::version::cmp_versions;

use super::coverage::ScenarioRef;
use super::history::{outcome_cells, release_columns, Outcome, Release};

/// The ids shown per group of the text summary before `… and N more`.
const IDS_SHOWN: usize = 10;

/// Where a clause holds across the releases of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Holds {
    /// Every in-scope scenario tagging it passes from this release through the last release
    /// that had one in scope.
    From(String),
    /// Some scenario tagging it was in scope, but on the last release that had one in scope
    /// not all passed.
    Never,
    /// No scenario of the run tags it, or none was in scope on a release that ran.
    NotCovered,
}

impl Holds {
    /// How the text summary says it.
    pub fn label(&self) -> String {
        match self {
            Holds::From(v) => v.clone(),
            Holds::Never => "never".to_string(),
            Holds::NotCovered => "not covered".to_string(),
        }
    }
}

/// One clause read across the releases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClauseReading {
    /// Clause id.
    pub id: String,
    /// SPEC section.
    pub section: String,
    /// Its stored arrival; `None` for a clause the index does not place yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrived: Option<String>,
    /// The scenarios of the run tagging it, whole or partly.
    pub scenarios: Vec<String>,
    /// Per release, in release order: its in-scope tagged scenarios combined ([`combine`]);
    /// `null` where the release did not set up.
    pub outcomes: Vec<Option<Outcome>>,
    /// Where it holds.
    pub holds: Holds,
}

impl ClauseReading {
    /// Whether the reading confirms the stored arrival (it holds from exactly there).
    pub fn confirms_arrival(&self) -> bool {
        confirms(&self.holds, self.arrived.as_deref())
    }
}

/// Whether `holds` confirms a stored arrival: it holds from exactly that release.
fn confirms(holds: &Holds, arrived: Option<&str>) -> bool {
    matches!((holds, arrived), (Holds::From(f), Some(a)) if f == a)
}

/// The clauses newer than the SPEC history, read across the releases: `history --format
/// json`'s `afterHistory`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AfterHistory {
    /// The last release whose SPEC text the history holds: the clauses read are those whose
    /// rule arrived after it.
    pub last_text: String,
    /// The observable ones, in index order.
    pub clauses: Vec<ClauseReading>,
    /// The language-specific and unobservable ones, by id: no scenario can read them.
    pub not_observable: Vec<String>,
}

/// The clauses of `index` whose rule no text of the history up to `last_text` states: no
/// known first release ([`Clause::rule_since`]), or one after `last_text`.
pub fn after_history<'a>(index: &'a ClauseIndex, last_text: &str) -> Vec<&'a Clause> {
    index
        .clauses
        .iter()
        .filter(|c| {
            c.rule_since()
                .is_none_or(|s| cmp_versions(s, last_text) == Ordering::Greater)
        })
        .collect()
}

/// A clause's outcome on one release from those of its tagged scenarios in scope there:
/// failed when one failed, else skipped when one was skipped, else passed; not run when
/// none was in scope.
pub fn combine(outcomes: impl IntoIterator<Item = Outcome>) -> Outcome {
    let mut combined = Outcome::NotRun;
    for o in outcomes {
        combined = match (combined, o) {
            (Outcome::Failed, _) | (_, Outcome::Failed) => Outcome::Failed,
            (Outcome::Skipped, _) | (_, Outcome::Skipped) => Outcome::Skipped,
            (Outcome::Passed, _) | (_, Outcome::Passed) => Outcome::Passed,
            (Outcome::NotRun, Outcome::NotRun) => Outcome::NotRun,
        };
    }
    combined
}

/// Where a clause holds, from its outcome per release (`versions` names them): the first
/// release of the unbroken run of passes that ends at the last release with it in scope.
/// Releases that did not set up (`None`) or had it out of scope are passed over.
pub fn holds(outcomes: &[Option<Outcome>], versions: &[String]) -> Holds {
    let mut from = None;
    let mut seen = false;
    for (i, o) in outcomes.iter().enumerate().rev() {
        match o {
            None | Some(Outcome::NotRun) => continue,
            Some(Outcome::Passed) => from = Some(i),
            Some(_) => {
                seen = true;
                break;
            }
        }
        seen = true;
    }
    match (seen, from.and_then(|i| versions.get(i))) {
        (false, _) => Holds::NotCovered,
        (true, Some(v)) => Holds::From(v.clone()),
        (true, None) => Holds::Never,
    }
}

/// Reads `clauses` across the releases: `tagged` gives each clause's scenarios (the run's
/// ties, beyond-SPEC ones never among them), `per_release` each release's in-scope outcomes
/// by scenario (`None` for one that did not set up), `versions` the releases in the same
/// order.
pub fn read(
    clauses: &[&Clause],
    last_text: &str,
    tagged: &BTreeMap<String, Vec<ScenarioRef>>,
    versions: &[String],
    per_release: &[Option<BTreeMap<String, Outcome>>],
) -> AfterHistory {
    let mut readings = Vec::new();
    let mut not_observable = Vec::new();
    for c in clauses {
        if c.kind != Kind::Observable {
            not_observable.push(c.id.clone());
            continue;
        }
        let mut scenarios: Vec<String> = tagged
            .get(&c.id)
            .map(|refs| refs.iter().map(|r| r.name.clone()).collect())
            .unwrap_or_default();
        scenarios.dedup();
        let outcomes: Vec<Option<Outcome>> = per_release
            .iter()
            .map(|release| {
                release.as_ref().map(|by_name| {
                    combine(scenarios.iter().filter_map(|s| by_name.get(s).copied()))
                })
            })
            .collect();
        let holds = holds(&outcomes, versions);
        readings.push(ClauseReading {
            id: c.id.clone(),
            section: c.section.clone(),
            arrived: c.arrived.clone(),
            scenarios,
            outcomes,
            holds,
        });
    }
    AfterHistory {
        last_text: last_text.to_string(),
        clauses: readings,
        not_observable,
    }
}

/// The clauses sharing a stored arrival and a reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group<'a> {
    /// The stored arrival (`None`: not placed yet).
    pub arrived: Option<&'a str>,
    /// Where they hold.
    pub holds: &'a Holds,
    /// Their ids, in index order.
    pub ids: Vec<&'a str>,
}

/// The readings grouped by stored arrival (releases in order, unplaced last), then by where
/// they hold (releases in `versions` order, then never, then not covered).
pub fn groups<'a>(after: &'a AfterHistory, versions: &[String]) -> Vec<Group<'a>> {
    let rank = |h: &Holds| match h {
        Holds::From(v) => versions
            .iter()
            .position(|r| r == v)
            .unwrap_or(versions.len()),
        Holds::Never => versions.len() + 1,
        Holds::NotCovered => versions.len() + 2,
    };
    let mut out: Vec<Group<'a>> = Vec::new();
    for c in &after.clauses {
        let arrived = c.arrived.as_deref();
        match out
            .iter_mut()
            .find(|g| g.arrived == arrived && *g.holds == c.holds)
        {
            Some(g) => g.ids.push(&c.id),
            None => out.push(Group {
                arrived,
                holds: &c.holds,
                ids: vec![&c.id],
            }),
        }
    }
    out.sort_by(|a, b| {
        match (a.arrived, b.arrived) {
            (Some(x), Some(y)) => cmp_versions(x, y),
            // Placed arrivals first, the unplaced after them.
            (x, y) => y.is_some().cmp(&x.is_some()),
        }
        .then_with(|| rank(a.holds).cmp(&rank(b.holds)))
    });
    out
}

/// The text part of `history` for these readings: the groups with counts (the ids of each
/// group that does not simply confirm its arrival), then per clause that holds elsewhere than
/// its stored arrival or never, its outcome per release.
pub fn text(after: &AfterHistory, releases: &[Release]) -> String {
    let versions: Vec<String> = releases.iter().map(|r| r.version.clone()).collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nclauses newer than SPEC {} ({} observable; {} language-specific or unobservable left \
         out), by the first release from which every in-scope scenario tagging it passes \
         through the last release:",
        after.last_text,
        after.clauses.len(),
        after.not_observable.len()
    );
    let _ = writeln!(
        out,
        "  {:<10} {:<12} {:>7}",
        "arrived", "holds from", "clauses"
    );
    for g in groups(after, &versions) {
        let ids = if confirms(g.holds, g.arrived) {
            String::new()
        } else {
            let shown: Vec<&str> = g.ids.iter().take(IDS_SHOWN).copied().collect();
            let more = g.ids.len() - shown.len();
            let more = if more > 0 {
                format!(" … and {more} more")
            } else {
                String::new()
            };
            format!("  {}{more}", shown.join(", "))
        };
        let _ = writeln!(
            out,
            "  {:<10} {:<12} {:>7}{ids}",
            g.arrived.unwrap_or("unplaced"),
            g.holds.label(),
            g.ids.len()
        );
    }
    let odd: Vec<&ClauseReading> = after
        .clauses
        .iter()
        .filter(|c| !c.confirms_arrival() && c.holds != Holds::NotCovered)
        .collect();
    if odd.is_empty() {
        return out;
    }
    let (widths, header) = release_columns(&versions);
    let _ = writeln!(
        out,
        "\nclauses holding elsewhere than their stored arrival, or never ({}; per release: ok \
         every in-scope scenario passed, FAIL one failed, skip one skipped, `-` none in scope, \
         `?` release did not set up):",
        odd.len()
    );
    let _ = writeln!(out, "{header}{:<11} clause (scenarios)", "holds from");
    for c in odd {
        let line = outcome_cells(&c.outcomes, &widths);
        let _ = writeln!(
            out,
            "{line}{:<11} {} ({})",
            c.holds.label(),
            c.id,
            c.scenarios.len()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Outcome::{Failed, NotRun, Passed, Skipped};

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn refs(names: &[&str]) -> Vec<ScenarioRef> {
        names
            .iter()
            .map(|n| ScenarioRef {
                name: n.to_string(),
                file: "f.feature".into(),
                line: 1,
                partial: false,
            })
            .collect()
    }

    /// One release's in-scope outcomes from a row of the hand-made table.
    fn release(row: &[(&str, Outcome)]) -> Option<BTreeMap<String, Outcome>> {
        Some(row.iter().map(|(n, o)| (n.to_string(), *o)).collect())
    }

    #[test]
    fn a_clause_combines_its_scenarios_failed_over_skipped_over_passed() {
        assert_eq!(combine([]), NotRun);
        assert_eq!(combine([Passed, Passed]), Passed);
        assert_eq!(combine([Passed, Skipped]), Skipped);
        assert_eq!(combine([Skipped, Failed, Passed]), Failed);
    }

    #[test]
    fn holds_from_the_start_of_the_last_unbroken_run_of_passes() {
        let v = strings(&["0.16.0", "0.17.0", "0.18.0", "0.19.0"]);
        let h = |o: &[Option<Outcome>]| holds(o, &v);
        let from = |s: &str| Holds::From(s.to_string());
        // Out of scope in 0.16.0, passing from its first release in scope.
        assert_eq!(
            h(&[Some(NotRun), Some(Passed), Some(Passed), Some(Passed)]),
            from("0.17.0")
        );
        // Fixed in 0.19.0.
        assert_eq!(
            h(&[Some(NotRun), Some(Failed), Some(Skipped), Some(Passed)]),
            from("0.19.0")
        );
        // Held, then broke: no release from which it holds through the last.
        assert_eq!(
            h(&[Some(NotRun), Some(Passed), Some(Passed), Some(Failed)]),
            Holds::Never
        );
        // A release that did not set up neither breaks the run nor starts it.
        assert_eq!(
            h(&[Some(NotRun), Some(Passed), None, Some(Passed)]),
            from("0.17.0")
        );
        // The last release with it in scope decides, not the last release.
        assert_eq!(
            h(&[Some(Failed), Some(Passed), Some(Passed), Some(NotRun)]),
            from("0.17.0")
        );
        assert_eq!(
            h(&[Some(NotRun), None, Some(NotRun), None]),
            Holds::NotCovered
        );
        assert_eq!(h(&[]), Holds::NotCovered);
    }

    #[test]
    fn a_hand_made_table_of_outcomes_reads_as_expected() {
        let index = match ClauseIndex::parse(
            r#"{"spec": "main-after-0.17.0", "clauses": [
              {"id": "0.a.old", "section": "0", "quote": "Old.", "kind": "observable", "arrived": "0.1.1"},
              {"id": "0.a.reworded", "section": "0", "quote": "Reworded.", "kind": "observable", "arrived": "0.17.0", "reworded": ["0.2.0"], "sameRule": {"since": "0.2.0", "why": "same"}},
              {"id": "1.a.early", "section": "1", "quote": "Early.", "kind": "observable", "arrived": "0.17.0"},
              {"id": "1.a.late", "section": "1", "quote": "Late.", "kind": "observable", "arrived": "0.17.0"},
              {"id": "1.a.broken", "section": "1", "quote": "Broken.", "kind": "observable", "arrived": "0.17.0"},
              {"id": "1.a.binding", "section": "1", "quote": "Binding.", "kind": "language-specific", "why": "a type", "arrived": "0.17.0"},
              {"id": "8B.a.unplaced", "section": "8B", "quote": "Unplaced.", "kind": "observable"},
              {"id": "8B.a.untagged", "section": "8B", "quote": "Untagged.", "kind": "observable", "uncovered": "no scenario yet"}
            ]}"#,
            "test index",
        ) {
            Ok(i) => i,
            Err(e) => panic!("{e:?}"),
        };
        let clauses = after_history(&index, "0.16.0");
        let ids: Vec<&str> = clauses.iter().map(|c| c.id.as_str()).collect();
        // A rule older than the history's last text is out, however late its wording arrived.
        assert_eq!(
            ids,
            [
                "1.a.early",
                "1.a.late",
                "1.a.broken",
                "1.a.binding",
                "8B.a.unplaced",
                "8B.a.untagged"
            ]
        );
        let tagged: BTreeMap<String, Vec<ScenarioRef>> = [
            ("1.a.early", refs(&["e1", "e2"])),
            ("1.a.late", refs(&["e2", "l"])),
            ("1.a.broken", refs(&["b"])),
            ("8B.a.unplaced", refs(&["u"])),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let versions = strings(&["0.16.0", "0.17.0", "0.18.0", "0.19.0"]);
        // Out of scope on 0.16.0 (its text lacks them); 0.18.0 did not set up.
        let per_release = vec![
            release(&[]),
            release(&[
                ("e1", Passed),
                ("e2", Passed),
                ("l", Failed),
                ("b", Passed),
                ("u", Skipped),
            ]),
            None,
            release(&[
                ("e1", Passed),
                ("e2", Passed),
                ("l", Passed),
                ("b", Failed),
                ("u", Passed),
            ]),
        ];
        let after = read(&clauses, "0.16.0", &tagged, &versions, &per_release);
        let got: Vec<(&str, Holds)> = after
            .clauses
            .iter()
            .map(|c| (c.id.as_str(), c.holds.clone()))
            .collect();
        let from = |s: &str| Holds::From(s.to_string());
        assert_eq!(
            got,
            vec![
                ("1.a.early", from("0.17.0")),
                ("1.a.late", from("0.19.0")),
                ("1.a.broken", Holds::Never),
                ("8B.a.unplaced", from("0.19.0")),
                ("8B.a.untagged", Holds::NotCovered),
            ]
        );
        assert_eq!(after.not_observable, ["1.a.binding"]);
        assert_eq!(
            after.clauses[1].outcomes,
            [Some(NotRun), Some(Failed), None, Some(Passed)]
        );

        let g: Vec<(Option<&str>, String, usize)> = groups(&after, &versions)
            .iter()
            .map(|g| (g.arrived, g.holds.label(), g.ids.len()))
            .collect();
        assert_eq!(
            g,
            vec![
                (Some("0.17.0"), "0.17.0".to_string(), 1),
                (Some("0.17.0"), "0.19.0".to_string(), 1),
                (Some("0.17.0"), "never".to_string(), 1),
                (None, "0.19.0".to_string(), 1),
                (None, "not covered".to_string(), 1),
            ]
        );

        let releases: Vec<Release> = versions
            .iter()
            .map(|v| Release {
                version: v.clone(),
                port_spec: None,
                judged_by: None,
                summary: None,
                setup_failed: None,
                in_scope: None,
                arrived: None,
            })
            .collect();
        let shown = text(&after, &releases);
        assert!(
            shown.contains("  0.17.0     0.17.0             1\n"),
            "a group confirming its arrival lists no ids: {shown}"
        );
        assert!(
            shown.contains("  unplaced   not covered        1  8B.a.untagged\n"),
            "{shown}"
        );
        assert!(
            shown.contains("-      FAIL   ?      ok     0.19.0      1.a.late (2)\n"),
            "{shown}"
        );
        assert!(
            shown.contains("-      ok     ?      FAIL   never       1.a.broken (1)\n"),
            "{shown}"
        );
        assert!(!shown.contains("1.a.early ("), "{shown}");

        let json = serde_json::to_value(&after).unwrap_or_default();
        assert_eq!(json["lastText"], "0.16.0");
        assert_eq!(json["clauses"][0]["holds"]["from"], "0.17.0");
        assert_eq!(json["clauses"][2]["holds"], "never");
        assert_eq!(json["clauses"][4]["holds"], "notCovered");
        assert!(json["clauses"][3].get("arrived").is_none());
        assert_eq!(json["clauses"][1]["outcomes"][2], serde_json::Value::Null);
    }
}
