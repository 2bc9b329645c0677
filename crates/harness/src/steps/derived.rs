//! The answer fields a driver may leave out because the SPEC gives a port no way to observe
//! them (PROTOCOL.md §5.2 "What a driver may derive", NOTES #422–#427). A step that reads one
//! skips the scenario when it is absent, naming the field, so a driver never has to break
//! into its port to answer it — and a driver that leaves it out never passes the check either.

use serde_json::Value;

use crate::scenario::state::{ScenarioState, StepFailure};

/// One optional answer field: where it sits and why the SPEC leaves a port without it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Derived {
    /// The field as PROTOCOL.md names it (`errors`, `statuses.builtin`, `agent_inspect` `usage`).
    pub field: &'static str,
    /// Why it is optional: the SPEC clause that gives no way to observe it, and its NOTES row.
    pub why: &'static str,
}

/// `build`'s `statuses.builtin`.
pub const BUILTIN_STATUS: Derived = Derived {
    field: "statuses.builtin",
    why: "SPEC §4's mcpStatus() reports MCP servers only; NOTES #422",
};

/// `build`'s `errors`.
pub const ERRORS: Derived = Derived {
    field: "errors",
    why: "the SPEC isolates and logs a failing source but gives no API for its message; NOTES #423",
};

/// `list_mcp_tools`' `errors`.
pub const LIST_ERRORS: Derived = Derived {
    field: "list_mcp_tools errors",
    why: "the SPEC isolates and logs a failing server but gives no API for its message; NOTES #423",
};

/// `build`'s `skills`.
pub const SKILLS: Derived = Derived {
    field: "skills",
    why: "SPEC §4's Toolkit renders the filtered catalog only in skillsPrompt(); NOTES #424",
};

/// `build`'s `warnings`.
pub const WARNINGS: Derived = Derived {
    field: "warnings",
    why: "the SPEC says \"warn\" and \"log\" but names no channel a port must expose; NOTES #425",
};

/// `agent_inspect`'s `usage`.
pub const INSPECT_USAGE: Derived = Derived {
    field: "agent_inspect usage",
    why: "SPEC §7D's Handle is {id, def, state, inbox, budget, children}; NOTES #427",
};

/// Every optional derived field, for the report and the tests.
pub const ALL: [Derived; 6] = [
    BUILTIN_STATUS,
    ERRORS,
    LIST_ERRORS,
    SKILLS,
    WARNINGS,
    INSPECT_USAGE,
];

/// The skip of a step whose field `d` the driver did not answer.
pub fn skipped(d: Derived) -> StepFailure {
    StepFailure::Skipped(format!(
        "the driver answers no `{}`, which PROTOCOL.md lets it leave out ({})",
        d.field, d.why
    ))
}

/// `key` of the build answer, or the skip naming it when the driver left it out.
pub fn built<'a>(st: &'a ScenarioState, key: &str, d: Derived) -> Result<&'a Value, StepFailure> {
    match st.built()?.get(key) {
        None | Some(Value::Null) => Err(skipped(d)),
        Some(v) => Ok(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_names_the_field_and_its_notes_row() {
        let StepFailure::Skipped(m) = skipped(ERRORS) else {
            panic!("a derived field's absence is a skip");
        };
        assert!(m.contains("`errors`") && m.contains("NOTES #423"), "{m}");
    }
}
