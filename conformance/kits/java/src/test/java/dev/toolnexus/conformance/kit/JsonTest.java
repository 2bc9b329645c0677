package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** PROTOCOL.md §7's compact JSON. */
class JsonTest {
  private static String roundTrip(String json) throws Exception {
    return Json.compact(Json.parse(json));
  }

  @Test
  void compactKeepsKeyOrderAndNonAscii() throws Exception {
    // the echo example of PROTOCOL.md §5.4
    assertEquals("{\"z\":1,\"a\":\"é\",\"n\":[true,null]}", roundTrip("{\"z\": 1, \"a\": \"\\u00e9\", \"n\": [true, null]}"));
    // integer-like keys stay where they were (§7: a JS object would move "2" first)
    assertEquals("{\"b\":1,\"2\":2,\"10\":{\"y\":[],\"x\":{}}}", roundTrip("{\"b\":1,\"2\":2,\"10\":{\"y\":[],\"x\":{}}}"));
  }

  @Test
  void escapesOnlyWhatJsonNeeds() throws Exception {
    assertEquals("\"<a>&'\u2028😀\"", roundTrip("\"<a>&'\\u2028\\ud83d\\ude00\""));
    assertEquals("\"q\\\"b\\\\n\\nt\\tc\\u0001\\u001f\"", roundTrip("\"q\\\"b\\\\n\\nt\\tc\\u0001\\u001F\""));
    assertEquals("\"\\ud800x\"", roundTrip("\"\\ud800x\""), "a lone surrogate stays an escape");
  }

  @Test
  void numbersAsIntegers() throws Exception {
    assertEquals("[0,-7,12345678901234567890,1.5]", roundTrip("[0,-7,12345678901234567890,1.5]"));
  }
}
