package dev.toolnexus.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The virtual clock: no real time anywhere. */
class ClockTest {
  @Test
  void startsAtZeroAndMovesOnlyOnAdvance() {
    VirtualClock c = new VirtualClock();
    assertEquals(0, c.now());
    assertEquals(100, c.advance(100));
    assertEquals(350, c.advance(250)); // §5.27's agent_clock example: 100 + 250
    assertThrows(IllegalArgumentException.class, () -> c.advance(-1));
  }

  @Test
  void timersFireInDueOrderSeeingTheirDueTime() {
    VirtualClock c = new VirtualClock();
    List<String> fired = new ArrayList<>();
    c.after(300, () -> fired.add("c@" + c.now()));
    c.after(100, () -> fired.add("a@" + c.now()));
    c.after(100, () -> fired.add("b@" + c.now())); // same due time: registration order
    VirtualClock.Timer gone = c.after(200, () -> fired.add("cancelled"));
    assertTrue(gone.cancel());
    assertFalse(gone.cancel());
    c.advance(99);
    assertEquals(List.of(), fired);
    c.advance(200);
    assertEquals(List.of("a@100", "b@100"), fired);
    assertEquals(299, c.now());
    assertEquals(List.of(300L), c.pending());
    c.advance(1);
    assertEquals(List.of("a@100", "b@100", "c@300"), fired);
  }

  @Test
  void aTimerScheduledByATimerFiresInTheSameAdvanceWhenDue() {
    VirtualClock c = new VirtualClock();
    List<Long> beats = new ArrayList<>();
    Runnable[] beat = new Runnable[1];
    beat[0] = () -> {
      beats.add(c.now());
      c.after(1000, beat[0]); // a heartbeat every 1000 ms (§7E)
    };
    c.after(1000, beat[0]);
    c.advance(3500);
    assertEquals(List.of(1000L, 2000L, 3000L), beats);
    assertEquals(List.of(4000L), c.pending());
  }

  @Test
  void sleepCompletesWhenTheClockPassesIt() {
    VirtualClock c = new VirtualClock();
    CompletableFuture<Long> s = c.sleep(100);
    assertFalse(s.isDone());
    c.advance(0);
    assertFalse(s.isDone());
    c.advance(150);
    assertEquals(100L, s.join());
  }
}
