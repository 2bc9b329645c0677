//! The core commands per SPEC section: a kit's `hello` lists a section its driver declares only
//! when all of that section's core commands are registered.
//!
//! Core is what every scenario of the section needs before anything else can happen: for the
//! toolkit sections, building a toolkit and calling its tools; for the others, the object the
//! section is about (a client and its run, a served toolkit, an agent runtime …). Any other
//! command a section's scenarios send (`skills_prompt`, `content_part`, `adapter` …) is
//! per scenario: a driver without it answers `unsupported` and only that scenario is skipped,
//! quoting the message. Requiring every command a section's scenarios send would take §0 and §4
//! away from every starter (their scenarios also send `list_skills` and `skills_prompt`).

/// `(section, core commands)`, in SPEC order. A section not listed here needs only to be declared.
pub const CORE_COMMANDS: &[(&str, &[&str])] = &[
    ("0", TOOLKIT),
    ("1", TOOLKIT),
    ("2", TOOLKIT),
    ("3", TOOLKIT),
    ("4", TOOLKIT),
    ("4A", TOOLKIT),
    ("6", TOOLKIT),
    ("7", TOOLKIT),
    ("7A", TOOLKIT),
    ("7B", &["serve", "serve_stop", "client"]),
    ("7C", &["serve", "serve_stop"]),
    ("7D", AGENTS),
    ("7E", AGENTS),
    ("7F", &["compact"]),
    ("8", CLIENT),
    ("8A", CLIENT),
    ("8B", &["classifier", "evaluate"]),
    ("10", CLIENT),
    ("11", &["translate"]),
];

const TOOLKIT: &[&str] = &["build", "tools", "execute"];
const AGENTS: &[&str] = &["agent_runtime", "agent_close_runtime"];
const CLIENT: &[&str] = &["client", "run"];
