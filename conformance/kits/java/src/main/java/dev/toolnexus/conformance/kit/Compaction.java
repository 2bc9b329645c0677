package dev.toolnexus.conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/**
 * The options of SPEC §7F {@code compactor(opts)} (PROTOCOL.md §5.26, and the {@code compactor}
 * hook behaviour): numbers, and the {@code summarize} / {@code countTokens} callbacks as plain
 * functions. The port builds its own compactor from them.
 */
public final class Compaction {
  private Compaction() {}

  /** {@code summarize(older)}: the summary text. */
  @FunctionalInterface
  public interface Summarize {
    /** Summarizes {@code older}. */
    String summarize(ArrayNode older);
  }

  /** {@code countTokens(messages)}. */
  @FunctionalInterface
  public interface CountTokens {
    /** Counts the tokens of {@code messages}. */
    long count(ArrayNode messages);
  }

  /**
   * The compactor's options.
   *
   * @param maxTokens compact only past this estimate
   * @param keepTail the tail to keep, {@code null} for the port's default
   * @param summarize the summarizer (records its argument in {@code summarizeCalls})
   * @param countTokens the counter, {@code null} for the port's default estimator
   * @param flushToMemory whether to add the flush reminder
   */
  public record Options(long maxTokens, Long keepTail, Summarize summarize, CountTokens countTokens,
      boolean flushToMemory) {}

  /**
   * Reads {@code {maxTokens, keepTail?, summarize, countTokens?, flushToMemory?}}; unknown keys
   * are {@code bad_request}. {@code summarize: {"text": T}} answers T, {@code {"template": T}} T
   * with each {@code <N>} replaced by the number of older messages; {@code countTokens:
   * {"perMessage": K}} answers K × the number of messages.
   */
  public static Options options(JsonNode node, Records records) {
    if (!(node instanceof ObjectNode o)) {
      throw KitError.badRequest("compact options must be an object, got " + Json.compact(node));
    }
    Fields f = new Fields(o, "");
    f.onlyKeys(Set.of("maxTokens", "keepTail", "summarize", "countTokens", "flushToMemory"));
    Behaviour s = Behaviour.of("the summarize behaviour", f.get("summarize"));
    String text = s.text();
    Summarize summarize = switch (s.name()) {
      case "text" -> older -> text;
      case "template" -> older -> text.replace("<N>", Integer.toString(older.size()));
      default -> throw s.unknown();
    };
    CountTokens count = null;
    if (f.has("countTokens")) {
      Behaviour c = Behaviour.of("the countTokens behaviour", f.get("countTokens"));
      if (!c.name().equals("perMessage") || !c.arg().canConvertToExactIntegral()) {
        throw c.name().equals("perMessage") ? KitError.badRequest("perMessage takes an integer") : c.unknown();
      }
      long k = c.arg().asLong();
      count = messages -> k * messages.size();
    }
    Summarize recorded = older -> {
      records.record(Records.SUMMARIZE_CALLS, older);
      return summarize.summarize(older);
    };
    Long keepTail = f.has("keepTail") ? f.integer("keepTail") : null;
    return new Options(f.integer("maxTokens"), keepTail, recorded, count, f.bool("flushToMemory", false));
  }
}
