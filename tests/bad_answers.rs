//! Drivers whose answers break the protocol's typed form (tests/drivers/*.sh wrap the real
//! driver and corrupt one thing): each scenario reaching the broken answer must fail with a
//! message that names the field at fault, never pass and never crash the run.

use serde_json::Value;

mod wrapped;

/// Runs section 6 (native tools: builds and executes) through `script` wrapping the driver.
fn run_through(script: &str) -> (Option<i32>, Value) {
    wrapped::run_wrapped(&format!("sh {}", wrapped::script(script)), "6")
}

/// The messages of the failed scenarios; every scenario must have failed or passed.
fn failures(report: &Value) -> Vec<String> {
    let scenarios = report["scenarios"].as_array().cloned().unwrap_or_default();
    assert!(!scenarios.is_empty(), "{report}");
    scenarios
        .iter()
        .filter(|s| s["status"] != "passed")
        .map(|s| {
            assert_eq!(s["status"], "failed", "{s}");
            s["message"].as_str().unwrap_or("").to_string()
        })
        .collect()
}

fn assert_all_name(messages: &[String], needle: &str) {
    for m in messages {
        assert!(m.contains(needle), "message {m:?} does not name {needle:?}");
    }
}

#[test]
fn an_answer_without_seq_fails_naming_seq() {
    let (code, report) = run_through("no-seq.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    assert_eq!(failed.len(), 4, "{report}");
    assert_all_name(&failed, "out of step (seq: missing");
}

#[test]
fn an_empty_metadata_object_fails_naming_the_field() {
    let (code, report) = run_through("empty-metadata.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    // Every scenario that executes a tool; the one that only lists tools passes.
    assert_eq!(failed.len(), 3, "{report}");
    assert_all_name(&failed, "malformed_response");
    assert_all_name(
        &failed,
        "result.metadata: must be omitted when empty, got {}",
    );
}

#[test]
fn unsorted_names_fail_naming_the_field() {
    let (code, report) = run_through("unsorted-names.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    assert_eq!(failed.len(), 4, "{report}");
    assert_all_name(&failed, "names: not sorted by code point (");
}

#[test]
fn an_unsanitized_tool_name_fails_as_the_port_naming_the_spec_rule() {
    let (code, report) = run_through("unsanitized-name.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    // Only the scenario whose tool is named "echo".
    assert_eq!(failed.len(), 1, "{report}");
    assert_all_name(
        &failed,
        "the port breaks SPEC §1 Tool (`name` sanitized to [a-zA-Z0-9_-], §0.2): in the `build` answer, tools[1].name: \"e cho\" does not match [a-zA-Z0-9_-]+",
    );
    for m in &failed {
        assert!(
            !m.contains("driver error"),
            "the port's fault, not the driver's: {m}"
        );
    }
}

/// Runs the scenarios whose name contains `filter` through `script` wrapping the driver.
fn run_filtered(script: &str, filter: &str) -> (Option<i32>, Value) {
    wrapped::run_wrapped_selecting(
        &format!("sh {}", wrapped::script(script)),
        &["--filter", filter],
    )
}

#[test]
fn a_build_that_raised_fails_as_the_port_raising_and_names_the_isolation_promise() {
    let (code, report) = run_through("raise-on-build.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    // Every §6 scenario builds a toolkit.
    assert_eq!(failed.len(), 4, "{report}");
    assert_all_name(
        &failed,
        "the port raised: createToolkit exploded (its createToolkit threw where the scenario builds a toolkit)",
    );
    // A scenario about a failing source: the throw breaks its isolation promise.
    let (code, report) = run_filtered(
        "raise-on-build.sh",
        "a failing skill provider is isolated and the other sources still load",
    );
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    assert_eq!(failed.len(), 1, "{report}");
    assert_all_name(
        &failed,
        "the port raised: createToolkit exploded (its createToolkit threw, but the build must survive here: a failing source is isolated, never fatal (SPEC clause 3.s1.provider-isolated))",
    );
}

/// What one run through a broken driver left: exit code, stdout (the report), stderr, and
/// the harness process's peak resident memory (`VmHWM`, bytes) as last seen before it exited.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    peak_rss: u64,
}

/// Runs `section` through `script` wrapping the driver, with `envs`, in `format`, sampling
/// the harness's `/proc/<pid>/status` (VmHWM only grows, so the last sample is the peak but
/// for the last few milliseconds, where the harness only writes its report).
fn run_measured(script: &str, section: &str, format: &str, envs: &[(&str, &str)]) -> Run {
    use std::io::Read;
    let bin = env!("CARGO_BIN_EXE_toolnexus-conformance");
    let port = format!("sh {} {bin} driver", wrapped::script(script));
    let mut child = std::process::Command::new(bin)
        // One worker: the bounds are per driver process (N workers may hold N line caps).
        .args([
            "run",
            "--format",
            format,
            "--jobs",
            "1",
            "--section",
            section,
            "--port",
            &port,
        ])
        .envs(envs.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        out.read_to_end(&mut s).unwrap();
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        err.read_to_end(&mut s).unwrap();
        s
    });
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak_rss = 0;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            if let Some(kb) = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            {
                peak_rss = peak_rss.max(kb * 1024);
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let code = child.wait().unwrap().code();
    Run {
        code,
        stdout: String::from_utf8_lossy(&out.join().unwrap()).to_string(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).to_string(),
        peak_rss,
    }
}

const MB: u64 = 1_000_000;

/// 300 MB: over twice the 128 MiB line cap, so the bound measured comes from the cap,
/// not from the flood's size (a 6 GB flood reads the same 128 MiB; the test stays fast).
const FLOOD: &str = "300000000";

/// Runs §6 (4 scenarios) through a flooding driver and checks the bounds every flood must
/// keep: a failed run, a report under 1 MB, a harness under 250 MB (the 128 MiB line cap and
/// the harness itself: 175 MB measured in a debug build, 93 MB at the earlier 64 MiB cap);
/// answers the failures.
fn flooded(script: &str, what: &str) -> Vec<String> {
    let run = run_measured(script, "6", "json", &[("FLOOD_BYTES", FLOOD)]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stdout.len() < MB as usize,
        "report is {} bytes",
        run.stdout.len()
    );
    assert!(
        run.peak_rss < 250 * MB,
        "harness peak RSS {} bytes",
        run.peak_rss
    );
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let failed = failures(&report);
    assert_eq!(failed.len(), 4, "{report}");
    eprintln!("{what}: peak RSS {} bytes", run.peak_rss);
    failed
}

#[test]
fn a_stdout_flood_without_newline_is_cut_at_the_line_cap() {
    let failed = flooded("flood-stdout.sh", "stdout flood");
    assert_all_name(&failed, "answer line longer than 128 MiB");
}

#[test]
fn a_stderr_flood_keeps_only_a_short_tail_in_memory_and_messages() {
    let failed = flooded("flood-stderr.sh", "stderr flood");
    assert_all_name(&failed, "last words before the garbage");
    assert_all_name(&failed, "truncated");
    for m in &failed {
        assert!(m.len() < 4096, "message of {} bytes", m.len());
    }
}

#[test]
fn invalid_utf8_on_stderr_does_not_stop_the_harness_reading_it() {
    let (code, report) = run_through("bad-utf8-stderr.sh");
    assert_eq!(failures(&report), Vec::<String>::new());
    assert_eq!(code, Some(0), "{report}");
}

#[test]
fn a_doubled_execute_answer_fails_its_scenario() {
    let (code, report) = run_through("doubled-execute.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    // Every scenario that executes a tool; the one that only lists tools passes.
    assert_eq!(failed.len(), 3, "{report}");
    assert_all_name(&failed, "out of step");
}

#[test]
fn the_stderr_tail_of_a_restarted_driver_is_its_own() {
    let (code, report) = run_through("stderr-per-process.sh");
    assert_eq!(code, Some(1), "{report}");
    let failed = failures(&report);
    assert!(failed.len() >= 2, "{report}");
    for m in &failed {
        assert_eq!(m.matches("driver process").count(), 1, "{m}");
    }
}

#[test]
fn no_part_of_the_canary_reaches_a_report_through_hello_or_a_cut_message() {
    const CANARY: &str = "tnxcanaryZQ0123456789abcdefghij";
    for format in ["json", "junit", "text"] {
        let run = run_measured(
            "canary-hello.sh",
            "6",
            format,
            &[("TOOLNEXUS_CONFORMANCE_SECRET", CANARY)],
        );
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(run.stdout.contains("999999"), "{}", run.stdout);
        for (what, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            assert!(
                !text.contains(&CANARY[..12]),
                "{format} {what} leaks: {text}"
            );
        }
    }
}
