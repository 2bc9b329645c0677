//! `setup`: prepare registered ports and releases (venvs, driver builds), or list them.

use std::process::ExitCode;

use toolnexus_ports::registry;

use super::workspace::Workspace;
use super::{ensure_set_up, fail, this_binary};

/// The arguments of `setup`.
#[derive(clap::Args)]
pub struct SetupArgs {
    /// Port names from conformance/ports.json, or releases `python@VERSION`,
    /// `rust-crate@VERSION`.
    ports: Vec<String>,
    /// List the registered ports instead.
    #[arg(long)]
    list: bool,
}

/// Runs each named port's setup command, or lists the ports when none is named.
pub fn run(ws: &Workspace, args: SetupArgs) -> ExitCode {
    let root = ws.root();
    let SetupArgs { ports, list } = args;
    let registry = match ws.registry() {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    if list || ports.is_empty() {
        for name in registry.names() {
            if let Some(entry) = registry.get(&name) {
                println!("{name:<12} {:<8} {}", entry.language, entry.description);
            }
        }
        println!("python@VERSION    any PyPI release of toolnexus (venv under target/ports/)");
        println!(
            "rust-crate@VERSION any crates.io release of toolnexus (built under target/ports/)"
        );
        return ExitCode::SUCCESS;
    }
    for name in &ports {
        if let Err(e) = ensure_set_up(root, name, None) {
            return fail(&e);
        }
        let resolved = registry.resolve(name, root, &this_binary());
        if !registry.knows(name) {
            return fail(&format!(
                "no port \"{name}\" in conformance/ports.json (known: {}; or a release: {})",
                registry.names().join(", "),
                registry::RELEASE_FAMILIES
                    .map(|f| format!("{f}@VERSION"))
                    .join(", ")
            ));
        }
        let Some(setup) = &resolved.setup else {
            println!("{name}: nothing to set up");
            continue;
        };
        println!("{name}: {setup}");
        if let Err(e) = registry::run_setup(root, name, setup, None) {
            return fail(&e);
        }
    }
    ExitCode::SUCCESS
}
