#!/bin/sh
# A driver that answers hello, starts background children (one in its process group, one
# in a session of its own), then hangs on every later request: what an interrupted `run`
# must still stop (tests/signals.rs).
read -r _line
sleep 301 &
setsid sleep 302 &
echo '{"ok":true,"seq":0,"protocol":1,"spec":"0.16.0","port":{"name":"hanger","language":"sh","version":"0"},"implements":["0","1","2","3","4","4A","6","7A"]}'
while read -r _line; do
  sleep 1000
done
