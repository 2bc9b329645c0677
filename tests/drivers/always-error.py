#!/usr/bin/env python3
# Wraps a real driver (argv[1:] is its command) and turns every `execute` answer of a
# builtin tool (`source: "builtin"` in the toolkit's build answer) into an error whose
# output names no cause: a toy port whose builtins always fail. (Keeping the reference's
# output would leave every error answer untouched, so it could not tell a scenario that
# checks the cause from one that checks only the flag.) Every negative "… is an error"
# scenario must still fail against it.
import json
import subprocess
import sys
import threading

child = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
lock = threading.Lock()
pending = {}  # seq -> ("build", id) | ("execute", toolkit, name)
builtins = {}  # toolkit id -> set of builtin tool names


def forward_requests():
    for line in sys.stdin.buffer:
        try:
            req = json.loads(line)
            with lock:
                if req.get("cmd") == "build":
                    pending[req.get("seq")] = ("build", req.get("id"))
                elif req.get("cmd") == "execute":
                    pending[req.get("seq")] = ("execute", req.get("toolkit"), req.get("name"))
        except (ValueError, AttributeError):
            pass
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()


threading.Thread(target=forward_requests, daemon=True).start()
for line in child.stdout:
    try:
        ans = json.loads(line)
        with lock:
            what = pending.pop(ans.get("seq"), None)
            if what and what[0] == "build" and isinstance(ans.get("tools"), list):
                builtins[what[1]] = {
                    t.get("name") for t in ans["tools"] if t.get("source") == "builtin"
                }
            elif (
                what
                and what[0] == "execute"
                and what[2] in builtins.get(what[1], set())
                and isinstance(ans.get("result"), dict)
            ):
                ans["result"] = {"isError": True, "output": "toy port: not implemented"}
                line = (json.dumps(ans, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    except (ValueError, AttributeError):
        pass
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
sys.exit(child.wait())
