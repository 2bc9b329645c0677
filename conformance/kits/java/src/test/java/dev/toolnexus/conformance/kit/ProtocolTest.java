package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The generated {@link Protocol} records, read through {@link Fields#as}. */
class ProtocolTest {
  private static Request request(String line) throws Exception {
    ObjectNode node = (ObjectNode) Json.parse(line);
    return new Request(node, node.get("cmd").textValue());
  }

  /** PROTOCOL.md §5.5's example decodes into the generated record. */
  @Test
  void aRequestReadsAsItsGeneratedRecord() throws Exception {
    Protocol.AdapterRequest r =
        request("{\"cmd\":\"adapter\",\"seq\":4,\"toolkit\":\"tk1\",\"format\":\"openai\"}")
            .as(Protocol.AdapterRequest.class);
    assertEquals("tk1", r.toolkit());
    assertEquals("openai", r.format());
    Protocol.AgentWaitRequest w =
        request("{\"cmd\":\"agent_wait\",\"runtime\":\"rt1\",\"handle\":\"root/asker.1\",\"timeoutMs\":100}")
            .as(Protocol.AgentWaitRequest.class);
    assertEquals(100L, w.timeoutMs());
    assertEquals(null, w.advanceMs());
  }

  /** A key the schema requires, absent or null, is bad_request naming it. */
  @Test
  void aMissingRequiredKeyIsABadRequest() throws Exception {
    for (String line :
        new String[] {
          "{\"cmd\":\"adapter\",\"format\":\"openai\"}",
          "{\"cmd\":\"adapter\",\"toolkit\":null,\"format\":\"openai\"}"
        }) {
      Request req = request(line);
      KitError e = assertThrows(KitError.class, () -> req.as(Protocol.AdapterRequest.class));
      assertEquals("bad_request", e.kind());
      assertEquals("missing field \"toolkit\"", e.getMessage());
    }
  }

  /** hello's table is the generated one. */
  @Test
  void theSectionsTableIsGenerated() {
    assertEquals(Protocol.CORE_COMMANDS.get("4"), Sections.CORE.get("4"));
  }
}
