package dev.toolnexus.conformance.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * A virtual clock for PROTOCOL.md §5.27: it starts at 0 and moves only on {@link #advance}.
 * Timers fire in due order (equal due times in the order registered) as an advance passes them,
 * each seeing {@link #now} equal to its due time, so a port's injectable clock can be backed by
 * it and wait timeouts, {@code maxWallMs} or heartbeats become deterministic.
 */
public final class VirtualClock {
  /** A registered timer. */
  public final class Timer implements Comparable<Timer> {
    private final long due;
    private final long order;
    private final Runnable task;
    private boolean cancelled;

    private Timer(long due, long order, Runnable task) {
      this.due = due;
      this.order = order;
      this.task = task;
    }

    /** The virtual time it fires at. */
    public long due() {
      return due;
    }

    /** Stops it from firing; false when it already fired or was cancelled. */
    public boolean cancel() {
      synchronized (VirtualClock.this) {
        boolean pending = !cancelled && timers.remove(this);
        cancelled = true;
        return pending;
      }
    }

    @Override
    public int compareTo(Timer o) {
      return due != o.due ? Long.compare(due, o.due) : Long.compare(order, o.order);
    }
  }

  private final PriorityQueue<Timer> timers = new PriorityQueue<>();
  private long now;
  private long registered;

  /** The current virtual time in ms. */
  public synchronized long now() {
    return now;
  }

  /**
   * Runs {@code task} when the clock reaches {@code dueMs}; a due time already passed fires at
   * the next {@link #advance} (even {@code advance(0)}).
   */
  public synchronized Timer at(long dueMs, Runnable task) {
    Timer t = new Timer(dueMs, registered++, task);
    timers.add(t);
    return t;
  }

  /** Runs {@code task} {@code delayMs} after now. */
  public synchronized Timer after(long delayMs, Runnable task) {
    return at(now + delayMs, task);
  }

  /** A sleep of {@code delayMs}: completes with its due time when the clock passes it. */
  public CompletableFuture<Long> sleep(long delayMs) {
    CompletableFuture<Long> done = new CompletableFuture<>();
    Timer[] t = new Timer[1];
    t[0] = after(delayMs, () -> done.complete(t[0].due()));
    return done;
  }

  /**
   * Moves the clock {@code ms} forward, firing every timer due by then (timers they register
   * fire too when due in range). Tasks run on the caller's thread, outside the clock's lock.
   *
   * @return the new time
   */
  public long advance(long ms) {
    if (ms < 0) {
      throw new IllegalArgumentException("the clock only moves forward: " + ms);
    }
    long target;
    synchronized (this) {
      target = now + ms;
    }
    while (true) {
      Timer next;
      synchronized (this) {
        next = timers.peek();
        if (next == null || next.due > target) {
          now = target;
          return now;
        }
        timers.poll();
        next.cancelled = true;
        now = Math.max(now, next.due);
      }
      next.task.run();
    }
  }

  /** The due times of the pending timers, in firing order (for tests and traces). */
  public synchronized List<Long> pending() {
    List<Timer> sorted = new ArrayList<>(timers);
    sorted.sort(null);
    List<Long> out = new ArrayList<>();
    sorted.forEach(t -> out.add(t.due));
    return out;
  }
}
