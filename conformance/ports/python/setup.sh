#!/usr/bin/env bash
# Creates conformance/ports/python/.venv with the published Python port (toolnexus 0.21.0).
# Idempotent: an existing venv that already has the pinned version is left alone.
# Quiet on success; on failure prints what went wrong to stderr and exits non-zero.
set -euo pipefail

PIN="0.21.0"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

fail() {
    echo "setup.sh (python port): $1" >&2
    if [ -s "$log" ]; then
        echo "--- output ---" >&2
        tail -n 40 "$log" >&2
    fi
    exit 1
}

# Already set up with the right version? Nothing to do.
if [ -x "$venv/bin/python" ] &&
    [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("toolnexus"))' 2>/dev/null)" = "$PIN" ]; then
    exit 0
fi

command -v python3 >/dev/null 2>&1 || fail "python3 not found on PATH"

if [ ! -x "$venv/bin/python" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >"$log" 2>&1 || fail "could not create the venv at $venv (is python3-venv installed?)"
fi

"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "toolnexus==$PIN" >"$log" 2>&1 ||
    fail "pip install toolnexus==$PIN failed"

got="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("toolnexus"))' 2>>"$log")" ||
    fail "toolnexus is not importable after install"
[ "$got" = "$PIN" ] || fail "expected toolnexus $PIN in the venv, found $got"
