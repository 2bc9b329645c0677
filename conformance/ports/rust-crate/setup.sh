#!/usr/bin/env bash
# Usage: setup.sh [VERSION [DIR]]
# Without arguments: builds the rust-crate conformance driver against the pinned toolnexus
# 0.23.0 from crates.io, into target/ports/rust-crate/release/ (every setup writes under the
# root's target/, which an installed harness keeps between runs).
# With VERSION (a release port `rust-crate@VERSION`): copies this driver project to DIR
# (default target/ports/rust-crate-VERSION), pins `toolnexus = "=VERSION"` there and builds it
# into DIR/target/release/. The driver is not adapted to older APIs: when it does not compile
# against VERSION, that is reported as a setup error naming the version.
# Idempotent: a second run is a no-op build. Exits non-zero when the build fails.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
name="toolnexus-driver-rust-crate"
# The driver uses the harness's own protocol crate, which only a checkout has (the suite
# embedded in an installed binary carries no Rust sources).
[ -f "$here/../../../crates/protocol/Cargo.toml" ] || {
    echo "setup.sh (rust-crate port): needs the harness's checkout (crates/protocol); run the harness with --root CHECKOUT" >&2
    exit 1
}

if [ $# -eq 0 ]; then
    root="$(cd "$here/../../.." && pwd)"
    cargo build --release --locked --manifest-path "$here/Cargo.toml" --target-dir "$root/target/ports/rust-crate"
    bin="$root/target/ports/rust-crate/release/$name"
    test -x "$bin" || { echo "setup.sh: driver binary missing: $bin" >&2; exit 1; }
    echo "driver: $bin" >&2
    exit 0
fi

version="$1"
case "$version" in
    *[!0-9A-Za-z.+-]* | "") echo "setup.sh (rust-crate port): not a version: \"$version\"" >&2; exit 2 ;;
esac
dir="${2:-target/ports/rust-crate-$version}"
mkdir -p "$dir/src"
cp "$here/Cargo.toml" "$here/Cargo.lock" "$dir/"
cp -R "$here/src/." "$dir/src/"
# The copy pins the release (manifest and the driver's reported version); the lock's old
# toolnexus entry no longer matches, so cargo re-resolves just that package (no --locked).
# The protocol crate by an absolute path: the copy's DIR may sit at any depth.
protocol="$(cd "$here/../../../crates/protocol" && pwd)"
sed -i -e "s/^toolnexus = \"=[^\"]*\"/toolnexus = \"=$version\"/" \
    -e "s#^toolnexus-protocol = { path = \"[^\"]*\" }#toolnexus-protocol = { path = \"$protocol\" }#" \
    -e "/^description/s/[0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9A-Za-z.+-]*/$version/" "$dir/Cargo.toml"
sed -i -e "s/^const PORT_VERSION: &str = \"[^\"]*\";/const PORT_VERSION: \&str = \"$version\";/" "$dir/src/main.rs"
grep -q "^toolnexus = \"=$version\"" "$dir/Cargo.toml" ||
    { echo "setup.sh (rust-crate port $version): could not pin toolnexus in $dir/Cargo.toml" >&2; exit 1; }

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! cargo build --release --manifest-path "$dir/Cargo.toml" >"$log" 2>&1; then
    if grep -q "failed to select a version for the requirement \`toolnexus" "$log"; then
        echo "setup.sh (rust-crate port $version): crates.io has no release toolnexus =$version" >&2
    elif grep -q "could not compile \`$name\`" "$log"; then
        echo "setup.sh (rust-crate port $version): the driver does not compile against toolnexus $version (its API differs from 0.23.0's); not adapted" >&2
        grep -m 5 "^error" "$log" >&2 || true
    else
        echo "setup.sh (rust-crate port $version): cargo build failed" >&2
        tail -n 30 "$log" >&2
    fi
    exit 1
fi
bin="$dir/target/release/$name"
test -x "$bin" || { echo "setup.sh (rust-crate port $version): driver binary missing: $bin" >&2; exit 1; }
echo "driver: $bin" >&2
