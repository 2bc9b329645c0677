//! The CLI end to end: the suite against the reference in-process and through its own
//! driver, and against broken drivers that must become failed scenarios, not a crash.

use std::collections::BTreeMap;
use std::path::PathBuf;

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    match Command::cargo_bin("toolnexus-conformance") {
        Ok(c) => c,
        Err(e) => panic!("binary not built: {e}"),
    }
}

fn driver_script(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/drivers")
        .join(name)
        .to_string_lossy()
        .to_string()
}

fn run_json(args: &[&str]) -> (Option<i32>, Value) {
    let out = bin()
        .args(["run", "--format", "json"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("report is not JSON ({e}): {stdout}"));
    (out.status.code(), report)
}

fn statuses(report: &Value) -> BTreeMap<String, String> {
    report["scenarios"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| {
                    (
                        s["name"].as_str().unwrap_or("").to_string(),
                        s["status"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_suite_passes_against_the_reference_in_process() {
    let (code, report) = run_json(&[]);
    assert_eq!(code, Some(0), "report: {report}");
    let passed = report["summary"]["passed"].as_u64().unwrap_or(0);
    assert!(passed >= 80, "only {passed} passed");
    assert_eq!(report["summary"]["failed"], 0);
    for section in ["0", "1", "3", "4", "4A"] {
        let n = report["sections"][section]["passed"].as_u64().unwrap_or(0);
        assert!(n > 0, "section {section} has no passing scenario");
    }
    assert_eq!(report["port"]["name"], "reference");
    // The SPEC text the port declares in `hello` (the reference: the newest), and the one
    // it was judged by.
    assert_eq!(report["portSpec"], toolnexus_protocol::REFERENCE_SPEC);
    assert_eq!(report["judgedBy"], toolnexus_protocol::REFERENCE_SPEC);
    for key in ["name", "section", "status", "message"] {
        assert!(
            report["scenarios"][0].get(key).is_some(),
            "scenario entries need {key}"
        );
    }
}

#[test]
fn the_driver_gives_the_same_statuses_as_in_process() {
    let driver = format!("{} driver", env!("CARGO_BIN_EXE_toolnexus-conformance"));
    let (_, in_process) = run_json(&[]);
    let (code, via_driver) = run_json(&["--port", &driver]);
    assert_eq!(code, Some(0), "report: {via_driver}");
    // One difference is by design: a log check (SPEC §8 "never logged") reads a driver's
    // stderr, so in-process it is skipped, saying so, and through the driver it is made.
    let no_log: Vec<&str> = in_process["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["status"] == "skipped")
        .filter(|s| {
            s["message"]
                .as_str()
                .is_some_and(|m| m.contains(toolnexus_harness::steps::NO_PORT_LOG))
        })
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert!(
        !no_log.is_empty(),
        "the log checks were not skipped in-process"
    );
    let mut expected = statuses(&in_process);
    for name in &no_log {
        expected.insert((*name).to_string(), "passed".to_string());
    }
    assert_eq!(expected, statuses(&via_driver));
    assert!(statuses(&in_process).len() >= 80);
}

/// The reference implements the content-part rules after the pinned SPEC (§1B, §2's parts, §4A
/// read of media files) but declares 0.16.0, so its own runs skip those scenarios by version;
/// its driver declaring 0.17.0 runs them here, `@beyond-spec` twins included (`--strict`).
#[test]
fn the_reference_passes_the_scenarios_of_spec_0_17_0() {
    // Its own driver, declaring the newest text, on the scenarios written against it.
    let (code, report) = run_json(&["--port", "reference", "--tags", "pin-0.17.0", "--strict"]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["portSpec"], toolnexus_protocol::REFERENCE_SPEC);
    assert_eq!(report["summary"]["failed"], 0, "{report}");
    assert_eq!(report["summary"]["skipped"], 0, "{report}");
    let passed = report["summary"]["passed"].as_u64().unwrap_or(0);
    assert!(passed >= 55, "only {passed} passed: {report}");
}

fn all_failed_with(report: &Value, needle: &str) {
    let scenarios = report["scenarios"].as_array().cloned().unwrap_or_default();
    assert!(!scenarios.is_empty());
    for s in &scenarios {
        assert_eq!(s["status"], "failed", "{s}");
        let msg = s["message"].as_str().unwrap_or("");
        assert!(msg.contains(needle), "message {msg:?} lacks {needle:?}");
    }
}

#[test]
fn a_driver_that_exits_after_hello_fails_every_scenario_clearly() {
    let (code, report) = run_json(&[
        "--port",
        &driver_script("quit-after-hello.sh"),
        "--section",
        "6,1",
        // SPEC 0.16.0's §1: the content-part scenarios of 0.17.0 are out of a 0.16.0 port's scope.
        "--spec",
        "0.16.0",
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(report["port"]["name"], "quitter");
    all_failed_with(&report, "driver exited");
}

/// A run whose driver fails its `hello`: exit 2 before any scenario, nothing on stdout
/// (no report of N identical failures, in any format), and one message on stderr naming
/// `needle`. Returns the message and how long the run took.
fn refused_at_hello(args: &[&str], needle: &str) -> (String, std::time::Duration) {
    let started = std::time::Instant::now();
    let out = bin()
        .arg("run")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stdout.is_empty(),
        "a refused run prints no report: {stdout}"
    );
    assert!(stderr.contains("the handshake (hello) failed"), "{stderr}");
    assert!(stderr.contains(needle), "{stderr} lacks {needle:?}");
    assert!(stderr.contains("no scenario was run"), "{stderr}");
    // Progress lines go to stderr in JSON/JUnit runs: none may appear.
    for progress in ["FAIL [", "ok   [", "hello failed"] {
        assert!(!stderr.contains(progress), "a scenario ran: {stderr}");
    }
    assert_eq!(
        stderr.matches("the handshake").count(),
        1,
        "one message, not one per scenario: {stderr}"
    );
    (stderr, took)
}

#[test]
fn a_driver_that_prints_garbage_is_refused_at_hello() {
    for format in ["text", "json", "junit"] {
        refused_at_hello(
            &["--port", &driver_script("garbage.sh"), "--format", format],
            "non-JSON",
        );
    }
}

#[test]
fn a_driver_that_hangs_is_timed_out_at_hello_and_refused() {
    refused_at_hello(
        &[
            "--port",
            &driver_script("hang.sh"),
            "--section",
            "6",
            "--timeout-ms",
            "300",
            "--startup-timeout-ms",
            "300",
        ],
        "did not answer",
    );
}

/// The reference's driver, started only after `delay` (an interpreter loading slowly).
fn slow_starting_driver(delay: &str) -> String {
    let bin = assert_cmd::cargo::cargo_bin("toolnexus-conformance");
    format!("sleep {delay}; exec '{}' driver", bin.display())
}

#[test]
fn a_driver_slower_to_start_than_the_request_timeout_is_still_greeted() {
    // `hello` covers the start-up: it gets 30 s by default, not --timeout-ms.
    let port = slow_starting_driver("1.5");
    let (code, report) = run_json(&[
        "--port",
        &port,
        "--section",
        "6",
        "--jobs",
        "1",
        "--timeout-ms",
        "1000",
    ]);
    assert_eq!(code, Some(0), "report: {report}");
    assert!(
        report["summary"]["passed"].as_u64().unwrap_or(0) > 0,
        "{report}"
    );
    // Negative control: bounded below the delay, the same start-up is refused at hello.
    refused_at_hello(
        &[
            "--port",
            &port,
            "--section",
            "6",
            "--jobs",
            "1",
            "--timeout-ms",
            "1000",
            "--startup-timeout-ms",
            "500",
        ],
        "did not answer `hello` within 500 ms",
    );
}

#[test]
fn a_driver_that_exits_at_once_ends_the_run_at_once_with_its_stderr() {
    let (message, took) =
        refused_at_hello(&["--port", "sh -c 'echo it broke >&2; exit 1'"], "it broke");
    // A second on an idle machine; the bound leaves room for a loaded one, and the whole
    // suite (hundreds of scenarios) is not what ran: no scenario line above.
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
    assert!(!message.contains("registered ports"), "{message}");
    let (message, _) = refused_at_hello(&["--port", "sh -c 'exit 1'"], "exit status: 1");
    assert!(message.contains("exit 1"), "{message}");
}

#[test]
fn an_unknown_port_name_is_refused_naming_the_registered_ports() {
    let (message, took) = refused_at_hello(&["--port", "nonexistent"], "not found");
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
    assert!(
        message.contains("\"nonexistent\" is not a registered port"),
        "{message}"
    );
    assert!(message.contains("reference"), "{message}");
    assert!(message.contains("python@VERSION"), "{message}");
}

#[test]
fn coverage_against_a_port_that_fails_hello_is_one_message() {
    let out = bin()
        .args([
            "coverage",
            "--port",
            "sh -c 'echo no such port >&2; exit 1'",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the handshake (hello) failed"), "{stderr}");
    assert!(stderr.contains("no such port"), "{stderr}");
    assert!(
        !stderr.contains("FAIL ["),
        "one line per scenario: {stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "no coverage report after a refused port"
    );
}

#[test]
fn a_driver_that_crashes_mid_run_reports_its_stderr() {
    let (code, report) = run_json(&[
        "--port",
        &driver_script("crash-on-build.sh"),
        "--section",
        "6",
    ]);
    assert_eq!(code, Some(1));
    all_failed_with(&report, "simulated crash");
}

#[test]
fn a_missing_driver_program_is_a_refused_run_not_a_panic() {
    let (message, _) = refused_at_hello(
        &["--port", "/nonexistent/driver --flag", "--format", "json"],
        "/nonexistent/driver",
    );
    assert!(!message.contains("panicked"), "{message}");
}

#[test]
fn list_shows_scenarios_with_sections_and_tags() {
    let out = bin()
        .args(["list", "--section", "4A"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("[4A] builtins:"), "{text}");
    assert!(text.contains("@spec-4A"), "{text}");
    assert!(!text.contains("[3] "), "section filter leaked: {text}");
}

#[test]
fn text_output_has_a_section_table_and_a_closing_count_line() {
    let out = bin()
        .args(["run", "--tags", "seed-000"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("§4A"), "{text}");
    assert!(
        text.lines().any(|l| l.ends_with("0 failed, 0 skipped")),
        "{text}"
    );
}

#[test]
fn a_driver_speaking_another_protocol_version_is_refused_clearly() {
    refused_at_hello(
        &[
            "--port",
            &driver_script("wrong-protocol.sh"),
            "--format",
            "json",
        ],
        "protocol 99",
    );
}

fn run_out(args: &[&str]) -> (Option<i32>, String, String) {
    let out = bin().args(args).output().unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn scenario_names(report: &Value) -> Vec<String> {
    report["scenarios"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|s| s["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn names_and_filter_select_scenarios_by_substring() {
    let (code, report) = run_json(&["--section", "6", "returning text", "--filter", "source"]);
    assert_eq!(code, Some(0), "{report}");
    let names = scenario_names(&report);
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names
        .iter()
        .all(|n| n.contains("returning text") || n.contains("source")));
    let (code, _, stderr) = run_out(&["run", "no scenario is called like this"]);
    assert_eq!(code, Some(2), "{stderr}");
}

#[test]
fn fail_fast_stops_at_the_first_failure_and_reports_what_ran() {
    let crashing = driver_script("crash-on-build.sh");
    let (code, all) = run_json(&["--port", &crashing, "--section", "6"]);
    assert_eq!(code, Some(1));
    assert!(scenario_names(&all).len() > 1);
    let (code, stopped) = run_json(&["--port", &crashing, "--section", "6", "--fail-fast"]);
    assert_eq!(code, Some(1), "{stopped}");
    assert_eq!(scenario_names(&stopped).len(), 1, "{stopped}");
    assert_eq!(stopped["summary"]["failed"], 1);
    // Without failures it runs everything.
    let (code, green) = run_json(&["--section", "6", "--fail-fast"]);
    assert_eq!(code, Some(0));
    assert_eq!(scenario_names(&green), scenario_names(&all));
}

/// A JSON report without what differs between any two runs: its start time, durations and
/// retries (load decides whether a harness time bound broke once).
fn without_durations(mut report: Value) -> Value {
    if let Some(m) = report.as_object_mut() {
        m.remove("started");
    }
    for s in report["scenarios"].as_array_mut().into_iter().flatten() {
        if let Some(m) = s.as_object_mut() {
            m.remove("durationMs");
            m.remove("retried");
        }
    }
    report
}

#[test]
fn parallel_workers_give_the_report_and_exit_code_of_one() {
    // Sections with mock servers, subprocesses, waits and `@serial` scenarios.
    let sections = ["--section", "2,7A,8,10"];
    let (code_one, one) = run_json(&[&sections[..], &["--jobs", "1"]].concat());
    let (code_many, many) = run_json(&[&sections[..], &["--jobs", "4"]].concat());
    assert_eq!(code_one, Some(0), "{one}");
    assert_eq!(code_many, code_one);
    assert!(scenario_names(&one).len() > 100);
    assert_eq!(without_durations(many), without_durations(one));
    // A failing port with --fail-fast: the same first failure, nothing after it.
    let crashing = driver_script("crash-on-build.sh");
    let base = ["--port", &crashing, "--section", "6", "--fail-fast"];
    let (code_one, one) = run_json(&[&base[..], &["--jobs", "1"]].concat());
    let (code_many, many) = run_json(&[&base[..], &["--jobs", "3"]].concat());
    assert_eq!((code_one, code_many), (Some(1), Some(1)));
    assert_eq!(scenario_names(&many), scenario_names(&one));
    assert_eq!(scenario_names(&one).len(), 1, "{one}");
    assert_eq!(without_durations(many), without_durations(one));
}

#[test]
fn jobs_must_be_a_whole_number_from_one() {
    for bad in ["0", "two", "1.5"] {
        let (code, _, stderr) = run_out(&["run", "--jobs", bad]);
        assert_eq!(code, Some(2), "--jobs {bad}");
        assert!(stderr.contains("whole number of workers"), "{stderr}");
    }
}

#[test]
fn sections_are_case_insensitive_and_an_unknown_one_is_an_error() {
    let (code, lower, _) = run_out(&["list", "--section", "4a"]);
    assert_eq!(code, Some(0));
    let (_, upper, _) = run_out(&["list", "--section", "4A"]);
    assert_eq!(lower, upper);
    assert!(lower.contains("[4A] "), "{lower}");
    let (code, stdout, stderr) = run_out(&["run", "--section", "4A,99"]);
    assert_eq!(code, Some(2), "{stdout}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("--section 99"), "{stderr}");
    assert!(stderr.contains("known: 0, 1,"), "{stderr}");
    assert!(stderr.contains("4A"), "{stderr}");
}

#[test]
fn a_root_without_features_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().to_string_lossy().to_string();
    for cmd in ["run", "list"] {
        let (code, _, stderr) = run_out(&["--root", &root, cmd]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("no features/ directory"), "{stderr}");
    }
}

#[test]
fn a_zero_timeout_is_refused() {
    let (code, stdout, stderr) = run_out(&["run", "--timeout-ms", "0"]);
    assert_eq!(code, Some(2), "{stdout}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("--timeout-ms"), "{stderr}");
    assert!(stderr.contains("at least 1"), "{stderr}");
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let script = format!(
        "{} run --section 4A | head -1",
        env!("CARGO_BIN_EXE_toolnexus-conformance")
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
}

#[test]
fn a_caught_tool_panic_is_one_line_on_stderr_not_a_backtrace_note() {
    let (code, stdout, stderr) = run_out(&["run", "--section", "6", "crashes unexpectedly"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("ok   [6]"),
        "the scenario did not run: {stdout}"
    );
    assert!(
        stderr.contains("tool panicked (caught): kaboom"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked at"), "{stderr}");
    assert!(!stderr.contains("RUST_BACKTRACE"), "{stderr}");
}

#[test]
fn junit_output_has_one_suite_per_section_and_a_case_per_scenario() {
    let out = bin()
        // SPEC 0.16.0's scenarios: §1's content parts (0.17.0) would grow the counts.
        .args([
            "run",
            "--format",
            "junit",
            "--section",
            "6,1",
            "--spec",
            "0.16.0",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let xml = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{xml}");
    assert!(xml.starts_with("<?xml"), "{xml}");
    // §6 has four scenarios; the one tagged @beyond-spec has a suite of its own.
    assert!(
        xml.contains(
            "<testsuite name=\"SPEC §6\" tests=\"3\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\""
        ),
        "{xml}"
    );
    assert!(
        xml.contains(
            "<testsuite name=\"beyond the SPEC\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\" time=\""
        ),
        "{xml}"
    );
    // §1 has five scenarios, §6 three, plus the beyond-SPEC one.
    assert_eq!(xml.matches("<testcase ").count(), 9, "{xml}");
    // Every case and suite is timed; the suites carry the run's start (ISO 8601 UTC).
    assert_eq!(
        xml.matches("<testcase ").count(),
        xml.matches("\" time=\"").count() - 4,
        "{xml}"
    );
    assert_eq!(xml.matches(" timestamp=\"20").count(), 4, "{xml}");
}

fn names_of(report: &Value, status: &str) -> Vec<String> {
    report["scenarios"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|s| s["status"] == status)
                .map(|s| s["name"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn expected_failures_turn_known_failures_green_and_flag_new_ones_and_unexpected_passes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let flaky = format!(
        "{} {} driver",
        driver_script("bad-sanitize.sh"),
        env!("CARGO_BIN_EXE_toolnexus-conformance")
    );
    let (code, plain) = run_json(&["--port", &flaky, "--section", "0"]);
    assert_eq!(code, Some(1));
    let failing = names_of(&plain, "failed");
    assert_eq!(failing.len(), 2, "{plain}");

    let all = dir.path().join("all.txt");
    std::fs::write(&all, format!("# both are known\n{}\n", failing.join("\n")))
        .unwrap_or_else(|e| panic!("{e}"));
    let (code, report) = run_json(&[
        "--port",
        &flaky,
        "--section",
        "0",
        "--expected-failures",
        &all.to_string_lossy(),
    ]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["baseline"]["knownFailures"], 2);
    // Known failures are `xfail`: still `status: failed` (older readers), marked `known`,
    // counted apart from the failures.
    assert_eq!(report["summary"]["failed"], 0, "{report}");
    assert_eq!(report["summary"]["xfail"], 2, "{report}");
    assert_eq!(report["sections"]["0"]["xfail"], 2, "{report}");
    let known: Vec<&Value> = report["scenarios"]
        .as_array()
        .map(|a| a.iter().filter(|s| s["known"] == true).collect())
        .unwrap_or_default();
    assert_eq!(known.len(), 2, "{report}");
    assert!(known.iter().all(|s| s["status"] == "failed"), "{report}");

    // Stale entries are judged over the whole suite: a §4 scenario a `--section 0` run
    // left out is not stale; a name no feature has is.
    let (_, section4) = run_json(&["--section", "4"]);
    let other = section4["scenarios"][0]["name"]
        .as_str()
        .unwrap_or_else(|| panic!("no §4 scenario: {section4}"))
        .to_string();
    let mixed = dir.path().join("mixed.txt");
    std::fs::write(
        &mixed,
        format!(
            "{}\n{other}\nno feature: has this name\n",
            failing.join("\n")
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = bin()
        .args([
            "run",
            "--port",
            &flaky,
            "--section",
            "0",
            "--expected-failures",
        ])
        .arg(&mixed)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("2 known, 0 new, 0 unexpected passes, 1 stale entries"),
        "{text}"
    );
    assert!(
        text.contains("stale entry      no feature: has this name"),
        "{text}"
    );
    assert!(
        !text.contains(&format!("stale entry      {other}")),
        "{text}"
    );
    assert!(
        text.lines().filter(|l| l.starts_with("xfail [0] ")).count() == 2,
        "{text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("FAIL ")), "{text}");

    let some = dir.path().join("some.txt");
    std::fs::write(&some, &failing[1]).unwrap_or_else(|e| panic!("{e}"));
    let (code, report) = run_json(&[
        "--port",
        &flaky,
        "--section",
        "0",
        "--expected-failures",
        &some.to_string_lossy(),
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(report["baseline"]["newFailures"][0], failing[0].as_str());

    // Against the reference those names pass: each is an unexpected pass.
    let (code, report) = run_json(&[
        "--section",
        "0",
        "--expected-failures",
        &all.to_string_lossy(),
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(
        report["baseline"]["unexpectedPasses"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

#[test]
fn report_combines_json_results_into_one_html_page() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // SPEC 0.16.0's scenarios: those of 0.17.0's content parts name https URLs in their steps.
    let (_, reference) = run_json(&["--section", "6,1", "--spec", "0.16.0"]);
    let (_, crashed) = run_json(&[
        "--port",
        &driver_script("crash-on-build.sh"),
        "--section",
        "6,1",
        "--spec",
        "0.16.0",
    ]);
    let a = dir.path().join("reference.json");
    let b = dir.path().join("crasher.json");
    std::fs::write(&a, reference.to_string()).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&b, crashed.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let page = dir.path().join("matrix.html");
    let out = bin()
        .args(["report"])
        .arg(&a)
        .arg(&b)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}"));
    assert!(html.contains("reference") && html.contains("crasher"));
    assert!(
        html.contains("simulated crash"),
        "the failure message should be in the drill-down"
    );
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the page must be self-contained"
    );
}

#[test]
fn an_empty_selection_is_an_error_not_a_green_run() {
    // Every scenario holds from the SPEC it pins (0.16.0) on: none holds for 0.1.0.
    let out = bin()
        .args(["run", "--spec", "0.1.0"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .args(["run", "--spec", "0.16"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a SPEC version"));
}

#[test]
fn a_stray_answer_line_is_caught_as_out_of_step_never_a_false_pass() {
    let cmd = format!(
        "{} {} driver",
        driver_script("stray-line.sh"),
        env!("CARGO_BIN_EXE_toolnexus-conformance")
    );
    let (code, report) = run_json(&["--port", &cmd, "--section", "6"]);
    assert_eq!(code, Some(1));
    all_failed_with(&report, "out of step");
}

#[test]
fn a_port_that_implements_nothing_is_not_a_green_run() {
    let (code, report) = run_json(&["--port", &driver_script("no-sections.sh"), "--section", "6"]);
    assert_eq!(code, Some(1));
    // Three SPEC-backed scenarios of §6 plus one @beyond-spec, counted apart.
    assert_eq!(report["summary"]["skipped"], 3);
    assert_eq!(report["summary"]["beyondSpec"]["skipped"], 1);
    assert_eq!(report["summary"]["passed"], 0);
    // Each skip says what would unblock it: the section declared in `hello`.
    for s in report["scenarios"].as_array().into_iter().flatten() {
        assert_eq!(s["blockedBy"], serde_json::json!({"section": "6"}), "{s}");
    }
}

/// A driver wrapped so one answer is corrupted: `<script> <this binary> driver`.
fn corrupted(script: &str) -> String {
    format!(
        "{} {} driver",
        driver_script(script),
        env!("CARGO_BIN_EXE_toolnexus-conformance")
    )
}

fn failed_scenarios(report: &Value) -> Vec<Value> {
    report["scenarios"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|s| s["status"] == "failed")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_failing_scenario_reports_its_failure_as_data() {
    let (code, report) = run_json(&["--port", &corrupted("bad-description.sh"), "--section", "1"]);
    assert_eq!(code, Some(1), "{report}");
    let failed = failed_scenarios(&report);
    assert_eq!(failed.len(), 1, "{report}");
    let f = &failed[0]["failure"];
    assert_eq!(f["kind"], "pinned", "{f}");
    assert_eq!(f["step"], "Then the tool \"mine\" matches:", "{f}");
    assert_eq!(
        f["mismatches"],
        serde_json::json!([{"path": "$.description", "problem": "differs",
                            "expected": "My tool.", "actual": "Your tool."}]),
        "{f}"
    );
    assert_eq!(f["expected"]["description"], "My tool.");
    assert_eq!(f["actual"]["description"], "Your tool.");
    let diff = f["diff"].as_str().unwrap_or("");
    assert!(diff.starts_with("--- expected\n+++ actual\n"), "{diff}");
    assert!(
        diff.contains("\n+  \"description\": \"Your tool.\","),
        "{diff}"
    );
    // The message keeps its old text, which the data renders.
    assert_eq!(
        failed[0]["message"],
        format!(
            "step `Then the tool \"mine\" matches:`: [pinned] $.description: expected \"My tool.\", got \"Your tool.\"\n{diff}"
        )
    );

    // `report` reads the data back and renders the mismatch from it.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let json = dir.path().join("broken.json");
    std::fs::write(&json, report.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let page = dir.path().join("page.html");
    let out = bin()
        .arg("report")
        .arg(&json)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        html.contains(
            "<code class=\"path\">$.description</code><code class=\"exp\">&quot;My tool.&quot;</code>\
             <code class=\"act\">&quot;Your tool.&quot;</code>"
        ),
        "{html}"
    );
    assert!(html.contains("broke: <span class=\"badge pinned\">pinned</span>"));

    // A step that compares by hand states its kind in its message; that becomes the data.
    let (_, report) = run_json(&["--port", &corrupted("bad-sanitize.sh"), "--section", "0"]);
    let failed = failed_scenarios(&report);
    assert_eq!(failed.len(), 2, "{report}");
    for s in &failed {
        assert_eq!(s["failure"]["kind"], "pinned", "{s}");
        assert_eq!(
            s["failure"]["step"], "Then the sanitized value is \"a_b_c\"",
            "{s}"
        );
    }

    // A crash broke no expectation.
    let (_, report) = run_json(&[
        "--port",
        &driver_script("crash-on-build.sh"),
        "--section",
        "6",
    ]);
    let crash = &failed_scenarios(&report)[0]["failure"];
    assert_eq!(crash["kind"], "other", "{crash}");
    assert!(crash.get("reason").is_none() && crash.get("mismatches").is_none());
}

#[test]
fn junit_failures_carry_their_kind_and_the_mismatch_from_the_data() {
    let out = bin()
        .args(["run", "--format", "junit", "--section", "1", "--port"])
        .arg(corrupted("bad-description.sh"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let xml = String::from_utf8_lossy(&out.stdout);
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    assert!(xml.contains("\" type=\"pinned\">step: Then the tool &quot;mine&quot; matches:\nbroke: pinned\n$.description: expected &quot;My tool.&quot;, got &quot;Your tool.&quot;\n--- expected\n+++ actual\n"), "{xml}");
    assert!(
        xml.contains("<failure message=\"step `Then the tool &quot;mine&quot; matches:`: [pinned] $.description: expected"),
        "{xml}"
    );
}

/// A scratch root whose only feature is tests/fixtures/selection.feature (plus `extra`).
fn selection_root(extra: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let features = dir.path().join("features");
    std::fs::create_dir_all(&features).unwrap_or_else(|e| panic!("{e}"));
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/selection.feature");
    std::fs::copy(&fixture, features.join("selection.feature")).unwrap_or_else(|e| panic!("{e}"));
    if let Some(text) = extra {
        std::fs::write(features.join("extra.feature"), text).unwrap_or_else(|e| panic!("{e}"));
    }
    dir
}

fn run_in(root: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let out = bin()
        .arg("--root")
        .arg(root)
        .arg("run")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

#[test]
fn a_failed_beyond_spec_scenario_is_counted_apart_and_fails_only_a_strict_run() {
    let root = selection_root(None);
    let (code, json) = run_in(root.path(), &["--format", "json"]);
    let report: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report["summary"]["passed"], 2, "{report}");
    assert_eq!(report["summary"]["failed"], 0, "{report}");
    assert_eq!(
        report["summary"]["beyondSpec"],
        serde_json::json!({"passed": 0, "failed": 1, "skipped": 0})
    );
    assert_eq!(report["sections"]["0"]["beyondSpec"]["failed"], 1);
    let beyond = &report["scenarios"][1];
    assert_eq!(beyond["beyondSpec"], true, "{report}");
    assert_eq!(beyond["status"], "failed");
    assert!(beyond["beyondSpecReason"]
        .as_str()
        .is_some_and(|r| r.starts_with("Beyond the SPEC: a test fixture")));
    // The reference implements the newest text: the later scenario runs, the one for
    // earlier SPECs only is skipped, saying why; the report names the text.
    assert_eq!(report["scenarios"][2]["status"], "passed", "{report}");
    let earlier = &report["scenarios"][3];
    assert_eq!(earlier["status"], "skipped");
    assert_eq!(
        earlier["message"],
        "holds for SPEC 0.10.0 … 0.15.0; the port implements main-after-0.17.0"
    );
    assert_eq!(
        report["judgedBy"],
        Value::Null,
        "no clause index in this root"
    );
    // Judged by 0.16.0 (`--spec`), the in-process reference declares it.
    let (_, old) = run_in(root.path(), &["--format", "json", "--spec", "0.16.0"]);
    let old: Value = serde_json::from_str(&old).unwrap_or_else(|e| panic!("{e}: {old}"));
    assert_eq!(old["portSpec"], "0.16.0", "{old}");

    let (code, json) = run_in(root.path(), &["--format", "json", "--strict"]);
    assert_eq!(code, Some(1), "{json}");
    assert!(json.contains("\"strict\": true"), "{json}");

    let (code, text) = run_in(root.path(), &[]);
    assert_eq!(code, Some(0), "{text}");
    // The groups counted apart are the table's last columns: beyond, seed, preview.
    let cells = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert!(
        text.lines().any(|l| l.starts_with("section")
            && cells(l).ends_with(&["beyond".into(), "seed".into(), "preview".into()])),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("total")
            && cells(l).ends_with(&["0/1/0".into(), "-".into(), "-".into()])),
        "{text}"
    );
    assert!(text.contains("beyond-SPEC failures"), "{text}");
    assert!(
        text.contains("beyond the SPEC: 0 passed, 1 failed, 0 skipped"),
        "{text}"
    );

    let (code, xml) = run_in(root.path(), &["--format", "junit"]);
    assert_eq!(code, Some(0), "{xml}");
    assert!(xml.contains("<testsuite name=\"beyond the SPEC\""), "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
    let (code, xml) = run_in(root.path(), &["--format", "junit", "--strict"]);
    assert_eq!(code, Some(1));
    assert_eq!(xml.matches("<failure").count(), 1, "{xml}");
}

#[test]
fn min_executed_fails_a_run_where_too_few_scenarios_ran() {
    // The fixture: two pass, one fails beyond the SPEC, one is skipped ⇒ 3/4 executed.
    let root = selection_root(None);
    let run = |min: &str| {
        bin()
            .arg("--root")
            .arg(root.path())
            .args(["run", "--min-executed", min])
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let out = run("0.75");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run("0.8");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--min-executed 0.8: only 75.0% of the selected scenarios ran"),
        "{stderr}"
    );
    let out = run("1.5");
    assert_eq!(out.status.code(), Some(2), "a fraction above 1 is refused");
}

#[test]
fn beyond_spec_failures_are_outside_the_expected_failures_unless_strict() {
    let root = selection_root(None);
    let empty = root.path().join("none.txt");
    std::fs::write(&empty, "# nothing expected\n").unwrap_or_else(|e| panic!("{e}"));
    let file = empty.to_string_lossy().to_string();
    let (code, json) = run_in(
        root.path(),
        &["--format", "json", "--expected-failures", &file],
    );
    assert_eq!(code, Some(0), "{json}");
    let report: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report["baseline"]["newFailures"], serde_json::json!([]));
    let (code, json) = run_in(
        root.path(),
        &["--format", "json", "--expected-failures", &file, "--strict"],
    );
    assert_eq!(code, Some(1), "{json}");
    let report: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        report["baseline"]["newFailures"][0],
        "selection: the beyond-SPEC scenario fails on purpose"
    );
}

#[test]
fn list_shows_version_bounds_and_spec_selects_by_them() {
    let root = selection_root(None);
    let list = |args: &[&str]| {
        let out = bin()
            .arg("--root")
            .arg(root.path())
            .arg("list")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let all = list(&[]);
    assert!(
        all.contains("a scenario for a later SPEC text  (SPEC ≥ 0.17.0)"),
        "{all}"
    );
    assert!(all.contains("passes  (SPEC ≥ 0.16.0)"), "{all}");
    assert!(all.contains("4 scenarios"), "{all}");
    assert!(list(&["--spec", "0.16.0"]).contains("2 scenarios"));
    assert!(list(&["--spec", "0.17.0"]).contains("3 scenarios"));
    assert!(list(&["--spec", "0.12.0"]).contains("1 scenario"));
}

#[test]
fn malformed_version_tags_and_reasonless_beyond_spec_refuse_to_load() {
    let root = selection_root(Some(
        "Feature: extra\n\n  @since-0.17\n  Scenario: odd version\n    Then the \"openai\" adapter output matches:\n      \"\"\"\n      []\n      \"\"\"\n\n  @beyond-spec\n  Scenario: no reason given\n    Then the \"openai\" adapter output matches:\n      \"\"\"\n      []\n      \"\"\"\n",
    ));
    let out = bin()
        .arg("--root")
        .arg(root.path())
        .arg("run")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "extra.feature: scenario \"extra: odd version\": malformed version tag @since-0.17"
        ),
        "{err}"
    );
    assert!(
        err.contains("extra.feature: scenario \"extra: no reason given\" is tagged @beyond-spec"),
        "{err}"
    );
}

/// A checkout with one feature file and two "releases" of the python port: 1.0.0 is set up
/// (its venv's `python` is the reference driver), 2.0.0 is not and its setup fails.
fn fake_release_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let write = |path: &str, text: &str| {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&p)
            .status()
            .unwrap();
    };
    let feature =
        std::fs::read_to_string(here.join("features/builtins_todowrite.feature")).unwrap();
    write("features/builtins_todowrite.feature", &feature);
    let driver = assert_cmd::cargo::cargo_bin("toolnexus-conformance");
    write(
        "target/ports/python-1.0.0/venv/bin/python",
        &format!("#!/bin/sh\nexec '{}' driver\n", driver.display()),
    );
    write("target/ports/python-1.0.0/venv/.toolnexus-ready", "");
    write(
        "conformance/ports/python/setup.sh",
        "#!/bin/sh\necho \"setup.sh (python port $1): PyPI has no release toolnexus==$1\" >&2\nexit 1\n",
    );
    dir
}

#[test]
fn history_runs_each_release_and_a_failed_setup_is_a_column_not_an_abort() {
    let root = fake_release_root();
    let out = bin()
        .args([
            "history",
            "--port",
            "python",
            "--versions",
            "2.0.0,1.0.0",
            "--format",
            "json",
        ])
        .arg("--root")
        .arg(root.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let h: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(h["releases"][0]["version"], "1.0.0");
    assert!(
        h["releases"][0]["summary"]["passed"].as_u64().unwrap_or(0) > 0,
        "{h}"
    );
    assert_eq!(h["releases"][0]["summary"]["failed"], 0, "{h}");
    assert_eq!(h["releases"][1]["version"], "2.0.0");
    assert_eq!(
        h["releases"][1]["setupFailed"],
        "python@2.0.0: setup.sh (python port 2.0.0): PyPI has no release toolnexus==2.0.0"
    );
    assert_eq!(h["changed"], serde_json::json!([]));
}

#[test]
fn release_ports_with_bad_versions_fail_fast() {
    for args in [
        vec!["run", "--port", "python@0.1;x"],
        vec![
            "history",
            "--port",
            "python",
            "--versions",
            "0.21.0..0.16.0",
        ],
        vec!["history", "--port", "ruby", "--versions", "1.0.0"],
    ] {
        let out = bin().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("not a release port")
                || err.contains("range is empty")
                || err.contains("--port must be"),
            "{args:?}: {err}"
        );
    }
}

/// A scratch root for `coverage` and `spec-diff`: one feature tagging clauses of a small
/// index quoting a small SPEC (returned as its text).
fn clause_root(feature: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{e}"));
    };
    let spec = "# SPEC\n\n## 4. Toolkit\n\nThe `anthropic` adapter MUST map `inputSchema`\nto `input_schema`. Descriptions are kept verbatim.\n\n## 4A. Built-ins\n\n`grep` returns at most 100 matches by default.\n\n## 6. Native\n\nA native tool is never renamed by the host.\n";
    write("SPEC.md", spec);
    write(
        "conformance/clauses/0.16.0.json",
        r#"{"spec": "0.16.0", "clauses": [
          {"id": "4.adapter.anthropic-schema", "section": "4", "quote": "The `anthropic` adapter MUST map `inputSchema` to `input_schema`.", "kind": "observable"},
          {"id": "4.adapter.verbatim", "section": "4", "quote": "Descriptions are kept verbatim.", "kind": "observable"},
          {"id": "4A.grep.default-limit", "section": "4A", "quote": "`grep` returns at most 100 matches by default.", "kind": "observable", "uncovered": "needs a large tree"},
          {"id": "6.native.name", "section": "6", "quote": "A native tool is never renamed by the host.", "kind": "language-specific", "why": "a binding's decorator"}
        ]}"#,
    );
    write("features/tagged.feature", feature);
    (dir, spec.to_string())
}

const TAGGED: &str = "@pin-0.16.0 @spec-4\nFeature: tagged\n\n  Background:\n    Given a toolkit built with:\n      \"\"\"\n      {\"builtins\": false, \"extraTools\": [{\"name\": \"lookup\", \"description\": \"Look a thing up.\",\n        \"inputSchema\": {\"type\": \"object\", \"properties\": {}}, \"behaviour\": {\"text\": \"x\"}}],\n       \"disableTools\": [\"skill\"]}\n      \"\"\"\n\n  @clause-4.adapter.anthropic-schema\n  Scenario: the schema is mapped\n    Then the \"anthropic\" adapter output matches:\n      \"\"\"\n      [{\"name\": \"lookup\", \"description\": \"Look a thing up.\", \"input_schema\": {\"type\": \"object\", \"properties\": {}}}]\n      \"\"\"\n\n  @partial-clause-4.adapter.verbatim\n  Scenario: the description is kept\n    Then the \"anthropic\" adapter output matches:\n      \"\"\"\n      [{\"name\": \"lookup\", \"description\": \"Something else.\", \"input_schema\": {\"type\": \"object\", \"properties\": {}}}]\n      \"\"\"\n";

fn cli_in(root: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = bin()
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn coverage_json(root: &std::path::Path, args: &[&str]) -> (Option<i32>, Value) {
    let mut all = vec!["coverage", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = cli_in(root, &all);
    let report = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out} {err}"));
    (code, report)
}

#[test]
fn coverage_counts_follow_the_tags_and_a_broken_tag_changes_them() {
    let (root, _) = clause_root(TAGGED);
    let (code, report) = coverage_json(root.path(), &[]);
    assert_eq!(code, Some(0), "{report}");
    let sections: Vec<&str> = report["sections"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["section"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(sections, vec!["4", "4A", "6"]);
    assert_eq!(report["sections"][0]["covered"], 1, "{report}");
    assert_eq!(report["sections"][0]["partial"], 1, "{report}");
    assert_eq!(report["sections"][1]["uncovered"], 1, "{report}");
    assert_eq!(report["sections"][2]["languageSpecific"], 1, "{report}");
    assert_eq!(report["uncovered"][0]["reason"], "needs a large tree");
    assert_eq!(report["clauses"][0]["scenarios"][0]["line"], 13, "{report}");

    let (code, text, _) = cli_in(root.path(), &["coverage"]);
    assert_eq!(code, Some(0));
    assert!(
        text.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["§4", "1", "1", "0", "0", "0"]),
        "{text}"
    );
    assert!(text.contains("4A.grep.default-limit  \"`grep` returns at most 100 matches by default.\"\n      why: needs a large tree"), "{text}");

    // One tag broken (the clause no longer named): covered 1 ⇒ 0, uncovered 0 ⇒ 1.
    std::fs::write(
        root.path().join("features/tagged.feature"),
        TAGGED.replace("@clause-4.adapter.anthropic-schema", "@spec-4"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (_, report) = coverage_json(root.path(), &[]);
    assert_eq!(report["sections"][0]["covered"], 0, "{report}");
    assert_eq!(report["sections"][0]["uncovered"], 1, "{report}");
    assert_eq!(report["uncovered"][0]["id"], "4.adapter.anthropic-schema");
    assert!(report["uncovered"][0].get("reason").is_none(), "{report}");
    let (_, text, _) = cli_in(root.path(), &["coverage"]);
    assert!(text.contains("(1 with no reason given)"), "{text}");
}

#[test]
fn coverage_refuses_an_unknown_clause_id_and_a_malformed_index() {
    let (root, _) = clause_root(&TAGGED.replace(
        "@clause-4.adapter.anthropic-schema",
        "@clause-4.adapter.anthropic-shema",
    ));
    let (code, _, err) = cli_in(root.path(), &["coverage"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("tagged.feature:13: scenario \"tagged: the schema is mapped\": @clause-4.adapter.anthropic-shema names no clause of conformance/clauses/0.16.0.json"),
        "{err}"
    );
    std::fs::write(
        root.path().join("conformance/clauses/0.16.0.json"),
        r#"{"spec": "0.16.0", "clauses": [{"id": "4.x", "section": "4", "quote": "q", "kind": "observable"}]}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (code, _, err) = cli_in(root.path(), &["coverage"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("conformance/clauses/0.16.0.json: clause \"4.x\": id must be"),
        "{err}"
    );
}

#[test]
fn coverage_with_a_port_gives_each_tagged_clause_a_verdict_and_writes_html() {
    let (root, _) = clause_root(TAGGED);
    let driver = format!("{} driver", env!("CARGO_BIN_EXE_toolnexus-conformance"));
    let html = root.path().join("coverage.html");
    let html_arg = html.to_string_lossy().to_string();
    let (code, report) = coverage_json(root.path(), &["--port", &driver, "-o", &html_arg]);
    // The partial clause's scenario fails on purpose: the run fails.
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["port"], "reference", "{report}");
    assert_eq!(report["clauses"][0]["port"], "passed", "{report}");
    assert_eq!(report["clauses"][1]["port"], "failed", "{report}");
    assert!(report["clauses"][2].get("port").is_none(), "{report}");
    assert_eq!(
        report["total"]["port"],
        serde_json::json!({"passed": 1, "failed": 1, "skipped": 0})
    );
    let page = std::fs::read_to_string(&html).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        page.contains("<h2 id=\"coverage\">SPEC clause coverage</h2>"),
        "{page}"
    );
    assert!(
        page.contains("<h2>Clauses the port fails (1)</h2>"),
        "{page}"
    );

    // The same JSON adds the section to the combined run report.
    let json_file = root.path().join("coverage.json");
    std::fs::write(
        &json_file,
        serde_json::to_string(&report).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (_, run, _) = cli_in(root.path(), &["run", "--format", "json"]);
    let run_file = root.path().join("run.json");
    std::fs::write(&run_file, run).unwrap_or_else(|e| panic!("{e}"));
    let page_file = root.path().join("report.html");
    let (code, _, err) = cli_in(
        root.path(),
        &[
            "report",
            &run_file.to_string_lossy(),
            "-o",
            &page_file.to_string_lossy(),
            "--coverage",
            &json_file.to_string_lossy(),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let page = std::fs::read_to_string(&page_file).unwrap_or_else(|e| panic!("{e}"));
    assert!(page.contains("SPEC sections × ports"), "{page}");
    assert!(
        page.contains("<h2 id=\"coverage\">SPEC clause coverage</h2>"),
        "{page}"
    );
}

#[test]
fn coverage_of_the_checkout_takes_well_under_two_seconds() {
    let start = std::time::Instant::now();
    let out = bin()
        .arg("coverage")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(took < std::time::Duration::from_secs(2), "took {took:?}");
}

#[test]
fn spec_diff_names_an_edited_clause_and_its_scenarios() {
    let (root, spec) = clause_root(TAGGED);
    let new = root.path().join("NEW.md");
    std::fs::write(
        &new,
        spec.replace("adapter MUST map", "adapter MUST rename")
            .replace(
                "## 6. Native",
                "Every adapter MUST keep order.\n\n## 6. Native",
            ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let old = root.path().join("SPEC.md");
    let (code, text, err) = cli_in(
        root.path(),
        &["spec-diff", &old.to_string_lossy(), &new.to_string_lossy()],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        text.contains("3 unchanged, 1 changed, 0 removed, 1 added"),
        "{text}"
    );
    assert!(
        text.contains("Changed clauses (1):\n  4.adapter.anthropic-schema (§4)\n"),
        "{text}"
    );
    assert!(
        text.contains("    scenario features/tagged.feature:13  tagged: the schema is mapped\n"),
        "{text}"
    );
    assert!(
        text.contains("§4A  \"Every adapter MUST keep order.\""),
        "{text}"
    );

    let (_, json, _) = cli_in(
        root.path(),
        &[
            "spec-diff",
            "--format",
            "json",
            &old.to_string_lossy(),
            &new.to_string_lossy(),
        ],
    );
    let d: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(d["clauses"][0]["change"], "changed");
    assert_eq!(d["clauses"][0]["scenarios"][0]["file"], "tagged.feature");
    let (code, text, _) = cli_in(
        root.path(),
        &["spec-diff", &old.to_string_lossy(), &old.to_string_lossy()],
    );
    assert_eq!(code, Some(0), "{text}");
}

/// A reference request that never answers is a failed scenario under `--timeout-ms`, in
/// process as through a driver, never a hung run.
#[test]
fn an_in_process_request_that_hangs_fails_its_scenario_within_the_timeout() {
    let feature = r#"@pin-0.16.0
Feature: a hanging request
  @spec-7D
  Scenario: an agent run whose model never answers
    Given a mock LLM runs "agents.json"
    And an agent runtime with:
      """
      {"registry": {"slow": {"does": "waits", "model": "m-slow"}}}
      """
    When the agent command "agent_run" is sent with:
      """
      {"entry": "slow", "prompt": "go"}
      """
"#;
    let root = selection_root(Some(feature));
    let mocks = root.path().join("mock-servers/scenarios/llm");
    std::fs::create_dir_all(&mocks).unwrap_or_else(|e| panic!("{e}"));
    let agents =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mock-servers/scenarios/llm/agents.json");
    std::fs::copy(&agents, mocks.join("agents.json")).unwrap_or_else(|e| panic!("{e}"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_toolnexus-conformance"))
        .arg("--root")
        .arg(root.path())
        .args([
            "run",
            "--timeout-ms",
            "1500",
            "--format",
            "json",
            "never answers",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let started = std::time::Instant::now();
    while child.try_wait().unwrap_or_else(|e| panic!("{e}")).is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the run hung past 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let json = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert_eq!(report["summary"]["failed"], 1, "{report}");
    let message = report["scenarios"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.contains("did not answer `agent_run` within 1500 ms"),
        "{message}"
    );
}

/// `schema` prints the schema the protocol types generate; `--check` exits 0 on this checkout
/// and 1, naming the regenerate command, on a stale copy.
#[test]
fn the_schema_subcommand_prints_and_checks_the_generated_schema() {
    let out = bin()
        .arg("schema")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        toolnexus_protocol::schema::generate_text()
    );
    let current = bin()
        .args(["schema", "--check"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        current.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&current.stdout)
    );
    let stale = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let conformance = stale.path().join("conformance");
    std::fs::create_dir_all(&conformance).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(conformance.join("protocol.schema.json"), "{}\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let out = bin()
        .arg("--root")
        .arg(stale.path())
        .args(["schema", "--check"])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(toolnexus_protocol::schema::REGENERATE),
        "{text}"
    );
}
