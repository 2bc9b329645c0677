//! `list`: the selected scenarios with their sections, SPEC bounds and tags.

use std::process::ExitCode;

use super::workspace::Workspace;
use super::{fail, selected, Filter};

/// The arguments of `list`.
#[derive(clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    filter: Filter,
}

/// Prints one line per selected scenario, then their count.
pub fn run(ws: &Workspace, args: ListArgs) -> ExitCode {
    match selected(ws, &args.filter) {
        Ok(list) => {
            for s in &list {
                println!(
                    "[{}] {}  ({})  @{}",
                    s.section,
                    s.id,
                    s.bounds.describe(),
                    s.tags.join(" @")
                );
            }
            println!("{} scenarios", list.len());
            ExitCode::SUCCESS
        }
        Err(e) => fail(&e),
    }
}
