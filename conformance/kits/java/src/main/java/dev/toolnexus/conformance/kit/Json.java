package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Map;

/**
 * JSON for the wire and for PROTOCOL.md §7's byte-exact outputs. Parsing keeps every object's
 * keys in the order received (Jackson's {@link ObjectNode} is insertion-ordered) and accepts
 * lines of any size. {@link #compact} writes compact JSON: no whitespace, keys in order,
 * non-ASCII characters as themselves, no HTML escaping, control characters as lowercase
 * {@code \}{@code u00xx} (as Python's {@code json.dumps} and serde_json write them).
 */
public final class Json {
  private Json() {}

  /** The mapper every kit parse goes through; its limits are lifted for huge requests (§2). */
  public static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
      // Jackson caps strings at 20 M chars by default; a request may carry a 64 MiB part.
      .streamReadConstraints(StreamReadConstraints.builder()
          .maxStringLength(Integer.MAX_VALUE)
          .maxNameLength(Integer.MAX_VALUE)
          .maxNumberLength(Integer.MAX_VALUE)
          .maxNestingDepth(10_000)
          .build())
      .build())
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** A fresh empty object. */
  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /** A fresh empty array. */
  public static ArrayNode array() {
    return JsonNodeFactory.instance.arrayNode();
  }

  /** Parses one JSON text, keeping key order; a text that is not JSON throws. */
  public static JsonNode parse(String text) throws JsonProcessingException {
    return MAPPER.readTree(text);
  }

  /** Compact JSON of {@code node} (a Java {@code null} is JSON {@code null}). */
  public static String compact(JsonNode node) {
    StringBuilder out = new StringBuilder();
    try {
      write(node, out);
    } catch (IOException e) { // a StringBuilder never throws
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** Writes the compact JSON of {@code node} to {@code out}. */
  public static void write(JsonNode node, Appendable out) throws IOException {
    if (node == null || node.isNull() || node.isMissingNode()) {
      out.append("null");
    } else if (node.isObject()) {
      out.append('{');
      boolean first = true;
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!first) {
          out.append(',');
        }
        first = false;
        writeString(e.getKey(), out);
        out.append(':');
        write(e.getValue(), out);
      }
      out.append('}');
    } else if (node.isArray()) {
      out.append('[');
      for (int i = 0; i < node.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        write(node.get(i), out);
      }
      out.append(']');
    } else if (node.isTextual()) {
      writeString(node.textValue(), out);
    } else {
      out.append(node.toString()); // numbers as Jackson holds them, booleans as true/false
    }
  }

  /** {@code s} as a JSON string literal (the quoting of {@code unknown command "X"}). */
  public static String quote(String s) {
    StringBuilder out = new StringBuilder();
    try {
      writeString(s, out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static void writeString(String s, Appendable out) throws IOException {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          boolean lone = Character.isSurrogate(c) && !pairedAt(s, i);
          if (c < 0x20 || lone) { // a lone surrogate cannot be UTF-8: keep it as an escape
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
            if (Character.isHighSurrogate(c)) {
              out.append(s.charAt(++i));
            }
          }
        }
      }
    }
    out.append('"');
  }

  private static boolean pairedAt(String s, int i) {
    char c = s.charAt(i);
    return Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
  }
}
