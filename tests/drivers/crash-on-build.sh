#!/bin/sh
# Answers hello, then dies (non-zero, with a message on stderr) at the first other request.
read -r _line
echo '{"ok":true,"seq":0,"protocol":1,"port":{"name":"crasher","language":"sh","version":"0"},"implements":["0","1","3","4","4A","6"]}'
read -r _line
echo "fatal: simulated crash" >&2
exit 3
