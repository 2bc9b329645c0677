#!/bin/sh
# Wraps a real driver ($1 … is its command) and adds `"metadata":{}` to every execute result
# that has none (PROTOCOL.md §8: omit metadata when there is none).
"$@" | sed -u 's/"isError":\(true\|false\)}/"isError":\1,"metadata":{}}/'
