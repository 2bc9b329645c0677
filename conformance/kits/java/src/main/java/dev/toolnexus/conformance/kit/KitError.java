package dev.toolnexus.conformance.kit;

import java.util.Set;

/**
 * A driver failure answered as an error envelope (PROTOCOL.md §4): {@code {"ok":false,
 * "error":{"kind":…,"message":…}}}. Only the four kinds of §4 exist; a tool's own failure is
 * never one of these (it is an {@code isError} ToolResult).
 */
public final class KitError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The port does not implement this command, option or behaviour: the scenario is skipped. */
  public static final String UNSUPPORTED = "unsupported";
  /** The request is malformed (missing field, wrong type, unknown option key, bad line). */
  public static final String BAD_REQUEST = "bad_request";
  /** A {@code toolkit} field names no toolkit of this session. */
  public static final String UNKNOWN_TOOLKIT = "unknown_toolkit";
  /** The driver itself broke (an exception escaped where no {@code raised} answer is named). */
  public static final String INTERNAL = "internal";

  private static final Set<String> KINDS = Set.of(UNSUPPORTED, BAD_REQUEST, UNKNOWN_TOOLKIT, INTERNAL);

  private final String kind;

  /** A failure of one of the four kinds; any other kind is a programming error. */
  public KitError(String kind, String message) {
    super(message);
    if (!KINDS.contains(kind)) {
      throw new IllegalArgumentException("not an error kind of PROTOCOL.md §4: " + kind);
    }
    this.kind = kind;
  }

  /** The envelope's {@code error.kind}. */
  public String kind() {
    return kind;
  }

  /** An {@code unsupported} failure: the scenario is skipped quoting {@code message}. */
  public static KitError unsupported(String message) {
    return new KitError(UNSUPPORTED, message);
  }

  /** A {@code bad_request} failure. */
  public static KitError badRequest(String message) {
    return new KitError(BAD_REQUEST, message);
  }
}
