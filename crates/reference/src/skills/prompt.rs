//! §3 the system-prompt helper: the instruction preamble plus the described-skill catalog.

use super::SkillInfo;

/// The fixed instruction preamble, byte-identical across ports (§3).
pub const PROMPT_PREAMBLE: &str = "Skills provide specialized instructions and workflows for specific tasks.\nUse the skill tool to load a skill when a task matches its description.";

/// What the prompt helper returns when no described skill exists (no preamble).
pub const NO_SKILLS_PROMPT: &str = "No skills are currently available.";

/// §0.6 `skillsPrompt()`: preamble + `\n\n## Available Skills\n` + `- **name**: description`
/// lines for described skills sorted by name (code-point order), no trailing newline.
pub fn skills_prompt(skills: &[SkillInfo]) -> String {
    // "Described" is `description` present, even if empty (as the Python port does).
    let mut described: Vec<(&str, &str)> = skills
        .iter()
        .filter_map(|s| s.description.as_deref().map(|d| (s.name.as_str(), d)))
        .collect();
    if described.is_empty() {
        return NO_SKILLS_PROMPT.to_string();
    }
    described.sort_by(|a, b| a.0.cmp(b.0));
    // Written into one string sized up front: a large catalog has thousands of lines.
    const HEADING: &str = "\n\n## Available Skills\n";
    let size = described
        .iter()
        .map(|(name, desc)| "- **".len() + name.len() + "**: ".len() + desc.len() + 1)
        .sum::<usize>();
    let mut out = String::with_capacity(PROMPT_PREAMBLE.len() + HEADING.len() + size);
    out.push_str(PROMPT_PREAMBLE);
    out.push_str(HEADING);
    for (i, (name, desc)) in described.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("- **");
        out.push_str(name);
        out.push_str("**: ");
        out.push_str(desc);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::SkillOrigin;

    fn skill(name: &str, description: Option<&str>) -> SkillInfo {
        SkillInfo {
            name: name.to_string(),
            description: description.map(str::to_string),
            location: None,
            content: String::new(),
            origin: SkillOrigin::Data {
                base: format!("skill://{name}/"),
                resources: vec![],
            },
        }
    }

    #[test]
    fn sorted_described_only_no_trailing_newline() {
        let out = skills_prompt(&[
            skill("b", Some("Bee")),
            skill("hidden", None),
            skill("B", Some("upper")),
            skill("a", Some("Ay")),
        ]);
        assert_eq!(
            out,
            "Skills provide specialized instructions and workflows for specific tasks.\n\
             Use the skill tool to load a skill when a task matches its description.\n\
             \n\
             ## Available Skills\n\
             - **B**: upper\n\
             - **a**: Ay\n\
             - **b**: Bee"
        );
    }

    #[test]
    fn none_described() {
        assert_eq!(skills_prompt(&[]), "No skills are currently available.");
        assert_eq!(skills_prompt(&[skill("x", None)]), NO_SKILLS_PROMPT);
    }

    #[test]
    fn empty_description_still_counts_as_described() {
        let out = skills_prompt(&[skill("e", Some(""))]);
        assert!(out.ends_with("## Available Skills\n- **e**: "), "{out:?}");
    }
}
