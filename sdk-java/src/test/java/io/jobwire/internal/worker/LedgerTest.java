package io.jobwire.internal.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LedgerTest {
  private final List<Integer> reported = new ArrayList<>();

  private Ledger ledger(int max) {
    return new Ledger(max, reported::add);
  }

  @Test
  void capacityIsNeverExceeded() {
    Ledger l = ledger(3);
    assertTrue(l.tryTake());
    assertTrue(l.tryTake());
    assertTrue(l.tryTake());
    assertFalse(l.tryTake(), "a fourth job on three slots");
    assertEquals(3, l.held());
    assertEquals(0, l.free());
    assertEquals(List.of(1, 2, 3), reported, "every change of held is reported");
  }

  @Test
  void aReservedStreamSlotCountsAgainstCapacity() {
    Ledger l = ledger(2);
    l.reserveStream();
    assertEquals(1, l.reserved());
    assertEquals(1, l.free());
    assertTrue(l.tryTake());
    assertFalse(l.tryTake(), "the reserved slot is not free for a polled job");
    assertEquals(1, l.held());
  }

  @Test
  void claimTurnsTheReservationIntoAHeldSlot() {
    Ledger l = ledger(1);
    l.reserveStream();
    l.claimStream();
    assertEquals(0, l.reserved());
    assertEquals(1, l.held());
    assertEquals(0, l.free());
    l.release();
    assertEquals(1, l.free());
  }

  @Test
  void dropHandsTheReservationBackUnused() {
    Ledger l = ledger(1);
    l.reserveStream();
    l.dropStream();
    assertEquals(0, l.reserved());
    assertEquals(0, l.held());
    assertEquals(1, l.free());
    assertTrue(reported.isEmpty(), "a reservation is not a held job");
  }

  @Test
  void claimOnAFullLedgerOverflows() {
    Ledger l = ledger(1);
    assertTrue(l.tryTake());
    l.reserveStream(); // the caller never does this on a full ledger: the claim must refuse
    assertThrows(IllegalStateException.class, l::claimStream);
  }

  @Test
  void releaseIsExactlyOnce() {
    Ledger l = ledger(2);
    assertTrue(l.tryTake());
    l.release();
    assertEquals(0, l.held());
    IllegalStateException e = assertThrows(IllegalStateException.class, l::release, "a second release of the same slot");
    assertTrue(e.getMessage().contains("underflow"));
    assertEquals(0, l.held(), "an underflow leaves the count alone");
  }

  @Test
  void aboveTheThreshold() {
    Ledger l = ledger(10); // threshold 3
    for (int i = 0; i < 3; i++) assertTrue(l.tryTake());
    assertFalse(l.above(), "3 of 10 is at the threshold, not above");
    assertTrue(l.tryTake());
    assertTrue(l.above());
  }

  @Test
  void anUnparkedPollsAskIsNotTakenByTheStream() {
    Ledger l = ledger(4);
    l.pollSent(4);
    assertTrue(l.pollOpen());
    assertFalse(l.streamMayReserve(), "all four slots are asked for by the poll");
    l.pollJob();
    assertTrue(l.tryTake());
    assertEquals(1, l.pollGot());
    assertFalse(l.streamMayReserve(), "three still asked for, three free");
    l.pollEnded();
    assertTrue(l.streamMayReserve(), "the poll ended: its ask is gone");
    assertEquals(1, l.pollGot(), "got and want stay readable after the poll");
    assertEquals(4, l.pollWant());
  }

  @Test
  void aPartialAskLeavesTheRestToTheStream() {
    Ledger l = ledger(4);
    assertTrue(l.tryTake());
    l.pollSent(2); // asked for two of the three free slots
    assertTrue(l.streamMayReserve(), "one free slot is nobody's");
    l.reserveStream();
    assertFalse(l.streamMayReserve());
  }

  @Test
  void aParkedPollLendsItsAskToTheStream() {
    Ledger l = ledger(2);
    l.pollSent(2);
    assertFalse(l.streamMayReserve());
    l.pollParked();
    assertTrue(l.pollIsParked());
    assertTrue(l.streamMayReserve(), "a parked poll never stops the stream");
    l.reserveStream();
    l.reserveStream();
    assertFalse(l.streamMayReserve(), "no free slot");
    l.pollEnded();
    assertFalse(l.pollIsParked());
    assertFalse(l.pollOpen());
  }

  @Test
  void aNewPollStartsItsCountAfresh() {
    Ledger l = ledger(5);
    l.pollSent(3);
    l.pollJob();
    l.pollJob();
    l.pollParked();
    l.pollEnded();
    l.pollSent(5);
    assertEquals(0, l.pollGot());
    assertEquals(5, l.pollWant());
    assertFalse(l.pollIsParked());
  }

  /** Random operations as the parts use them: held + reserved stays within 0..max, releases match takes. */
  @Test
  void randomUseKeepsTheInvariant() {
    Random r = new Random(31);
    for (int round = 0; round < 200; round++) {
      int max = 1 + r.nextInt(8);
      Ledger l = ledger(max);
      int slots = 0;
      boolean reservation = false;
      for (int step = 0; step < 200; step++) {
        switch (r.nextInt(5)) {
          case 0 -> {
            if (l.tryTake()) slots++;
          }
          case 1 -> {
            if (slots > 0) {
              l.release();
              slots--;
            }
          }
          case 2 -> {
            if (!reservation && l.streamMayReserve()) {
              l.reserveStream();
              reservation = true;
            }
          }
          case 3 -> {
            if (reservation) {
              l.claimStream();
              reservation = false;
              slots++;
            }
          }
          default -> {
            if (reservation) {
              l.dropStream();
              reservation = false;
            }
          }
        }
        assertEquals(slots, l.held());
        assertEquals(reservation ? 1 : 0, l.reserved());
        assertTrue(l.held() + l.reserved() <= max, "capacity exceeded");
        assertTrue(l.free() >= 0);
      }
    }
  }
}
