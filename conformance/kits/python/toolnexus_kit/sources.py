"""PROTOCOL.md §7 "Skill provider" and "`waitFor`", and §6's skill defs: plain values and
functions the port wraps in its own types."""
from .failure import Failure, UNSUPPORTED, bad, one_key
from .jsonvalue import compact


def skill_defs(value):
    """`skills` (an array of SkillDef objects) as dicts with every key of the port's SkillDef:
    `name` ("" when missing: the port skips it), `content`, `description`, `resources`, `base`."""
    if not isinstance(value, list) or not all(isinstance(d, dict) for d in value):
        raise bad("skills must be an array of skill defs")
    return [{"name": d.get("name") or "", "content": d.get("content", ""),
             "description": d.get("description"), "resources": d.get("resources"),
             "base": d.get("base")} for d in value]


def skill_provider(behaviour):
    """`skillProvider`: a function answering the skill defs (as `skill_defs` gives them), or
    raising Exception(M) for `{"fail": M}`."""
    key, arg = one_key(behaviour, "skill provider")
    if key == "skills":
        defs = skill_defs(arg)
        return lambda: [dict(d) for d in defs]
    if key == "fail" and isinstance(arg, str):
        def provider():
            raise Exception(arg)
        return provider
    raise Failure(UNSUPPORTED, f"unknown skill provider behaviour {compact(behaviour)}")


def wait_for(behaviour, records=None):
    """`waitFor` (§7, SPEC §10): a function from the Request the port built (as a dict of its
    fields) to the Answer dict `{id, ok, data?, reason?}`; with `records`, each Request is
    recorded in `waitForCalls` before answering (§5.13)."""
    key, arg = one_key(behaviour, "waitFor")
    if key == "echoRequest" and arg is True:
        def answer(request):
            # Primitive values only (an MCP elicitation result allows nothing else): the
            # Request's `data` travels as compact JSON text.
            flat = {"id": request.get("id"), "kind": request.get("kind"), "prompt": request.get("prompt")}
            if request.get("url"):
                flat["url"] = request["url"]
            if request.get("data") is not None:
                flat["data"] = compact(request["data"])
            if request.get("expiresAt"):
                flat["expiresAt"] = request["expiresAt"]
            return {"id": request.get("id"), "ok": True, "data": flat}
    elif key == "answer" and isinstance(arg, dict):
        def answer(request):
            return {"id": request.get("id"), "ok": arg.get("ok", True), "data": arg.get("data"),
                    "reason": arg.get("reason")}
    else:
        raise Failure(UNSUPPORTED, f"unknown waitFor behaviour {compact(behaviour)}")
    if records is None:
        return answer

    def recorded(request):
        records.add("waitForCalls", request)
        return answer(request)
    return recorded
