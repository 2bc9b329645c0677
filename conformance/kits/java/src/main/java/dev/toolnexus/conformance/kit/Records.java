package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the host code of a session observed (PROTOCOL.md §5.13, §5.25): each list in call order,
 * every entry a deep copy taken when the call happened, at most {@link #CAP} entries a list.
 * The per-command lists start empty at each loop command ({@link #startCommand}); {@code
 * toolCancels} is the session's and starts empty at each {@code build} ({@link #startBuild}).
 */
public final class Records {
  /** A driver keeps at most this many entries per list (§5.13). */
  public static final int CAP = 1000;

  /** Every client hook invocation (§7 "Client hooks"). */
  public static final String HOOK_CALLS = "hookCalls";
  /** Every {@code onMetric} record. */
  public static final String METRIC_EVENTS = "metricEvents";
  /** Every {@code onError} info. */
  public static final String ON_ERROR_CALLS = "onErrorCalls";
  /** Every {@code generate} request. */
  public static final String GENERATE_CALLS = "generateCalls";
  /** Every Request a client's {@code waitFor} received. */
  public static final String WAIT_FOR_CALLS = "waitForCalls";
  /** Every call of a classifier's custom {@code evaluate}. */
  public static final String EVALUATE_CALLS = "evaluateCalls";
  /** Every {@code summarize(older)} argument (§5.26). */
  public static final String SUMMARIZE_CALLS = "summarizeCalls";
  /** Every {@code onBudget(info)} argument (§5.27). */
  public static final String ON_BUDGET_CALLS = "onBudgetCalls";
  /** Every finished {@code awaitCancel} tool call since the latest build (§5.25). */
  public static final String TOOL_CANCELS = "toolCancels";

  private static final List<String> PER_COMMAND = List.of(HOOK_CALLS, METRIC_EVENTS, ON_ERROR_CALLS,
      GENERATE_CALLS, WAIT_FOR_CALLS, EVALUATE_CALLS, SUMMARIZE_CALLS, ON_BUDGET_CALLS);
  private static final List<String> ANSWERED = List.of(HOOK_CALLS, METRIC_EVENTS, ON_ERROR_CALLS,
      GENERATE_CALLS, WAIT_FOR_CALLS, EVALUATE_CALLS);

  private final Map<String, ArrayNode> lists = new LinkedHashMap<>();
  private final Set<String> installed = new LinkedHashSet<>();
  private long command; // counts loop commands, so "first call of a run" can be told

  /** Marks a list as belonging to an installed seam: {@link #answerInto} then answers it. */
  public synchronized void install(String list) {
    installed.add(list);
  }

  /** Appends a deep copy of {@code entry} to {@code list}, unless the list is full. */
  public synchronized void record(String list, JsonNode entry) {
    ArrayNode l = lists.computeIfAbsent(list, k -> Json.array());
    if (l.size() < CAP) {
      l.add(entry == null ? Json.MAPPER.nullNode() : entry.deepCopy());
    }
  }

  /** A copy of {@code list} (empty when nothing was recorded). */
  public synchronized ArrayNode list(String list) {
    ArrayNode l = lists.get(list);
    return l == null ? Json.array() : l.deepCopy();
  }

  /** A loop command starts: the per-command lists are emptied. */
  public synchronized void startCommand() {
    PER_COMMAND.forEach(lists::remove);
    command++;
  }

  /** The number of the current loop command (changes at each {@link #startCommand}). */
  public synchronized long command() {
    return command;
  }

  /** A {@code build} starts: {@code toolCancels} is emptied. */
  public synchronized void startBuild() {
    lists.remove(TOOL_CANCELS);
  }

  /** Adds the answered lists of the installed seams to a loop command's answer. */
  public synchronized ObjectNode answerInto(ObjectNode answer) {
    for (String name : ANSWERED) {
      if (installed.contains(name)) {
        answer.set(name, list(name));
      }
    }
    return answer;
  }

  /** Forgets everything (shutdown). */
  public synchronized void clear() {
    lists.clear();
    installed.clear();
  }
}
