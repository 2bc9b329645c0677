#!/bin/sh
# A driver that implements no SPEC section: every scenario is skipped, and a run in which
# nothing passed must not count as green.
while read -r _line; do
  echo '{"ok":true,"seq":0,"protocol":1,"port":{"name":"empty","language":"sh","version":"0"},"implements":[]}'
done
