package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * A behaviour object of PROTOCOL.md §7: exactly one key naming what the host code does, and its
 * argument. Interpreters switch on {@link #name}; a name they do not know is {@code unsupported}.
 *
 * @param what what it configures, for messages ({@code "the extra tool behaviour"})
 * @param name the one key
 * @param arg its value
 */
public record Behaviour(String what, String name, JsonNode arg) {
  /** Reads a behaviour object; anything but an object with one key is {@code bad_request}. */
  public static Behaviour of(String what, JsonNode b) {
    if (!(b instanceof ObjectNode o) || o.size() != 1) {
      throw KitError.badRequest(what + " must be an object with exactly one key, got " + Json.compact(b));
    }
    Map.Entry<String, JsonNode> e = o.fields().next();
    return new Behaviour(what, e.getKey(), e.getValue());
  }

  /** The {@code unsupported} failure for a name the interpreter does not know. */
  public KitError unknown() {
    return KitError.unsupported(what + " " + Json.quote(name) + " is not in the catalogue");
  }

  /** The argument as a string, or {@code bad_request}. */
  public String text() {
    if (!arg.isTextual()) {
      throw KitError.badRequest(what + " " + Json.quote(name) + " takes a string, got " + Json.compact(arg));
    }
    return arg.textValue();
  }

  /** The argument as an object view, or {@code bad_request}. */
  public Fields fields() {
    if (!(arg instanceof ObjectNode o)) {
      throw KitError.badRequest(what + " " + Json.quote(name) + " takes an object, got " + Json.compact(arg));
    }
    return new Fields(o, name + ".");
  }

  /** Requires the argument {@code true} (the {@code {"echo": true}} form). */
  public void requireTrue() {
    if (!arg.isBoolean() || !arg.booleanValue()) {
      throw KitError.badRequest(what + " " + Json.quote(name) + " must be true, got " + Json.compact(arg));
    }
  }
}
