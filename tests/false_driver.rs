//! A deliberately false port (tests/drivers/false-port.py wraps the real driver and adds the
//! defects a toy port really had) must fail every scenario about those defects. A scenario that
//! checks only `isError`, or that builds with `skillsDir` although it is about something else
//! (a port without skill discovery answers `unsupported`, which skips it: a green run), would
//! let such a port through.

use std::collections::BTreeMap;

use serde_json::Value;

mod wrapped;

/// The negative scenarios that passed against the false driver before they checked the cause.
const FORMER_FALSE_GREENS: &[&str] = &[
    r#"builtins: read of a missing file is an isError result"#,
    r#"builtins_apply_patch: apply_patch whose last hunk does not match is an error and leaves every file byte-identical"#,
    r#"builtins_apply_patch: apply_patch whose second hunk in a file does not match leaves that file byte-identical"#,
    r#"builtins_apply_patch: apply_patch that cannot write one of its files is an error and writes none of them"#,
    r#"builtins_apply_patch: apply_patch rejects a malformed patch and writes nothing [patch=*** Add File: {{TMP}}/ws/b.txt\n+no begin marker\n*** End Patch]"#,
    r#"builtins_apply_patch: apply_patch rejects a malformed patch and writes nothing [patch=*** Begin Patch\n*** Add File: {{TMP}}/ws/b.txt\n+no end marker]"#,
    r#"builtins_apply_patch: apply_patch rejects a malformed patch and writes nothing [patch=*** Begin Patch\nthis is not a file marker\n*** End Patch]"#,
    r#"builtins_apply_patch: apply_patch rejects a malformed patch and writes nothing [patch=*** Begin Patch\n*** Update File: {{TMP}}/ws/a.txt\n-omega\n+OMEGA\n*** End Patch]"#,
    r#"builtins_apply_patch: apply_patch on a missing or already present file is an error and applies nothing [op=*** Delete File: {{TMP}}/ws/missing.txt]"#,
    r#"builtins_apply_patch: apply_patch on a missing or already present file is an error and applies nothing [op=*** Update File: {{TMP}}/ws/missing.txt\n+appended]"#,
    r#"builtins_apply_patch: apply_patch on a missing or already present file is an error and applies nothing [op=*** Add File: {{TMP}}/ws/a.txt\n+clobber]"#,
    r#"builtins_apply_patch: apply_patch matches whole lines, so a hunk that is only part of a line does not match [content=abc\n, hunk=-b\n+B]"#,
    r#"builtins_apply_patch: apply_patch matches whole lines, so a hunk that is only part of a line does not match [content=prefix-one\ntwo\n, hunk=\u0020one\n-two\n+TWO]"#,
    r#"builtins_bash: a bash timeout kills the child and is an error"#,
    r#"builtins_bash: bash with a workdir that does not exist is an error result and runs nothing"#,
    r#"builtins_bash: bash with a command that is not a string is an error result"#,
    r#"builtins_edit: edit with an oldString that does not occur is an error and changes nothing"#,
    r#"builtins_edit: edit with a non-unique oldString and no replaceAll is an error and changes nothing"#,
    r#"builtins_edit: edit of a missing file is an error result and creates nothing"#,
    r#"builtins_edit: edit without oldString is an error result and changes nothing"#,
    r#"builtins_question: question without questions is an error result, not a suspension"#,
    r#"builtins_question: question with questions that are not an array is an error result, not a suspension"#,
    r#"builtins_question: question with an item lacking its question text is an error result, not a suspension"#,
    r#"builtins_read: read of a directory is an error result"#,
    r#"builtins_todowrite: todowrite with todos that are not an array is an error result"#,
    r#"builtins_todowrite: todowrite with a todo of the wrong shape is an error result [todo={"id": "2", "text": "no completed flag"}]"#,
    r#"builtins_todowrite: todowrite with a todo of the wrong shape is an error result [todo={"id": "2", "text": "flag is text", "completed": "yes"}]"#,
    r#"builtins_todowrite: todowrite with a todo of the wrong shape is an error result [todo={"text": "no id", "completed": false}]"#,
    r#"builtins_todowrite: todowrite with a todo of the wrong shape is an error result [todo={"id": "2", "completed": true}]"#,
    r#"builtins_todowrite: todowrite with a todo of the wrong shape is an error result [todo="just a string"]"#,
    r#"builtins_webfetch: webfetch gives up after its timeout in seconds with an isError"#,
    r#"builtins_webfetch: webfetch without a url is an isError"#,
    r#"builtins_webfetch: webfetch with a format outside text, markdown and html is an isError"#,
    r#"builtins_webfetch: webfetch of a port nobody listens on is an isError, not a crash"#,
    r#"builtins_write: write under a parent that is a file fails and leaves nothing half-written"#,
    r#"builtins_write: write onto a path that is a directory fails and leaves no temp file behind"#,
    r#"builtins_write: write without content is an error result and creates no file"#,
];

/// Scenarios that built with `skillsDir` although they are about something else, so a port
/// without skill discovery skipped them; they now build without a skill directory.
const FORMER_SKILL_MASKED: &[&str] = &[
    r#"a2a: an agent whose <problem> contributes no tools, never breaks the build [problem=card answers 500, file=card-500.json]"#,
    r#"a2a: an agent whose <problem> contributes no tools, never breaks the build [problem=card is not JSON, file=card-malformed.json]"#,
    r#"adapters: the three adapters list the tools in the same order as tools()"#,
    r#"adapters: OpenAI wraps each tool as a function with its schema as parameters"#,
    r#"adapters: Anthropic maps each tool to name, description and input_schema"#,
    r#"adapters: Gemini wraps every declaration in one element"#,
    r#"adapters: adapters follow precedence, so a shadowing extra tool appears where tools() puts it"#,
    r#"adapters: the skill tool adapts with its pinned loader description"#,
    r#"builtins: the toolkit's builtins option gates the builtin source [config=false, count=1]"#,
    r#"builtins: the toolkit's builtins option gates the builtin source [config={"disabled": true}, count=1]"#,
    r#"builtins: the toolkit's builtins option gates the builtin source [config={"enabled": false}, count=1]"#,
    r#"builtins: the toolkit's builtins option gates the builtin source [config={"tools": {"bash": false, "write": false}}, count=9]"#,
    r#"builtins: the toolkit's builtins option gates the builtin source [config=true, count=11]"#,
    r#"builtins: builtins reach the model only through the adapters, never the skills prompt"#,
    r#"mcp_failures: a server that <misbehaves> is failed and isolated [misbehaves=crashes at initialize, file=crash-at-initialize.json]"#,
    r#"mcp_failures: a server that <misbehaves> is failed and isolated [misbehaves=crashes at tools/list, file=crash-at-list.json]"#,
    r#"mcp_failures: a server that <misbehaves> is failed and isolated [misbehaves=never answers, file=hang.json]"#,
    r#"mcp_failures: a server that <misbehaves> is failed and isolated [misbehaves=writes garbage on stdout, file=garbage.json]"#,
    r#"mcp_failures: a server that <misbehaves> is failed and isolated [misbehaves=exits before saying anything, file=exit-at-start.json]"#,
    r#"mcp_tools: MCP tools come before the skill tool and the builtins, which stay on"#,
    r#"serve_a2a: a2a.skills filters the card's skills; a name that is no skill is ignored"#,
    r#"serve_mcp: the gateway re-exposes an MCP server's, a skill's, an HTTP and a native tool, each callable end to end"#,
    r#"toolkit: tools() lists the builtins in §4A order, then extra tools in their given order"#,
    r#"toolkit: an extra tool shadows the builtin of the same name and takes the extra tools' place"#,
    r#"toolkit: the skill tool beats an extra tool named "skill" (SPEC §4 first-wins, not seed 001's later-wins)"#,
    r#"toolkit: disableTools drops final names across every source; unknown names are ignored"#,
    r#"toolkit: an empty disableTools list changes nothing"#,
    r#"toolkit: three sources in one flat namespace (seed 001 example 1)"#,
    r#"toolkit: a malformed MCP config file is an error entry and the toolkit still builds"#,
    r#"toolkit: an MCP server that cannot start is failed and isolated; the other sources load"#,
    r#"toolkit: an unreachable agent contributes no tools and never breaks the build"#,
    r#"toolkit: closing a toolkit twice is harmless"#,
    r#"toolkit: the builtin source reports its status"#,
];

/// Scenarios about the gemini adapter; each must fail, naming the crash, when only it is broken.
const GEMINI_SCENARIOS: &[&str] = &[
    r#"adapters: each adapter's array for the builtins alone is the reviewed default snapshot without the skill tool [format=gemini]"#,
    r#"adapters: the three adapters list the tools in the same order as tools()"#,
    r#"adapters: Gemini wraps every declaration in one element"#,
    r#"adapters: adapters follow precedence, so a shadowing extra tool appears where tools() puts it"#,
];

/// Scenarios that check `names` (sorted by code point) without a skill directory.
const NAMES_SCENARIOS: &[&str] = &[
    r#"toolkit: tools() lists the builtins in §4A order, then extra tools in their given order"#,
    r#"adapters: the three adapters list the tools in the same order as tools()"#,
    r#"builtins: the toolkit's builtins option gates the builtin source [config=true, count=11]"#,
];

/// Runs `sections` through the false port with `defects`; returns the exit code and the report.
fn run_false_port(defects: &[&str], sections: &str) -> (Option<i32>, Value) {
    let wrapper = format!(
        "python3 {} {}",
        wrapped::script("false-port.py"),
        defects.join(" ")
    );
    wrapped::run_wrapped(&wrapper, sections)
}

/// Asserts that each of `names` failed, and for the reason `cause` names.
fn assert_fail_naming(scenarios: &BTreeMap<String, Value>, names: &[&str], cause: &str) {
    for name in names {
        let s = &scenarios[*name];
        assert_eq!(s["status"], "failed", "{name}: {s}");
        assert!(
            s["message"].as_str().is_some_and(|m| m.contains(cause)),
            "{name} fails for another reason: {s}"
        );
    }
}

/// The report's scenarios by name.
fn by_name(report: &Value) -> BTreeMap<String, Value> {
    report["scenarios"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|s| (s["name"].as_str().unwrap_or("").to_string(), s))
        .collect()
}

/// The scenario's status, failing the test when the report lacks it.
fn status<'a>(scenarios: &'a BTreeMap<String, Value>, name: &str) -> &'a str {
    scenarios
        .get(name)
        .and_then(|s| s["status"].as_str())
        .unwrap_or_else(|| panic!("no scenario {name:?} in the report"))
}

/// Whether a scenario says it is about skill directories: in skills.feature, or tagged with
/// the `skillsDir` clause of `createToolkit`.
fn about_skill_directories(s: &Value) -> bool {
    let file = s["file"].as_str().unwrap_or("");
    let tags = s["tags"].as_array().cloned().unwrap_or_default();
    file.ends_with("skills.feature")
        || tags
            .iter()
            .any(|t| t.as_str().is_some_and(|t| t.ends_with("create.skills-dir")))
}

#[test]
fn a_port_whose_builtins_always_fail_and_that_has_no_skill_discovery_is_caught() {
    let (code, report) = run_false_port(
        &["--builtins-error", "--no-skill-discovery"],
        "0,2,4,4A,7A,7B,7C",
    );
    assert_eq!(code, Some(1), "{report}");
    let scenarios = by_name(&report);
    for name in FORMER_FALSE_GREENS {
        assert_eq!(
            status(&scenarios, name),
            "failed",
            "{name}: a negative scenario must fail against a port whose builtins always fail"
        );
    }
    // Any other negative scenario (named as one) must fail too, including ones added later.
    let negative = regex::Regex::new(r"(?i)error|fails|rejects|does not match").unwrap();
    for (name, s) in &scenarios {
        if s["section"] == "4A" && negative.is_match(name) {
            assert_ne!(s["status"], "passed", "false green: {name}");
        }
    }
    // No scenario of a `builtins_*.feature` file passes at all, `@beyond-spec` ones included
    // (the report gives them their own status, whatever `--strict` says): each executes a
    // builtin, and each that expects an error has a positive control or a cause check this
    // stub cannot fake, though its message names the tool (issue 27).
    let of_builtin_files: Vec<(&String, &Value)> = scenarios
        .iter()
        .filter(|(_, s)| {
            s["section"] == "4A"
                && s["file"]
                    .as_str()
                    .and_then(|f| f.rsplit('/').next())
                    .is_some_and(|f| f.starts_with("builtins_"))
        })
        .collect();
    assert!(
        of_builtin_files.len() > 100,
        "too few builtins_* scenarios in the report: {}",
        of_builtin_files.len()
    );
    let green: Vec<&String> = of_builtin_files
        .iter()
        .filter(|(_, s)| s["status"] == "passed")
        .map(|(n, _)| *n)
        .collect();
    assert!(
        green.is_empty(),
        "passed against a port whose builtins always fail: {green:#?}"
    );
    // Only the scenarios about skill directories may be skipped for lack of discovery.
    for name in FORMER_SKILL_MASKED {
        assert_ne!(
            status(&scenarios, name),
            "skipped",
            "{name}: builds with skillsDir although it is not about skill directories"
        );
    }
    let masked: Vec<&String> = scenarios
        .iter()
        .filter(|(_, s)| {
            s["status"] == "skipped"
                && s["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("no skill discovery"))
                && !about_skill_directories(s)
        })
        .map(|(n, _)| n)
        .collect();
    assert!(
        masked.is_empty(),
        "skipped for lack of skill discovery, yet not about skill directories: {masked:#?}"
    );
}

#[test]
fn a_port_without_skill_discovery_still_gets_its_adapters_and_names_checked() {
    // The gemini crash alone: every gemini scenario fails naming it; the rest still pass.
    let (code, report) = run_false_port(&["--no-skill-discovery", "--gemini-crash"], "0");
    assert_eq!(code, Some(1), "{report}");
    let scenarios = by_name(&report);
    assert_fail_naming(&scenarios, GEMINI_SCENARIOS, "gemini adapter crashed");
    for name in [
        r#"adapters: OpenAI wraps each tool as a function with its schema as parameters"#,
        r#"adapters: each adapter's array for the builtins alone is the reviewed default snapshot without the skill tool [format=openai]"#,
    ] {
        assert_eq!(
            status(&scenarios, name),
            "passed",
            "positive control {name}"
        );
    }
    // Unsorted names alone: every names scenario fails naming the field.
    let (code, report) = run_false_port(&["--no-skill-discovery", "--unsorted-names"], "0,4,4A");
    assert_eq!(code, Some(1), "{report}");
    let scenarios = by_name(&report);
    assert_fail_naming(
        &scenarios,
        NAMES_SCENARIOS,
        "names: not sorted by code point",
    );
}
