#!/usr/bin/env bash
# Usage: setup.sh [VERSION [VENV_DIR]]
# Creates a venv with the published Python port toolnexus VERSION (default 0.21.0, the pinned
# port) in VENV_DIR (default target/ports/python-VERSION/venv under the root, where the
# registry's `python` and `python@VERSION` both keep it).
# Idempotent: an existing venv that already has the version is left alone.
# Quiet on success; on failure prints what went wrong to stderr and exits non-zero (a venv this
# run created is removed again, so a failed setup never looks like a finished one).
set -euo pipefail

PIN="${1:-0.21.0}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${2:-$here/../../../target/ports/python-$PIN/venv}"
log="$(mktemp)"
created=""
trap 'rm -f "$log"' EXIT

fail() {
    echo "setup.sh (python port $PIN): $1" >&2
    if [ -s "$log" ]; then
        echo "--- output ---" >&2
        tail -n 40 "$log" >&2
    fi
    if [ -n "$created" ]; then
        rm -rf "$venv"
        rmdir "$(dirname "$venv")" 2>/dev/null || true
    fi
    exit 1
}

installed() {
    "$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("toolnexus"))' 2>/dev/null
}

# Whether the installed package imports (its dependencies may have moved on since the release).
importable() {
    "$venv/bin/python" -c 'import toolnexus' >"$log" 2>&1
}

# The harness takes the release as set up when this file exists; it is written last, so a
# setup cut short (a signal, a full disk) is run again, not driven half-installed.
ready="$venv/.toolnexus-ready"

# Already set up with the right version, and it imports? Nothing to do.
if [ -x "$venv/bin/python" ] && [ "$(installed)" = "$PIN" ] && importable; then
    touch "$ready"
    exit 0
fi
rm -f "$ready"

command -v python3 >/dev/null 2>&1 || fail "python3 not found on PATH"

if [ ! -x "$venv/bin/python" ]; then
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    created=1
    python3 -m venv "$venv" >"$log" 2>&1 || fail "could not create the venv at $venv (is python3-venv installed?)"
fi

if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "toolnexus==$PIN" >"$log" 2>&1; then
    if grep -q "No matching distribution found" "$log"; then
        known="$(sed -n 's/.*(from versions: \(.*\)).*/\1/p' "$log" | head -n 1)"
        : >"$log"
        fail "PyPI has no release toolnexus==$PIN${known:+ (published: $known)}"
    fi
    fail "pip install toolnexus==$PIN failed"
fi

got="$(installed)" || fail "toolnexus is not installed after pip install"
[ "$got" = "$PIN" ] || fail "expected toolnexus $PIN in the venv, found $got"

# Releases before 0.12.0 require `mcp>=1.0.0` with no upper bound, and mcp 2 dropped the
# `streamablehttp_client` they import; from 0.12.0 on the releases require `mcp<2.0.0`
# themselves. A release that does not import gets that same bound, then must import.
if ! importable; then
    if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "toolnexus==$PIN" "mcp<2.0.0" >"$log" 2>&1; then
        fail "pip install toolnexus==$PIN mcp<2.0.0 failed"
    fi
    importable || fail "toolnexus $PIN does not import, even with mcp<2.0.0"
fi

touch "$ready"
