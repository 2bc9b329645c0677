#!/usr/bin/env bash
# Installs the pinned Python SDKs `openai`, `anthropic`, `mcp` and `a2a-sdk`
# (tests/sdk/requirements.txt, every transitive version pinned) into a venv at DIR (default:
# <repo>/target/sdk-venv, git-ignored) for tests/mock_llm_sdk.rs and tests/serve_peers.rs.
# Idempotent: does nothing when DIR already holds an install of exactly these requirements.
# A half-done install never counts: the stamp file is written last, and a DIR without the
# matching stamp is removed and made again. Bounded: pip gets SDK_INSTALL_TIMEOUT seconds
# (default 600). Needs Python >= 3.9 with venv (PYTHON, default python3) and a reachable PyPI.
# Usage: install.sh [DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dir="${1:-$repo/target/sdk-venv}"
req="$here/requirements.txt"
python="${PYTHON:-python3}"
limit="${SDK_INSTALL_TIMEOUT:-600}"

if [ -f "$dir/.installed" ] && cmp -s "$req" "$dir/.installed" && [ -x "$dir/bin/python" ]; then
  echo "sdk venv: up to date in $dir"
  exit 0
fi

if ! command -v "$python" >/dev/null 2>&1; then
  echo "sdk venv: $python is required (Python >= 3.9 with venv) to install the SDKs into $dir" >&2
  exit 127
fi
if ! "$python" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 9) else 1)'; then
  echo "sdk venv: Python >= 3.9 with the venv module is required, found $("$python" --version 2>&1)" >&2
  exit 1
fi

rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
echo "sdk venv: installing $(grep -E '^(openai|anthropic|mcp|a2a-sdk)==' "$req" | tr '\n' ' ')into $dir"
"$python" -m venv "$dir"
timeout "$limit" "$dir/bin/python" -m pip install --quiet --no-input \
  --disable-pip-version-check -r "$req"
"$dir/bin/python" -c 'import openai, anthropic, mcp, a2a'
cp "$req" "$dir/.installed"
echo "sdk venv: installed in $dir"
