#!/bin/sh
# Writes one $FLOOD_BYTES-byte stderr line (default 1 GB), answers hello, then answers every
# other request with non-JSON: each failed scenario carries the stderr tail, which must stay
# small. (Answering hello keeps the handshake good: a failed hello now ends the run at once.)
n=${FLOOD_BYTES:-1000000000}
head -c "$n" /dev/zero | tr '\0' e >&2
printf '\nlast words before the garbage\n' >&2
read -r _line
echo '{"ok":true,"seq":0,"protocol":1,"spec":"0.16.0","port":{"name":"flooder","language":"sh","version":"0"},"implements":["0","1","3","4","4A","6"]}'
while read -r _line; do
  echo 'this is not json <<<'
done
