#!/bin/sh
# Writes one $FLOOD_BYTES-byte stderr line (default 1 GB), then answers every request with
# non-JSON: each failed scenario carries the stderr tail, which must stay small.
n=${FLOOD_BYTES:-1000000000}
head -c "$n" /dev/zero | tr '\0' e >&2
printf '\nlast words before the garbage\n' >&2
while read -r _line; do
  echo 'this is not json <<<'
done
