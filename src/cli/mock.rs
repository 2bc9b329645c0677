//! `mock`: a scripted MCP, A2A or LLM server for tests (any port's); see
//! mock-servers/README.md.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use toolnexus_mock_servers::{a2a, llm, mcp};

use super::fail;
use super::suite::Suite;

/// The arguments of `mock`.
#[derive(clap::Args)]
pub struct MockArgs {
    /// Exit when stdin closes (its writer, the process that started it, is gone): how
    /// the harness makes its mocks die with it, SIGKILL included.
    #[arg(long)]
    until_stdin_closes: bool,
    #[command(subcommand)]
    server: MockServer,
}

/// Which mock server to run.
#[derive(clap::Subcommand)]
enum MockServer {
    /// A scripted MCP server over stdio or streamable HTTP.
    Mcp {
        /// stdio, or http (prints `http://127.0.0.1:<port>/mcp` as its first line).
        #[arg(long, value_enum)]
        transport: mcp::Transport,
        /// The scenario JSON file.
        #[arg(long)]
        scenario: PathBuf,
    },
    /// A scripted A2A agent over JSON-RPC/HTTP (prints `http://127.0.0.1:<port>` first).
    A2a {
        /// The scenario JSON file.
        #[arg(long)]
        scenario: PathBuf,
    },
    /// A scripted LLM, OpenAI and Anthropic wires over HTTP (prints `http://127.0.0.1:<port>` first).
    Llm {
        /// The scenario JSON file.
        #[arg(long, required_unless_present = "fixture", conflicts_with = "fixture")]
        scenario: Option<PathBuf>,
        /// A shared agent fixture (`examples/subagent-*/fixture.json`, ...): its `mockLLM`
        /// block, `$ref`s resolved, converted to a scenario (mock-servers/README.md).
        #[arg(long)]
        fixture: Option<PathBuf>,
    },
}

impl MockArgs {
    /// Whether this server answers one request at a time (the LLM, a stdio MCP server), so
    /// a one-thread runtime serves it faster (see `main`).
    pub fn serves_one_at_a_time(&self) -> bool {
        matches!(
            self.server,
            MockServer::Llm { .. }
                | MockServer::Mcp {
                    transport: mcp::Transport::Stdio,
                    ..
                }
        )
    }
}

/// Watches stdin on a plain thread and exits the process at its EOF (or read error). A
/// thread rather than a task: a blocked tokio stdin read would hold the runtime's shutdown.
fn exit_when_stdin_closes() {
    std::thread::spawn(|| {
        let mut buf = [0u8; 512];
        let mut stdin = std::io::stdin();
        loop {
            match std::io::Read::read(&mut stdin, &mut buf) {
                Ok(0) => std::process::exit(0),
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => std::process::exit(0),
            }
        }
    });
}

/// Where the suite is, for a scenario file named relative to a checkout: `--root` and
/// `--embedded` as the other commands take them.
pub struct SuiteAt {
    /// `--root`.
    pub root: Option<PathBuf>,
    /// `--embedded`.
    pub embedded: bool,
    /// `--examples`: where `examples/…` is read instead of beside the suite.
    pub examples: Option<PathBuf>,
}

impl SuiteAt {
    /// `load` of `path` as given when it exists or is absolute; else of the same path in the
    /// suite's checkout, or beside it in `../shared/spec` (the README's
    /// `mock-servers/scenarios/…` and `examples/…`, the latter from `--examples` when given),
    /// so a port's tests that name them work with the binary alone. An embedded suite is
    /// written out only for the load and removed before the server starts (a mock ends by
    /// signal or by `exit`, past every destructor).
    fn load<T>(&self, path: &Path, load: impl Fn(&Path) -> Result<T, String>) -> Result<T, String> {
        if path.exists() || path.is_absolute() {
            return load(path);
        }
        let given = self.examples.as_ref().and_then(|dir| {
            let inside = path.strip_prefix("examples").ok()?;
            Some(dir.join(inside)).filter(|p| p.exists())
        });
        if let Some(found) = given {
            return load(&found);
        }
        let suite = Suite::locate(self.root.clone(), self.embedded)?;
        let candidates = [
            suite.root().join(path),
            suite.root().join("../shared/spec").join(path),
        ];
        match candidates.iter().find(|c| c.exists()) {
            Some(found) => load(found),
            None => load(path),
        }
    }
}

/// Runs the server until it ends. Errors go to stderr with the `mock-mcp:` / `mock-a2a:` /
/// `mock-llm:` prefix: in stdio mode stdout is the protocol, and over HTTP its first line is
/// the URL.
pub async fn run(args: MockArgs, suite: SuiteAt) -> ExitCode {
    if args.until_stdin_closes {
        exit_when_stdin_closes();
    }
    let (prefix, outcome) = match args.server {
        MockServer::Mcp {
            transport,
            scenario,
        } => match suite.load(&scenario, |p| mcp::load_scenario(p)) {
            Ok(s) => ("mock-mcp", mcp::run(transport, s).await),
            Err(e) => ("mock-mcp", Err(e)),
        },
        MockServer::A2a { scenario } => match suite.load(&scenario, |p| a2a::load_scenario(p)) {
            Ok(s) => ("mock-a2a", a2a::run(s).await),
            Err(e) => ("mock-a2a", Err(e)),
        },
        MockServer::Llm { scenario, fixture } => {
            let loaded = match (scenario, fixture) {
                (Some(path), _) => suite.load(&path, |p| llm::load_scenario(p)),
                (None, Some(path)) => suite.load(&path, |p| {
                    llm::from_fixture(p).and_then(|v| llm::parse_scenario(&v.to_string()))
                }),
                (None, None) => Err("give --scenario or --fixture".to_string()),
            };
            match loaded {
                Ok(s) => ("mock-llm", llm::run(s).await),
                Err(e) => ("mock-llm", Err(e)),
            }
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&format!("{prefix}: {e}")),
    }
}
