#!/bin/sh
# Usage: reference-at-0.17.0.sh BIN — the reference's own driver (`BIN driver`), its hello
# declaring SPEC 0.17.0 instead of the pinned 0.16.0; every other line passes through as it is.
# The reference implements the rules that arrive after 0.16.0 for content parts (§1B, §2's
# parts, §4A read of media files), which its runs skip by version while it declares 0.16.0.
"$1" driver | sed -u 's/"spec":"0\.16\.0"/"spec":"0.17.0"/'
