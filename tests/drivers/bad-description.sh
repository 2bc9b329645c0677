#!/bin/sh
# Wraps a real driver ($1 … is its command) and changes one tool description in its answers,
# so the scenario pinning that description fails with a JSON mismatch at a known path.
"$@" | sed -u 's/"description":"My tool\."/"description":"Your tool."/g'
