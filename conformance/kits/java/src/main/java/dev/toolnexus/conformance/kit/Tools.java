package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Extra tools (PROTOCOL.md §7 "Extra tools" and "HTTP tools"): a tool's description and, for a
 * behaviour, a plain {@link Body} the port wraps with its own native-tool helper; for an
 * {@code http} block, a typed {@link Http} view the port builds its HTTP tool from.
 */
public final class Tools {
  private Tools() {}

  /** The body of an extra tool, called on {@code execute(args, ctx)}. */
  @FunctionalInterface
  public interface Body {
    /**
     * Runs the tool. {@code fail} throws a plain {@link Exception} whose message is the tool's
     * message (the port's ordinary error path); {@code panic} throws a {@link Panic} that the
     * kit never catches: the port's own containment must.
     */
    Outcome call(JsonNode args, Context ctx) throws Exception;
  }

  /** The port's cancellation signal for one call, as {@code awaitCancel} waits on it. */
  @FunctionalInterface
  public interface Signal {
    /** Waits up to {@code ms} for the signal; true when it fired. */
    boolean await(long ms) throws InterruptedException;

    /** A signal that never fires: waiting sleeps the whole bound. */
    Signal NEVER = ms -> {
      Thread.sleep(ms);
      return false;
    };
  }

  /**
   * What a call knows besides its arguments.
   *
   * @param answer the SPEC §10 Answer of the retry after {@code waitFor} ({@code null} otherwise)
   * @param signal the call's cancellation signal
   */
  public record Context(JsonNode answer, Signal signal) {
    /** A context with an answer (or null) and no cancellation. */
    public static Context of(JsonNode answer) {
      return new Context(answer, Signal.NEVER);
    }
  }

  /** What a body returns; the port turns it into its own ToolResult. */
  public sealed interface Outcome permits Text, Pending, WithParts {}

  /** Success with {@code output}. */
  public record Text(String output) implements Outcome {}

  /**
   * A suspension (SPEC §10): the result is {@code isError} true, {@code output} the prompt and
   * {@code metadata.pending} = {@code request} ({@code {id, kind, prompt, url?, data?,
   * expiresAt?}}).
   */
  public record Pending(ObjectNode request) implements Outcome {
    /** The result's output: the request's prompt. */
    public String output() {
      return request.path("prompt").asText("");
    }
  }

  /** Success with {@code output} and these SPEC §1B parts in their wire form. */
  public record WithParts(String output, ArrayNode parts) implements Outcome {}

  /** The unexpected failure of {@code {"panic": M}}: the kit never catches it. */
  public static final class Panic extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A panic with message {@code m}. */
    public Panic(String m) {
      super(m);
    }
  }

  /**
   * An SPEC §7 HTTP tool's declaration, key for key; {@code block} keeps every key as sent
   * (unknown ones included).
   */
  public record Http(String method, String url, Map<String, String> headers, List<String> query,
      String body, long timeoutMs, String resultMode, ObjectNode block) {}

  /**
   * An extra tool: its description and either a body ({@code behaviour} names which) or an
   * {@code http} declaration.
   */
  public record ExtraTool(String name, String description, ObjectNode inputSchema, String source,
      String behaviour, Body body, Http http) {
    /** The tool description of §8: {@code {name, description, inputSchema, source}}. */
    public ObjectNode describe() {
      ObjectNode d = Json.object().put("name", name).put("description", description);
      d.set("inputSchema", inputSchema.deepCopy());
      return d.put("source", source);
    }
  }

  /** The default input schema, {@code {"type":"object","properties":{}}}. */
  public static ObjectNode defaultSchema() {
    ObjectNode s = Json.object().put("type", "object");
    s.putObject("properties");
    return s;
  }

  private static final String RUN = HexFormat.of().formatHex(new SecureRandom().generateSeed(8));
  private static final AtomicLong NEXT = new AtomicLong();

  /** A fresh Request id, unique in the process: {@code req-<hex>-<n>}. */
  public static String newRequestId() {
    return "req-" + RUN + "-" + NEXT.getAndIncrement();
  }

  /**
   * Reads an extra tool {@code {name, description?, inputSchema?, source?, behaviour | http}}.
   * {@code records} receives {@code toolCancels} entries of {@code awaitCancel}.
   */
  public static ExtraTool extraTool(JsonNode specNode, Records records) {
    if (!(specNode instanceof ObjectNode o)) {
      throw KitError.badRequest("an extra tool is an object, got " + Json.compact(specNode));
    }
    Fields spec = new Fields(o, "");
    spec.onlyKeys(Set.of("name", "description", "inputSchema", "source", "behaviour", "http"));
    String name = spec.string("name");
    String description = spec.string("description", "");
    JsonNode schema = spec.opt("inputSchema");
    if (schema != null && !schema.isObject()) {
      throw KitError.badRequest("extra tool " + Json.quote(name) + ": inputSchema must be an object");
    }
    ObjectNode inputSchema = schema == null ? defaultSchema() : (ObjectNode) schema;
    String source = spec.string("source", "native");
    if (spec.has("http") == spec.has("behaviour")) {
      throw KitError.badRequest("extra tool " + Json.quote(name) + " needs exactly one of behaviour and http");
    }
    if (spec.has("http")) {
      return new ExtraTool(name, description, inputSchema, "http", "http", null, http(spec.fields("http")));
    }
    Behaviour b = Behaviour.of("the extra tool behaviour", spec.get("behaviour"));
    return new ExtraTool(name, description, inputSchema, source, b.name(), body(name, b, records), null);
  }

  private static Body body(String name, Behaviour b, Records records) {
    switch (b.name()) {
      case "echo":
        b.requireTrue();
        return (args, ctx) -> new Text(Json.compact(args));
      case "text": {
        String t = b.text();
        return (args, ctx) -> new Text(t);
      }
      case "template": {
        String t = b.text();
        return (args, ctx) -> new Text(template(t, args));
      }
      case "fail": {
        String m = b.text();
        return (args, ctx) -> {
          throw new Exception(m);
        };
      }
      case "panic": {
        String m = b.text();
        return (args, ctx) -> {
          throw new Panic(m);
        };
      }
      case "parts": {
        Fields p = b.fields();
        String output = p.string("output");
        ArrayNode parts = p.array("parts");
        return (args, ctx) -> new WithParts(output, parts.deepCopy());
      }
      case "awaitCancel": {
        long ms = b.fields().integer("ms", 10_000);
        return (args, ctx) -> awaitCancel(name, ms, ctx, records);
      }
      case "suspend":
        return suspend(b.fields());
      default:
        throw b.unknown();
    }
  }

  /** {@code {{name}}} → the argument: a string as itself, other JSON compact, absent empty. */
  static String template(String t, JsonNode args) {
    StringBuilder out = new StringBuilder();
    int at = 0;
    while (true) {
      int open = t.indexOf("{{", at);
      int close = open < 0 ? -1 : t.indexOf("}}", open + 2);
      if (close < 0) {
        return out.append(t, at, t.length()).toString();
      }
      out.append(t, at, open);
      JsonNode v = args == null ? null : args.get(t.substring(open + 2, close).trim());
      if (v != null) {
        out.append(v.isTextual() ? v.textValue() : Json.compact(v));
      }
      at = close + 2;
    }
  }

  private static Outcome awaitCancel(String name, long ms, Context ctx, Records records) {
    boolean cancelled;
    try {
      cancelled = ctx.signal().await(ms);
    } catch (InterruptedException e) { // a port that cancels by interrupting the call's thread
      Thread.currentThread().interrupt();
      cancelled = true;
    }
    records.record(Records.TOOL_CANCELS, Json.object().put("name", name).put("cancelled", cancelled));
    return new Text(cancelled ? "cancelled" : "not cancelled");
  }

  private static Body suspend(Fields s) {
    s.onlyKeys(Set.of("kind", "prompt", "url", "data", "expiresAt", "always", "echoArgs", "answerText"));
    String kind = s.string("kind", "approval");
    String prompt = s.string("prompt", "");
    String url = s.string("url", null);
    JsonNode data = s.opt("data");
    String expiresAt = s.string("expiresAt", null);
    boolean always = s.bool("always", false);
    boolean echoArgs = s.bool("echoArgs", false);
    String answerText = s.string("answerText", null);
    return (args, ctx) -> {
      JsonNode answer = ctx.answer();
      if (answer == null || answer.isNull() || always) {
        ObjectNode req = Json.object().put("id", newRequestId()).put("kind", kind).put("prompt", prompt);
        if (url != null) {
          req.put("url", url);
        }
        if (data != null) {
          req.set("data", data.deepCopy());
        }
        if (expiresAt != null) {
          req.put("expiresAt", expiresAt);
        }
        return new Pending(req);
      }
      if (answerText != null && answer.path("ok").asBoolean(false)) {
        return new Text(answerText);
      }
      return new Text(Json.compact(echoArgs ? args : answer.get("data")));
    };
  }

  private static Http http(Fields h) {
    Map<String, String> headers = new LinkedHashMap<>();
    if (h.has("headers")) {
      h.fields("headers").json().fields().forEachRemaining(e -> headers.put(e.getKey(), e.getValue().asText()));
    }
    List<String> query = new ArrayList<>(h.strings("query"));
    return new Http(h.string("method", "GET"), h.string("url"), headers, query, h.string("body", null),
        h.integer("timeout", 30_000), h.string("resultMode", null), h.json().deepCopy());
  }
}
