#!/bin/sh
# Wraps a real driver ($1 … is its command) and prints every `execute` answer twice: the
# extra line is out of step wherever it lands, and must fail its scenario.
"$@" | while IFS= read -r line; do
  printf '%s\n' "$line"
  case $line in
    *'"result"'*) printf '%s\n' "$line" ;;
  esac
done
