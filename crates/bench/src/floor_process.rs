//! The floor processes the bench starts (`<this binary> floor …`, the `toolnexus-floor`
//! crate): a served toolkit is a server the harness reaches over loopback TCP, and a port's MCP
//! call crosses its driver's pipes before it reaches the MCP server. Measured in the harness
//! process, such a floor skips those hops; on a machine where waking another process costs
//! more than the work (a virtual machine whose idle vCPUs halt), that leaves the floor far
//! below anything a port can reach. Each ends when its stdin (held here) closes.
//!
//! The HTTP floors print their URL and are started like the mock servers
//! (`mock_launch::floor_http`); the minimal driver's pipes carry the protocol, so it is
//! started here.

use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

/// How long a floor process may take to print its first line.
const START_BOUND: std::time::Duration = std::time::Duration::from_secs(30);

/// A floor process the bench started (`<this binary> floor …`): killed when dropped, and
/// ending by itself when the harness goes (its stdin closes).
pub(crate) struct FloorChild {
    child: tokio::process::Child,
    /// Held open: its end is the process's signal to stop.
    pub(crate) stdin: tokio::process::ChildStdin,
    /// Past the first line.
    pub(crate) stdout: BufReader<tokio::process::ChildStdout>,
    /// The first line it printed (`ready`).
    pub(crate) first_line: String,
}

impl FloorChild {
    /// Starts `<exe> floor <args>` and waits for its first line.
    pub(crate) async fn start(
        opts: &crate::options::BenchOptions,
        args: &[String],
    ) -> Result<Self, String> {
        let exe = crate::agent_loop::mock_exe(opts)?;
        let mut child = tokio::process::Command::new(&exe)
            .arg("floor")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {} floor: {e}", exe.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("the floor process has no pipes".into());
        };
        let mut stdout = BufReader::new(stdout);
        let mut first = String::new();
        let read =
            tokio::time::timeout(START_BOUND, (&mut stdout).take(4096).read_line(&mut first)).await;
        match read {
            Ok(Ok(n)) if n > 0 && first.ends_with('\n') => {}
            Ok(Ok(_)) => return Err("the floor process exited before its first line".into()),
            Ok(Err(e)) => return Err(format!("reading the floor process: {e}")),
            Err(_) => {
                return Err(format!(
                    "the floor process printed nothing within {START_BOUND:?}"
                ))
            }
        }
        Ok(Self {
            child,
            stdin,
            stdout,
            first_line: first.trim_end().to_string(),
        })
    }
}

impl Drop for FloorChild {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}
