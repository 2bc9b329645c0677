#!/usr/bin/env bash
# Runs the official MCP conformance suite (server mode, `--suite all`: 32 scenarios) against
# the mock MCP server over streamable HTTP, playing mock-servers/scenarios/conformance.json,
# with baseline.yml as the expected failures. Exit 0 iff exactly the baseline's scenarios
# fail (a new failure, or a baseline entry that now passes, is exit 1).
# Usage: run-suite.sh [extra conformance arguments, e.g. --verbose or -o DIR]
# Environment: MOCK_BIN (default <repo>/target/debug/toolnexus-conformance; build it first
# with `cargo build`), PEERS_DIR (default <repo>/target/peers, installed when missing).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
bin="${MOCK_BIN:-$repo/target/debug/toolnexus-conformance}"
peers="${PEERS_DIR:-$repo/target/peers}"

"$here/install-peers.sh" "$peers"
if [ ! -x "$bin" ]; then
  echo "run-suite: no mock binary at $bin (run \`cargo build\` or set MOCK_BIN)" >&2
  exit 2
fi

log="$(mktemp -d)"
"$bin" mock mcp --transport http --scenario "$repo/mock-servers/scenarios/conformance.json" \
  </dev/null >"$log/out" 2>"$log/err" &
mock=$!
trap 'kill "$mock" 2>/dev/null || true; wait "$mock" 2>/dev/null || true; rm -rf "$log"' EXIT

# The first stdout line is the URL; give the mock 10 s to print it.
url=""
for _ in $(seq 100); do
  url="$(head -n 1 "$log/out")"
  case "$url" in http://*/mcp) break ;; esac
  url=""
  if ! kill -0 "$mock" 2>/dev/null; then
    echo "run-suite: the mock exited before printing its URL:" >&2
    cat "$log/err" >&2
    exit 1
  fi
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "run-suite: the mock printed no URL within 10 s" >&2
  exit 1
fi

echo "run-suite: mock at $url"
node "$peers/node_modules/@modelcontextprotocol/conformance/dist/index.js" server \
  --url "$url" --suite all --expected-failures "$here/baseline.yml" "$@"
