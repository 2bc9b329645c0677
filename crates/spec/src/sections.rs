//! The SPEC's sections: which names are section numbers, their natural order (`4` < `4A` <
//! `5` < `10`), their titles, and a SPEC text cut into its numbered sections. Every report
//! that lists sections reads the order and the names from here.

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Natural order for SPEC sections: numeric part first, then the suffix (`4` < `4A` < `5`
/// < `10`); names without a leading number come last, alphabetically.
pub fn cmp_sections(a: &str, b: &str) -> Ordering {
    section_key(a).cmp(&section_key(b))
}

fn section_key(s: &str) -> (bool, usize, String, String, String) {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    let suffix = s[digits.len()..].to_string();
    let trimmed = digits.trim_start_matches('0');
    // Length then text orders numbers of any size without parsing them.
    (
        digits.is_empty(),
        trimmed.len(),
        trimmed.to_string(),
        suffix,
        s.to_string(),
    )
}

/// The SPEC's name for a section (its `## N. Title` heading, shortened), as the reports
/// head it.
pub fn title(section: &str) -> Option<&'static str> {
    Some(match section {
        "0" => "Conformance contract",
        "1" => "Core types",
        "2" => "MCP source",
        "3" => "Skill source",
        "4" => "Toolkit",
        "4A" => "Built-in tools",
        "5" => "Reference usage",
        "6" => "Native tools",
        "7" => "HTTP tools",
        "7A" => "A2A outbound",
        "7B" => "A2A inbound",
        "7C" => "MCP server inbound",
        "7D" => "Sub-agents",
        "7E" => "Agent home",
        "7F" => "Context compaction",
        "8" => "Unified LLM client",
        "9" => "Go CLI",
        "10" => "Suspension",
        "11" => "Single-turn translation",
        _ => return None,
    })
}

/// `0`, `4`, `4A`, `10`: digits, then at most one capital letter.
pub fn valid_section(s: &str) -> bool {
    let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0 && {
        let rest = &s[digits..];
        rest.is_empty() || (rest.len() == 1 && rest.bytes().all(|b| b.is_ascii_uppercase()))
    }
}

/// The section bodies of a SPEC text: a `## N.` heading line and the text up to the next
/// `## ` heading (the heading kept, as an index may quote it). Lines inside ``` fences are
/// body text, never headings (the SPEC quotes markdown that has its own `## `).
pub fn split(text: &str) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        if !fenced {
            if let Some(heading) = line.strip_prefix("## ") {
                current = heading
                    .split_once('.')
                    .map(|(n, _)| n.trim().to_string())
                    .filter(|n| valid_section(n));
            }
        }
        if let Some(section) = &current {
            let body = out.entry(section.clone()).or_default();
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_skip_fenced_headings() {
        let text = "# SPEC\n## 0. Zero\nA.\n```md\n## 1. Not a heading\n```\n## 1. One\nB.\n## Appendix\nC.\n";
        let s = split(text);
        assert_eq!(s.keys().collect::<Vec<_>>(), vec!["0", "1"]);
        assert!(s["0"].contains("Not a heading"));
        assert!(!s["1"].contains("C."));
    }

    #[test]
    fn sections_skip_fenced_headings_and_the_preamble() {
        let spec = "# Title\n\nPreamble MUST be ignored.\n\n## 0. Contract\n\nA port MUST answer.\n\n```\n## Not a heading\n```\n\n## 4A. Built-ins\n\n- `glob` sorts by path.\n\n## 5. Usage\n\nNothing normative.\n";
        let s = split(spec);
        assert_eq!(s.keys().collect::<Vec<_>>(), vec!["0", "4A", "5"]);
        assert!(s["0"].contains("## Not a heading"));
        assert!(s["0"].starts_with("## 0. Contract\n"));
        assert!(!s["0"].contains("Built-ins"));
    }

    #[test]
    fn section_numbers_are_digits_and_one_capital_in_natural_order() {
        assert!(
            valid_section("4A")
                && valid_section("10")
                && !valid_section("4a")
                && !valid_section("A")
        );
        let mut names = vec!["10", "4A", "untagged", "5", "4", "0"];
        names.sort_by(|a, b| cmp_sections(a, b));
        assert_eq!(names, vec!["0", "4", "4A", "5", "10", "untagged"]);
        assert_eq!(title("7C"), Some("MCP server inbound"));
        assert_eq!(title("12"), None);
    }
}
