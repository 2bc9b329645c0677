//! A driver whose builtins always fail (tests/drivers/always-error.py wraps the real driver
//! and turns every builtin `execute` answer into an error naming no cause) must fail every
//! negative §4A scenario: a scenario that checks only `isError` would pass it (a false green).

use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

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

/// Runs section 4A through the false driver; returns the exit code and the JSON report.
fn run_false_driver() -> (Option<i32>, Value) {
    let driver = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/drivers/always-error.py");
    let port = format!(
        "python3 {} {} driver",
        driver.display(),
        env!("CARGO_BIN_EXE_toolnexus-conformance")
    );
    let out = Command::cargo_bin("toolnexus-conformance")
        .unwrap_or_else(|e| panic!("binary not built: {e}"))
        .args([
            "run",
            "--format",
            "json",
            "--section",
            "4A",
            "--port",
            &port,
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {stdout}"));
    (out.status.code(), report)
}

#[test]
fn a_port_whose_builtins_always_fail_fails_every_negative_scenario() {
    let (code, report) = run_false_driver();
    assert_eq!(code, Some(1), "{report}");
    let scenarios = report["scenarios"].as_array().cloned().unwrap_or_default();
    let status = |name: &str| {
        scenarios
            .iter()
            .find(|s| s["name"] == name)
            .map(|s| s["status"].as_str().unwrap_or("").to_string())
    };
    for name in FORMER_FALSE_GREENS {
        assert_eq!(
            status(name).as_deref(),
            Some("failed"),
            "{name}: a negative scenario must fail against a port whose builtins always fail"
        );
    }
    // Any other negative scenario (named as one) must fail too, including ones added later.
    let negative = regex::Regex::new(r"(?i)error|fails|rejects|does not match").unwrap();
    for s in &scenarios {
        let name = s["name"].as_str().unwrap_or("");
        if negative.is_match(name) {
            assert_ne!(s["status"], "passed", "false green: {name}");
        }
    }
}
