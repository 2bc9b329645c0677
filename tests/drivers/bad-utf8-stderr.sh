#!/bin/sh
# Wraps a real driver ($1 … is its command); logs one invalid UTF-8 byte to stderr, then a
# line per request: a harness that stops reading stderr kills this driver (SIGPIPE).
printf 'starting \377 driver\n' >&2
sleep 0.3
while IFS= read -r line; do
  printf 'request received\n' >&2 || exit 9
  printf '%s\n' "$line"
done | "$@"
