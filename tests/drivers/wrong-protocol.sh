#!/bin/sh
# Answers hello claiming a protocol version this harness does not speak.
while read -r _line; do
  echo '{"ok":true,"seq":0,"protocol":99,"port":{"name":"future","language":"sh","version":"9"},"implements":["0","1","3","4","4A","6"]}'
done
