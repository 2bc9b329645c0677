package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The protocol loop of a conformance driver (PROTOCOL.md §2–§4), written once: framing, {@code
 * seq}, {@code hello}, {@code shutdown}, EOF and SIGTERM/SIGINT, the answer envelope and its error
 * kinds, and {@code unsupported} ({@code unknown command "X"}) for every command no handler is
 * registered for. A driver registers one {@link Handler} per command it supports.
 */
public final class Kit {
  /** The protocol this kit speaks (§1). */
  public static final int PROTOCOL = 1;

  /** Who the port is, as {@code hello} answers it (§5.1). */
  public record Port(String name, String language, String version) {}

  private final Port port;
  private String spec;
  private final List<String> declared = new ArrayList<>();
  private final Map<String, Handler> handlers = new LinkedHashMap<>();
  private final List<Runnable> closeHooks = new ArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ReentrantLock busy = new ReentrantLock(); // held while a request is handled
  private volatile boolean exiting;
  private volatile int exitStatus;
  private String lastCmd; // the command of the line being answered, to stop after shutdown

  /** A kit answering {@code hello} for {@code port}. */
  public Kit(Port port) {
    this.port = port;
  }

  /** The SPEC version {@code hello} names (left out when never set). */
  public Kit spec(String version) {
    this.spec = version;
    return this;
  }

  /** Declares the SPEC sections the port serves; see {@link Sections} for which are listed. */
  public Kit implement(String... sections) {
    declared.addAll(List.of(sections));
    return this;
  }

  /** Registers the handler of {@code cmd}, replacing an earlier one. */
  public Kit handle(String cmd, Handler handler) {
    if (cmd.equals("hello") || cmd.equals("shutdown")) {
      throw new IllegalArgumentException(cmd + " is the kit's own; use onClose for shutdown work");
    }
    handlers.put(cmd, handler);
    return this;
  }

  /** Adds work run once at {@code shutdown}, EOF or SIGTERM/SIGINT (closing every handle, §3). */
  public Kit onClose(Runnable hook) {
    closeHooks.add(hook);
    return this;
  }

  /** The sections {@code hello} lists: declared ones whose core commands are all registered. */
  public List<String> sections() {
    return Sections.listed(declared, handlers.keySet());
  }

  /** Runs the close hooks unless they already ran. */
  public synchronized void close() {
    // Synchronized, not only once: a SIGTERM's hook thread and the main thread at EOF (Java's
    // Process.destroy closes the pipe as it signals) may both get here; the second must wait
    // for the first to finish the hooks before it halts the JVM.
    if (closed.compareAndSet(false, true)) {
      for (Runnable hook : closeHooks) {
        try {
          hook.run();
        } catch (RuntimeException e) {
          System.err.println("driver: a close hook failed: " + e);
        }
      }
    }
  }

  /**
   * Answers requests from {@code in} on {@code out}, one compact line each, flushed, until EOF or
   * {@code shutdown}; the close hooks have run when it returns. Only I/O failures throw.
   */
  public void serve(InputStream in, OutputStream out) throws IOException {
    LineReader lines = new LineReader(in);
    Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 64 * 1024);
    for (byte[] line = lines.next(); line != null; line = lines.next()) {
      if (LineReader.isBlank(line)) {
        continue; // §2: never sent, ignored anyway
      }
      ObjectNode resp;
      boolean stop;
      busy.lock();
      try {
        resp = answer(line);
        stop = resp.path("ok").asBoolean() && "shutdown".equals(lastCmd);
      } finally {
        busy.unlock();
      }
      Json.write(resp, w);
      w.write('\n');
      w.flush();
      if (stop) {
        return;
      }
    }
    close(); // EOF ends the session cleanly (§3)
  }

  /** The answer envelope of one request line (the loop's unit, public for tests). */
  public ObjectNode answer(byte[] line) {
    lastCmd = null;
    JsonNode parsed;
    try {
      parsed = Json.parse(LineReader.decode(line));
    } catch (CharacterCodingException e) {
      return failure(null, KitError.BAD_REQUEST, "request is not UTF-8: " + e.getMessage());
    } catch (JsonProcessingException e) {
      return failure(null, KitError.BAD_REQUEST, "request is not JSON: " + e.getOriginalMessage());
    }
    if (!(parsed instanceof ObjectNode obj)) {
      return failure(null, KitError.BAD_REQUEST, "request is not JSON: a request is a JSON object");
    }
    JsonNode seq = obj.get("seq"); // copied as it came, error envelopes included (§2)
    JsonNode cmd = obj.get("cmd");
    if (cmd == null || !cmd.isTextual()) {
      return failure(seq, KitError.BAD_REQUEST, "field \"cmd\": expected a string");
    }
    lastCmd = cmd.textValue();
    try {
      ObjectNode fields = dispatch(new Request(obj, lastCmd));
      ObjectNode resp = Json.object().put("ok", true);
      if (fields != null) {
        fields.fields().forEachRemaining(e -> resp.set(e.getKey(), e.getValue()));
        resp.put("ok", true);
      }
      if (seq != null) {
        resp.set("seq", seq);
      }
      return resp;
    } catch (KitError e) {
      return failure(seq, e.kind(), e.getMessage());
    } catch (VirtualMachineError e) {
      if (!(e instanceof StackOverflowError)) {
        throw e; // out of memory: nothing sensible to answer
      }
      return failure(seq, KitError.INTERNAL, describe(e));
    } catch (Throwable e) { // the driver broke: an answer, never a crash or a trace on stdout (§11)
      e.printStackTrace();
      return failure(seq, KitError.INTERNAL, describe(e));
    }
  }

  private ObjectNode dispatch(Request req) throws Exception {
    switch (req.cmd()) {
      case "hello": {
        ObjectNode a = Json.object().put("protocol", PROTOCOL);
        if (spec != null) {
          a.put("spec", spec);
        }
        a.set("port", Json.object().put("name", port.name()).put("language", port.language())
            .put("version", port.version()));
        sections().forEach(a.putArray("implements")::add);
        return a;
      }
      case "shutdown":
        close(); // §5.11: close every handle, then answer
        return null;
      default:
        Handler h = handlers.get(req.cmd());
        if (h == null) {
          throw KitError.unsupported("unknown command " + Json.quote(req.cmd()));
        }
        return h.handle(req);
    }
  }

  private static String describe(Throwable e) {
    return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }

  private static ObjectNode failure(JsonNode seq, String kind, String message) {
    ObjectNode resp = Json.object().put("ok", false);
    resp.putObject("error").put("kind", kind).put("message", message == null ? "" : message);
    if (seq != null) {
      resp.set("seq", seq);
    }
    return resp;
  }

  /**
   * Runs the driver on the process's stdin and stdout, then exits: {@code System.out} is pointed
   * at stderr first so a stray print never reaches the wire (§2), and SIGTERM/SIGINT run the
   * close hooks once and exit 0, as EOF and {@code shutdown} do (§3).
   */
  public void main() {
    OutputStream wire = new FileOutputStream(FileDescriptor.out);
    System.setOut(System.err);
    Runtime.getRuntime().addShutdownHook(new Thread(this::onSignal, "toolnexus-kit-signal"));
    int status = 0;
    try {
      serve(System.in, wire);
    } catch (IOException e) {
      System.err.println("driver: " + e);
      status = 1;
    }
    exitStatus = status;
    exiting = true;
    System.exit(status); // a port's stray non-daemon threads must not keep the driver alive
  }

  /** The shutdown hook: a signal (not our own exit) closes the session and exits 0. */
  private void onSignal() {
    if (exiting) {
      // The session already ended (EOF or shutdown, hooks run) and main is exiting; a signal
      // racing it would otherwise make the JVM's status 143: keep main's.
      Runtime.getRuntime().halt(exitStatus);
    }
    boolean idle = false;
    try {
      idle = busy.tryLock(500, TimeUnit.MILLISECONDS); // a handler stuck in the port must not block exit
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (idle) {
      close();
    }
    Runtime.getRuntime().halt(0); // the JVM would exit 143 on SIGTERM; §3 asks for a clean exit
  }
}
