//! §3 the skill source: discovery, frontmatter, the `skill` tool, the prompt helper, and
//! the S1–S5 host extensions.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

mod discover;
mod frontmatter;
mod in_order;
mod inventory;
mod prompt;
mod skill_tool;

pub use inventory::{catalog, load};
pub use prompt::{skills_prompt, NO_SKILLS_PROMPT, PROMPT_PREAMBLE};
pub use skill_tool::{skill_tool, LOADER_DESCRIPTION};

/// S1: a skill supplied as data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillDef {
    /// Skill name (required).
    pub name: String,
    /// Optional description; only described skills reach the prompt.
    pub description: Option<String>,
    /// Instructions (the body).
    pub content: String,
    /// Logical resource names listed in `<skill_files>`.
    pub resources: Vec<String>,
    /// Logical base, default `skill://<name>/`.
    pub base: Option<String>,
}

/// S1: a lazy provider of skill defs, resolved once at toolkit build.
pub type SkillProvider = Arc<dyn Fn() -> Result<Vec<SkillDef>, String> + Send + Sync>;

/// Where a skill's files live.
#[derive(Debug, Clone, PartialEq)]
pub enum SkillOrigin {
    /// A directory-sourced skill: `file://` base and on-disk sibling sampling.
    Directory {
        /// The absolute directory holding SKILL.md.
        dir: PathBuf,
    },
    /// A data/provider-sourced skill: logical base and supplied resources (S4).
    Data {
        /// The logical base, e.g. `skill://name/`.
        base: String,
        /// The supplied logical resources.
        resources: Vec<String>,
    },
}

/// §3 Skill Info.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillInfo {
    /// Skill name.
    pub name: String,
    /// Optional description.
    pub description: Option<String>,
    /// Absolute path of SKILL.md (directory skills only).
    pub location: Option<PathBuf>,
    /// The body after the frontmatter.
    pub content: String,
    /// Where its files live.
    pub origin: SkillOrigin,
}

/// Everything a skill source reads from.
#[derive(Clone, Default)]
pub struct SkillSources {
    /// Skill roots, searched for `**/SKILL.md` in order.
    pub dirs: Vec<PathBuf>,
    /// Skills supplied as data.
    pub defs: Vec<SkillDef>,
    /// A lazy provider.
    pub provider: Option<SkillProvider>,
}

/// S3 typed skip reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    /// No (string) `name` in the frontmatter.
    MissingName,
    /// The frontmatter is not valid YAML, or too large or alias-heavy to load safely. (Valid
    /// YAML that is not a mapping has no name: `MissingName`, as in the Python port.)
    MalformedFrontmatter,
    /// An earlier skill already has this name (first wins).
    DuplicateName,
    /// The file could not be read.
    Unreadable,
}

/// S3 one skipped candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    /// SKILL.md path, or `skill://<name>/` for data skills.
    pub location: String,
    /// Why it was skipped.
    pub reason: SkipReason,
    /// The name, when one was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// S3 the unfiltered inventory plus what went wrong while building it.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    /// Valid skills, first-wins deduplicated, in discovery order (dirs, defs, provider).
    pub skills: Vec<SkillInfo>,
    /// Skipped candidates with typed reasons.
    pub skipped: Vec<Skipped>,
    /// Human-readable warnings (duplicate names, ...).
    pub warnings: Vec<String>,
    /// The provider's failure, isolated (S1).
    pub provider_error: Option<String>,
}
