#!/bin/sh
# Logs its own pid, then crashes at the first request after hello: the stderr tail of each
# failure must name one process only (a restarted driver's tail is its own).
echo "driver process $$ started" >&2
exec sh "$(dirname "$0")/crash-on-build.sh"
