//! §4A the ten built-in tools (source `builtin`) and the §4 builtin toggle.

// A builtin's `Err` is the `isError` ToolResult it hands back (`write::Step`), made once per
// call and returned as is: since §1B's `parts` it is larger than clippy's 128 bytes, and
// boxing it would only add an allocation to every failing call.
#![allow(clippy::result_large_err)]

use serde_json::Value;

use super::tool::Tool;

pub mod apply_patch;
mod bash;
mod cap;
mod edit;
mod glob;
mod grep;
mod question;
mod read;
mod todowrite;
mod webfetch;
mod write;

/// The ten builtin names in §4A order, each as its module declares it.
pub const BUILTIN_NAMES: [&str; 10] = [
    bash::NAME,
    read::NAME,
    write::NAME,
    edit::NAME,
    grep::NAME,
    glob::NAME,
    webfetch::NAME,
    question::NAME,
    apply_patch::NAME,
    todowrite::NAME,
];

/// All ten builtins, in §4A order.
pub fn create_builtin_tools() -> Vec<Tool> {
    vec![
        bash::tool(),
        read::tool(),
        write::tool(),
        edit::tool(),
        grep::tool(),
        glob::tool(),
        webfetch::tool(),
        question::tool(),
        apply_patch::tool(),
        todowrite::tool(),
    ]
}

/// Whether a builtins config turns the whole source off (§4: `disabled:true` wins, else
/// `enabled:false` disables, else on). Non-boolean values are not "off".
pub fn source_disabled(cfg: Option<&Value>) -> bool {
    match cfg {
        None | Some(Value::Null) => false,
        Some(Value::Bool(on)) => !on,
        Some(Value::Object(map)) => {
            if map.get("disabled") == Some(&Value::Bool(true)) {
                return true;
            }
            map.get("enabled") == Some(&Value::Bool(false))
        }
        Some(_) => false,
    }
}

/// Resolves a builtins config (seed 000's `select_builtins`): None/true ⇒ all ten; false,
/// `{disabled:true}`, `{enabled:false}` ⇒ none; `{tools:{name:false}}` drops names from the
/// all-on baseline (unknown names and `true` entries change nothing).
pub fn select_builtins(cfg: Option<&Value>) -> Vec<Tool> {
    if source_disabled(cfg) {
        return Vec::new();
    }
    let dropped = |name: &str| {
        cfg.and_then(|c| c.get("tools"))
            .and_then(|t| t.get(name))
            .is_some_and(|v| v == &Value::Bool(false))
    };
    create_builtin_tools()
        .into_iter()
        .filter(|t| !dropped(&t.name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(cfg: Option<Value>) -> Vec<String> {
        select_builtins(cfg.as_ref())
            .into_iter()
            .map(|t| t.name)
            .collect()
    }

    #[test]
    fn toggles() {
        assert_eq!(names(None), BUILTIN_NAMES);
        assert_eq!(names(Some(json!(true))), BUILTIN_NAMES);
        assert!(names(Some(json!(false))).is_empty());
        assert!(names(Some(json!({"disabled": true, "enabled": true}))).is_empty());
        assert!(names(Some(json!({"enabled": false}))).is_empty());
        assert!(names(Some(json!({"disabled": true, "tools": {"bash": true}}))).is_empty());
        assert_eq!(
            names(Some(json!({"tools": {"bash": false, "nope": false}}))).len(),
            9
        );
    }
}
