#!/bin/sh
# A driver that reads requests and never answers.
while read -r _line; do
  sleep 1000
done
