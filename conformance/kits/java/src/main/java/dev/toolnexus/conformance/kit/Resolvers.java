package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/** The toolkit's host slots of PROTOCOL.md §7: the skill provider and {@code waitFor}. */
public final class Resolvers {
  private Resolvers() {}

  /** A lazy skill provider, resolved once at build: the SkillDefs, or a throw. */
  @FunctionalInterface
  public interface SkillProvider {
    /** The defs ({@code {name, description?, content, resources?, base?}}) in their JSON form. */
    ArrayNode skills() throws Exception;
  }

  /** SPEC §10's host slot: a Request in, its Answer {@code {id, ok, data?, reason?}} out. */
  @FunctionalInterface
  public interface WaitFor {
    /** Answers {@code request} ({@code {id, kind, prompt, url?, data?, expiresAt?}}). */
    ObjectNode answer(ObjectNode request) throws Exception;
  }

  /** {@code {"skills": [SkillDef…]}} returns them; {@code {"fail": M}} throws {@code M}. */
  public static SkillProvider skillProvider(JsonNode behaviour) {
    Behaviour b = Behaviour.of("the skill provider behaviour", behaviour);
    switch (b.name()) {
      case "skills": {
        if (!b.arg().isArray()) {
          throw KitError.badRequest("skillProvider \"skills\" takes an array");
        }
        ArrayNode defs = (ArrayNode) b.arg();
        return defs::deepCopy;
      }
      case "fail": {
        String m = b.text();
        return () -> {
          throw new Exception(m);
        };
      }
      default:
        throw b.unknown();
    }
  }

  /**
   * {@code {"answer": {ok?, data?, reason?}}} or {@code {"echoRequest": true}}. Each Request is
   * recorded in {@code waitForCalls} first when {@code records} is given (a client's
   * {@code waitFor}; a toolkit's is not answered in any list).
   */
  public static WaitFor waitFor(JsonNode behaviour, Records records) {
    Behaviour b = Behaviour.of("the waitFor behaviour", behaviour);
    WaitFor inner;
    switch (b.name()) {
      case "answer": {
        Fields t = b.fields();
        t.onlyKeys(Set.of("ok", "data", "reason"));
        boolean ok = t.bool("ok", true);
        JsonNode data = t.opt("data");
        String reason = t.string("reason", null);
        inner = request -> {
          ObjectNode a = Json.object();
          a.set("id", request.get("id"));
          a.put("ok", ok);
          if (data != null) {
            a.set("data", data.deepCopy());
          }
          if (reason != null) {
            a.put("reason", reason);
          }
          return a;
        };
        break;
      }
      case "echoRequest":
        b.requireTrue();
        inner = request -> {
          ObjectNode a = Json.object();
          a.set("id", request.get("id"));
          a.put("ok", true);
          a.set("data", flat(request));
          return a;
        };
        break;
      default:
        throw b.unknown();
    }
    if (records == null) {
      return inner;
    }
    records.install(Records.WAIT_FOR_CALLS);
    return request -> {
      records.record(Records.WAIT_FOR_CALLS, request);
      return inner.answer(request);
    };
  }

  /** The Request flattened to primitives, {@code data} as compact JSON text (MCP elicitation). */
  private static ObjectNode flat(ObjectNode request) {
    ObjectNode f = Json.object();
    for (String k : new String[] {"id", "kind", "prompt", "url", "data", "expiresAt"}) {
      JsonNode v = request.get(k);
      if (v != null && !v.isNull()) {
        f.set(k, k.equals("data") ? Json.MAPPER.getNodeFactory().textNode(Json.compact(v)) : v.deepCopy());
      }
    }
    return f;
  }
}
