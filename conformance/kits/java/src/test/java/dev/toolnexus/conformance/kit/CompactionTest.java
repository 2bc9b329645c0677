package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.junit.jupiter.api.Test;

/** §5.26's compactor options against its example. */
class CompactionTest {
  @Test
  void theCompactExamplesOptions() throws Exception {
    Records records = new Records();
    Compaction.Options o = Compaction.options(Json.parse(
        "{\"maxTokens\":3,\"keepTail\":2,\"countTokens\":{\"perMessage\":1},\"summarize\":{\"template\":\"summarized <N> messages\"}}"), records);
    assertEquals(3, o.maxTokens());
    assertEquals(2L, o.keepTail());
    ArrayNode transcript = (ArrayNode) Json.parse("[{\"role\":\"system\",\"content\":\"SOUL\"},{\"role\":\"user\",\"content\":\"q0\"},{\"role\":\"assistant\",\"content\":\"a0\"},{\"role\":\"user\",\"content\":\"q1\"},{\"role\":\"assistant\",\"content\":\"a1\"}]");
    assertEquals(5, o.countTokens().count(transcript));
    ArrayNode older = (ArrayNode) Json.parse("[{\"role\":\"user\",\"content\":\"q0\"},{\"role\":\"assistant\",\"content\":\"a0\"}]");
    assertEquals("summarized 2 messages", o.summarize().summarize(older));
    assertEquals("[[{\"role\":\"user\",\"content\":\"q0\"},{\"role\":\"assistant\",\"content\":\"a0\"}]]", Json.compact(records.list(Records.SUMMARIZE_CALLS)));
  }

  @Test
  void defaultsTextSummaryAndUnknownKeys() throws Exception {
    Compaction.Options o = Compaction.options(Json.parse("{\"maxTokens\":10,\"summarize\":{\"text\":\"S <N>\"}}"), new Records());
    assertNull(o.keepTail());
    assertNull(o.countTokens());
    assertEquals(false, o.flushToMemory());
    assertEquals("S <N>", o.summarize().summarize(Json.array()));
    KitError e = assertThrows(KitError.class, () -> Compaction.options(Json.parse("{\"maxTokens\":1,\"summarize\":{\"text\":\"x\"},\"keeptail\":2}"), new Records()));
    assertEquals(KitError.BAD_REQUEST, e.kind());
    assertEquals("unknown option \"keeptail\"", e.getMessage());
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> Compaction.options(Json.parse("{\"summarize\":{\"text\":\"x\"}}"), new Records())).kind());
  }
}
