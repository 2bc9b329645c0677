//! Leftover processes (issue 14 item 12): after `run` is sent SIGINT, SIGTERM or SIGHUP
//! mid-scenario, no process it started survives, checked by process group and by parent;
//! and the mock servers and drivers it starts exit when it dies, even of SIGKILL.
//!
//! Linux only: the process tree is read from `/proc`.
#![cfg(target_os = "linux")]

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read as _;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

const BIN: &str = env!("CARGO_BIN_EXE_toolnexus-conformance");

/// One row of `/proc`.
#[derive(Debug, Clone)]
struct Proc {
    pid: i32,
    ppid: i32,
    pgid: i32,
    zombie: bool,
    cmdline: String,
}

fn proc_table() -> Vec<Proc> {
    toolnexus_process_group::processes()
        .into_iter()
        .map(|p| Proc {
            pid: p.pid,
            ppid: p.ppid,
            pgid: p.pgid,
            zombie: p.zombie,
            cmdline: std::fs::read(format!("/proc/{}/cmdline", p.pid))
                .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                .unwrap_or_default(),
        })
        .collect()
}

/// Every live (non-zombie) process whose parent chain leads to `root`, with its command line.
fn descendants(root: i32) -> Vec<Proc> {
    let table = proc_table();
    toolnexus_process_group::descendants(root)
        .into_iter()
        .filter_map(|d| table.iter().find(|p| p.pid == d.pid).cloned())
        .collect()
}

/// What a run had started just before it was signalled.
struct Snapshot {
    pids: BTreeMap<i32, String>,
    groups: BTreeSet<i32>,
}

/// Starts `run ARGS` with a temp dir of its own as TMPDIR, returned with it: a run killed by
/// SIGKILL cannot remove its scenarios' temp dirs, so the test, its parent, does.
fn start_run(args: &[&str]) -> (Child, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let child = Command::new(BIN)
        .args(args)
        .env("TMPDIR", tmp.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // Its own group, so the group check sees only what it started.
        .process_group(0)
        .spawn()
        .unwrap();
    (child, tmp)
}

/// Waits until the run's descendants include every process `wanted` names, and a moment
/// longer, then records them all (with their groups and the run's own).
fn snapshot_when(run: &mut Child, wanted: &[&str]) -> Snapshot {
    let pid = run.id() as i32;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = descendants(pid);
        if wanted
            .iter()
            .all(|w| now.iter().any(|p| p.cmdline.contains(w)))
        {
            let mut groups: BTreeSet<i32> = now.iter().map(|p| p.pgid).collect();
            groups.insert(pid);
            return Snapshot {
                pids: now.into_iter().map(|p| (p.pid, p.cmdline)).collect(),
                groups,
            };
        }
        if let Ok(Some(status)) = run.try_wait() {
            panic!("the run ended ({status}) before starting {wanted:?}");
        }
        assert!(
            Instant::now() < deadline,
            "no {wanted:?} among the run's descendants: {now:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The processes of `snap` still alive: by pid, or by membership of a recorded group.
fn survivors(snap: &Snapshot) -> Vec<Proc> {
    proc_table()
        .into_iter()
        .filter(|p| !p.zombie && (snap.pids.contains_key(&p.pid) || snap.groups.contains(&p.pgid)))
        .collect()
}

/// Polls until none of `snap` survives, or kills the survivors (so a failing test leaks
/// nothing either) and fails.
fn assert_all_gone(snap: &Snapshot, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(6);
    loop {
        let left = survivors(snap);
        if left.is_empty() {
            return;
        }
        if Instant::now() > deadline {
            for p in &left {
                let _ = kill(Pid::from_raw(p.pid), Signal::SIGKILL);
            }
            panic!("{what}: these survived: {left:#?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_with_deadline(run: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = run.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = run.kill();
            let _ = run.wait();
            panic!("the run did not exit within {within:?} of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts `run ARGS`, waits for `wanted` among its descendants, sends `signal` to the run
/// alone (not its group: a `kill PID` from a supervisor), and checks the exit code, the
/// stderr line and that nothing it started survives.
fn interrupt(args: &[&str], wanted: &[&str], signal: Signal) {
    let (mut run, _tmp) = start_run(args);
    let snap = snapshot_when(&mut run, wanted);
    kill(Pid::from_raw(run.id() as i32), signal).unwrap();
    let status = wait_with_deadline(&mut run, Duration::from_secs(10));
    let mut stderr = String::new();
    let _ = run.stderr.take().unwrap().read_to_string(&mut stderr);
    let what = format!("run {args:?} after {signal}");
    assert_all_gone(&snap, &what);
    assert_eq!(
        status.code(),
        Some(128 + signal as i32),
        "{what}: {status} (signal {:?}); stderr: {stderr}",
        status.signal()
    );
    assert!(
        stderr.contains(&format!("interrupted by {}", signal.as_str())),
        "{what}: stderr says nothing of the interruption: {stderr}"
    );
}

#[test]
fn sigterm_mid_section_2_on_the_reference_driver_leaves_nothing() {
    interrupt(
        &["run", "--port", "reference", "--section", "2"],
        &["driver", "mock mcp --transport stdio"],
        Signal::SIGTERM,
    );
}

#[test]
fn sigint_mid_section_7a_on_the_reference_driver_leaves_nothing() {
    interrupt(
        &["run", "--port", "reference", "--section", "7A"],
        &["driver", "a2a --scenario"],
        Signal::SIGINT,
    );
}

#[test]
fn sighup_mid_section_2_in_process_leaves_nothing() {
    interrupt(
        &["run", "--section", "2"],
        &["mock mcp --transport stdio"],
        Signal::SIGHUP,
    );
}

#[test]
fn every_signal_stops_a_hung_driver_and_its_background_children() {
    for signal in [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP] {
        interrupt(
            &[
                "run",
                "--port",
                "tests/drivers/hello-then-hang.sh",
                "--section",
                "7A",
                "--timeout-ms",
                "60000",
            ],
            &["sleep 301", "sleep 302", "sleep 1000", "a2a --scenario"],
            signal,
        );
    }
}

/// SIGKILL cannot be caught: the mocks must notice on their own that their parent is gone.
fn mocks_die_with_a_killed_run(args: &[&str], mock: &str) {
    let (mut run, _tmp) = start_run(args);
    let snap = snapshot_when(&mut run, &[mock]);
    let mocks = Snapshot {
        pids: snap
            .pids
            .into_iter()
            .filter(|(_, cmd)| cmd.contains(" mock "))
            .collect(),
        groups: BTreeSet::new(),
    };
    run.kill().unwrap();
    let _ = run.wait();
    assert_all_gone(&mocks, &format!("mocks of {args:?} after SIGKILL"));
}

#[test]
fn an_llm_mock_exits_when_the_run_that_started_it_is_killed() {
    mocks_die_with_a_killed_run(&["run", "--section", "8"], "llm --scenario");
}

#[test]
fn a2a_and_http_mcp_mocks_exit_when_the_run_that_started_them_is_killed() {
    mocks_die_with_a_killed_run(&["run", "--section", "7A"], "a2a --scenario");
    mocks_die_with_a_killed_run(&["run", "--section", "2"], "--transport http");
}

/// A driver killed with SIGKILL (it cannot clean up) still takes its MCP server's whole
/// process group with it: the reference driver's watchdog
/// (`toolnexus_process_group::watchdog`), in a group of its own, sees the driver's end of its
/// pipe close and kills every group still listed.
#[test]
fn an_mcp_server_dies_with_its_sigkilled_reference_driver() {
    use std::io::{BufRead as _, BufReader, Write as _};
    // As `run` does: orphans below us come back to us instead of init, so we can see them.
    nix::sys::prctl::set_child_subreaper(true).unwrap();
    let mut driver = Command::new(BIN)
        .arg("driver")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = driver.stdin.take().unwrap();
    let mut stdout = BufReader::new(driver.stdout.take().unwrap());
    let server = format!(
        "sleep 303 & {BIN} mock mcp --transport stdio --scenario mock-servers/scenarios/basic.json; sleep 304"
    );
    let config = serde_json::json!({"mcpServers": {"m": {"command": ["sh", "-c", server]}}});
    let build = serde_json::json!({"cmd": "build", "id": "tk1", "seq": 1,
        "options": {"builtins": false, "mcpConfig": config}});
    for line in [
        r#"{"cmd":"hello","protocol":1,"seq":0}"#.to_string(),
        build.to_string(),
    ] {
        writeln!(stdin, "{line}").unwrap();
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        assert!(answer.contains("\"ok\":true"), "{answer}");
    }
    // The server is the `sh`: after its stdin closes it goes on (`sleep 304`), as a server
    // that ignores EOF would; only the watchdog stops it.
    let below = descendants(driver.id() as i32);
    let mcp: Vec<i32> = below
        .iter()
        .filter(|p| {
            p.ppid == driver.id() as i32
                && p.cmdline.starts_with("sh ")
                && !p.cmdline.contains("toolnexus-watchdog")
        })
        .map(|p| p.pid)
        .collect();
    assert_eq!(mcp.len(), 1, "{below:?}");
    driver.kill().unwrap();
    let _ = driver.wait();
    let server_only = Snapshot {
        pids: mcp.iter().map(|p| (*p, String::new())).collect(),
        groups: BTreeSet::new(),
    };
    assert_all_gone(&server_only, "the MCP server of a SIGKILLed driver");
    // Its `sleep 303`, in the server's group, went with it; and the watchdog, its work
    // done, is gone too. Both would have been orphaned to us (the subreaper).
    let mut left: Vec<Proc> = Vec::new();
    for _ in 0..100 {
        left = descendants(std::process::id() as i32)
            .into_iter()
            .filter(|p| p.cmdline.contains("sleep 303") || p.cmdline.contains("toolnexus-watchdog"))
            .collect();
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for p in &left {
        let _ = kill(Pid::from_raw(p.pid), Signal::SIGKILL);
    }
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// SIGKILL of `run` cannot be caught, and a driver that ignores the end of its stdin would
/// outlive it, re-parented to init with its `sleep 305 &`. The run lists each driver's group
/// with the same watchdog as the reference's MCP servers (`toolnexus_process_group::watchdog`),
/// which kills the group when the run's end of its pipe closes, then exits itself.
#[test]
fn a_driver_that_ignores_eof_dies_with_its_sigkilled_run() {
    // As `run` does: orphans below us come back to us instead of init, so the check by
    // parent still sees them (and the failure path can kill them).
    nix::sys::prctl::set_child_subreaper(true).unwrap();
    // Two workers: two drivers, so the watchdog has more than one group to kill.
    let (mut run, _tmp) = start_run(&[
        "run",
        "--port",
        "tests/drivers/hello-then-ignore-eof.sh",
        "--section",
        "1",
        "--jobs",
        "2",
        "--timeout-ms",
        "60000",
    ]);
    // `sleep 1006` starts once a driver has read a scenario's first request: mid-scenario.
    let snap = snapshot_when(&mut run, &["sleep 305", "sleep 1006"]);
    let run_pid = run.id() as i32;
    let below = descendants(run_pid);
    run.kill().unwrap();
    let _ = run.wait();
    // Every process of the snapshot (the drivers, their children, the watchdog: the run's
    // children and theirs) and every process of their groups, the drivers' included.
    assert_all_gone(
        &snap,
        "what a SIGKILLed run started, its EOF-ignoring drivers included",
    );
    // What was killed was what this test means: the run's drivers, each leading a group that
    // holds its children.
    let drivers: BTreeSet<i32> = below
        .iter()
        .filter(|p| p.ppid == run_pid && p.cmdline.contains("hello-then-ignore-eof"))
        .map(|p| p.pid)
        .collect();
    let sleeps: Vec<&Proc> = below
        .iter()
        .filter(|p| p.cmdline.starts_with("sleep "))
        .collect();
    assert!(
        !drivers.is_empty()
            && !sleeps.is_empty()
            && sleeps.iter().all(|p| drivers.contains(&p.pgid)),
        "the drivers' children are not in the drivers' groups: {below:#?}"
    );
}
