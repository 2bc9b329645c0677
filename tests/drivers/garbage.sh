#!/bin/sh
# A driver that prints something other than protocol JSON for every request.
while read -r _line; do
  echo 'this is not json <<<'
done
