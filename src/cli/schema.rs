//! `schema`: the protocol's JSON Schema, generated from the protocol crate's types
//! (`toolnexus_protocol::schema`), and the driver kits' types generated from it
//! (`toolnexus_kitgen`); `--check` compares both with the checked-in files.

use super::workspace::Workspace;
use std::path::Path;
use std::process::ExitCode;

use toolnexus_kitgen::{GeneratedFile, Language};
use toolnexus_protocol::schema;

use super::fail;

/// The arguments of `schema`.
#[derive(clap::Args)]
pub struct SchemaArgs {
    /// Instead of printing, compare conformance/protocol.schema.json and every kit's generated
    /// types with what the protocol types generate: exit 0 when all are current, 1 when one is
    /// stale.
    #[arg(long)]
    check: bool,
    /// Print a driver kit's generated types instead of the schema: go, java, ts, python, or
    /// `all` (with --write only).
    #[arg(long, value_name = "LANG")]
    kit: Option<String>,
    /// With --kit: write the generated files into the checkout instead of printing them.
    #[arg(long, requires = "kit")]
    write: bool,
}

/// Prints the generated schema (regenerate with `schema > conformance/protocol.schema.json`) or
/// a kit's types, writes the kits' files, or with `--check` says whether all are current.
pub fn run(ws: &Workspace, args: SchemaArgs) -> ExitCode {
    let root = ws.root();
    if args.check {
        return check(root);
    }
    let Some(kit) = args.kit else {
        print!("{}", schema::generate_text());
        return ExitCode::SUCCESS;
    };
    let languages = if kit == "all" {
        Language::ALL.to_vec()
    } else {
        match Language::parse(&kit) {
            Some(l) => vec![l],
            None => return fail(&format!("unknown kit {kit:?}: go, java, ts, python or all")),
        }
    };
    if kit == "all" && !args.write {
        return fail("`--kit all` writes files: add --write");
    }
    let files = match kit_files(&languages) {
        Ok(f) => f,
        Err(e) => return fail(&e),
    };
    for file in files {
        if args.write {
            let path = root.join(file.path);
            if let Err(e) = write_file(&path, &file.text) {
                return fail(&format!("cannot write {}: {e}", path.display()));
            }
            println!("wrote {}", file.path);
        } else {
            print!("{}", file.text);
        }
    }
    ExitCode::SUCCESS
}

/// Every generated file of these kits, from the schema the protocol types generate.
fn kit_files(languages: &[Language]) -> Result<Vec<GeneratedFile>, String> {
    toolnexus_kitgen::generate(
        &schema::generate(),
        toolnexus_protocol::PROTOCOL_VERSION,
        languages,
    )
    .map_err(|e| e.to_string())
}

fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

fn check(root: &Path) -> ExitCode {
    let mut stale = Vec::new();
    let path = root.join("conformance").join("protocol.schema.json");
    match std::fs::read_to_string(&path) {
        Err(e) => return fail(&format!("cannot read {}: {e}", path.display())),
        Ok(text) if text == schema::generate_text() => {}
        Ok(_) => stale.push(format!(
            "{} differs from the schema the protocol types generate; regenerate it: {}",
            path.display(),
            schema::REGENERATE
        )),
    }
    let files = match kit_files(&Language::ALL) {
        Ok(f) => f,
        Err(e) => return fail(&e),
    };
    for file in files {
        let path = root.join(file.path);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(file.text.as_str()) {
            stale.push(format!(
                "{} is missing or differs from the generated kit types; regenerate them: {}",
                path.display(),
                toolnexus_kitgen::REGENERATE
            ));
        }
    }
    if stale.is_empty() {
        println!("{} and the kits' generated types: current", path.display());
        return ExitCode::SUCCESS;
    }
    for line in stale {
        println!("{line}");
    }
    ExitCode::from(1)
}
