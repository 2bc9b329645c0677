package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The extra-tool interpreters against PROTOCOL.md's examples (§5.2, §5.4, §5.5, §7). */
class ToolsTest {
  private final Records records = new Records();

  private static JsonNode json(String s) throws Exception {
    return Json.parse(s);
  }

  private Tools.ExtraTool tool(String spec) throws Exception {
    return Tools.extraTool(json(spec), records);
  }

  private static Tools.Outcome call(Tools.ExtraTool t, String args, String answer) throws Exception {
    return t.body().call(json(args), Tools.Context.of(answer == null ? null : json(answer)));
  }

  @Test
  void descriptionDefaultsAsInTheBuildExample() throws Exception {
    // §5.2: {"name":"approve","behaviour":{"suspend":…}} is described with these defaults
    Tools.ExtraTool t = tool("{\"name\":\"approve\",\"behaviour\":{\"suspend\":{\"kind\":\"approval\",\"prompt\":\"Approve the trade?\"}}}");
    assertEquals("{\"name\":\"approve\",\"description\":\"\",\"inputSchema\":{\"type\":\"object\",\"properties\":{}},\"source\":\"native\"}",
        Json.compact(t.describe()));
    // §5.5: a given schema and description are kept as they are
    Tools.ExtraTool s = tool("{\"name\":\"search\",\"description\":\"Search the docs.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]},\"behaviour\":{\"text\":\"no hits\"}}");
    assertEquals("{\"name\":\"search\",\"description\":\"Search the docs.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]},\"source\":\"native\"}",
        Json.compact(s.describe()));
    assertEquals(new Tools.Text("no hits"), call(s, "{\"q\":\"x\"}", null));
  }

  @Test
  void echoWritesTheArgsCompactInTheOrderReceived() throws Exception {
    Tools.ExtraTool t = tool("{\"name\":\"echo\",\"description\":\"Echo the arguments.\",\"behaviour\":{\"echo\":true}}");
    // §5.4: {"z":1,"a":"é","n":[true,null]} ⇒ output "{\"z\":1,\"a\":\"é\",\"n\":[true,null]}"
    assertEquals(new Tools.Text("{\"z\":1,\"a\":\"é\",\"n\":[true,null]}"), call(t, "{\"z\":1,\"a\":\"é\",\"n\":[true,null]}", null));
    assertEquals(new Tools.Text("{\"b\":1,\"2\":2}"), call(t, "{\"b\":1,\"2\":2}", null));
  }

  @Test
  void suspendThenTheRetryWithAnAnswer() throws Exception {
    Tools.ExtraTool t = tool("{\"name\":\"approve\",\"behaviour\":{\"suspend\":{\"kind\":\"approval\",\"prompt\":\"Approve the trade?\",\"url\":\"https://example.test/approve\"}}}");
    Tools.Pending p = assertInstanceOf(Tools.Pending.class, call(t, "{\"trade\":42}", null));
    assertEquals("Approve the trade?", p.output());
    String id = p.request().get("id").asText();
    assertTrue(id.matches("req-[0-9a-f]+-[0-9]+"), id);
    assertEquals("{\"id\":\"" + id + "\",\"kind\":\"approval\",\"prompt\":\"Approve the trade?\",\"url\":\"https://example.test/approve\"}",
        Json.compact(p.request()));
    Tools.Pending again = assertInstanceOf(Tools.Pending.class, call(t, "{\"trade\":42}", null));
    assertTrue(!again.request().get("id").asText().equals(id), "a fresh id per call");
    // §5.4: the retry carrying {"answer":{"id":…,"ok":true,"data":{"approved":true}}}
    assertEquals(new Tools.Text("{\"approved\":true}"),
        call(t, "{\"trade\":42}", "{\"id\":\"" + id + "\",\"ok\":true,\"data\":{\"approved\":true}}"));
    assertEquals(new Tools.Text("null"), call(t, "{}", "{\"id\":\"x\",\"ok\":false}"), "no data ⇒ null");
  }

  @Test
  void suspendDefaultsAndItsOptions() throws Exception {
    Tools.Pending bare = assertInstanceOf(Tools.Pending.class, call(tool("{\"name\":\"s\",\"behaviour\":{\"suspend\":{}}}"), "{}", null));
    assertEquals(List.of("id", "kind", "prompt"), List.copyOf(new Fields(bare.request(), "").keys()));
    assertEquals("approval", bare.request().get("kind").asText());
    assertEquals("", bare.output());
    String answer = "{\"id\":\"r\",\"ok\":true,\"data\":{\"z\":1}}";
    assertInstanceOf(Tools.Pending.class, call(tool("{\"name\":\"s\",\"behaviour\":{\"suspend\":{\"always\":true}}}"), "{}", answer));
    assertEquals(new Tools.Text("{\"b\":2,\"a\":1}"), call(tool("{\"name\":\"s\",\"behaviour\":{\"suspend\":{\"echoArgs\":true}}}"), "{\"b\":2,\"a\":1}", answer));
    Tools.ExtraTool secret = tool("{\"name\":\"check_secret\",\"behaviour\":{\"suspend\":{\"kind\":\"approval\",\"prompt\":\"approve secret access?\",\"answerText\":\"secret-token\"}}}");
    assertEquals(new Tools.Text("secret-token"), call(secret, "{}", answer));
    assertEquals(new Tools.Text("null"), call(secret, "{}", "{\"id\":\"r\",\"ok\":false}"), "answerText needs an ok answer");
    Tools.Pending full = assertInstanceOf(Tools.Pending.class, call(tool(
        "{\"name\":\"s\",\"behaviour\":{\"suspend\":{\"kind\":\"form\",\"prompt\":\"p\",\"data\":{\"schema\":{}},\"expiresAt\":\"2030-01-01T00:00:00Z\"}}}"), "{}", null));
    assertEquals("{\"kind\":\"form\",\"prompt\":\"p\",\"data\":{\"schema\":{}},\"expiresAt\":\"2030-01-01T00:00:00Z\"}",
        Json.compact(full.request().without("id")));
  }

  @Test
  void failThrowsTheMessageAndPanicIsNotCaught() throws Exception {
    Exception e = assertThrows(Exception.class, () -> call(tool("{\"name\":\"boom\",\"behaviour\":{\"fail\":\"it broke\"}}"), "{}", null));
    assertEquals("it broke", e.getMessage());
    assertTrue(!(e instanceof Tools.Panic));
    Tools.Panic p = assertThrows(Tools.Panic.class, () -> call(tool("{\"name\":\"crash\",\"behaviour\":{\"panic\":\"kaboom\"}}"), "{}", null));
    assertEquals("kaboom", p.getMessage());
  }

  @Test
  void templateFillsArguments() throws Exception {
    Tools.ExtraTool t = tool("{\"name\":\"t\",\"behaviour\":{\"template\":\"data({{q}})\"}}");
    assertEquals(new Tools.Text("data(x)"), call(t, "{\"q\":\"x\"}", null)); // §7's example
    Tools.ExtraTool many = tool("{\"name\":\"t\",\"behaviour\":{\"template\":\"{{ n }}|{{o}}|{{gone}}|{{q}\"}}");
    assertEquals(new Tools.Text("7|{\"b\":[1,\"é\"],\"a\":null}||{{q}"), call(many, "{\"n\":7,\"o\":{\"b\":[1,\"é\"],\"a\":null}}", null));
  }

  @Test
  void partsAndAwaitCancel() throws Exception {
    Tools.WithParts w = assertInstanceOf(Tools.WithParts.class, call(tool(
        "{\"name\":\"p\",\"behaviour\":{\"parts\":{\"output\":\"see image\",\"parts\":[{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"AAECAw==\"}]}}}"), "{}", null));
    assertEquals("see image", w.output());
    assertEquals("[{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"AAECAw==\"}]", Json.compact(w.parts()));

    Tools.ExtraTool wait = tool("{\"name\":\"waiter\",\"behaviour\":{\"awaitCancel\":{\"ms\":5000}}}");
    long[] asked = new long[1];
    Tools.Outcome fired = wait.body().call(Json.object(), new Tools.Context(null, ms -> {
      asked[0] = ms;
      return true;
    }));
    assertEquals(new Tools.Text("cancelled"), fired);
    assertEquals(5000, asked[0]);
    Tools.ExtraTool quick = tool("{\"name\":\"quick\",\"behaviour\":{\"awaitCancel\":{\"ms\":0}}}");
    assertEquals(new Tools.Text("not cancelled"), quick.body().call(Json.object(), Tools.Context.of(null)));
    assertEquals("[{\"name\":\"waiter\",\"cancelled\":true},{\"name\":\"quick\",\"cancelled\":false}]",
        Json.compact(records.list(Records.TOOL_CANCELS)));
    Tools.ExtraTool dflt = tool("{\"name\":\"d\",\"behaviour\":{\"awaitCancel\":{}}}");
    dflt.body().call(Json.object(), new Tools.Context(null, ms -> {
      asked[0] = ms;
      return false;
    }));
    assertEquals(10_000, asked[0], "the default bound");
  }

  @Test
  void httpToolIsATypedView() throws Exception {
    Tools.ExtraTool t = tool("{\"name\":\"weather\",\"http\":{\"method\":\"POST\",\"url\":\"http://127.0.0.1:9/w/{city}\",\"headers\":{\"X-Key\":\"${K}\"},\"query\":[\"units\"],\"body\":\"json\",\"resultMode\":\"json\",\"extra\":1}}");
    assertEquals("http", t.source());
    assertNull(t.body());
    Tools.Http h = t.http();
    assertEquals("POST", h.method());
    assertEquals("http://127.0.0.1:9/w/{city}", h.url());
    assertEquals(Map.of("X-Key", "${K}"), h.headers());
    assertEquals(List.of("units"), h.query());
    assertEquals("json", h.body());
    assertEquals(30_000, h.timeoutMs());
    assertEquals("json", h.resultMode());
    assertEquals(1, h.block().get("extra").asInt());
  }

  @Test
  void unknownAndMalformedBehaviours() {
    KitError u = assertThrows(KitError.class, () -> tool("{\"name\":\"x\",\"behaviour\":{\"dance\":1}}"));
    assertEquals(KitError.UNSUPPORTED, u.kind());
    assertTrue(u.getMessage().contains("\"dance\""), u.getMessage());
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> tool("{\"name\":\"x\",\"behaviour\":{\"text\":\"a\",\"echo\":true}}")).kind());
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> tool("{\"name\":\"x\"}")).kind());
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> tool("{\"name\":\"x\",\"behaviour\":{\"text\":1}}")).kind());
  }
}
