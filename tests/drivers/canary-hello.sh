#!/bin/sh
# Wraps a real driver ($1 … is its command): puts the run's canary secret in hello's port
# name, language and version, and answers the first `build` out of step with the canary
# straddling the 200th character of the line. No report may carry any part of it.
s=$TOOLNEXUS_CONFORMANCE_SECRET
pad=$(printf "%0154d" 0)
"$@" | while IFS= read -r line; do
  case $line in
    *'"protocol":1'*)
      printf '%s\n' "$line" | sed "s/\"name\":\"/&$s/; s/\"language\":\"/&$s/; s/\"version\":\"/&$s/" ;;
    *'"names"'*)
      printf '{"ok":true,"seq":999999,"pad":"%s%s"}\n' "$pad" "$s" ;;
    *) printf '%s\n' "$line" ;;
  esac
done
