#!/usr/bin/env python3
"""Checks that two `run --format json` reports are the same but for what differs between any
two runs: the start time, the durations and whether a scenario was retried after a harness time
bound broke under load (`retried`). `run --jobs N` promises the report of `--jobs 1`.

With --port-volatile, values a port makes up afresh on every run are masked too: Python's
pending-request ids (`pnd-<time>-<n>`, `req-<random>-<n>`), process ids in messages, and the
elapsed times a port measures itself (§7A's `ms` in an A2A result's metadata, "the call took N
ms" of a port that never observes an abort). They differ between two
`--jobs 1` runs just as much, so they say nothing about parallel runs.

Usage: same-report.py [--port-volatile] ONE.json MANY.json
Prints a one-line summary; exits 0 when the reports agree, 1 with the differences otherwise.
"""
import json
import re
import sys

VOLATILE = [
    (re.compile(r"pnd-[0-9a-f]+-[0-9]+"), "pnd-<id>"),
    (re.compile(r"req-[0-9a-f]+-[0-9]+"), "req-<id>"),
    (re.compile(r"process [0-9]+ is still running"), "process <pid> is still running"),
    (re.compile(r"the call took [0-9]+ ms"), "the call took <n> ms"),
]


def scrub(value, volatile):
    if isinstance(value, dict):
        return {k: ("<ms>" if volatile and k == "ms" and isinstance(v, (int, float)) else scrub(v, volatile))
                for k, v in value.items() if k not in ("started", "durationMs", "retried")}
    if isinstance(value, list):
        return [scrub(v, volatile) for v in value]
    if isinstance(value, str) and volatile:
        for pattern, mask in VOLATILE:
            value = pattern.sub(mask, value)
    return value


def main(argv):
    volatile = "--port-volatile" in argv
    paths = [a for a in argv if a != "--port-volatile"]
    if len(paths) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    one, many = (scrub(json.load(open(p, encoding="utf-8")), volatile) for p in paths)
    s = one.get("summary", {})
    print(f"{paths[0]} vs {paths[1]}: {len(one.get('scenarios', []))} scenarios "
          f"({s.get('passed')} passed, {s.get('failed')} failed, {s.get('xfail', 0)} xfail, "
          f"{s.get('skipped')} skipped)")
    if one == many:
        print("same report")
        return 0
    shown = 0
    for a, b in zip(one.get("scenarios", []), many.get("scenarios", [])):
        if a != b and shown < 20:
            shown += 1
            print(f"differs: {a.get('name')}\n  {json.dumps(a)[:600]}\n  {json.dumps(b)[:600]}")
    rest = {k: v for k, v in one.items() if k != "scenarios"}
    if rest != {k: v for k, v in many.items() if k != "scenarios"}:
        print("the reports differ outside their scenarios")
    if len(one.get("scenarios", [])) != len(many.get("scenarios", [])):
        print("the reports list different numbers of scenarios")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
