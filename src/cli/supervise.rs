//! Commands that start drivers or mocks run supervised, so nothing they started outlives
//! them, whatever ends them.

use std::process::ExitCode;
use std::time::Duration;

use toolnexus_ports::children;

/// How long an interrupted command waits for its drivers and mocks to exit after SIGTERM
/// before it SIGKILLs them (the reference's bash grace, NOTES #160).
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Runs a command that starts drivers or mocks so that nothing it started outlives it: on
/// SIGINT, SIGTERM or SIGHUP it stops them all and exits 128+signal (the shell's convention);
/// on every other exit path it sweeps whatever is left among its descendants.
pub async fn supervised(work: impl std::future::Future<Output = ExitCode>) -> ExitCode {
    use tokio::signal::unix::{signal, SignalKind};
    children::become_subreaper();
    let mut work = Box::pin(work);
    let watched = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    );
    let code = match watched {
        (Ok(mut int), Ok(mut term), Ok(mut hup)) => {
            let (name, code) = tokio::select! {
                code = &mut work => {
                    children::kill_descendants();
                    return code;
                }
                _ = int.recv() => ("SIGINT", 130),
                _ = term.recv() => ("SIGTERM", 143),
                _ = hup.recv() => ("SIGHUP", 129),
            };
            eprintln!(
                "interrupted by {name}: stopping the drivers and mock servers this run started"
            );
            let stopped = children::stop_all(STOP_GRACE).await;
            // Whatever the command still held (an in-process MCP server, a bash call) goes
            // with it, then the sweep below takes any straggler.
            drop(work);
            eprintln!("interrupted by {name}: stopped {stopped} driver(s) or mock server(s); no report written");
            ExitCode::from(code)
        }
        _ => {
            eprintln!("warning: cannot watch SIGINT/SIGTERM/SIGHUP; an interrupted run may leave processes behind");
            work.await
        }
    };
    children::kill_descendants();
    code
}
