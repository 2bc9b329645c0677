package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A typed view of one JSON object of a request (the request itself, its {@code options}, a
 * behaviour): a missing required field or a wrong type is {@code bad_request}; a {@code null}
 * value counts as absent (PROTOCOL.md §6).
 */
public class Fields {
  private final ObjectNode node;
  private final String where;

  /** A view of {@code node}; {@code where} prefixes field names in messages ("" at the top). */
  public Fields(ObjectNode node, String where) {
    this.node = node;
    this.where = where;
  }

  /** The object itself, keys in the order received. */
  public ObjectNode json() {
    return node;
  }

  /** Whether {@code key} is present and not null. */
  public boolean has(String key) {
    JsonNode v = node.get(key);
    return v != null && !v.isNull();
  }

  /** The value of {@code key}, or {@code null} when absent or null. */
  public JsonNode opt(String key) {
    return has(key) ? node.get(key) : null;
  }

  /** The value of a required field. */
  public JsonNode get(String key) {
    JsonNode v = opt(key);
    if (v == null) {
      throw KitError.badRequest("missing field " + Json.quote(where + key));
    }
    return v;
  }

  /**
   * The object read as a generated protocol record ({@link Protocol}, e.g. {@code
   * Protocol.AdapterRequest}): a component the schema requires ({@code required = true}) that is
   * absent or null, or a value of the wrong type, is {@code bad_request}.
   */
  public <T extends Record> T as(Class<T> type) {
    for (var component : type.getRecordComponents()) {
      // @JsonProperty does not target record components; the accessor carries it.
      JsonProperty property = component.getAccessor().getAnnotation(JsonProperty.class);
      if (property != null && property.required()) {
        get(property.value());
      }
    }
    try {
      return Json.MAPPER.treeToValue(node, type);
    } catch (JsonProcessingException e) {
      throw KitError.badRequest(where + e.getOriginalMessage());
    } catch (IllegalArgumentException e) {
      throw KitError.badRequest(where + e.getMessage());
    }
  }

  /** A required string field. */
  public String string(String key) {
    return expect(key, get(key), JsonNode::isTextual, "a string").textValue();
  }

  /** An optional string field, {@code fallback} when absent. */
  public String string(String key, String fallback) {
    return has(key) ? string(key) : fallback;
  }

  /** An optional integer field, {@code fallback} when absent. */
  public long integer(String key, long fallback) {
    return has(key) ? integer(key) : fallback;
  }

  /** A required integer field. */
  public long integer(String key) {
    return expect(key, get(key), JsonNode::canConvertToExactIntegral, "an integer").asLong();
  }

  /** An optional boolean field, {@code fallback} when absent. */
  public boolean bool(String key, boolean fallback) {
    return has(key) ? expect(key, get(key), JsonNode::isBoolean, "a boolean").booleanValue() : fallback;
  }

  /** A required object field, as a view. */
  public Fields fields(String key) {
    return new Fields((ObjectNode) expect(key, get(key), JsonNode::isObject, "an object"), where + key + ".");
  }

  /** A required array field. */
  public ArrayNode array(String key) {
    return (ArrayNode) expect(key, get(key), JsonNode::isArray, "an array");
  }

  /** An optional array of strings, empty when absent. */
  public List<String> strings(String key) {
    List<String> out = new ArrayList<>();
    if (has(key)) {
      for (JsonNode v : array(key)) {
        if (!v.isTextual()) {
          throw KitError.badRequest("field " + Json.quote(where + key) + ": expected strings, got " + Json.compact(v));
        }
        out.add(v.textValue());
      }
    }
    return out;
  }

  /** The keys present, in the order received. */
  public List<String> keys() {
    List<String> out = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      out.add(it.next());
    }
    return out;
  }

  /** Fails with {@code bad_request} {@code unknown option "k"} for a key outside {@code known}. */
  public void onlyKeys(java.util.Collection<String> known) {
    for (String k : keys()) {
      if (!known.contains(k)) {
        throw KitError.badRequest("unknown option " + Json.quote(where + k));
      }
    }
  }

  private JsonNode expect(String key, JsonNode v, java.util.function.Predicate<JsonNode> ok, String what) {
    if (!ok.test(v)) {
      throw KitError.badRequest("field " + Json.quote(where + key) + ": expected " + what + ", got " + Json.compact(v));
    }
    return v;
  }
}
