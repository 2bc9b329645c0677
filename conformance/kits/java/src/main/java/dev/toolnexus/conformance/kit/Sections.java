package dev.toolnexus.conformance.kit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The CORE commands of each SPEC section: {@code hello} lists a declared section only when all
 * of them are registered. The table is generated from {@code conformance/protocol.schema.json}
 * ({@code schema --kit java}). Commands outside this table (skills_prompt,
 * list_skills, content_part, …) are per scenario: their {@code unsupported} skips one scenario.
 */
public final class Sections {
  private Sections() {}

  /**
   * Section → its core commands, generated from the protocol schema ({@link Protocol}). A section
   * missing here needs only to be declared.
   */
  public static final Map<String, List<String>> CORE = Protocol.CORE_COMMANDS;

  /** The declared sections whose core commands are all in {@code registered}, once each. */
  public static List<String> listed(List<String> declared, Collection<String> registered) {
    List<String> out = new ArrayList<>();
    for (String s : declared) {
      if (!out.contains(s) && registered.containsAll(CORE.getOrDefault(s, List.of()))) {
        out.add(s);
      }
    }
    return out;
  }
}
