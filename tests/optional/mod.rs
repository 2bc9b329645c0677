//! Optional peers of the test suite (a browser, Node.js/npm, Python with venv): a test that
//! needs one skips, saying so and how to enable it, when it is missing, unless CI requires it
//! (`.ci/run` sets `TOOLNEXUS_REQUIRE_BROWSER=1` and `TOOLNEXUS_REQUIRE_PEERS=1`), so plain
//! `cargo test` passes on a fresh machine with only Rust.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Set by `.ci/run`: a missing browser fails tests/html_report.rs.
pub const REQUIRE_BROWSER: &str = "TOOLNEXUS_REQUIRE_BROWSER";
/// Set by `.ci/run`: missing node/npm or python3 (venv) fails the peer and SDK tests.
pub const REQUIRE_PEERS: &str = "TOOLNEXUS_REQUIRE_PEERS";

/// `name` as an executable file on `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A Chromium/Chrome: `$CHROME` when set (it must exist), else the first of the usual names
/// on `PATH`.
pub fn browser() -> Option<PathBuf> {
    if let Some(c) = std::env::var_os("CHROME").filter(|c| !c.is_empty()) {
        let c = PathBuf::from(c);
        return if c.components().count() > 1 {
            is_executable(&c).then_some(c)
        } else {
            on_path(&c.to_string_lossy())
        };
    }
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
        "chrome",
    ]
    .iter()
    .find_map(|n| on_path(n))
}

/// Whether `var` asks for the peers to be present (`1`).
pub fn required(var: &str) -> bool {
    std::env::var(var).as_deref() == Ok("1")
}

/// A peer is missing: fails when `var` requires it, else prints that the check was skipped
/// and how to enable it (the caller then returns).
pub fn skip_or_fail(var: &str, missing: &str, enable: &str) {
    let text = format!("{missing}; {enable}");
    if required(var) {
        panic!("{var}=1 requires it: {text}");
    }
    // Written to the process's stderr, not through `eprintln!`, which the test harness
    // captures for a passing test: the skip must show in a plain `cargo test`.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {text} (set {var}=1 to make this a failure, as .ci/run does)"
    );
}

/// `tools` all on `PATH`; otherwise skip (or fail under `var`) naming the missing ones.
pub fn have_tools(var: &str, tools: &[&str], what: &str) -> bool {
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| on_path(t).is_none())
        .collect();
    if missing.is_empty() {
        return true;
    }
    skip_or_fail(
        var,
        &format!("{} not on PATH, so {what} did not run", missing.join(", ")),
        &format!("install {} to run it", tools.join(" and ")),
    );
    false
}

/// python3 on `PATH` with the `venv` and `ensurepip` modules (Debian ships them apart, as
/// python3-venv); otherwise skip (or fail under `var`).
pub fn have_python_venv(var: &str, what: &str) -> bool {
    if !have_tools(var, &["python3"], what) {
        return false;
    }
    let ok = std::process::Command::new("python3")
        .args(["-c", "import venv, ensurepip"])
        .stdin(std::process::Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip_or_fail(
            var,
            &format!("python3 lacks the venv/ensurepip modules, so {what} did not run"),
            "install python3-venv to run it",
        );
    }
    ok
}
