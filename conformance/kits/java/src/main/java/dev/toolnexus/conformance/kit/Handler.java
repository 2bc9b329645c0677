package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The port-specific code of one command: it returns the fields of the success answer ({@code
 * null} for none); the kit adds {@code ok} and {@code seq}. A thrown {@link KitError} is answered
 * with its kind, anything else thrown as {@code internal}.
 */
@FunctionalInterface
public interface Handler {
  /** Answers {@code req}. */
  ObjectNode handle(Request req) throws Exception;
}
