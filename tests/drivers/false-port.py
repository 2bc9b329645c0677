#!/usr/bin/env python3
# A deliberately false port: wraps a real driver and adds the defects named by its flags,
# the ones a toy port really had (issue 17). The argv after the flags is the real driver's
# command. Each defect must make the scenarios that are about it fail:
#
#   --builtins-error        every `execute` of a builtin tool (`source: "builtin"` in the
#                           build answer) answers an error whose output names no cause, only
#                           the tool, as ports prefix their messages (`question: toy port, not
#                           implemented`), so a scenario that checks only `isError`, or a word
#                           the tool's name holds, cannot tell it from the right error
#                           (keeping the real output would leave error answers intact); the
#                           tool never runs, as in a port that lacks it, so a scenario cannot
#                           pass on the effects (a file written, a process gone) alone
#   --no-skill-discovery    a `build` whose options carry `skillsDir` answers `unsupported`
#                           (a port without skill discovery: the scenario is skipped, which a
#                           run counts as green), so a scenario that builds with `skillsDir`
#                           only incidentally checks nothing else for such a port
#   --unsorted-names        a build answer's `names` come in reverse code-point order
#   --gemini-crash          the `gemini` adapter answers an internal error
import json
import subprocess
import sys
import threading

FLAGS = {"--builtins-error", "--no-skill-discovery", "--unsorted-names", "--gemini-crash"}
flags = set()
argv = sys.argv[1:]
while argv and argv[0] in FLAGS:
    flags.add(argv.pop(0))

child = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
lock = threading.Lock()  # guards `pending`, `builtins` and writes to our stdout
pending = {}  # seq -> ("build", id) | ("execute", toolkit, name)
builtins = {}  # toolkit id -> set of builtin tool names


def emit(obj):
    line = (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()


def refusal(req):
    """The answer this toy port gives itself, without asking the real driver, or None."""
    cmd = req.get("cmd")
    options = req.get("options") if isinstance(req.get("options"), dict) else {}
    if "--no-skill-discovery" in flags and cmd == "build" and "skillsDir" in options:
        kind, message = "unsupported", "skillsDir: this port has no skill discovery"
    elif "--gemini-crash" in flags and cmd == "adapter" and req.get("format") == "gemini":
        kind, message = "internal", "gemini adapter crashed"
    else:
        return None
    return {"seq": req.get("seq"), "ok": False, "error": {"kind": kind, "message": message}}


def forward_requests():
    for line in sys.stdin.buffer:
        try:
            req = json.loads(line)
            own = refusal(req) if isinstance(req, dict) else None
            if own is not None:
                with lock:
                    emit(own)
                continue
            with lock:
                if (
                    "--builtins-error" in flags
                    and req.get("cmd") == "execute"
                    and req.get("name") in builtins.get(req.get("toolkit"), set())
                ):
                    name = req.get("name")
                    emit({"seq": req.get("seq"), "ok": True,
                          "result": {"isError": True, "output": f"{name}: toy port, not implemented"}})
                    continue
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
            changed = False
            if what and what[0] == "build" and isinstance(ans.get("tools"), list):
                builtins[what[1]] = {
                    t.get("name") for t in ans["tools"] if t.get("source") == "builtin"
                }
                if "--unsorted-names" in flags and isinstance(ans.get("names"), list):
                    ans["names"] = sorted(ans["names"], reverse=True)
                    changed = True
            elif (
                "--builtins-error" in flags
                and what
                and what[0] == "execute"
                and what[2] in builtins.get(what[1], set())
                and isinstance(ans.get("result"), dict)
            ):
                ans["result"] = {"isError": True, "output": f"{what[2]}: toy port, not implemented"}
                changed = True
            if changed:
                emit(ans)
                continue
    except (ValueError, AttributeError):
        pass
    with lock:
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
sys.exit(child.wait())
