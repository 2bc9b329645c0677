//! `schema`: the protocol's JSON Schema, generated from the protocol crate's types
//! (`toolnexus_protocol::schema`); `--check` compares it with the checked-in file.

use super::workspace::Workspace;
use std::process::ExitCode;

use toolnexus_protocol::schema;

use super::fail;

/// The arguments of `schema`.
#[derive(clap::Args)]
pub struct SchemaArgs {
    /// Instead of printing, compare with conformance/protocol.schema.json: exit 0 when equal,
    /// 1 when it is stale.
    #[arg(long)]
    check: bool,
}

/// Prints the generated schema (regenerate with `schema > conformance/protocol.schema.json`),
/// or with `--check` says whether the checked-in file is current.
pub fn run(ws: &Workspace, args: SchemaArgs) -> ExitCode {
    let root = ws.root();
    let generated = schema::generate_text();
    if !args.check {
        print!("{generated}");
        return ExitCode::SUCCESS;
    }
    let path = root.join("conformance").join("protocol.schema.json");
    match std::fs::read_to_string(&path) {
        Err(e) => fail(&format!("cannot read {}: {e}", path.display())),
        Ok(text) if text == generated => {
            println!("{}: current", path.display());
            ExitCode::SUCCESS
        }
        Ok(_) => {
            println!(
                "{} differs from the schema the protocol types generate; regenerate it: {}",
                path.display(),
                schema::REGENERATE
            );
            ExitCode::from(1)
        }
    }
}
