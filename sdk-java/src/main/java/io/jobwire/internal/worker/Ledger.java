package io.jobwire.internal.worker;

import java.util.function.IntConsumer;

/**
 * The capacity ledger (docs/worker-semantics.md): the only place that counts the slots a worker
 * holds, polled and pushed jobs alike. Invariant: {@code 0 <= jobs + pool + reader <= max}, where
 * {@code jobs} counts the received jobs not yet released, {@code pool} the slots set aside for the
 * poll in flight and {@code reader} the stream reader's one reserved slot.
 *
 * <p>A poll sets aside the slots it asks for from just before it is sent until the call ends
 * ({@link #reservePoll}, {@link #takePoll}, {@link #returnPoll}). The stream reader reserves its
 * slot before it asks the transport for one more job: from a free slot, or from the pool of a poll
 * that may park (a long poll never stops the stream); never from a backfill or fairness poll's
 * pool. A polled job that then finds no slot is handed back (overflow). While a poll is due
 * ({@link #setPollDue}) and none is in flight, the reader does not reserve: the poll gets the next
 * free slot. A due poll never takes the reservation the reader already holds (that read has
 * started: its job lands there), and a sleeping poller (pollInterval, back-off) has no poll due
 * ({@link #restPoll}).
 *
 * <p>Used on the worker's control thread only; {@link #jobs()} may be read from anywhere.
 */
final class Ledger {
  /** At or below {@code max * 3 / 10} held jobs the worker polls (rule 8). */
  private static final int THRESHOLD_TENTHS = 3;

  /** The slot of one received job, released exactly once ({@link #release()} is idempotent). */
  final class Slot {
    private boolean released;

    private Slot() {}

    /** Gives the slot back; a second call is a no-op. */
    void release() {
      if (released) return;
      released = true;
      if (jobs <= 0) throw new IllegalStateException("jobwire: capacity ledger underflow");
      jobs--;
      onJobs.accept(jobs);
    }
  }

  private final int max;
  private final IntConsumer onJobs;
  private volatile int jobs;
  private int pool; // slots set aside for the poll in flight
  private boolean pollInFlight;
  private boolean pollParks; // the poll in flight may park: the reader may borrow from its pool
  private boolean reader; // the stream reader holds its reserved slot
  private boolean pollDue; // a poll waits for a free slot: the reader does not reserve
  private boolean pollRests; // the poller sleeps (pollInterval, back-off): no poll is due

  /** {@code onJobs} is told the new number of held jobs after every change of it. */
  Ledger(int max, IntConsumer onJobs) {
    this.max = Math.max(1, max);
    this.onJobs = onJobs;
  }

  int max() {
    return max;
  }

  /** Received jobs holding a slot (any thread). */
  int jobs() {
    return jobs;
  }

  /** Slots neither held by a job nor set aside (for the poll in flight, or the reader). */
  int free() {
    return max - jobs - pool - (reader ? 1 : 0);
  }

  /**
   * How many jobs a poll may ask for now ({@code max - held - reserved}: the reader's reservation
   * counts) and whether the jobs held are at or below the poll threshold (30 % of max). With a poll
   * in flight: {@code free} 0, {@code below} false.
   */
  record Wanted(int free, boolean below) {}

  Wanted pollWanted() {
    if (pollInFlight) return new Wanted(0, false);
    return new Wanted(free(), jobs * 10 <= max * THRESHOLD_TENTHS);
  }

  /**
   * Marks (or clears) a poll waiting for a free slot; while set and no poll is in flight, the reader
   * does not reserve. While the poller rests ({@link #restPoll}) no poll is due and marking one does
   * nothing.
   */
  void setPollDue(boolean due) {
    pollDue = due && !pollRests;
  }

  /**
   * The poller sleeps ({@code resting} true: pollInterval after an empty answer, back-off after an
   * error) or woke up (false). A sleeping poller has no poll due: the mark is cleared and {@link
   * #setPollDue} does nothing until it wakes, so the stream reader is never held back through a
   * pause. Awake, the poller plans again and marks its poll due anew if it still finds no free slot.
   */
  void restPoll(boolean resting) {
    pollRests = resting;
    if (resting) pollDue = false;
  }

  /**
   * Sets aside up to {@code n} free slots for the poll about to be sent and returns how many; clears
   * the due mark. {@code parks}: the poll is a long poll that may park (the reader may borrow from
   * its pool).
   */
  int reservePoll(int n, boolean parks) {
    int got = Math.max(0, Math.min(n, free()));
    pool += got;
    pollInFlight = true;
    pollParks = parks;
    pollDue = false;
    return got;
  }

  /** A polled job takes one slot of the poll's pool, else a free slot; null when no capacity is left. */
  Slot takePoll() {
    if (pool > 0) {
      pool--;
    } else if (free() <= 0) {
      return null;
    }
    return claimed();
  }

  /** The poll ended: what is left of its pool is free again. */
  void returnPoll() {
    pool = 0;
    pollInFlight = false;
    pollParks = false;
  }

  /**
   * The stream reader asks for its one reserved slot without waiting: true if it holds one now (a
   * free slot, or one of a parked poll's pool; never while a poll is due and none is in flight). A
   * reservation the reader holds stays its own, a due poll or not: the read has started and its job
   * lands there.
   */
  boolean tryReserveStream() {
    if (reader) return true;
    if (pollDue && !pollInFlight) return false;
    if (free() > 0) {
      reader = true;
    } else if (pool > 0 && pollParks) {
      pool--;
      reader = true;
    }
    return reader;
  }

  /** A pushed job arrived: the reader's reservation (else a free slot) becomes its slot; null when there is none. */
  Slot claimStream() {
    if (reader) {
      reader = false;
    } else if (free() <= 0) {
      return null;
    }
    return claimed();
  }

  /** The reader gives its reservation back (the stream ended or drains); a no-op without one. */
  void dropStream() {
    reader = false;
  }

  private Slot claimed() {
    jobs++;
    onJobs.accept(jobs);
    return new Slot();
  }
}
