package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Kit#main} as a real process: stray prints go to stderr, and EOF or SIGTERM run the
 * close hooks and exit 0. Waits are for answers and exits; the bound only turns a driver that
 * never answers into a failure instead of a hung build (it is not a timing check).
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ProcessTest {
  @TempDir
  Path tmp;

  private Process started;

  @AfterEach
  void stop() {
    if (started != null) {
      started.destroyForcibly();
    }
  }

  private Process start(File stderr) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        FixtureDriver.class.getName());
    pb.redirectError(stderr);
    started = pb.start();
    return started;
  }

  private static String ask(Process p, BufferedReader out, String line) throws IOException {
    OutputStream in = p.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
    return out.readLine();
  }

  @Test
  void strayPrintsGoToStderrAndEofExitsCleanly() throws Exception {
    File err = tmp.resolve("err").toFile();
    Process p = start(err);
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    assertTrue(ask(p, out, "{\"cmd\":\"hello\",\"protocol\":1,\"seq\":0}").startsWith("{\"ok\":true,\"protocol\":1,"));
    assertEquals("{\"ok\":true,\"printed\":true,\"seq\":1}", ask(p, out, "{\"cmd\":\"print\",\"seq\":1}"));
    p.getOutputStream().close();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
    assertEquals(null, out.readLine(), "nothing else on stdout");
    String stderr = Files.readString(err.toPath());
    assertTrue(stderr.contains("stray print from a handler"), stderr);
    assertTrue(stderr.contains("close hook ran"), stderr);
  }

  @Test
  void sigtermRunsTheCloseHooksAndExitsZero() throws Exception {
    File err = tmp.resolve("err").toFile();
    Process p = start(err);
    BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    assertTrue(ask(p, out, "{\"cmd\":\"hello\",\"protocol\":1,\"seq\":0}").startsWith("{\"ok\":true,"));
    p.destroy(); // SIGTERM
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue());
    String stderr = Files.readString(err.toPath());
    assertEquals(1, stderr.split("close hook ran", -1).length - 1, stderr);
  }
}
