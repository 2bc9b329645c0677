package dev.toolnexus.conformance.kit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A session's handles of one sort (toolkits, clients, servers, runtimes) by id. A missing id
 * fails with the table's kind and {@code no toolkit "tk9"} (PROTOCOL.md §4); a replaced or
 * removed handle is closed; {@link #clear} closes everything at shutdown.
 *
 * @param <T> the handle type
 */
public final class Handles<T> {
  private final String noun;
  private final String kind;
  private final Consumer<? super T> closer;
  private final Map<String, T> byId = new LinkedHashMap<>();

  /**
   * A table whose missing ids are {@code kind} failures naming {@code noun}; {@code closer} (may
   * be {@code null}) closes a handle that leaves the table.
   */
  public Handles(String noun, String kind, Consumer<? super T> closer) {
    this.noun = noun;
    this.kind = kind;
    this.closer = closer == null ? t -> { } : closer;
  }

  /** A toolkit table: a missing id is {@code unknown_toolkit}. */
  public static <T> Handles<T> toolkits(Consumer<? super T> closer) {
    return new Handles<>("toolkit", KitError.UNKNOWN_TOOLKIT, closer);
  }

  /** Stores {@code value} under {@code id}, closing the handle it replaces. */
  public void put(String id, T value) {
    T old;
    synchronized (this) {
      old = byId.put(id, value);
    }
    if (old != null && old != value) {
      closer.accept(old);
    }
  }

  /** The handle under {@code id}; a missing id fails. */
  public synchronized T get(String id) {
    T v = byId.get(id);
    if (v == null) {
      throw new KitError(kind, "no " + noun + " " + Json.quote(id));
    }
    return v;
  }

  /** The handle under {@code id}, or {@code null}. */
  public synchronized T find(String id) {
    return byId.get(id);
  }

  /** Removes and closes the handle under {@code id}; idempotent (§5.10). */
  public boolean remove(String id) {
    T old;
    synchronized (this) {
      old = byId.remove(id);
    }
    if (old != null) {
      closer.accept(old);
    }
    return old != null;
  }

  /** Removes and closes every handle, in the order they were stored. */
  public void clear() {
    List<T> all;
    synchronized (this) {
      all = new ArrayList<>(byId.values());
      byId.clear();
    }
    all.forEach(closer);
  }

  /** How many handles the table holds. */
  public synchronized int size() {
    return byId.size();
  }
}
