package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The per-session records: copies, caps, resets. */
class RecordsTest {
  @Test
  void entriesAreCopiesTakenWhenRecorded() {
    Records r = new Records();
    ObjectNode usage = Json.object().put("turns", 1);
    r.record(Records.HOOK_CALLS, usage);
    usage.put("turns", 2); // a port mutating its object later must not change the record
    r.record(Records.HOOK_CALLS, usage);
    assertEquals("[{\"turns\":1},{\"turns\":2}]", Json.compact(r.list(Records.HOOK_CALLS)));
  }

  @Test
  void listsAreCappedAtAThousand() {
    Records r = new Records();
    for (int i = 0; i < 1005; i++) {
      r.record(Records.METRIC_EVENTS, Json.object().put("i", i));
    }
    assertEquals(Records.CAP, r.list(Records.METRIC_EVENTS).size());
    assertEquals(999, r.list(Records.METRIC_EVENTS).get(999).get("i").asInt());
  }

  @Test
  void commandsResetTheirListsAndBuildsResetToolCancels() {
    Records r = new Records();
    r.install(Records.HOOK_CALLS);
    r.record(Records.HOOK_CALLS, Json.object());
    r.record(Records.TOOL_CANCELS, Json.object().put("name", "t").put("cancelled", false));
    r.startCommand();
    assertEquals("{\"hookCalls\":[]}", Json.compact(r.answerInto(Json.object())));
    assertEquals(1, r.list(Records.TOOL_CANCELS).size());
    r.startBuild();
    assertEquals(0, r.list(Records.TOOL_CANCELS).size());
  }
}
