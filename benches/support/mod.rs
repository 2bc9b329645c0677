//! What the benches share: the checkout and the CLI binary they start children from.

use std::path::{Path, PathBuf};

/// The CLI binary's file name.
pub const BIN: &str = "toolnexus-conformance";

/// The checkout (the root package's manifest directory).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The CLI binary: the one cargo built for this bench, else a built one under `target/`
/// (release first); `None` when there is neither.
pub fn built_binary() -> Option<PathBuf> {
    if let Some(bin) = option_env!("CARGO_BIN_EXE_toolnexus-conformance") {
        if Path::new(bin).is_file() {
            return Some(PathBuf::from(bin));
        }
    }
    ["release", "debug"]
        .map(|profile| root().join("target").join(profile).join(BIN))
        .into_iter()
        .find(|p| p.is_file())
}
