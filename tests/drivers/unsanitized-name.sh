#!/bin/sh
# Wraps a real driver ($1 … is its command) and puts a space into the tool name "echo" in its
# answers, as a port that forgot SPEC §0.2's sanitize would: a SPEC type broken, which a
# faithful driver passes on, so the port's failure, not the driver's.
"$@" | sed -u 's/"name":"echo"/"name":"e cho"/g'
