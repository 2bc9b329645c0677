#!/bin/sh
# A porter's first driver: it greets declaring SPEC §0, §1 and §4 and answers every other
# request `unsupported`, naming its command. Its run is mostly skipped, so the text report
# must end with the "implement next" list.
while IFS= read -r line; do
  seq=$(printf '%s\n' "$line" | sed -n 's/.*"seq":\([0-9]*\)}$/\1/p')
  cmd=$(printf '%s\n' "$line" | sed -n 's/^{"cmd":"\([a-z_]*\)".*/\1/p')
  case "$cmd" in
    hello)
      echo "{\"ok\":true,\"protocol\":1,\"port\":{\"name\":\"first\",\"language\":\"sh\",\"version\":\"0\"},\"implements\":[\"0\",\"1\",\"4\"],\"seq\":$seq}" ;;
    shutdown)
      echo "{\"ok\":true,\"seq\":$seq}"
      exit 0 ;;
    *)
      echo "{\"ok\":false,\"error\":{\"kind\":\"unsupported\",\"message\":\"this port has no $cmd yet\"},\"seq\":$seq}" ;;
  esac
done
