#!/bin/sh
# Wraps a real driver ($1 … is its command) and corrupts one sanitize answer, so exactly the
# scenarios expecting "a_b_c" fail and every other scenario still passes.
"$@" | sed -u 's/"value":"a_b_c"/"value":"WRONG"/'
