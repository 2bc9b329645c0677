#!/bin/sh
# A driver that answers hello, starts a background child in its process group, reads the
# first request of a scenario and then never reads its stdin again: the end of its stdin
# (its harness gone) changes nothing, so only a kill of its group stops it (tests/signals.rs).
read -r _line
sleep 305 &
echo '{"ok":true,"seq":0,"protocol":1,"spec":"0.16.0","port":{"name":"eof-ignorer","language":"sh","version":"0"},"implements":["0","1","2","3","4","4A","6","7A"]}'
read -r _line
while :; do
  sleep 1006
done
