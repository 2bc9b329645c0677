#!/usr/bin/env bash
# Build the rust-crate conformance driver (toolnexus 0.23.0 from crates.io).
# Idempotent: a second run is a no-op build. Exits non-zero when the build fails.
# The binary lands in conformance/ports/rust-crate/target/release/toolnexus-driver-rust-crate.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cargo build --release --locked --manifest-path "$here/Cargo.toml"
bin="$here/target/release/toolnexus-driver-rust-crate"
test -x "$bin" || { echo "setup.sh: driver binary missing: $bin" >&2; exit 1; }
echo "driver: $bin" >&2
