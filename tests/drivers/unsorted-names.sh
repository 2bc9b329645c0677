#!/bin/sh
# Wraps a real driver ($1 … is its command) and swaps the first two entries of every build
# answer's `names`, which PROTOCOL.md §5.2 wants sorted by code point.
"$@" | sed -u 's/"names":\["\([^"]*\)","\([^"]*\)"/"names":["\2","\1"/'
