#!/bin/sh
# A driver that answers hello correctly and then exits: every later request finds it gone.
read -r _line
echo '{"ok":true,"seq":0,"protocol":1,"spec":"0.16.0","port":{"name":"quitter","language":"sh","version":"0"},"implements":["0","1","3","4","4A","6"]}'
exit 0
