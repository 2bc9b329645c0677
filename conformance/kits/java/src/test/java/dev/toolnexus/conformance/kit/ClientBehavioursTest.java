package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** §7 "Client behaviours" and "Classifier behaviours", and §5.27's onBudget. */
class ClientBehavioursTest {
  private final Records records = new Records();

  private static ObjectNode obj(String s) throws Exception {
    return (ObjectNode) Json.parse(s);
  }

  private Map<String, ClientBehaviours.Hook> hooks(String s) throws Exception {
    return ClientBehaviours.hooks(Json.parse(s), records, null);
  }

  @Test
  void observeRecordsTheEntryWithItsHookName() throws Exception {
    // §5.14's client: "hooks":{"beforeTool":{"observe":true}}; §5.15's hookCalls entry
    ClientBehaviours.Hook h = hooks("{\"beforeTool\":{\"observe\":true}}").get("beforeTool");
    assertNull(h.call(obj("{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"},\"id\":\"call_w1\",\"turn\":1}")));
    records.startCommand();
    h.call(obj("{\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"},\"id\":\"call_w1\",\"turn\":1}"));
    assertEquals("{\"hookCalls\":[{\"hook\":\"beforeTool\",\"name\":\"get_weather\",\"args\":{\"city\":\"Paris\"},\"id\":\"call_w1\",\"turn\":1}]}",
        Json.compact(records.answerInto(Json.object())));
  }

  @Test
  void beforeLlmBehaviours() throws Exception {
    ObjectNode call = obj("{\"turn\":1,\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"a\"}},{\"name\":\"b\"},{\"name\":\"c\"}]}");
    ClientBehaviours.Hook replace = hooks("{\"beforeLLM\":{\"replaceMessages\":[{\"role\":\"user\",\"content\":\"instead\"}]}}").get("beforeLLM");
    records.startCommand();
    assertEquals("[{\"role\":\"user\",\"content\":\"instead\"}]", Json.compact(replace.call(call).messages()));
    assertNull(replace.call(call), "the first call of a run only");
    records.startCommand();
    assertEquals(1, replace.call(call).messages().size(), "a new run replaces again");

    ClientBehaviours.Hook keep = hooks("{\"beforeLLM\":{\"keepTools\":[\"c\",\"a\"]}}").get("beforeLLM");
    assertEquals("[{\"type\":\"function\",\"function\":{\"name\":\"a\"}},{\"name\":\"c\"}]", Json.compact(keep.call(call).tools()));
    assertEquals("[]", Json.compact(hooks("{\"beforeLLM\":{\"keepTools\":[]}}").get("beforeLLM").call(call).tools()));

    ClientBehaviours.Hook append = hooks("{\"beforeLLM\":{\"appendMessage\":{\"role\":\"user\",\"content\":\"more\"}}}").get("beforeLLM");
    assertEquals("[{\"role\":\"user\",\"content\":\"hi\"},{\"role\":\"user\",\"content\":\"more\"}]", Json.compact(append.call(call).messages()));
    assertEquals(1, call.get("messages").size(), "the port's transcript is not mutated");

    records.startCommand();
    ClientBehaviours.Hook abort = hooks("{\"beforeLLM\":{\"abort\":\"route closed\"}}").get("beforeLLM");
    assertEquals("route closed", assertThrows(Exception.class, () -> abort.call(call)).getMessage());
    assertEquals(1, records.list(Records.HOOK_CALLS).size(), "recorded before the behaviour acts");
  }

  @Test
  void compactorHandsTheOptionsToThePort() throws Exception {
    Compaction.Options[] got = new Compaction.Options[1];
    ClientBehaviours.Hook h = ClientBehaviours.hooks(Json.parse("{\"beforeLLM\":{\"compactor\":{\"maxTokens\":50,\"summarize\":{\"text\":\"S\"}}}}"), records,
        opts -> {
          got[0] = opts;
          return entry -> null;
        }).get("beforeLLM");
    assertNull(h.call(obj("{\"turn\":1,\"messages\":[]}")));
    assertEquals(50, got[0].maxTokens());
    KitError e = assertThrows(KitError.class, () -> hooks("{\"beforeLLM\":{\"compactor\":{\"maxTokens\":50,\"summarize\":{\"text\":\"S\"}}}}"));
    assertEquals(KitError.UNSUPPORTED, e.kind());
  }

  @Test
  void toolHooks() throws Exception {
    ObjectNode after = obj("{\"name\":\"t\",\"args\":{},\"result\":{\"output\":\"out\",\"isError\":true,\"metadata\":{\"k\":1}},\"id\":\"c1\",\"turn\":2}");
    assertEquals("{\"output\":\"P: out\",\"isError\":true,\"metadata\":{\"k\":1}}",
        Json.compact(hooks("{\"afterTool\":{\"prefix\":\"P: \"}}").get("afterTool").call(after).result()));
    assertEquals("{\"output\":\"forced\",\"isError\":false}",
        Json.compact(hooks("{\"afterTool\":{\"result\":{\"output\":\"forced\",\"isError\":false}}}").get("afterTool").call(after).result()));
    ObjectNode before = obj("{\"name\":\"t\",\"args\":{\"a\":1},\"id\":\"c1\",\"turn\":2}");
    assertEquals("{\"output\":\"skipped\",\"isError\":false}",
        Json.compact(hooks("{\"beforeTool\":{\"result\":{\"output\":\"skipped\",\"isError\":false}}}").get("beforeTool").call(before).result()));
    assertEquals("{\"a\":2}", Json.compact(hooks("{\"beforeTool\":{\"args\":{\"a\":2}}}").get("beforeTool").call(before).args()));
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> hooks("{\"afterLLM\":{\"prefix\":\"x\"}}")).kind());
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> hooks("{\"beforeLlm\":{\"observe\":true}}")).kind());
    assertEquals(KitError.UNSUPPORTED, assertThrows(KitError.class, () -> hooks("{\"afterLLM\":{\"rewrite\":true}}")).kind());
  }

  @Test
  void onErrorAndOnMetric() throws Exception {
    ClientBehaviours.OnError e = ClientBehaviours.onError(Json.parse("{\"answer\":\"retry\"}"), records);
    assertEquals("retry", e.decide(obj("{\"status\":503,\"attempt\":1,\"retryable\":true}")));
    ClientBehaviours.onMetric(Json.parse("{\"collect\":true}"), records).accept(obj("{\"event\":\"run\",\"model\":\"m\"}"));
    assertEquals("{\"metricEvents\":[{\"event\":\"run\",\"model\":\"m\"}],\"onErrorCalls\":[{\"status\":503,\"attempt\":1,\"retryable\":true}]}",
        Json.compact(records.answerInto(Json.object())));
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> ClientBehaviours.onError(Json.parse("{\"answer\":\"maybe\"}"), records)).kind());
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> ClientBehaviours.onMetric(Json.parse("{\"collect\":false}"), records)).kind());
  }

  @Test
  void generateScriptRepeatsItsLastStep() throws Exception {
    ClientBehaviours.Generate g = ClientBehaviours.generate(Json.parse(
        "{\"script\":[{\"toolCalls\":[{\"id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"x\":1}},{\"name\":\"raw\",\"arguments\":\"{}\"}]},{\"content\":\"done\",\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}]}"), records);
    ClientBehaviours.Generated first = g.generate(obj("{\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}"));
    assertNull(first.content());
    assertEquals(List.of(new ClientBehaviours.GeneratedCall("c1", "echo", Json.parse("{\"x\":1}")),
        new ClientBehaviours.GeneratedCall(null, "raw", Json.parse("\"{}\""))), first.toolCalls());
    for (int i = 0; i < 2; i++) {
      ClientBehaviours.Generated later = g.generate(obj("{\"messages\":[]}"));
      assertEquals("done", later.content());
      assertEquals("{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}", Json.compact(later.usage()));
    }
    assertEquals(3, records.list(Records.GENERATE_CALLS).size());
    ClientBehaviours.Generate f = ClientBehaviours.generate(Json.parse("{\"script\":[{\"fail\":\"model down\"}]}"), records);
    assertEquals("model down", assertThrows(Exception.class, () -> f.generate(obj("{}"))).getMessage());
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class,
        () -> ClientBehaviours.generate(Json.parse("{\"script\":[{\"content\":\"x\",\"usage\":{\"promptTokens\":1}}]}"), records)).kind());
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> ClientBehaviours.generate(Json.parse("{\"script\":[]}"), records)).kind());
  }

  @Test
  void bodyTransformAndStore() throws Exception {
    assertEquals("{\"model\":\"m\",\"stream\":false,\"extra\":1}",
        Json.compact(ClientBehaviours.bodyTransform(Json.parse("{\"set\":{\"stream\":false,\"extra\":1}}")).apply(obj("{\"model\":\"m\",\"stream\":true}"))));
    assertEquals("{\"a\":2,\"b\":1,\"c\":null}",
        Json.compact(ClientBehaviours.bodyTransform(Json.parse("{\"copy\":{\"a\":\"b\",\"b\":\"a\",\"zz\":\"c\"}}")).apply(obj("{\"a\":1,\"b\":2}"))));
    ClientBehaviours.SeededStore s = ClientBehaviours.store(Json.parse("{\"seeded\":{\"t1\":[{\"role\":\"user\",\"content\":\"earlier\"}]}}"));
    assertEquals("[{\"role\":\"user\",\"content\":\"earlier\"}]", Json.compact(s.get("t1")));
    assertNull(s.get("nope"));
  }

  @Test
  void evaluateAndOnBudget() throws Exception {
    ClientBehaviours.Evaluate e = ClientBehaviours.evaluate(Json.parse("{\"decision\":{\"model\":\"jev-test\",\"answers\":{\"move\":{\"type\":\"noul\",\"noul\":true}}}}"), records);
    JsonNode questions = Json.parse("{\"move\":{\"type\":\"noul\",\"instructions\":\"Move?\"}}");
    assertEquals("{\"model\":\"jev-test\",\"answers\":{\"move\":{\"type\":\"noul\",\"noul\":true}}}", Json.compact(e.evaluate(Json.parse("{\"hp\":3}"), questions)));
    ClientBehaviours.Evaluate f = ClientBehaviours.evaluate(Json.parse("{\"fail\":\"no\"}"), records);
    assertEquals("no", assertThrows(Exception.class, () -> f.evaluate(Json.parse("{}"), questions)).getMessage());
    assertEquals("[{\"state\":{\"hp\":3},\"questions\":{\"move\":{\"type\":\"noul\",\"instructions\":\"Move?\"}}},{\"state\":{},\"questions\":{\"move\":{\"type\":\"noul\",\"instructions\":\"Move?\"}}}]",
        Json.compact(records.list(Records.EVALUATE_CALLS)));
    ClientBehaviours.OnBudget b = ClientBehaviours.onBudget(Json.parse("{\"answer\":\"extend\"}"), records);
    assertEquals("extend", b.decide(obj("{\"handle\":\"root/a.1\",\"limit\":\"maxTurns\",\"owner\":\"root/a.1\",\"reason\":\"r\"}")));
    assertEquals(1, records.list(Records.ON_BUDGET_CALLS).size());
    assertEquals(KitError.BAD_REQUEST, assertThrows(KitError.class, () -> ClientBehaviours.onBudget(Json.parse("{\"answer\":\"panic\"}"), records)).kind());
  }
}
