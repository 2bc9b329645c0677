//! The scenarios' SPEC version bounds read from their clauses: a scenario without a
//! `since-` tag holds from the first release stating every rule it checks
//! (`toolnexus_spec::arrival::rule_floor`), and the lint that a tag claims no SPEC text
//! lacking one of its clauses, and says where a bound read off a port's releases comes from.

use toolnexus_spec::arrival::rule_floor;
use toolnexus_spec::clauses::ClauseIndex;
use toolnexus_spec::version::SpecVersion;

use super::coverage::clause_tags;
use crate::scenario::features::ScenarioSpec;

/// The latest first release stating a rule among the clauses a scenario tags (whole or
/// partly; `Clause::rule_since`), and that clause; `None` when it tags none, or one whose
/// arrival the index does not know.
pub fn clause_floor<'a>(
    index: &'a ClauseIndex,
    scenario: &ScenarioSpec,
) -> Option<(SpecVersion, &'a str)> {
    rule_floor(index, clause_tags(scenario).into_iter().map(|(id, _)| id))
}

/// The earliest last release among the retired clauses a scenario tags (`Clause::until`),
/// and that clause: a later text changed that rule, so the scenario holds up to there.
pub fn clause_ceiling<'a>(
    index: &'a ClauseIndex,
    scenario: &ScenarioSpec,
) -> Option<(SpecVersion, &'a str)> {
    clause_tags(scenario)
        .into_iter()
        .filter_map(|(id, _)| index.get(id))
        .filter_map(|c| Some((SpecVersion::parse(c.until.as_deref()?)?, c.id.as_str())))
        .min()
}

/// Whether the scenario names its own lower bound with a `since-` tag.
fn has_since_tag(scenario: &ScenarioSpec) -> bool {
    scenario.tags.iter().any(|t| t.starts_with("since-"))
}

/// Sets each scenario's lower bound from its clauses: without a `since-` tag, a scenario
/// whose every tagged clause has a known arrival holds from the latest of them (the SPEC
/// text that first has all it checks), not from the pin it was written against. Others keep
/// the bound their tags give.
/// Likewise a scenario without an `until-` tag that tags a clause the index keeps `until`
/// a release holds up to the earliest such release.
pub fn derive_bounds(index: &ClauseIndex, scenarios: &mut [ScenarioSpec]) {
    for s in scenarios.iter_mut() {
        if !s.tags.iter().any(|t| t.starts_with("until-")) {
            if let Some((ceiling, _)) = clause_ceiling(index, s) {
                s.bounds.until = Some(ceiling);
            }
        }
        if has_since_tag(s) {
            continue;
        }
        if let Some((floor, _)) = clause_floor(index, s) {
            s.bounds.since = Some(floor);
        }
    }
}

/// The version-bound lint, one message per problem: a `since-`/`pin-` tag below the arrival
/// of one of the scenario's clauses (it claims a SPEC text that lacks what it checks), and
/// a `since-`/`until-` bound that no clause arrival gives (one read off a port's releases)
/// whose version the scenario's description does not name.
pub fn bounds_lint(
    index: &ClauseIndex,
    scenarios: &[ScenarioSpec],
    history: &[String],
) -> Vec<String> {
    let mut out = Vec::new();
    for s in scenarios {
        let at = format!("{}:{}: scenario \"{}\"", s.file, s.line, s.id);
        let floor = clause_floor(index, s);
        for tag in &s.tags {
            let Some((prefix, version)) = ["since-", "pin-", "until-"]
                .iter()
                .find_map(|p| tag.strip_prefix(p).map(|v| (*p, v)))
            else {
                continue;
            };
            let claimed = SpecVersion::parse(version);
            let below = match (floor, claimed) {
                (Some((f, clause)), Some(c)) if prefix != "until-" && c < f => Some((f, clause)),
                _ => None,
            };
            if let Some((f, clause)) = below {
                out.push(format!(
                    "{at}: @{tag} claims SPEC {version} but its clause {clause} arrived in {f}"
                ));
                continue;
            }
            // The pin names the text the scenario was written against; since/until bounds
            // the clauses do not give were read off a port's releases.
            let from_clauses = prefix == "since-" && floor.is_some_and(|(f, _)| Some(f) == claimed);
            if prefix != "pin-" && !from_clauses && !s.description.contains(version) {
                let whence = if history.iter().any(|h| h == version) {
                    "no clause of it arrives there"
                } else {
                    "no SPEC text of the history is that version"
                };
                out.push(format!(
                    "{at}: @{tag} is a bound read off a port, not the SPEC ({whence}); its description must say so, naming {version}"
                ));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}
