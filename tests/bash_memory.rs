//! The reference driver's memory stays bounded while `bash` runs a command that never stops
//! writing (`yes`): what it keeps of the output is capped (head and tail), so resident memory
//! does not grow with the output. Before the cap, `yes` under a 2 s timeout took 4.2 GB.
//!
//! The command runs under a 3 s timeout (plus the 2 s SIGTERM grace, which `yes` does not
//! need): at the pipe's speed that is several GB of output, so a driver that kept it all would
//! cross the 200 MB line within the first second. The sampler kills the driver as soon as it
//! does, so a regression fails fast instead of exhausting the machine.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

/// The acceptance line: the driver stays under this much resident memory.
const LIMIT_KB: u64 = 200 * 1024;

/// `VmRSS` and `VmHWM` of `pid` in kB, or `None` once the process is gone.
fn rss_kb(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|n| n.parse::<u64>().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

#[test]
fn bash_yes_keeps_the_driver_under_200_mb() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolnexus-conformance"))
        .arg("driver")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |request: Value| -> Value {
        writeln!(stdin, "{request}").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:.200}"))
    };
    assert_eq!(
        ask(json!({"cmd": "hello", "protocol": 1, "seq": 0}))["ok"],
        true
    );
    let built = ask(json!({"cmd": "build", "id": "tk1", "options": {}, "seq": 1}));
    assert_eq!(built["ok"], true, "{built}");

    let peak = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (Arc::clone(&peak), Arc::clone(&done));
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                let Some((rss, hwm)) = rss_kb(pid) else { break };
                peak.fetch_max(rss.max(hwm), Ordering::SeqCst);
                if rss.max(hwm) > LIMIT_KB {
                    // Over the line: stop it before it takes the machine down with it.
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid as i32),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let request = json!({"cmd": "execute", "toolkit": "tk1", "name": "bash",
        "args": {"command": "yes", "timeout": 3000}, "seq": 2});
    writeln!(stdin, "{request}").unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    let _ = stdout.read_line(&mut line);
    done.store(true, Ordering::SeqCst);
    sampler.join().unwrap();
    let peak_kb = peak.load(Ordering::SeqCst);
    let _ = child.kill();
    let _ = child.wait();
    eprintln!("driver peak resident memory: {peak_kb} kB");
    assert!(
        peak_kb <= LIMIT_KB,
        "driver reached {peak_kb} kB resident (limit {LIMIT_KB} kB)"
    );

    let answer: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:.200}"));
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer:.300}");
    assert_eq!(result["metadata"]["timedOut"], true);
    let output = result["output"].as_str().unwrap();
    assert!(
        output.starts_with("bash: command timed out after 3000ms\ny\ny\n"),
        "{output:.200}"
    );
    // What is kept is bounded, and the cut says how much was left out.
    assert!(output.len() < 1024 * 1024, "{} bytes kept", output.len());
    assert!(output.contains("bytes of output omitted"), "{output:.200}");
}
