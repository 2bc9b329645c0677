#!/bin/sh
# Wraps a real driver ($1 … is its command); answers every `build` with $FLOOD_BYTES bytes
# (default 6 GB) and no newline: the harness must stop reading at its line cap, not buffer it.
n=${FLOOD_BYTES:-6000000000}
"$@" | while IFS= read -r line; do
  case $line in
    *'"names"'*) head -c "$n" /dev/zero | tr '\0' x ;;
    *) printf '%s\n' "$line" ;;
  esac
done
