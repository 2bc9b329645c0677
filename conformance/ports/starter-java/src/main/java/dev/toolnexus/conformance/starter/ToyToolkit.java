package dev.toolnexus.conformance.starter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolnexus.conformance.kit.Json;
import dev.toolnexus.conformance.kit.Tools;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The toy toolkit: it stands in for your port (SPEC §4 with extra tools only: no MCP, skills or
 * builtins). Replace it with calls into your port.
 */
final class ToyToolkit {
  private final List<ObjectNode> tools = new ArrayList<>(); // the descriptions in tools() order
  private final Map<String, Tools.Body> bodies = new LinkedHashMap<>();

  /** createToolkit({extraTools, disableTools, builtins: false}). */
  ToyToolkit(List<Tools.ExtraTool> extraTools, List<String> disableTools) {
    for (Tools.ExtraTool t : extraTools) {
      ObjectNode desc = t.describe().put("name", sanitize(t.name())); // SPEC §1: a name is sanitized
      String name = desc.get("name").asText();
      if (!disableTools.contains(name) && !bodies.containsKey(name)) { // SPEC §4: first wins
        tools.add(desc);
        bodies.put(name, t.body());
      }
    }
  }

  /** SPEC §0.2: every character outside [a-zA-Z0-9_-] becomes "_". */
  static String sanitize(String name) {
    return name.replaceAll("[^a-zA-Z0-9_-]", "_");
  }

  /** tools(), as descriptions. */
  ArrayNode tools() {
    ArrayNode out = Json.array();
    tools.forEach(t -> out.add(t.deepCopy()));
    return out;
  }

  /** The names in tools() order. */
  List<String> names() {
    return new ArrayList<>(bodies.keySet());
  }

  /** execute(name, args, ctx): always a ToolResult. */
  ObjectNode execute(String name, JsonNode args, JsonNode answer) {
    Tools.Body body = bodies.get(name);
    if (body == null) { // SPEC §4: an unknown name is an isError result, not a throw
      return result("Unknown tool: " + name, true);
    }
    Tools.Outcome out;
    try {
      out = body.call(args, Tools.Context.of(answer));
    } catch (Exception e) { // SPEC §6: a tool that throws is an isError result with its message
      return result(e.getMessage(), true);
    }
    if (out instanceof Tools.Pending p) { // SPEC §10: a suspension
      ObjectNode r = result(p.output(), true);
      r.putObject("metadata").set("pending", p.request());
      return r;
    }
    return result(((Tools.Text) out).output(), false);
  }

  private static ObjectNode result(String output, boolean isError) {
    return Json.object().put("output", output).put("isError", isError);
  }

  /** SPEC §4 "Adapter mapping": schema only, in tools() order. */
  ArrayNode adapter(String format) {
    ArrayNode out = Json.array();
    ArrayNode decls = Json.array();
    for (ObjectNode t : tools) {
      ObjectNode d = Json.object().put("name", t.get("name").asText()).put("description", t.get("description").asText());
      if (format.equals("anthropic")) {
        out.add(d.set("input_schema", t.get("inputSchema").deepCopy()));
      } else if (format.equals("gemini")) {
        decls.add(d.set("parameters", t.get("inputSchema").deepCopy()));
      } else {
        out.addObject().put("type", "function").set("function", d.set("parameters", t.get("inputSchema").deepCopy()));
      }
    }
    if (format.equals("gemini")) {
      out.addObject().set("functionDeclarations", decls); // one element wrapping every tool
    }
    return out;
  }
}
