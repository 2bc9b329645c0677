//! Loads Gherkin feature files into self-describing scenarios (outlines expanded).

use std::path::{Path, PathBuf};

use gherkin::GherkinEnv;

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
    /// Tags without `@`, feature tags first.
    pub tags: Vec<String>,
    /// The SPEC section from the first `spec-…` tag (`0`, `3`, `4A`, ...), or `untagged`.
    pub section: String,
    /// The SPEC version the scenario pins, from its `pin-X` tag.
    pub pin: Option<String>,
    /// Background steps followed by the scenario's own.
    pub steps: Vec<StepSpec>,
}

/// Loads every `*.feature` under `root`, sorted by path; a file that does not parse is
/// returned as an error entry so the run can report it.
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
                scenarios.extend(expand(&feature, &rel));
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

fn expand(feature: &gherkin::Feature, file: &str) -> Vec<ScenarioSpec> {
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut push =
        |scenario: &gherkin::Scenario, background: &[gherkin::Step], extra_tags: &[String]| {
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
                out.push(ScenarioSpec {
                    id: format!("{stem}: {}{suffix}", scenario.name),
                    file: file.to_string(),
                    section: section_of(&tags),
                    pin: tags
                        .iter()
                        .find_map(|t| t.strip_prefix("pin-"))
                        .map(str::to_string),
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
    out
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

    #[test]
    fn sections_from_tags() {
        assert_eq!(section_of(&["spec-4A".into()]), "4A");
        assert_eq!(section_of(&["x".into(), "spec-0.6".into()]), "0");
        assert_eq!(section_of(&["spec-3.S2".into()]), "3");
        assert_eq!(section_of(&[]), "untagged");
    }
}
