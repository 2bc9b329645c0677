package dev.toolnexus.conformance.kit;

/** A real driver process for {@link ProcessTest}: a handler that prints, a close hook that says so. */
public final class FixtureDriver {
  private FixtureDriver() {}

  /** Runs the kit on stdin/stdout. */
  public static void main(String[] args) {
    new Kit(new Kit.Port("fixture", "java", "0")).implement("0")
        .handle("print", req -> {
          System.out.println("stray print from a handler");
          return Json.object().put("printed", true);
        })
        .onClose(() -> System.err.println("close hook ran"))
        .main();
  }
}
