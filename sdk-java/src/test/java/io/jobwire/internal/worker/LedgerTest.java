package io.jobwire.internal.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** What the shared vectors (LedgerVectorsTest) do not cover: the gauge, and the invariant under random use. */
class LedgerTest {
  private final List<Integer> reported = new ArrayList<>();

  private Ledger ledger(int max) {
    return new Ledger(max, reported::add);
  }

  @Test
  void everyChangeOfTheJobCountIsReportedAndReservationsAreNotJobs() {
    Ledger l = ledger(3);
    assertTrue(l.tryReserveStream());
    assertEquals(2, l.reservePoll(3, true));
    assertTrue(reported.isEmpty(), "a reservation is not a held job");
    Ledger.Slot a = l.takePoll();
    Ledger.Slot b = l.claimStream();
    assertNotNull(a);
    assertNotNull(b);
    l.returnPoll();
    a.release();
    a.release();
    b.release();
    assertEquals(List.of(1, 2, 1, 0), reported);
  }

  @Test
  void aParkedPollsPoolLendsOneSlotToTheReaderOnly() {
    Ledger l = ledger(2);
    assertEquals(2, l.reservePoll(2, true));
    assertTrue(l.tryReserveStream());
    assertTrue(l.tryReserveStream(), "the reader holds one reservation, never a second");
    assertNotNull(l.takePoll());
    assertNull(l.takePoll(), "the parked poll's second job finds no slot: handed back");
    assertEquals(0, l.free());
  }

  /** Random calls as the poller and the stream reader make them: 0 <= jobs + pool + reader <= max, always. */
  @Test
  void randomUseKeepsTheInvariant() {
    Random r = new Random(31);
    for (int round = 0; round < 300; round++) {
      int max = 1 + r.nextInt(8);
      Ledger l = ledger(max);
      List<Ledger.Slot> held = new ArrayList<>();
      boolean inFlight = false;
      boolean reader = false;
      for (int step = 0; step < 200; step++) {
        switch (r.nextInt(8)) {
          case 0 -> {
            if (!inFlight) {
              Ledger.Wanted w = l.pollWanted();
              int got = l.reservePoll(1 + r.nextInt(max), r.nextBoolean());
              assertTrue(got <= w.free(), "a poll got more than was free");
              inFlight = true;
            }
          }
          case 1 -> {
            Ledger.Slot s = l.takePoll();
            if (s != null) held.add(s);
          }
          case 2 -> {
            l.returnPoll();
            inFlight = false;
          }
          case 3 -> reader = l.tryReserveStream();
          case 4 -> {
            if (reader) {
              Ledger.Slot s = l.claimStream();
              assertNotNull(s, "a reservation always becomes a slot");
              held.add(s);
              reader = false;
            }
          }
          case 5 -> {
            l.dropStream();
            reader = false;
          }
          case 6 -> l.setPollDue(r.nextBoolean());
          default -> {
            if (!held.isEmpty()) {
              Ledger.Slot s = held.remove(r.nextInt(held.size()));
              s.release();
              s.release();
            }
          }
        }
        assertEquals(held.size(), l.jobs());
        assertTrue(l.free() >= 0, "capacity exceeded");
        assertTrue(l.free() + l.jobs() + (reader ? 1 : 0) <= max);
      }
    }
  }
}
