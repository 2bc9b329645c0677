//! The suite inside the binary (issue 50): the built binary, copied into an empty folder (no
//! `--root`, no setting: a binary outside the checkout it was built in reads its embedded
//! suite), lists, plans and runs exactly what it does inside the checkout, with the same JSON
//! report for the in-process reference, the starter and the Python port, and leaves nothing
//! in its temp directory on any way out: a clean end, SIGTERM, and a reader that closes its
//! stdout. And `--version` and the JSON report name the harness, the port protocol and the
//! SPEC texts.
//!
//! The starter's and the Python port's runs need python3 (and the port set up, `setup
//! python`); without them those parts say `SKIPPED:` on stderr (a failure under
//! `TOOLNEXUS_REQUIRE_PEERS=1`, as CI runs it).

mod optional;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The built binary, copied alone into a folder of its own, with a private temp directory
/// and an empty working directory: no checkout in reach but the one it carries.
struct Alone {
    _dirs: tempfile::TempDir,
    bin: PathBuf,
    tmp: PathBuf,
    cwd: PathBuf,
    /// Where port setups keep their state (`TOOLNEXUS_CONFORMANCE_CACHE`).
    state: PathBuf,
}

impl Alone {
    fn new() -> Alone {
        let dirs = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (bin_dir, tmp, cwd, state) = (
            dirs.path().join("bin"),
            dirs.path().join("tmp"),
            dirs.path().join("work"),
            dirs.path().join("state"),
        );
        for d in [&bin_dir, &tmp, &cwd] {
            std::fs::create_dir(d).unwrap_or_else(|e| panic!("{e}"));
        }
        let bin = bin_dir.join("toolnexus-conformance");
        std::fs::copy(env!("CARGO_BIN_EXE_toolnexus-conformance"), &bin)
            .unwrap_or_else(|e| panic!("{e}"));
        Alone {
            _dirs: dirs,
            bin,
            tmp,
            cwd,
            state,
        }
    }

    /// The same, keeping port setups' state in `state` (the checkout's `target/`, to drive
    /// the port set up there rather than install it again).
    fn with_state(state: &Path) -> Alone {
        Alone {
            state: state.to_path_buf(),
            ..Alone::new()
        }
    }

    /// The copied binary, left to find its suite (the embedded one: no checkout is around it).
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(args)
            .current_dir(&self.cwd)
            .env("TMPDIR", &self.tmp)
            .env("TOOLNEXUS_CONFORMANCE_CACHE", &self.state)
            .env_remove("TOOLNEXUS_CONFORMANCE_EMBEDDED")
            .env_remove("TOOLNEXUS_CONFORMANCE_ROOT");
        c
    }

    fn output(&self, args: &[&str]) -> Output {
        let mut command = self.command(args);
        when_not_busy(|| command.output())
    }

    /// The copied binary started with `args` and these pipes.
    fn spawn(&self, args: &[&str], stdin: Stdio, stdout: Stdio) -> Child {
        let mut command = self.command(args);
        command.stdin(stdin).stdout(stdout).stderr(Stdio::null());
        when_not_busy(|| command.spawn())
    }

    /// What is left in the private temp directory.
    fn left_in_tmp(&self) -> Vec<String> {
        std::fs::read_dir(&self.tmp)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// `start`'s result, tried again while it fails with "text file busy": a test forking on
/// another thread while the copy was being written holds the copy's descriptor until that
/// child's own exec, and Linux refuses to run a file open for writing.
fn when_not_busy<T>(mut start: impl FnMut() -> std::io::Result<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match start() {
            Err(e) if e.raw_os_error() == Some(26) && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other.unwrap_or_else(|e| panic!("{e}")),
        }
    }
}

/// The binary inside the checkout (the suite read in place).
fn in_checkout(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolnexus-conformance"))
        .args(args)
        .env_remove("TOOLNEXUS_CONFORMANCE_EMBEDDED")
        .env_remove("TOOLNEXUS_CONFORMANCE_ROOT")
        .output()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            stdout(out),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Why a run exited non-zero, short enough for a CI log's tail: its exit code, each scenario
/// the JSON report marks failed (name and message, cut), and the end of its stderr.
fn why_failed(out: &Output) -> String {
    let cut = |s: &str, n: usize| s.chars().take(n).collect::<String>();
    let failed: Vec<String> = serde_json::from_slice::<Value>(&out.stdout)
        .ok()
        .and_then(|report| report["scenarios"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter(|s| s["status"] != "passed" && s["status"] != "skipped" && s["status"] != "xfail")
        .take(10)
        .map(|s| {
            format!(
                "{} [{}]: {}",
                s["name"],
                s["status"],
                cut(&s["message"].to_string(), 1500)
            )
        })
        .collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let skip = stderr.chars().count().saturating_sub(2000);
    let tail: String = stderr.chars().skip(skip).collect();
    format!(
        "exit {:?}; not passed:\n{}\nstderr tail:\n{tail}",
        out.status.code(),
        failed.join("\n")
    )
}

/// Each scenario's name and status, in run order.
fn statuses(report: &Value) -> Vec<(String, String)> {
    report["scenarios"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|s| (s["name"].to_string(), s["status"].to_string()))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn alone_the_binary_lists_and_plans_as_inside_the_checkout_and_leaves_nothing() {
    let alone = Alone::new();

    let list = alone.output(&["list"]);
    assert_eq!(list.status.code(), Some(0), "{list:?}");
    let inside = in_checkout(&["list"]);
    assert_eq!(inside.status.code(), Some(0), "{}", why_failed(&inside));
    assert!(
        stdout(&inside).contains(" scenarios"),
        "{}",
        stdout(&inside)
    );
    assert_eq!(stdout(&list), stdout(&inside));
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());

    let args = ["porting", "--section", "0", "--format", "json"];
    let porting = alone.output(&args);
    assert_eq!(porting.status.code(), Some(0), "{porting:?}");
    let (alone_plan, inside_plan) = (json(&porting), json(&in_checkout(&args)));
    assert_eq!(alone_plan, inside_plan);
    assert_ne!(alone_plan, Value::Null);
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());
}

#[test]
fn alone_the_binary_runs_the_starter_as_inside_the_checkout_and_its_trace_validates() {
    if !optional::have_tools(
        optional::REQUIRE_PEERS,
        &["python3"],
        "the embedded suite's starter run (tests/embedded_suite.rs)",
    ) {
        return;
    }
    let alone = Alone::new();
    let trace = alone.cwd.join("starter.jsonl");
    let trace_arg = trace.to_string_lossy().to_string();
    let run = ["run", "--port", "starter", "--section", "0,1,4"];
    let out = alone.output(&[&run[..], &["--format", "json", "--trace", &trace_arg]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", why_failed(&out));
    let (alone_report, inside_report) = (
        json(&out),
        json(&in_checkout(&[&run[..], &["--format", "json"]].concat())),
    );
    assert_eq!(alone_report["summary"], inside_report["summary"]);
    assert_eq!(alone_report["sections"], inside_report["sections"]);
    assert_eq!(statuses(&alone_report), statuses(&inside_report));
    assert!(alone_report["summary"]["passed"].as_u64() > Some(0));
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());

    let valid = alone.output(&["validate-trace", &trace_arg]);
    assert_eq!(valid.status.code(), Some(0), "{valid:?}");
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());

    // A driver command given on the command line runs where the harness was started (a
    // port's own repository), not in the unpacked suite: the same starter, by a relative path.
    // The starter finds its kit at `../../kits/python` beside it, as in the checkout.
    let conformance = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance");
    let here = |p: &str| alone.cwd.join(p);
    for dir in ["mine/starter", "kits/python/toolnexus_kit"] {
        std::fs::create_dir_all(here(dir)).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::copy(
        conformance.join("ports/starter/driver.py"),
        here("mine/starter/driver.py"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let kit = conformance.join("kits/python/toolnexus_kit");
    for entry in std::fs::read_dir(&kit).unwrap_or_else(|e| panic!("{e}")) {
        let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
        if path.extension().is_some_and(|x| x == "py") {
            let name = path.file_name().unwrap_or_default();
            std::fs::copy(&path, here("kits/python/toolnexus_kit").join(name))
                .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let by_command = [
        "run",
        "--port",
        "python3 mine/starter/driver.py",
        "--section",
        "0,1,4",
    ];
    let out = alone.output(&[&by_command[..], &["--format", "json"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", why_failed(&out));
    assert_eq!(json(&out)["summary"], inside_report["summary"]);
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());
}

/// The whole JSON report of `run ARGS` from the empty folder and inside the checkout, the
/// same but for what differs between any two runs (`.ci/same-report.py`: the start time,
/// durations, and with `--port-volatile` the ids a port draws afresh each run).
fn same_report_alone_and_inside(alone: &Alone, args: &[&str], volatile: bool) -> Value {
    let with_json = [args, &["--format", "json"]].concat();
    let out = alone.output(&with_json);
    assert_eq!(out.status.code(), Some(0), "{}", why_failed(&out));
    let inside = in_checkout(&with_json);
    assert_eq!(inside.status.code(), Some(0), "{}", why_failed(&inside));
    let (a, b) = (alone.cwd.join("alone.json"), alone.cwd.join("inside.json"));
    // A failure message quoting a driver's stderr names the suite's folder `{{ROOT}}` and
    // this binary `{{BIN}}` (a Python traceback through the port's venv), so nothing is
    // rewritten here: the reports as printed must agree.
    for (path, out) in [(&a, &out), (&b, &inside)] {
        std::fs::write(path, &out.stdout).unwrap_or_else(|e| panic!("{e}"));
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/same-report.py");
    let mut compare = Command::new("python3");
    compare.arg(script);
    if volatile {
        compare.arg("--port-volatile");
    }
    let compared = compare
        .args([&b, &a])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        compared.status.success(),
        "run {args:?}: the report from an empty folder differs from the checkout's:\n{}",
        stdout(&compared)
    );
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());
    json(&out)
}

#[test]
fn alone_the_reference_starter_and_python_port_report_as_inside_the_checkout() {
    if !optional::have_tools(
        optional::REQUIRE_PEERS,
        &["python3"],
        "the embedded suite's whole-report runs (tests/embedded_suite.rs)",
    ) {
        return;
    }
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let alone = Alone::with_state(&target);
    for (args, volatile) in [(&["run"][..], false), (&["run", "--port", "starter"], true)] {
        let report = same_report_alone_and_inside(&alone, args, volatile);
        assert!(report["summary"]["passed"].as_u64() > Some(0), "{args:?}");
    }
    // The Python port as `setup python` left it in the checkout's target/, which the copy
    // keeps its state in: so `run --port python` runs it as set up, with no setup of its own.
    if !target
        .join("ports/python-0.21.0/venv/.toolnexus-ready")
        .is_file()
    {
        optional::skip_or_fail(
            optional::REQUIRE_PEERS,
            "the python port is not set up, so its run from an empty folder did not run",
            "run `cargo run --release -- setup python` to run it",
        );
        return;
    }
    let report = same_report_alone_and_inside(&alone, &["run", "--port", "python"], true);
    assert!(report["summary"]["passed"].as_u64() > Some(0));
}

/// Polls `done` until it holds, failing after a minute (a loaded machine's slowest start).
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_mid_run_leaves_nothing_in_tmp() {
    let alone = Alone::new();
    // A driver that says it started, then never answers `hello`: the run is mid-way (the
    // suite unpacked, a driver up) when the signal comes.
    let started = alone.cwd.join("driver-started");
    let driver = format!("sh -c 'touch {}; exec sleep 300'", started.display());
    let mut child = alone.spawn(
        &["run", "--port", &driver, "--section", "0"],
        Stdio::null(),
        Stdio::null(),
    );
    wait_for("the driver started", || started.exists());
    assert!(
        !alone.left_in_tmp().is_empty(),
        "the suite was not unpacked"
    );
    let pid = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM)
        .unwrap_or_else(|e| panic!("{e}"));
    let status = child.wait().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.code(), Some(143));
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());
}

#[test]
fn a_reader_closing_stdout_early_leaves_nothing_in_tmp() {
    let alone = Alone::new();
    // `list` prints far more than a pipe holds, so it is still writing when the reader goes.
    let mut child = alone.spawn(&["list"], Stdio::null(), Stdio::piped());
    let mut first = String::new();
    if let Some(out) = child.stdout.take() {
        BufReader::new(out)
            .read_line(&mut first)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(first.starts_with('['), "{first}");
    let status = child.wait().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.code(), Some(141));
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());
}

#[test]
fn alone_a_mock_serves_the_scenario_files_its_readme_names_and_leaves_nothing() {
    let alone = Alone::new();
    let scenario = "mock-servers/scenarios/llm/basic-openai.json";
    assert!(!alone.cwd.join(scenario).exists());
    let child = serving(
        &alone,
        &[
            "mock",
            "--until-stdin-closes",
            "llm",
            "--scenario",
            scenario,
        ],
    );
    // The copy was read and removed before the server started: a mock ends past destructors.
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());
    ends_cleanly(child);

    let missing = alone.output(&[
        "mock",
        "llm",
        "--scenario",
        "mock-servers/scenarios/none.json",
    ]);
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("mock-servers/scenarios/none.json"), "{err}");
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());
}

#[test]
fn alone_a_mock_reads_examples_from_the_folder_examples_names() {
    let alone = Alone::new();
    // A shared fixture under a name only the given folder has: the embedded examples lack it.
    let given = alone.cwd.join("spec-examples");
    std::fs::create_dir_all(given.join("renamed-fanout")).unwrap_or_else(|e| panic!("{e}"));
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/examples");
    std::fs::copy(
        shared.join("subagent-fanout/fixture.json"),
        given.join("renamed-fanout/fixture.json"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let fixture = ["llm", "--fixture", "examples/renamed-fanout/fixture.json"];

    let without = alone.output(&[&["mock"][..], &fixture].concat());
    assert_eq!(without.status.code(), Some(2), "{without:?}");

    let examples = given.to_string_lossy().to_string();
    let mock = ["--examples", &examples, "mock", "--until-stdin-closes"];
    ends_cleanly(serving(&alone, &[&mock[..], &fixture].concat()));
    assert_eq!(alone.left_in_tmp(), Vec::<String>::new());
}

/// A mock started by the copied binary with `args`, once it printed its URL.
fn serving(alone: &Alone, args: &[&str]) -> Child {
    let mut child = alone.spawn(args, Stdio::piped(), Stdio::piped());
    let mut first = String::new();
    if let Some(out) = child.stdout.take() {
        BufReader::new(out)
            .read_line(&mut first)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(
        first.starts_with("http://127.0.0.1:"),
        "{args:?}: {first:?}"
    );
    child
}

/// Closes a `--until-stdin-closes` mock's stdin; it must then end with 0.
fn ends_cleanly(mut child: Child) {
    drop(child.stdin.take());
    let status = child.wait().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(status.code(), Some(0));
}

/// `This is **protocol N**` in conformance/PROTOCOL.md.
fn protocol_in_the_docs(root: &Path) -> u64 {
    let text = std::fs::read_to_string(root.join("conformance/PROTOCOL.md"))
        .unwrap_or_else(|e| panic!("{e}"));
    let rest = text
        .split_once("This is **protocol ")
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    rest.split("**")
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no protocol version in PROTOCOL.md"))
}

/// The release the pinned SPEC.md was published with, as shared/spec/README.md says.
fn pinned_in_shared(root: &Path) -> String {
    let text = std::fs::read_to_string(root.join("../shared/spec/README.md"))
        .unwrap_or_else(|e| panic!("{e}"));
    let rest = text
        .split_once("as published with toolnexus release ")
        .map(|(_, rest)| rest)
        .unwrap_or_default();
    rest.split_whitespace()
        .next()
        .unwrap_or_default()
        .trim_end_matches(['.', ','])
        .to_string()
}

#[test]
fn version_and_the_report_name_the_harness_the_protocol_and_the_spec_texts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let protocol = protocol_in_the_docs(root);
    let pinned = pinned_in_shared(root);
    assert_eq!(pinned, "0.16.0");
    // The newest text is the one the newest clause index quotes, and its text is in reach.
    let newest = "main-after-0.17.0";
    let index: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join(format!("conformance/clauses/{newest}.json")))
            .unwrap_or_else(|e| panic!("{e}")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(index["spec"], newest);
    assert!(root.join("../shared/spec/upstream-main/SPEC.md").is_file());

    let out = in_checkout(&["--version"]);
    assert_eq!(out.status.code(), Some(0), "{}", why_failed(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "toolnexus-conformance {} (port protocol {protocol}; SPEC {pinned} pinned, newest \
             text {newest})\n",
            env!("CARGO_PKG_VERSION")
        )
    );

    let run = in_checkout(&["run", "--section", "0", "--format", "json"]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    assert_eq!(
        json(&run)["harness"],
        serde_json::json!({
            "version": env!("CARGO_PKG_VERSION"),
            "protocol": protocol,
            "spec": {"pinned": pinned, "newest": newest},
        })
    );
}
