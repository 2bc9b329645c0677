//! Starts the mock servers a scenario asks for (as child processes of the harness, the way
//! any port's own tests would) and stops them when the scenario ends.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

use crate::children;
use crate::secret;

/// How long a mock server may take to print its URL.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// The environment variable whose value `secured.json` expects as the `authorization` header.
pub const EXPECTED_AUTH_VAR: &str = "MOCK_EXPECTED_AUTH";

/// The mock LLM's variable holding the expected `x-api-key`: the value the harness put in
/// `ANTHROPIC_API_KEY` ([`secret::client_key`]).
pub const LLM_API_KEY_VAR: &str = "MOCK_LLM_API_KEY";

/// The mock LLM's variable holding the expected `authorization`: `Bearer ` and the value the
/// harness put in `OPENAI_API_KEY` (the secret).
pub const LLM_BEARER_VAR: &str = "MOCK_LLM_BEARER";

/// Asks a mock to exit when its stdin closes: the harness keeps the only write end, which
/// the kernel closes however the harness ends, SIGKILL included (NOTES #162).
pub const UNTIL_STDIN_CLOSES: &str = "--until-stdin-closes";

/// A running HTTP-mode mock (or one of the bench's HTTP floors); killed on drop.
#[derive(Debug)]
pub struct RunningMock {
    /// Its endpoint, from its first stdout line.
    pub url: String,
    _child: Child,
    /// The write end of its stdin: closing it (drop, or this process's death) stops it.
    _stdin: Option<ChildStdin>,
    _lease: Option<children::Lease>,
}

/// Starts `BIN mock mcp --transport http --scenario FILE` and waits for its URL.
pub async fn mcp_http(bin: &Path, scenario: &Path) -> Result<RunningMock, String> {
    start(
        bin,
        &["mcp", "--transport", "http"],
        "--scenario",
        scenario,
        "MCP server",
    )
    .await
}

/// Starts `BIN mock a2a --scenario FILE` (an A2A agent) and waits for its base URL.
pub async fn a2a(bin: &Path, scenario: &Path) -> Result<RunningMock, String> {
    start(bin, &["a2a"], "--scenario", scenario, "A2A agent").await
}

/// Starts `BIN mock llm --scenario FILE` (a scripted model provider) and waits for its base
/// URL. Its `requireHeadersFromEnv` can name `MOCK_LLM_API_KEY` (the `ANTHROPIC_API_KEY`
/// value) and `MOCK_LLM_BEARER` (`Bearer ` + the `OPENAI_API_KEY` value): the keys a client
/// reads from the environment, one per variable.
pub async fn llm(bin: &Path, scenario: &Path) -> Result<RunningMock, String> {
    start(bin, &["llm"], "--scenario", scenario, "LLM").await
}

/// Starts `BIN mock llm --fixture FILE`: the mock plays a shared agent fixture's `mockLLM`
/// scripts (converted by the mock; a fixture it cannot convert fails naming why).
pub async fn llm_fixture(bin: &Path, fixture: &Path) -> Result<RunningMock, String> {
    start(bin, &["llm"], "--fixture", fixture, "LLM").await
}

/// Starts `BIN mock ARGS… --scenario FILE` and reads the URL on its first stdout line.
///
/// The mock learns the expected `authorization` value (`Bearer <secret>`) from its own
/// environment, so the secret never appears in a scenario file or on a command line.
async fn start(
    bin: &Path,
    args: &[&str],
    flag: &str,
    scenario: &Path,
    what: &str,
) -> Result<RunningMock, String> {
    let mut cmd = Command::new(bin);
    cmd.arg("mock")
        .arg(UNTIL_STDIN_CLOSES)
        .args(args)
        .arg(flag)
        .arg(scenario);
    if let Some(s) = secret::current() {
        cmd.env(EXPECTED_AUTH_VAR, format!("Bearer {s}"));
        cmd.env(LLM_API_KEY_VAR, secret::client_key("ANTHROPIC_API_KEY", &s));
        cmd.env(
            LLM_BEARER_VAR,
            format!("Bearer {}", secret::client_key("OPENAI_API_KEY", &s)),
        );
    }
    announced(cmd, bin, &format!("mock {what}")).await
}

/// Starts `BIN floor KIND`, one of the bench's HTTP floors (`canned-http`, `rmcp-http`),
/// which ends when its stdin closes, and reads the URL on its first stdout line.
pub async fn floor_http(bin: &Path, kind: &str) -> Result<RunningMock, String> {
    let mut cmd = Command::new(bin);
    cmd.arg("floor").arg(kind);
    announced(cmd, bin, &format!("{kind} floor")).await
}

/// Spawns `cmd` (stdin held, so its end stops the child; stdout read for the URL; stderr
/// quoted when the start fails, drained after), registered to die with the harness, and
/// waits for the `http://` URL on its first stdout line. `what` names it in messages.
async fn announced(mut cmd: Command, bin: &Path, what: &str) -> Result<RunningMock, String> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the {what} {}: {e}", bin.display()))?;
    let lease = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .map(children::register_process);
    let stdin = child.stdin.take();
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| format!("the {what} has no stdout"))?;
    let stderr = child.stderr.take();
    let mut first = String::new();
    let mut reader = BufReader::new(stdout);
    let read = tokio::time::timeout(START_TIMEOUT, reader.read_line(&mut first)).await;
    match read {
        Ok(Ok(n)) if n > 0 && first.trim().starts_with("http://") => {
            if let Some(mut err) = stderr {
                // Drained, so a chatty mock never blocks on a full pipe.
                tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut err, &mut tokio::io::sink()).await;
                });
            }
            Ok(RunningMock {
                url: first.trim().to_string(),
                _child: child,
                _stdin: stdin,
                _lease: lease,
            })
        }
        Ok(Ok(_)) => Err(format!(
            "the {what}'s first line is not a URL: {:?}{}",
            first.trim(),
            why(stderr).await
        )),
        Ok(Err(e)) => Err(format!("cannot read the {what}'s URL: {e}")),
        Err(_) => Err(format!(
            "the {what} printed no URL within {} s",
            START_TIMEOUT.as_secs()
        )),
    }
}

/// What a mock that failed to start said on stderr (bounded), as a message suffix.
async fn why(stderr: Option<tokio::process::ChildStderr>) -> String {
    use tokio::io::AsyncReadExt;
    let Some(err) = stderr else {
        return String::new();
    };
    let mut buf = Vec::new();
    let mut bounded = err.take(4096);
    let _ = tokio::time::timeout(Duration::from_secs(2), bounded.read_to_end(&mut buf)).await;
    let text = String::from_utf8_lossy(&buf).trim().to_string();
    if text.is_empty() {
        String::new()
    } else {
        format!("; it said: {text}")
    }
}
