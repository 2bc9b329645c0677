package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The skill provider and {@code waitFor} interpreters (PROTOCOL.md §7). */
class ResolversTest {
  @Test
  void skillProviderSkillsAndFail() throws Exception {
    Resolvers.SkillProvider p = Resolvers.skillProvider(Json.parse("{\"skills\":[{\"name\":\"notes\",\"description\":\"Take notes\",\"content\":\"Write it down.\"}]}"));
    assertEquals("[{\"name\":\"notes\",\"description\":\"Take notes\",\"content\":\"Write it down.\"}]", Json.compact(p.skills()));
    // §5.2: {"skillProvider":{"fail":"provider down"}} raises "provider down"
    Exception e = assertThrows(Exception.class, () -> Resolvers.skillProvider(Json.parse("{\"fail\":\"provider down\"}")).skills());
    assertEquals("provider down", e.getMessage());
  }

  @Test
  void waitForAnswerEchoesTheRequestId() throws Exception {
    Records records = new Records();
    ObjectNode request = (ObjectNode) Json.parse("{\"id\":\"req-1\",\"kind\":\"approval\",\"prompt\":\"ok?\"}");
    Resolvers.WaitFor w = Resolvers.waitFor(Json.parse("{\"answer\":{\"data\":{\"approved\":true}}}"), records);
    assertEquals("{\"id\":\"req-1\",\"ok\":true,\"data\":{\"approved\":true}}", Json.compact(w.answer(request)));
    Resolvers.WaitFor no = Resolvers.waitFor(Json.parse("{\"answer\":{\"ok\":false,\"reason\":\"denied\"}}"), records);
    assertEquals("{\"id\":\"req-1\",\"ok\":false,\"reason\":\"denied\"}", Json.compact(no.answer(request)));
    assertEquals("[" + Json.compact(request) + "," + Json.compact(request) + "]", Json.compact(records.list(Records.WAIT_FOR_CALLS)));
    assertEquals("{\"waitForCalls\":[" + Json.compact(request) + "," + Json.compact(request) + "]}", Json.compact(records.answerInto(Json.object())));
  }

  @Test
  void echoRequestFlattensDataToText() throws Exception {
    ObjectNode request = (ObjectNode) Json.parse("{\"id\":\"e1\",\"kind\":\"elicitation\",\"prompt\":\"Your name?\",\"url\":\"https://x.test\",\"data\":{\"schema\":{\"type\":\"object\",\"é\":1}}}");
    Resolvers.WaitFor w = Resolvers.waitFor(Json.parse("{\"echoRequest\":true}"), null);
    assertEquals("{\"id\":\"e1\",\"ok\":true,\"data\":{\"id\":\"e1\",\"kind\":\"elicitation\",\"prompt\":\"Your name?\",\"url\":\"https://x.test\",\"data\":\"{\\\"schema\\\":{\\\"type\\\":\\\"object\\\",\\\"é\\\":1}}\"}}",
        Json.compact(w.answer(request)));
    assertEquals(KitError.UNSUPPORTED, assertThrows(KitError.class, () -> Resolvers.waitFor(Json.parse("{\"ask\":1}"), null)).kind());
  }
}
