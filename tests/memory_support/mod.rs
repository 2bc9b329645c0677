//! What the memory tests share (`part_memory`, `classifier_memory`): the CLI under test, a
//! process reaped on every path out of a test, the mock LLM started on a scenario, a process's peak resident memory (`VmHWM`), the
//! bound on it as a multiple of the test's input, and a CLI run sampled for its peak.

#![allow(dead_code)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

/// The CLI binary this test crate was built with.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_toolnexus-conformance")
}

/// A process killed and reaped when dropped, on every path out of a test.
pub struct Reaped(pub Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `VmHWM` of `pid` in bytes: its peak resident memory so far.
pub fn peak_bytes(pid: u32) -> u64 {
    read_peak(pid).unwrap_or_else(|| panic!("no VmHWM for {pid}"))
}

/// `VmHWM` of `pid` in bytes, when it is still there to read (an exited process has none).
pub fn read_peak(pid: u32) -> Option<u64> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

/// Fails unless `peak` is under `bound` times `input`; `what` names the process.
pub fn assert_peak_under(what: &str, peak: u64, input: u64, bound: f64) {
    let times = peak as f64 / input as f64;
    assert!(
        times < bound,
        "{what} peak {times:.2}× the input (bound {bound}×)"
    );
}

/// What one CLI run printed, and its peak resident memory.
pub struct Run {
    /// The exit code.
    pub code: Option<i32>,
    /// Everything it wrote to stdout.
    pub stdout: String,
    /// Its sampled `VmHWM`, in bytes.
    pub peak: u64,
}

/// Runs the CLI with `args`, sampling its `VmHWM` until it exits (`VmHWM` only grows, so the
/// last sample misses at most the report's writing, which holds no payload).
pub fn run_cli(args: &[&str]) -> Run {
    let child = Command::new(bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut child = Reaped(child);
    let pid = child.0.id();
    let mut out = child.0.stdout.take().unwrap_or_else(|| panic!("stdout"));
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).map(|_| s)
    });
    let mut peak = 0;
    let code = loop {
        if let Some(status) = child.0.try_wait().unwrap_or_else(|e| panic!("{e}")) {
            break status.code();
        }
        if let Some(now) = read_peak(pid) {
            peak = peak.max(now);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let stdout = reader
        .join()
        .unwrap_or_else(|_| panic!("reader"))
        .unwrap_or_else(|e| panic!("{e}"));
    Run { code, stdout, peak }
}

/// `run` of the suite under `root` through the reference driver as a subprocess port, one
/// worker, a generous request timeout, in `format`, plus `extra` flags; sampled as [`run_cli`].
pub fn run_reference_suite(root: &std::path::Path, format: &str, extra: &[&str]) -> Run {
    let root = root.to_string_lossy();
    let port = format!("{} driver", bin());
    let mut args = vec![
        "--root",
        &root,
        "run",
        "--port",
        &port,
        "--jobs",
        "1",
        "--timeout-ms",
        "120000",
        "--format",
        format,
    ];
    args.extend_from_slice(extra);
    run_cli(&args)
}

/// [`run_reference_suite`] of the two-scenario fixture under `root` as JSON, traced to
/// `root/trace.jsonl`: the run and the trace's path, once the fixture's outcome is
/// checked (its SPEC scenario passed, its beyond-SPEC one failed on purpose: not a failed run).
pub fn traced_json_run(root: &Path) -> (Run, std::path::PathBuf) {
    let trace = root.join("trace.jsonl");
    let trace_arg = trace.to_string_lossy().into_owned();
    let run = run_reference_suite(root, "json", &["--trace", &trace_arg]);
    let report: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {:.2000}", run.stdout));
    assert_eq!(run.code, Some(0), "{report:.3000}");
    assert_eq!(report["summary"]["passed"], 1, "{report:.3000}");
    assert_eq!(
        report["summary"]["beyondSpec"]["failed"], 1,
        "{report:.3000}"
    );
    (run, trace)
}

/// `validate-trace` accepts the trace at `path`.
pub fn assert_valid_trace(path: &Path) {
    let checked = Command::new(bin())
        .arg("validate-trace")
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
}

/// The reference driver over its stdin/stdout, killed when dropped.
pub struct Driver {
    child: Reaped,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The next request's `seq`.
    pub seq: u64,
}

impl Driver {
    /// Starts `driver` and says hello.
    pub fn start() -> Driver {
        let mut child = Command::new(bin())
            .arg("driver")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        let stdin = child.stdin.take().unwrap_or_else(|| panic!("stdin"));
        let stdout = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("stdout")));
        let mut driver = Driver {
            child: Reaped(child),
            stdin,
            stdout,
            seq: 0,
        };
        let hello = driver.ask(json!({"cmd": "hello", "protocol": 1}));
        assert_eq!(hello["ok"], true, "{hello}");
        driver
    }

    /// The driver's process id.
    pub fn pid(&self) -> u32 {
        self.child.0.id()
    }

    /// Sends one request (its `seq` added) and parses its answer line.
    pub fn ask(&mut self, mut request: Value) -> Value {
        request["seq"] = json!(self.seq);
        self.seq += 1;
        let mut line = serde_json::to_vec(&request).unwrap_or_else(|e| panic!("{e}"));
        drop(request);
        line.push(b'\n');
        self.send_line(&line)
    }

    /// Writes one request line and parses its answer line.
    pub fn send_line(&mut self, line: &[u8]) -> Value {
        self.stdin.write_all(line).unwrap_or_else(|e| panic!("{e}"));
        self.stdin.flush().unwrap_or_else(|e| panic!("{e}"));
        let mut answer = String::new();
        self.stdout
            .read_line(&mut answer)
            .unwrap_or_else(|e| panic!("{e}"));
        serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer:.300}"))
    }
}

/// The mock LLM serving `scenario`, and its URL.
pub fn start_mock_llm(scenario: &Path) -> (Reaped, String) {
    let mut mock = Command::new(bin())
        .args(["mock", "llm", "--scenario"])
        .arg(scenario)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = mock.stdout.take().unwrap_or_else(|| panic!("stdout"));
    let mock = Reaped(mock);
    let mut url = String::new();
    BufReader::new(stdout)
        .read_line(&mut url)
        .unwrap_or_else(|e| panic!("{e}"));
    (mock, url.trim().to_string())
}
