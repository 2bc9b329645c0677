package dev.toolnexus.conformance.starter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolnexus.conformance.kit.Behaviour;
import dev.toolnexus.conformance.kit.Fields;
import dev.toolnexus.conformance.kit.Handles;
import dev.toolnexus.conformance.kit.Json;
import dev.toolnexus.conformance.kit.Kit;
import dev.toolnexus.conformance.kit.KitError;
import dev.toolnexus.conformance.kit.Protocol;
import dev.toolnexus.conformance.kit.Records;
import dev.toolnexus.conformance.kit.Request;
import dev.toolnexus.conformance.kit.Tools;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The starter driver in Java: conformance/PROTOCOL.md through the Java kit against the toy
 * toolkit. It mirrors conformance/ports/starter/driver.py: SPEC §0, §1 and §4 as far as a toolkit
 * of extra tools goes, {@code unsupported} for the rest (skipped, never failed). For your port,
 * replace the toy with calls into it; the kit does the protocol.
 */
public final class Driver {
  private Driver() {}

  private static final Set<String> OPTIONS = Set.of("mcpConfig", "skillsDir", "skills", "skillProvider",
      "skillsFilter", "skillSampleLimit", "extraTools", "builtins", "agents", "waitFor", "disableTools",
      "disableSkills", "relayTools");
  private static final Set<String> TOY_OPTIONS = Set.of("extraTools", "disableTools", "builtins");
  private static final Set<String> TOY_BEHAVIOURS = Set.of("text", "echo", "fail", "suspend");

  private static final Records records = new Records();
  private static final Handles<ToyToolkit> kits = Handles.toolkits(null); // toolkit id -> toolkit (§3)

  /** Runs the driver on stdin/stdout. */
  public static void main(String[] argv) {
    new Kit(new Kit.Port("starter-java", "java", "0.1.0")).spec("0.16.0").implement("0", "1", "4")
        .handle("build", Driver::build)
        // The handlers read their requests as the generated Protocol records (a required key
        // that is absent is bad_request, as Fields.as checks).
        .handle("sanitize", req ->
            Json.object().put("value", ToyToolkit.sanitize(req.as(Protocol.SanitizeRequest.class).value())))
        .handle("close", req -> { // §5.10: idempotent; a closed id is forgotten
          kits.remove(req.as(Protocol.CloseRequest.class).toolkit());
          return null;
        })
        .handle("tools", req -> answer("tools", kits.get(req.as(Protocol.ToolsRequest.class).toolkit()).tools()))
        .handle("execute", req -> {
          Protocol.ExecuteRequest r = req.as(Protocol.ExecuteRequest.class);
          ToyToolkit tk = kits.get(r.toolkit());
          // The raw nodes, not the record's copies: an answer's data keeps its key order.
          JsonNode args = req.json().has("args") ? req.json().get("args") : Json.object(); // absent ⇒ {}
          JsonNode answer = req.has("context") ? req.fields("context").opt("answer") : null;
          return answer("result", tk.execute(r.name(), args, answer));
        })
        .handle("adapter", req -> {
          Protocol.AdapterRequest r = req.as(Protocol.AdapterRequest.class);
          ToyToolkit tk = kits.get(r.toolkit());
          if (!Set.of("openai", "anthropic", "gemini").contains(r.format())) {
            throw KitError.badRequest("unknown adapter format " + repr(r.format()));
          }
          return answer("output", tk.adapter(r.format()));
        })
        .onClose(kits::clear) // §5.11: shutdown (and EOF, signals) close every toolkit
        .main();
  }

  /** PROTOCOL.md §5.2, with the Python starter's option rules and messages. */
  private static ObjectNode build(Request req) {
    Fields opts = req.fields("options");
    for (String key : opts.keys()) { // §6: an unknown key is a typo; a known one the toy lacks is unsupported
      if (!opts.has(key)) {
        continue; // §6: null means absent
      }
      if (!OPTIONS.contains(key)) {
        throw KitError.badRequest("unknown option " + repr(key));
      }
      if (!TOY_OPTIONS.contains(key)) {
        throw KitError.unsupported("the option " + repr(key));
      }
    }
    JsonNode builtins = opts.opt("builtins");
    if (builtins == null || !builtins.isBoolean() || builtins.booleanValue()) { // absent means on (SPEC §4A)
      throw KitError.unsupported("builtin tools (SPEC §4A); only builtins: false");
    }
    List<Tools.ExtraTool> tools = new ArrayList<>();
    if (opts.has("extraTools")) {
      for (JsonNode spec : opts.array("extraTools")) {
        String kind = spec.has("behaviour") ? Behaviour.of("the extra tool behaviour", spec.get("behaviour")).name() : "http";
        if (!TOY_BEHAVIOURS.contains(kind)) { // not panic, awaitCancel, template, parts or HTTP tools
          throw KitError.unsupported("the extra tool behaviour " + repr(kind));
        }
        tools.add(Tools.extraTool(spec, records));
      }
    }
    records.startBuild();
    ToyToolkit tk = new ToyToolkit(tools, opts.strings("disableTools"));
    kits.put(req.string("id"), tk); // replaces an earlier one
    ObjectNode out = Json.object().put("toolkit", req.string("id"));
    out.set("tools", tk.tools());
    tk.names().stream().sorted().forEach(out.putArray("names")::add);
    out.putObject("statuses").put("builtin", "disabled"); // builtins are off
    out.putObject("errors");
    out.putArray("skills");
    return out;
  }

  private static ObjectNode answer(String key, JsonNode value) {
    ObjectNode out = Json.object();
    out.set(key, value);
    return out;
  }

  /** Python's repr of a string, so messages read as the Python starter's. */
  static String repr(String s) {
    char q = s.contains("'") && !s.contains("\"") ? '"' : '\'';
    StringBuilder out = new StringBuilder().append(q);
    for (char c : s.toCharArray()) {
      if (c == q || c == '\\') {
        out.append('\\').append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\t') {
        out.append("\\t");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c < 0x20 || c == 0x7f) {
        out.append(String.format("\\x%02x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append(q).toString();
  }
}
