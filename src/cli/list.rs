//! `list`: the selected scenarios with their sections, SPEC bounds and tags.

use std::path::Path;
use std::process::ExitCode;

use super::{fail, selected, Filter};

/// The arguments of `list`.
#[derive(clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    filter: Filter,
}

/// Prints one line per selected scenario, then their count.
pub fn run(root: &Path, args: ListArgs) -> ExitCode {
    match selected(root, &args.filter) {
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
