//! Loads Gherkin feature files into self-describing scenarios (outlines expanded).

use std::path::{Path, PathBuf};

use gherkin::GherkinEnv;
use toolnexus_spec::version::SpecVersion;

/// One step of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct StepSpec {
    /// `Given`, `When`, `Then`, `And`, `But`.
    pub keyword: String,
    /// The step text, outline parameters substituted.
    pub text: String,
    /// The attached doc string, if any.
    pub docstring: Option<String>,
}

/// One runnable scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioSpec {
    /// `feature-file-stem: scenario name [example values]`, unique in a run.
    pub id: String,
    /// The feature file, relative to the features root.
    pub file: String,
    /// The line of its `Scenario:` keyword in that file (1-based; 0 when unknown).
    pub line: usize,
    /// Tags without `@`, feature tags first.
    pub tags: Vec<String>,
    /// The SPEC section from the first `spec-…` tag (`0`, `3`, `4A`, ...), or `untagged`.
    pub section: String,
    /// The SPEC version the scenario pins, from its `pin-X` tag.
    pub pin: Option<String>,
    /// The SPEC versions the scenario holds for (`since-X`, `until-X`, else from `pin-X`).
    pub bounds: VersionBounds,
    /// For a `@beyond-spec` scenario, why: its `Beyond the SPEC: …` description.
    pub beyond_spec: Option<String>,
    /// The scenario's description (the prose under `Scenario:`), trimmed; empty when none.
    pub description: String,
    /// Background steps followed by the scenario's own.
    pub steps: Vec<StepSpec>,
}

/// The tag marking a scenario that documents reference behaviour the SPEC does not state.
pub const BEYOND_SPEC_TAG: &str = "beyond-spec";
/// How a `@beyond-spec` scenario's description states its reason.
pub const BEYOND_SPEC_PREFIX: &str = "Beyond the SPEC:";
/// The tag marking a scenario of a SPEC preview (the §10 relay and durable-resume addenda):
/// not a porting obligation, so `run` leaves it out unless asked (`--include-preview`).
pub const PREVIEW_TAG: &str = "preview";

/// The tag marking a scenario whose every expectation comes from a seed page (the user's own
/// pages) and none from a SPEC clause: a port failing it breaks the user's promise, not the
/// SPEC's, and reports say so. It must carry a `@seed-NNN` tag and no clause tag.
pub const SEED_ONLY_TAG: &str = "seed-only";

/// The tag marking a scenario that cannot share the machine (it measures wall time or load):
/// `run --jobs N` runs it alone, as cucumber does.
pub const SERIAL_TAG: &str = "serial";

impl ScenarioSpec {
    /// Whether the scenario checks a SPEC preview (tagged `@preview`, on it or its feature).
    pub fn is_preview(&self) -> bool {
        self.tags.iter().any(|t| t == PREVIEW_TAG)
    }

    /// Whether the scenario must run alone (tagged `@serial`, on it or its feature).
    pub fn is_serial(&self) -> bool {
        self.tags.iter().any(|t| t == SERIAL_TAG)
    }
}

/// The version the scenarios pin (`toolnexus_protocol::SPEC_VERSION`), assumed for a port
/// that declares none.
pub fn pinned_version() -> SpecVersion {
    SpecVersion::parse(toolnexus_protocol::SPEC_VERSION).unwrap_or(SpecVersion([0, 16, 0]))
}

/// The SPEC versions a scenario holds for, both bounds inclusive; `None` is unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VersionBounds {
    /// The first SPEC version it holds for: its `since-X` tag, else its `pin-X` tag.
    pub since: Option<SpecVersion>,
    /// The last SPEC version it holds for: its `until-X` tag.
    pub until: Option<SpecVersion>,
}

impl VersionBounds {
    /// Reads `since-X`, `until-X` and `pin-X` tags (without `@`). A scenario written against
    /// SPEC X (`pin-X`) claims nothing about earlier texts, so the pin is the lower bound
    /// unless `since-` says otherwise; nothing but `until-` sets an upper bound.
    pub fn from_tags(tags: &[String]) -> Result<VersionBounds, String> {
        let one = |prefix: &str| -> Result<Option<SpecVersion>, String> {
            let found: Vec<&str> = tags.iter().filter_map(|t| t.strip_prefix(prefix)).collect();
            let mut versions = Vec::new();
            for v in &found {
                versions.push(SpecVersion::parse(v).ok_or_else(|| {
                    format!("malformed version tag @{prefix}{v} (expected @{prefix}X.Y.Z)")
                })?);
            }
            versions.sort();
            versions.dedup();
            match versions.as_slice() {
                [] => Ok(None),
                [v] => Ok(Some(*v)),
                _ => Err(format!(
                    "conflicting version tags: @{prefix}{}",
                    found.join(&format!(" @{prefix}"))
                )),
            }
        };
        let since = one("since-")?;
        let until = one("until-")?;
        let pin = one("pin-")?;
        let bounds = VersionBounds {
            since: since.or(pin),
            until,
        };
        match (bounds.since, bounds.until) {
            (Some(a), Some(b)) if a > b => Err(format!(
                "version tags leave no SPEC version: holds from {a} but only until {b}"
            )),
            _ => Ok(bounds),
        }
    }

    /// Whether the scenario holds for SPEC `v`.
    pub fn holds_for(&self, v: SpecVersion) -> bool {
        self.since.is_none_or(|s| s <= v) && self.until.is_none_or(|u| v <= u)
    }

    /// The bounds as a reader would say them (`SPEC ≥ 0.17.0`); `any SPEC` when unbounded.
    pub fn describe(&self) -> String {
        match (self.since, self.until) {
            (None, None) => "any SPEC".to_string(),
            (Some(a), None) => format!("SPEC ≥ {a}"),
            (None, Some(b)) => format!("SPEC ≤ {b}"),
            (Some(a), Some(b)) if a == b => format!("SPEC {a} only"),
            (Some(a), Some(b)) => format!("SPEC {a} … {b}"),
        }
    }
}

/// The reason a `@beyond-spec` scenario gives: its description from the first line that
/// starts with `Beyond the SPEC:`.
pub fn beyond_spec_reason(description: Option<&str>) -> Option<String> {
    let lines: Vec<&str> = description?.lines().map(str::trim).collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with(BEYOND_SPEC_PREFIX))?;
    let reason = lines[start..]
        .iter()
        .take_while(|l| !l.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    (reason.len() > BEYOND_SPEC_PREFIX.len()).then_some(reason)
}

/// Whether a tag list marks its scenario `@seed-only`.
pub fn is_seed_only(tags: &[String]) -> bool {
    tags.iter().any(|t| t == SEED_ONLY_TAG)
}

/// The seed pages a tag list names (`seed-001` ⇒ `001`), in tag order.
pub fn seed_pages(tags: &[String]) -> Vec<&str> {
    tags.iter()
        .filter_map(|t| t.strip_prefix("seed-"))
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .collect()
}

/// Why a `@seed-only` tag list is malformed: it names no seed page, or it names a SPEC clause
/// (then a failure is the SPEC's, not only the seed's).
fn seed_only_error(tags: &[String]) -> Option<String> {
    if !is_seed_only(tags) {
        return None;
    }
    if seed_pages(tags).is_empty() {
        return Some(format!(
            "@{SEED_ONLY_TAG} needs the @seed-NNN tag of its page"
        ));
    }
    tags.iter()
        .find(|t| t.starts_with("clause-") || t.starts_with("partial-clause-"))
        .map(|t| format!("@{SEED_ONLY_TAG} cannot name a SPEC clause (@{t})"))
}

/// Loads every `*.feature` under `root`, sorted by path; a file that does not parse, or a
/// scenario whose version or `@beyond-spec` tags are malformed, is returned as an error
/// entry so the run can report it.
pub fn load(root: &Path) -> (Vec<ScenarioSpec>, Vec<String>) {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|x| x == "feature"))
        .collect();
    files.sort();
    let mut scenarios = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        let rel = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .to_string();
        match gherkin::Feature::parse_path(&file, GherkinEnv::default()) {
            Ok(feature) => {
                errors.extend(unresolved_parameters(&feature, &rel));
                let (expanded, tag_errors) = expand(&feature, &rel);
                scenarios.extend(expanded);
                errors.extend(tag_errors);
            }
            Err(e) => errors.push(format!("{rel}: {e}")),
        }
    }
    (scenarios, errors)
}

/// The section a tag list names.
pub fn section_of(tags: &[String]) -> String {
    tags.iter()
        .find_map(|t| t.strip_prefix("spec-"))
        .map(|s| s.split('.').next().unwrap_or(s).to_string())
        .unwrap_or_else(|| "untagged".to_string())
}

fn clean_tags(tags: &[String]) -> Vec<String> {
    tags.iter()
        .map(|t| t.trim_start_matches('@').to_string())
        .collect()
}

fn expand(feature: &gherkin::Feature, file: &str) -> (Vec<ScenarioSpec>, Vec<String>) {
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut push = |scenario: &gherkin::Scenario,
                    background: &[gherkin::Step],
                    extra_tags: &[String]| {
        let mut base_tags = clean_tags(&feature.tags);
        base_tags.extend(clean_tags(extra_tags));
        base_tags.extend(clean_tags(&scenario.tags));
        let rows = outline_rows(scenario);
        for (row_tags, params) in rows {
            let mut tags = base_tags.clone();
            tags.extend(row_tags);
            let subst = |text: &str| {
                params.iter().fold(text.to_string(), |acc, (k, v)| {
                    acc.replace(&format!("<{k}>"), v)
                })
            };
            let steps = background
                .iter()
                .chain(scenario.steps.iter())
                .map(|s| StepSpec {
                    keyword: s.keyword.trim().to_string(),
                    text: subst(&s.value),
                    docstring: s.docstring.as_deref().map(|d| subst(&clean_docstring(d))),
                })
                .collect();
            let suffix = if params.is_empty() {
                String::new()
            } else {
                format!(
                    " [{}]",
                    params
                        .iter()
                        .map(|(k, v)| format!("{k}={v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let id = format!("{stem}: {}{suffix}", scenario.name);
            let bounds = match VersionBounds::from_tags(&tags) {
                Ok(b) => b,
                Err(e) => {
                    errors.push(format!("{file}: scenario \"{id}\": {e}"));
                    continue;
                }
            };
            let beyond_spec = if tags.iter().any(|t| t == BEYOND_SPEC_TAG) {
                match beyond_spec_reason(scenario.description.as_deref()) {
                    Some(reason) => Some(reason),
                    None => {
                        errors.push(format!(
                                "{file}: scenario \"{id}\" is tagged @{BEYOND_SPEC_TAG} but its \
                                 description has no line starting \"{BEYOND_SPEC_PREFIX}\" giving the reason"
                            ));
                        continue;
                    }
                }
            } else {
                None
            };
            if let Some(why) = seed_only_error(&tags) {
                errors.push(format!("{file}: scenario \"{id}\": {why}"));
                continue;
            }
            out.push(ScenarioSpec {
                id,
                file: file.to_string(),
                line: scenario.position.line,
                section: section_of(&tags),
                pin: tags
                    .iter()
                    .find_map(|t| t.strip_prefix("pin-"))
                    .map(str::to_string),
                bounds,
                beyond_spec,
                description: scenario
                    .description
                    .as_deref()
                    .map(str::trim)
                    .unwrap_or_default()
                    .to_string(),
                tags,
                steps,
            });
        }
    };
    let feature_bg: Vec<gherkin::Step> = feature
        .background
        .as_ref()
        .map(|b| b.steps.clone())
        .unwrap_or_default();
    for scenario in &feature.scenarios {
        push(scenario, &feature_bg, &[]);
    }
    for rule in &feature.rules {
        let mut bg = feature_bg.clone();
        if let Some(b) = &rule.background {
            bg.extend(b.steps.iter().cloned());
        }
        for scenario in &rule.scenarios {
            push(scenario, &bg, &rule.tags);
        }
    }
    errors.sort();
    errors.dedup();
    (out, errors)
}

/// Converts a parsed Gherkin step (outline already expanded) into the harness's form.
pub fn step_spec(step: &gherkin::Step) -> StepSpec {
    StepSpec {
        keyword: step.keyword.trim().to_string(),
        text: step.value.clone(),
        docstring: step.docstring.as_deref().map(clean_docstring),
    }
}

/// Gherkin keeps the newlines next to the fences; scenarios mean the text inside them.
fn clean_docstring(d: &str) -> String {
    let d = d.strip_prefix('\n').unwrap_or(d);
    d.strip_suffix('\n').unwrap_or(d).to_string()
}

/// Outline `<name>`s that no Examples column defines. cucumber refuses such a file, so the
/// CLI does too rather than run a scenario whose name or steps keep a literal `<name>`.
fn unresolved_parameters(feature: &gherkin::Feature, file: &str) -> Vec<String> {
    let all = feature
        .scenarios
        .iter()
        .chain(feature.rules.iter().flat_map(|r| r.scenarios.iter()));
    let mut out = Vec::new();
    for scenario in all.filter(|s| !s.examples.is_empty()) {
        let columns: Vec<&String> = scenario
            .examples
            .iter()
            .filter_map(|e| e.table.as_ref())
            .filter_map(|t| t.rows.first())
            .flatten()
            .collect();
        let texts = std::iter::once(scenario.name.as_str()).chain(
            scenario
                .steps
                .iter()
                .flat_map(|s| std::iter::once(s.value.as_str()).chain(s.docstring.as_deref())),
        );
        for text in texts {
            for name in angle_names(text) {
                if !columns.iter().any(|c| c.as_str() == name) {
                    out.push(format!(
                        "{file}: outline \"{}\" uses <{name}>, which no Examples column defines",
                        scenario.name
                    ));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The `name` of every `<name>` in `text`.
fn angle_names(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        match after.find(['>', '<', '\n']) {
            Some(close) if after.as_bytes()[close] == b'>' && close > 0 => {
                names.push(&after[..close]);
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    names
}

type Row = (Vec<String>, Vec<(String, String)>);

fn outline_rows(scenario: &gherkin::Scenario) -> Vec<Row> {
    if scenario.examples.is_empty() {
        return vec![(Vec::new(), Vec::new())];
    }
    let mut rows = Vec::new();
    for examples in &scenario.examples {
        let Some(table) = &examples.table else {
            continue;
        };
        let Some((header, body)) = table.rows.split_first() else {
            continue;
        };
        for row in body {
            let params = header.iter().cloned().zip(row.iter().cloned()).collect();
            rows.push((clean_tags(&examples.tags), params));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_names_its_section_and_the_spec_version_it_pins() {
        let (scenarios, errors) =
            load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../features"));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(scenarios.len() >= 80);
        for s in &scenarios {
            assert_ne!(s.section, "untagged", "{} has no @spec- tag", s.id);
            assert!(s.pin.is_some(), "{} has no @pin- tag", s.id);
        }
        let mut ids: Vec<&str> = scenarios.iter().map(|s| s.id.as_str()).collect();
        ids.sort();
        let before = ids.len();
        ids.dedup();
        assert_eq!(
            before,
            ids.len(),
            "scenario names must be unique (expected-failures files key on them)"
        );
    }

    #[test]
    fn outline_parameters_must_have_columns() {
        let text = "Feature: f\n  Scenario Outline: uses <known> and <card URL>\n    Given a step <known>\n\n    Examples:\n      | known |\n      | x     |\n";
        let feature = gherkin::Feature::parse(text, GherkinEnv::default()).unwrap();
        let errors = unresolved_parameters(&feature, "f.feature");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("<card URL>"));
        assert_eq!(angle_names("a <b> <c d> <> x<y"), vec!["b", "c d"]);
    }

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn the_pinned_version_is_the_protocol_crates() {
        assert_eq!(
            pinned_version().to_string(),
            toolnexus_protocol::SPEC_VERSION
        );
    }

    #[test]
    fn bounds_come_from_since_until_and_the_pin() {
        let b = |t: &[&str]| VersionBounds::from_tags(&tags(t));
        let v = |t: &str| SpecVersion::parse(t).unwrap();
        let pinned = b(&["spec-3", "pin-0.16.0"]).unwrap();
        assert_eq!(pinned.since, Some(v("0.16.0")));
        assert_eq!(pinned.until, None);
        assert!(pinned.holds_for(v("0.16.0")) && pinned.holds_for(v("0.21.0")));
        assert!(!pinned.holds_for(v("0.15.9")));
        let later = b(&["pin-0.16.0", "since-0.17.0"]).unwrap();
        assert!(!later.holds_for(v("0.16.0")) && later.holds_for(v("0.17.0")));
        assert_eq!(later.describe(), "SPEC ≥ 0.17.0");
        let earlier = b(&["pin-0.16.0", "until-0.16.0"]).unwrap();
        assert!(earlier.holds_for(v("0.16.0")) && !earlier.holds_for(v("0.16.1")));
        assert_eq!(earlier.describe(), "SPEC 0.16.0 only");
        assert_eq!(b(&["until-0.18.0"]).unwrap().describe(), "SPEC ≤ 0.18.0");
        assert_eq!(b(&[]).unwrap().describe(), "any SPEC");
        assert!(b(&[]).unwrap().holds_for(v("0.1.0")));
        let err = b(&["since-0.17"]).unwrap_err();
        assert!(err.contains("@since-0.17"), "{err}");
        assert!(b(&["until-x.y.z"]).is_err());
        assert!(b(&["pin-0.16"]).is_err());
        assert!(b(&["since-0.18.0", "until-0.17.0"]).is_err());
        assert!(b(&["since-0.17.0", "since-0.18.0"]).is_err());
    }

    #[test]
    fn malformed_version_tags_and_reasonless_beyond_spec_are_load_errors() {
        let text = "@pin-0.16.0\nFeature: f\n\n  @since-0.17\n  Scenario: bad version\n    Given a step\n\n  @beyond-spec\n  Scenario: no reason\n    Some other words.\n    Given a step\n\n  @beyond-spec\n  Scenario: sorted order\n    Beyond the SPEC: §4A says nothing about order;\n    the reference sorts.\n\n    Given a step\n\n  @until-0.16.0\n  Scenario: fine\n    Given a step\n";
        let feature = gherkin::Feature::parse(text, GherkinEnv::default()).unwrap();
        let (scenarios, errors) = expand(&feature, "dir/f.feature");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors.iter().any(
                |e| e.starts_with("dir/f.feature: scenario \"f: bad version\"")
                    && e.contains("@since-0.17")
            ),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.contains("\"f: no reason\"") && e.contains("Beyond the SPEC:")),
            "{errors:?}"
        );
        let names: Vec<&str> = scenarios.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(names, vec!["f: sorted order", "f: fine"]);
        assert_eq!(
            scenarios[0].beyond_spec.as_deref(),
            Some("Beyond the SPEC: §4A says nothing about order; the reference sorts.")
        );
        assert_eq!(scenarios[1].beyond_spec, None);
        assert_eq!(scenarios[1].bounds.describe(), "SPEC 0.16.0 only");
    }

    #[test]
    fn a_seed_only_scenario_names_its_seed_and_no_clause() {
        let text = "@pin-0.16.0\nFeature: f\n\n  @seed-only\n  Scenario: no seed\n    Given a step\n\n  @seed-001 @seed-only @partial-clause-4.x\n  Scenario: a clause\n    Given a step\n\n  @seed-001 @seed-only\n  Scenario: fine\n    Given a step\n";
        let feature = gherkin::Feature::parse(text, GherkinEnv::default()).unwrap();
        let (scenarios, errors) = expand(&feature, "f.feature");
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors
                .iter()
                .any(|e| e.contains("\"f: no seed\"") && e.contains("@seed-NNN")),
            "{errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.contains("\"f: a clause\"") && e.contains("@partial-clause-4.x")),
            "{errors:?}"
        );
        let names: Vec<&str> = scenarios.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(names, vec!["f: fine"]);
    }

    #[test]
    fn the_reason_starts_at_its_prefix() {
        assert_eq!(beyond_spec_reason(None), None);
        assert_eq!(beyond_spec_reason(Some("Beyond the SPEC:")), None);
        assert_eq!(
            beyond_spec_reason(Some("Context first.\n  Beyond the SPEC: why.\n\nlater")),
            Some("Beyond the SPEC: why.".to_string())
        );
    }

    #[test]
    fn sections_from_tags() {
        assert_eq!(section_of(&["spec-4A".into()]), "4A");
        assert_eq!(section_of(&["x".into(), "spec-0.6".into()]), "0");
        assert_eq!(section_of(&["spec-3.S2".into()]), "3");
        assert_eq!(section_of(&[]), "untagged");
    }
}
