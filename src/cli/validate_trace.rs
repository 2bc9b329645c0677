//! `validate-trace FILE`: a `run --trace` file checked by `crate::validate_trace`.

use super::workspace::Workspace;
use std::path::PathBuf;
use std::process::ExitCode;

use super::fail;

/// The arguments of `validate-trace`.
#[derive(clap::Args)]
pub struct ValidateTraceArgs {
    /// The trace file (JSON lines).
    file: PathBuf,
}

/// One line per problem on stdout; 2 when the trace or schema is unreadable.
pub fn run(ws: &Workspace, args: ValidateTraceArgs) -> ExitCode {
    let root = ws.root();
    let file = &args.file;
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return fail(&format!("cannot read {}: {e}", file.display())),
    };
    let schema = root.join("conformance").join("protocol.schema.json");
    match crate::validate_trace::problems(&schema, &text) {
        Err(e) => fail(&e),
        Ok(problems) if problems.is_empty() => {
            println!("{}: valid", file.display());
            ExitCode::SUCCESS
        }
        Ok(problems) => {
            for p in &problems {
                println!("{p}");
            }
            println!("{} problem(s)", problems.len());
            ExitCode::from(1)
        }
    }
}
