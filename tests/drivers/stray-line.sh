#!/bin/sh
# Wraps a real driver ($1 … is its command) and prints the answer to the first `build`
# twice: the stray copy must never be taken as the answer to the next request.
"$@" | sed -u '0,/"toolkit":"tk1"/{/"toolkit":"tk1"/p}'
