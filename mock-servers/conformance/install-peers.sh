#!/usr/bin/env bash
# Installs the pinned MCP peers into DIR (default: <repo>/target/peers, git-ignored):
#   @modelcontextprotocol/server-everything 2026.8.31  (a reference MCP server)
#   @modelcontextprotocol/conformance 0.1.11           (the official MCP conformance suite)
# from peers/package.json + peers/package-lock.json beside this script, with `npm ci`, so
# every transitive version is the locked one. Idempotent: does nothing when DIR already holds
# an install of exactly this lockfile. It installs into a temporary sibling and renames it,
# so DIR is either absent or complete, never half-installed. Needs Node.js >= 20 and npm.
# Usage: install-peers.sh [DIR]
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
dir="${1:-$repo/target/peers}"
lock="$here/peers/package-lock.json"

if [ -f "$dir/.installed" ] && cmp -s "$lock" "$dir/.installed"; then
  echo "mcp peers: up to date in $dir"
  exit 0
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "mcp peers: node and npm are required (Node.js >= 20) to install the MCP peers into $dir" >&2
  exit 127
fi
if ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
  echo "mcp peers: Node.js >= 20 is required, found $(node --version)" >&2
  exit 1
fi

mkdir -p "$(dirname "$dir")"
tmp="$(mktemp -d "$dir.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 143' TERM INT
chmod 755 "$tmp"
cp "$here/peers/package.json" "$lock" "$tmp/"
echo "mcp peers: npm ci into $dir"
npm ci --prefix "$tmp" --no-audit --no-fund --ignore-scripts --loglevel=error
cp "$lock" "$tmp/.installed"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT TERM INT
echo "mcp peers: installed in $dir"
