package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The client's host code of PROTOCOL.md §7 "Client behaviours" (also used by classifiers and
 * agent runtimes): hooks, {@code onError}, {@code generate}, {@code bodyTransform}, {@code store}
 * and {@code onMetric}, each a plain function that records what it saw in {@link Records}.
 */
public final class ClientBehaviours {
  private ClientBehaviours() {}

  /** The hook names, in SPEC order. */
  public static final List<String> HOOKS = List.of("beforeLLM", "afterLLM", "beforeTool", "afterTool");

  /**
   * What a hook returns; {@code null} fields are "not overridden", and a {@code null}
   * HookAnswer is "nothing".
   *
   * @param messages the transcript to send instead ({@code beforeLLM})
   * @param tools the tool list to send instead ({@code beforeLLM})
   * @param result the ToolResult to use ({@code beforeTool}: the tool never runs; {@code afterTool})
   * @param args the arguments to call the tool with ({@code beforeTool})
   */
  public record HookAnswer(ArrayNode messages, ArrayNode tools, ObjectNode result, JsonNode args) {}

  /**
   * One installed hook. The port passes its arguments as the recorded entry without {@code
   * hook} ({@code beforeLLM}: {@code {turn, model, messages, tools}}; {@code afterLLM}: {@code
   * {turn, model, response}}; {@code beforeTool}: {@code {name, args, id, turn}}; {@code
   * afterTool}: {@code {name, args, result, id, turn}}). It is recorded before the behaviour acts.
   */
  @FunctionalInterface
  public interface Hook {
    /** Runs the hook; {@code abort} throws its message. */
    HookAnswer call(ObjectNode entry) throws Exception;
  }

  /** Builds the port's own SPEC §7F compactor hook from the options ({@code compactor}). */
  @FunctionalInterface
  public interface CompactorFactory {
    /** The port's {@code beforeLLM} compactor for {@code options}. */
    Hook compactor(Compaction.Options options);
  }

  /**
   * Reads {@code hooks} ({@code {beforeLLM?, afterLLM?, beforeTool?, afterTool?}}) into hook
   * name → Hook. {@code compactors} may be {@code null} for a port without SPEC §7F (then the
   * {@code compactor} behaviour is {@code unsupported}).
   */
  public static Map<String, Hook> hooks(JsonNode hooksNode, Records records, CompactorFactory compactors) {
    if (!(hooksNode instanceof ObjectNode o)) {
      throw KitError.badRequest("hooks must be an object, got " + Json.compact(hooksNode));
    }
    Fields f = new Fields(o, "hooks.");
    f.onlyKeys(HOOKS);
    records.install(Records.HOOK_CALLS);
    Map<String, Hook> out = new LinkedHashMap<>();
    for (String name : HOOKS) {
      if (f.has(name)) {
        Hook act = hook(name, Behaviour.of("the " + name + " behaviour", f.get(name)), records, compactors);
        out.put(name, entry -> {
          ObjectNode rec = Json.object().put("hook", name);
          entry.fields().forEachRemaining(e -> rec.set(e.getKey(), e.getValue()));
          records.record(Records.HOOK_CALLS, rec); // before the behaviour acts (§7)
          return act.call(entry);
        });
      }
    }
    return out;
  }

  private static Hook hook(String hook, Behaviour b, Records records, CompactorFactory compactors) {
    boolean llm = hook.equals("beforeLLM");
    switch (b.name()) {
      case "observe":
        b.requireTrue();
        return entry -> null;
      case "replaceMessages": {
        ArrayNode m = array(b, llm);
        AtomicLong replacedIn = new AtomicLong(-1);
        return entry -> { // the first call of each run only
          long run = records.command();
          return replacedIn.getAndSet(run) == run ? null : new HookAnswer(m.deepCopy(), null, null, null);
        };
      }
      case "keepTools": {
        ArrayNode names = array(b, llm);
        return entry -> {
          ArrayNode kept = Json.array();
          for (JsonNode t : entry.path("tools")) {
            JsonNode n = t.path("function").path("name");
            String name = (n.isTextual() ? n : t.path("name")).asText("");
            for (JsonNode k : names) {
              if (k.asText().equals(name)) {
                kept.add(t);
                break;
              }
            }
          }
          return new HookAnswer(null, kept, null, null);
        };
      }
      case "abort": {
        only(b, llm);
        String m = b.text();
        return entry -> {
          throw new Exception(m);
        };
      }
      case "appendMessage": {
        only(b, llm);
        JsonNode m = b.arg();
        return entry -> {
          ArrayNode all = entry.path("messages").isArray() ? ((ArrayNode) entry.get("messages")).deepCopy() : Json.array();
          all.add(m.deepCopy());
          return new HookAnswer(all, null, null, null);
        };
      }
      case "compactor": {
        only(b, llm);
        if (compactors == null) {
          throw KitError.unsupported("the beforeLLM behaviour \"compactor\" (SPEC §7F)");
        }
        return compactors.compactor(Compaction.options(b.arg(), records));
      }
      case "result": {
        only(b, hook.equals("beforeTool") || hook.equals("afterTool"));
        ObjectNode r = (ObjectNode) object(b);
        return entry -> new HookAnswer(null, null, r.deepCopy(), null);
      }
      case "args": {
        only(b, hook.equals("beforeTool"));
        JsonNode a = object(b);
        return entry -> new HookAnswer(null, null, null, a.deepCopy());
      }
      case "prefix": {
        only(b, hook.equals("afterTool"));
        String p = b.text();
        return entry -> {
          ObjectNode r = entry.path("result").isObject() ? ((ObjectNode) entry.get("result")).deepCopy() : Json.object();
          return new HookAnswer(null, null, r.put("output", p + r.path("output").asText("")), null);
        };
      }
      default:
        throw b.unknown();
    }
  }

  private static void only(Behaviour b, boolean fits) {
    if (!fits) {
      throw KitError.badRequest(b.what() + " " + Json.quote(b.name()) + " is not for this hook");
    }
  }

  private static ArrayNode array(Behaviour b, boolean fits) {
    only(b, fits);
    if (!b.arg().isArray()) {
      throw KitError.badRequest(b.what() + " " + Json.quote(b.name()) + " takes an array");
    }
    return (ArrayNode) b.arg();
  }

  private static JsonNode object(Behaviour b) {
    if (!b.arg().isObject()) {
      throw KitError.badRequest(b.what() + " " + Json.quote(b.name()) + " takes an object");
    }
    return b.arg();
  }

  /** {@code onError(info)}: {@code "retry"} or {@code "fail"}. */
  @FunctionalInterface
  public interface OnError {
    /** Decides for the failed attempt {@code info} ({@code {status?, error?, attempt, retryable}}). */
    String decide(ObjectNode info);
  }

  /** {@code {"answer": "retry" | "fail"}} for every attempt, each info in {@code onErrorCalls}. */
  public static OnError onError(JsonNode behaviour, Records records) {
    Behaviour b = Behaviour.of("the onError behaviour", behaviour);
    if (!b.name().equals("answer")) {
      throw b.unknown();
    }
    String answer = b.text();
    if (!answer.equals("retry") && !answer.equals("fail")) {
      throw KitError.badRequest("onError answers \"retry\" or \"fail\", got " + Json.quote(answer));
    }
    records.install(Records.ON_ERROR_CALLS);
    return info -> {
      records.record(Records.ON_ERROR_CALLS, info);
      return answer;
    };
  }

  /**
   * One scripted {@code generate} answer (SPEC §8 "In-process models").
   *
   * @param content the assistant text, or {@code null}
   * @param toolCalls the flat tool calls (empty for none)
   * @param usage {@code {prompt_tokens, completion_tokens, total_tokens}} (snake_case on
   *     purpose, handed to the port as it is), or {@code null}
   */
  public record Generated(String content, List<GeneratedCall> toolCalls, ObjectNode usage) {}

  /**
   * A flat tool call of a {@link Generated} answer.
   *
   * @param id the call id, or {@code null}
   * @param name the tool name
   * @param arguments an object, or a string passed as it is
   */
  public record GeneratedCall(String id, String name, JsonNode arguments) {}

  /** The in-process model: a request in, the next scripted answer out ({@code fail} throws). */
  @FunctionalInterface
  public interface Generate {
    /** Answers {@code request} (the whole request the port passes, in its own spelling). */
    Generated generate(ObjectNode request) throws Exception;
  }

  /**
   * {@code {"script": [step…]}}: the n-th call answers step n, the last step again once used up;
   * each request recorded in {@code generateCalls}.
   */
  public static Generate generate(JsonNode behaviour, Records records) {
    Behaviour b = Behaviour.of("the generate behaviour", behaviour);
    if (!b.name().equals("script")) {
      throw b.unknown();
    }
    if (!b.arg().isArray() || b.arg().isEmpty()) {
      throw KitError.badRequest("generate: the script needs at least one step");
    }
    List<Fields> steps = new ArrayList<>();
    for (JsonNode s : b.arg()) {
      if (!(s instanceof ObjectNode o)) {
        throw KitError.badRequest("generate: a step is an object, got " + Json.compact(s));
      }
      Fields step = new Fields(o, "script[].");
      step.onlyKeys(Set.of("content", "toolCalls", "usage", "fail"));
      if (step.has("usage")) {
        Fields u = step.fields("usage");
        u.onlyKeys(Set.of("prompt_tokens", "completion_tokens", "total_tokens"));
        u.integer("prompt_tokens");
        u.integer("completion_tokens");
        u.integer("total_tokens");
      }
      if (step.has("toolCalls")) {
        for (JsonNode c : step.array("toolCalls")) {
          if (!(c instanceof ObjectNode call)) {
            throw KitError.badRequest("generate: a tool call is an object, got " + Json.compact(c));
          }
          new Fields(call, "toolCalls[].").string("name");
        }
      }
      steps.add(step);
    }
    records.install(Records.GENERATE_CALLS);
    AtomicLong next = new AtomicLong();
    return request -> {
      records.record(Records.GENERATE_CALLS, request);
      Fields step = steps.get((int) Math.min(next.getAndIncrement(), steps.size() - 1));
      if (step.has("fail")) {
        throw new Exception(step.string("fail"));
      }
      List<GeneratedCall> calls = new ArrayList<>();
      if (step.has("toolCalls")) {
        for (JsonNode c : step.array("toolCalls")) {
          Fields call = new Fields((ObjectNode) c, "toolCalls[].");
          JsonNode args = call.opt("arguments");
          calls.add(new GeneratedCall(call.string("id", null), call.string("name"),
              args == null ? Json.object() : args.deepCopy()));
        }
      }
      ObjectNode usage = step.has("usage") ? step.fields("usage").json().deepCopy() : null;
      return new Generated(step.string("content", null), calls, usage);
    };
  }

  /** {@code {"set": {k: v…}}} sets top-level keys; {@code {"copy": {from: to…}}} copies them. */
  public static UnaryOperator<ObjectNode> bodyTransform(JsonNode behaviour) {
    Behaviour b = Behaviour.of("the bodyTransform behaviour", behaviour);
    ObjectNode pairs = b.fields().json();
    switch (b.name()) {
      case "set":
        return body -> {
          pairs.fields().forEachRemaining(e -> body.set(e.getKey(), e.getValue().deepCopy()));
          return body;
        };
      case "copy":
        return body -> {
          Map<String, JsonNode> copies = new LinkedHashMap<>(); // read every source first: {a: b, b: a} swaps
          pairs.fields().forEachRemaining(e -> {
            JsonNode v = body.get(e.getKey());
            copies.put(e.getValue().asText(), v == null ? Json.MAPPER.nullNode() : v.deepCopy());
          });
          copies.forEach(body::set);
          return body;
        };
      default:
        throw b.unknown();
    }
  }

  /** A host {@code ConversationStore}: an in-memory map of its own (not the port's class). */
  public static final class SeededStore {
    private final Map<String, ArrayNode> threads = new LinkedHashMap<>();

    /** The transcript under {@code id} (a copy), or {@code null}. */
    public synchronized ArrayNode get(String id) {
      ArrayNode t = threads.get(id);
      return t == null ? null : t.deepCopy();
    }

    /** Stores a copy of {@code messages} under {@code id}. */
    public synchronized void save(String id, ArrayNode messages) {
      threads.put(id, messages.deepCopy());
    }
  }

  /** {@code {"seeded": {id: [message…]…}}}: a store holding these transcripts at start. */
  public static SeededStore store(JsonNode behaviour) {
    Behaviour b = Behaviour.of("the store behaviour", behaviour);
    if (!b.name().equals("seeded")) {
      throw b.unknown();
    }
    SeededStore store = new SeededStore();
    b.fields().json().fields().forEachRemaining(e -> {
      if (!e.getValue().isArray()) {
        throw KitError.badRequest("store seeded " + Json.quote(e.getKey()) + " must be an array");
      }
      store.save(e.getKey(), (ArrayNode) e.getValue());
    });
    return store;
  }

  /** {@code {"collect": true}}: every record lands in {@code metricEvents}. */
  public static Consumer<ObjectNode> onMetric(JsonNode behaviour, Records records) {
    Behaviour b = Behaviour.of("the onMetric behaviour", behaviour);
    if (!b.name().equals("collect")) {
      throw b.unknown();
    }
    b.requireTrue();
    records.install(Records.METRIC_EVENTS);
    return event -> records.record(Records.METRIC_EVENTS, event);
  }

  /** A classifier's custom {@code evaluate(state, questions)}: the decision JSON, or a throw. */
  @FunctionalInterface
  public interface Evaluate {
    /** Evaluates; the answer is a decision in the systemone wire form the port decodes. */
    JsonNode evaluate(JsonNode state, JsonNode questions) throws Exception;
  }

  /** {@code {"decision": D}} or {@code {"fail": M}}, each call recorded in {@code evaluateCalls}. */
  public static Evaluate evaluate(JsonNode behaviour, Records records) {
    Behaviour b = Behaviour.of("the evaluate behaviour", behaviour);
    Evaluate inner = switch (b.name()) {
      case "decision" -> {
        JsonNode d = b.arg();
        yield (state, questions) -> d.deepCopy();
      }
      case "fail" -> {
        String m = b.text();
        yield (state, questions) -> {
          throw new Exception(m);
        };
      }
      default -> throw b.unknown();
    };
    records.install(Records.EVALUATE_CALLS);
    return (state, questions) -> {
      ObjectNode call = Json.object();
      call.set("state", state);
      call.set("questions", questions);
      records.record(Records.EVALUATE_CALLS, call);
      return inner.evaluate(state, questions);
    };
  }

  /** An agent runtime's {@code onBudget(info)}: {@code "stop"}, {@code "extend"} or {@code "suspend"}. */
  @FunctionalInterface
  public interface OnBudget {
    /** Decides for {@code info} ({@code {handle, limit, owner, reason}}). */
    String decide(ObjectNode info);
  }

  /**
   * {@code {"answer": "stop" | "extend" | "suspend"}} for every stop, each info in {@code
   * onBudgetCalls}. A port without {@code suspend} answers {@code unsupported} for it itself.
   */
  public static OnBudget onBudget(JsonNode behaviour, Records records) {
    Behaviour b = Behaviour.of("the onBudget behaviour", behaviour);
    if (!b.name().equals("answer")) {
      throw b.unknown();
    }
    String answer = b.text();
    if (!Set.of("stop", "extend", "suspend").contains(answer)) {
      throw KitError.badRequest("onBudget: {\"answer\": \"stop\" | \"extend\"}, got " + Json.quote(answer));
    }
    return info -> {
      records.record(Records.ON_BUDGET_CALLS, info);
      return answer;
    };
  }
}
