#!/bin/sh
# Build the Go starter driver into target/starter-go/ when its sources changed, then run it.
# Run from the repository root (the harness's working directory), as conformance/ports.json does.
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../../../target/starter-go/driver"
if [ ! -x "$bin" ] || [ -n "$(find "$here" "$here/../../kits/go" -name '*.go' -newer "$bin" -o -name go.mod -newer "$bin")" ]; then
	(cd "$here" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -o "$bin" .) >&2
fi
exec "$bin"
