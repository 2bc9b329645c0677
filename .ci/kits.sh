#!/usr/bin/env bash
# The driver kits' own tests (issue 49), each in its ecosystem's runner, and the starters'
# builds, so tests/kit_starters.rs finds them ready: go vet/gofmt/go test, node --test,
# Maven Surefire (mvn verify), pytest. Prints how long each took. Run by .ci/run before
# `cargo test`; runnable alone from any directory.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

timed() { # NAME COMMAND…: runs it, then prints its wall time on stderr.
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "ci: kits: $name took $((SECONDS - start)) s" >&2
}

go_kit() {
  export GOTOOLCHAIN=local GOFLAGS=-mod=mod
  for dir in conformance/kits/go conformance/ports/starter-go; do
    (cd "$root/$dir" && go vet ./... && test -z "$(gofmt -l .)" || { gofmt -l . >&2; exit 1; })
  done
  (cd "$root/conformance/kits/go" && go test -count=1 ./...)
}

ts_kit() {
  (cd "$root/conformance/kits/ts" && node --test)
}

java_kit() {
  mvn -q -B -f "$root/conformance/kits/java/pom.xml" verify
  # The starter's run.sh builds kit and starter on first use; building here keeps Maven's
  # downloads out of the timed harness tests.
  printf '%s\n' '{"cmd":"hello","protocol":1,"seq":0}' '{"cmd":"shutdown","seq":1}' |
    sh "$root/conformance/ports/starter-java/run.sh" >/dev/null
}

python_kit() {
  (cd "$root/conformance/kits/python" && python3 -m pytest -q -p no:cacheprovider tests)
}

timed go go_kit
timed ts ts_kit
timed java java_kit
timed python python_kit
