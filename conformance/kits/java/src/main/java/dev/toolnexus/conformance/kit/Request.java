package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** One parsed request line (PROTOCOL.md §5): its {@code cmd} and every field, keys in order. */
public final class Request extends Fields {
  private final String cmd;

  /** Wraps a parsed request whose {@code cmd} is already known. */
  public Request(ObjectNode node, String cmd) {
    super(node, "");
    this.cmd = cmd;
  }

  /** The command. */
  public String cmd() {
    return cmd;
  }
}
