package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The loop of PROTOCOL.md §2–§4, driven in memory. */
class LoopTest {
  private final AtomicInteger closes = new AtomicInteger();

  private Kit kit() {
    return new Kit(new Kit.Port("test", "java", "0.0.1")).spec("0.16.0").implement("0", "1", "4")
        .handle("say", req -> Json.object().put("said", req.string("v")))
        .handle("size", req -> Json.object().put("chars", req.string("v").length()))
        .handle("boom", req -> {
          throw new IllegalStateException("it went wrong");
        })
        .onClose(closes::incrementAndGet);
  }

  /** Feeds {@code in} through the loop, {@code chunk} bytes per read; returns the answer lines. */
  private static List<String> run(Kit kit, byte[] in, int chunk) throws IOException {
    InputStream src = new ByteArrayInputStream(in) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, chunk));
      }
    };
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    kit.serve(src, out);
    String text = out.toString(StandardCharsets.UTF_8);
    return text.isEmpty() ? List.of() : List.of(text.split("\n", -1)).subList(0, text.split("\n", -1).length - 1);
  }

  private static List<String> run(Kit kit, String in) throws IOException {
    return run(kit, in.getBytes(StandardCharsets.UTF_8), 1 << 20);
  }

  @Test
  void splitLineOneByteAtATimeEvenInsideAUtf8Character() throws IOException {
    byte[] in = "{\"cmd\":\"say\",\"seq\":1,\"v\":\"é€😀\"}\n".getBytes(StandardCharsets.UTF_8);
    assertEquals(List.of("{\"ok\":true,\"said\":\"é€😀\",\"seq\":1}"), run(kit(), in, 1));
  }

  @Test
  void hugeLineBeyondJacksonsDefaultStringCap() throws IOException {
    int n = 30 * 1024 * 1024; // Jackson's default cap is 20,000,000 chars
    StringBuilder sb = new StringBuilder(n + 64).append("{\"cmd\":\"size\",\"seq\":2,\"v\":\"");
    sb.append("x".repeat(n)).append("\"}\n");
    assertEquals(List.of("{\"ok\":true,\"chars\":" + n + ",\"seq\":2}"),
        run(kit(), sb.toString().getBytes(StandardCharsets.UTF_8), 65536));
  }

  @Test
  void badUtf8IsBadRequestWithoutSeqAndReadingGoesOn() throws IOException {
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    in.writeBytes("{\"cmd\":\"say\",\"seq\":3,\"v\":\"".getBytes(StandardCharsets.UTF_8));
    in.writeBytes(new byte[] {(byte) 0xff, (byte) 0xc3}); // not UTF-8 (and not U+FFFD either)
    in.writeBytes("\"}\n{\"cmd\":\"say\",\"seq\":4,\"v\":\"ok\"}\n".getBytes(StandardCharsets.UTF_8));
    List<String> out = run(kit(), in.toByteArray(), 7);
    assertEquals(2, out.size());
    assertTrue(out.get(0).startsWith("{\"ok\":false,\"error\":{\"kind\":\"bad_request\",\"message\":\"request is not UTF-8"), out.get(0));
    assertTrue(!out.get(0).contains("seq"), out.get(0));
    assertEquals("{\"ok\":true,\"said\":\"ok\",\"seq\":4}", out.get(1));
  }

  @Test
  void lastLineWithoutNewlineBlankLinesAndEof() throws IOException {
    List<String> out = run(kit(), "\n  \r\n{\"cmd\":\"say\",\"seq\":5,\"v\":\"a\"}\n\n{\"cmd\":\"say\",\"seq\":6,\"v\":\"b\"}");
    assertEquals(List.of("{\"ok\":true,\"said\":\"a\",\"seq\":5}", "{\"ok\":true,\"said\":\"b\",\"seq\":6}"), out);
    assertEquals(1, closes.get(), "EOF runs the close hooks once");
  }

  @Test
  void notJsonAndNotAnObjectAreBadRequestsWithoutSeq() throws IOException {
    List<String> out = run(kit(), "{\"cmd\":\n[1,2]\n{\"cmd\":\"say\",\"seq\":1,\"v\":\"x\"} trailing\n");
    assertEquals(3, out.size());
    for (String line : out) {
      assertTrue(line.startsWith("{\"ok\":false,\"error\":{\"kind\":\"bad_request\",\"message\":\"request is not JSON"), line);
      assertTrue(!line.contains("\"seq\""), line);
    }
  }

  @Test
  void seqIsCopiedIntoErrorsToo() throws IOException {
    List<String> out = run(kit(), "{\"seq\":7}\n{\"cmd\":\"say\",\"seq\":8}\n{\"cmd\":\"boom\",\"seq\":9}\n");
    assertEquals(List.of(
        "{\"ok\":false,\"error\":{\"kind\":\"bad_request\",\"message\":\"field \\\"cmd\\\": expected a string\"},\"seq\":7}",
        "{\"ok\":false,\"error\":{\"kind\":\"bad_request\",\"message\":\"missing field \\\"v\\\"\"},\"seq\":8}",
        "{\"ok\":false,\"error\":{\"kind\":\"internal\",\"message\":\"IllegalStateException: it went wrong\"},\"seq\":9}"),
        out);
  }

  @Test
  void unregisteredCommandIsUnsupportedWithProtocolWording() throws IOException {
    // PROTOCOL.md §4: > {"cmd":"transmogrify","toolkit":"tk1"}
    assertEquals(List.of("{\"ok\":false,\"error\":{\"kind\":\"unsupported\",\"message\":\"unknown command \\\"transmogrify\\\"\"}}"),
        run(kit(), "{\"cmd\":\"transmogrify\",\"toolkit\":\"tk1\"}\n"));
  }

  @Test
  void unknownToolkitWording() throws IOException {
    Handles<Object> kits = Handles.toolkits(null);
    Kit kit = kit().handle("tools", req -> {
      kits.get(req.string("toolkit"));
      return null;
    });
    // PROTOCOL.md §4: > {"cmd":"tools","toolkit":"tk9"}
    assertEquals(List.of("{\"ok\":false,\"error\":{\"kind\":\"unknown_toolkit\",\"message\":\"no toolkit \\\"tk9\\\"\"}}"),
        run(kit, "{\"cmd\":\"tools\",\"toolkit\":\"tk9\"}\n"));
  }

  @Test
  void helloListsSectionsWhoseCoreCommandsAreRegistered() throws IOException {
    Kit partial = kit().handle("build", r -> null).handle("tools", r -> null); // no execute yet
    assertEquals(List.of("{\"ok\":true,\"protocol\":1,\"spec\":\"0.16.0\",\"port\":{\"name\":\"test\",\"language\":\"java\",\"version\":\"0.0.1\"},\"implements\":[],\"seq\":0}"),
        run(partial, "{\"cmd\":\"hello\",\"protocol\":1,\"seq\":0}\n"));
    Kit full = kit().handle("build", r -> null).handle("tools", r -> null).handle("execute", r -> null)
        .implement("7F", "99");
    assertEquals(List.of("0", "1", "4", "99"), full.sections(), "7F needs compact; 99 is not in the table");
  }

  @Test
  void shutdownClosesOnceAnswersAndStopsReading() throws IOException {
    List<String> out = run(kit(), "{\"cmd\":\"shutdown\",\"seq\":3}\n{\"cmd\":\"say\",\"seq\":4,\"v\":\"late\"}\n");
    assertEquals(List.of("{\"ok\":true,\"seq\":3}"), out);
    assertEquals(1, closes.get());
  }
}
