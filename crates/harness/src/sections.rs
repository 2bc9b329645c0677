//! The SPEC's sections as the harness knows them: their natural order (`4` < `4A` < `5` <
//! `10`) and their titles. The features tag each scenario with its section; every report
//! that lists sections reads the order and the names from here.

use std::cmp::Ordering;

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
