#!/bin/sh
# Build the Go starter driver into target/starter-go/ when its sources changed, then run it.
# `run --jobs N` starts N of these at once: each builds to a file of its own and renames it into
# place, so a driver never starts from a half-written binary.
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../../../target/starter-go/driver"
if [ ! -x "$bin" ] || [ -n "$(find "$here" "$here/../../kits/go" \( -name '*.go' ! -name '*_test.go' -o -name go.mod \) -newer "$bin")" ]; then
	(cd "$here" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go build -o "$bin.$$" . && mv -f "$bin.$$" "$bin") >&2
fi
exec "$bin"
