//! The `sleeper`: a long-lived child left in the mock's process group, so a client's
//! "close kills the whole process tree" can be checked by pid.

use std::process::{Command, Stdio};

use super::scenario::Sleeper;

/// Starts `sleep 300` and writes its pid to the file named by the scenario's env var.
pub fn start(sleeper: &Sleeper) -> Result<(), String> {
    let var = &sleeper.pid_file_env;
    let path = std::env::var_os(var)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| format!("sleeper: environment variable {var} is not set"))?;
    // Null stdio: an inherited stdout would keep the client's pipe open after the mock
    // dies, turning a missed kill into a hang instead of a failed pid check.
    let child = Command::new("sleep")
        .arg("300")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("sleeper: cannot start sleep: {e}"))?;
    std::fs::write(&path, child.id().to_string()).map_err(|e| {
        format!(
            "sleeper: cannot write pid file {}: {e}",
            std::path::Path::new(&path).display()
        )
    })
    // The Child is dropped without waiting or killing: the sleep must outlive this
    // function and is only ever ended by whoever kills the tree.
}
