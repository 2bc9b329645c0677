package dev.toolnexus.conformance.kit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The CORE commands of each SPEC section: {@code hello} lists a declared section only when all
 * of them are registered. Kept alone in this file so it can be replaced by one generated from
 * {@code conformance/protocol.schema.json}. Commands outside this table (skills_prompt,
 * list_skills, content_part, …) are per scenario: their {@code unsupported} skips one scenario.
 */
public final class Sections {
  private Sections() {}

  private static final List<String> TOOLKIT = List.of("build", "tools", "execute");
  private static final List<String> AGENT = List.of("agent_runtime", "agent_close_runtime");
  private static final List<String> LOOP = List.of("client", "run");

  /** Section → its core commands. A section missing here needs only to be declared. */
  public static final Map<String, List<String>> CORE = Map.ofEntries(
      Map.entry("0", TOOLKIT), Map.entry("1", TOOLKIT), Map.entry("2", TOOLKIT),
      Map.entry("3", TOOLKIT), Map.entry("4", TOOLKIT), Map.entry("4A", TOOLKIT),
      Map.entry("6", TOOLKIT), Map.entry("7", TOOLKIT), Map.entry("7A", TOOLKIT),
      Map.entry("7B", List.of("serve", "serve_stop", "client")),
      Map.entry("7C", List.of("serve", "serve_stop")),
      Map.entry("7D", AGENT), Map.entry("7E", AGENT),
      Map.entry("7F", List.of("compact")),
      Map.entry("8", LOOP), Map.entry("8A", LOOP), Map.entry("10", LOOP),
      Map.entry("8B", List.of("classifier", "evaluate")),
      Map.entry("11", List.of("translate")));

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
