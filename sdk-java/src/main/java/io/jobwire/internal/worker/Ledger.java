package io.jobwire.internal.worker;

import java.util.function.IntConsumer;

/**
 * The capacity ledger (docs/worker-semantics.md): counts the slots of held jobs and the stream
 * reader's reserved slot, so that {@code 0 <= held + reserved <= max}; a held job's slot is released
 * exactly once (a second release is an underflow and throws).
 *
 * <p>It also keeps the accounting of the poll in flight. A poll sets no slot aside: the stream reader
 * may not reserve a slot an unparked poll asked for and has not received yet ({@code want - got}),
 * and may once the poll parked (no answer within {@link Poller#PARKED_AFTER_MS}).
 *
 * <p>Used on the worker's control thread only; {@link #held()} may be read from anywhere.
 */
final class Ledger {
  /** Above {@code max * THRESHOLD} held jobs the worker polls only when a poll is due for another reason. */
  static final double THRESHOLD = 0.3;

  private final int max;
  private final IntConsumer onHeld;
  private volatile int held;
  private int reserved;

  private boolean pollOpen;
  private int pollWant;
  private int pollGot;
  private boolean pollParked;

  /** {@code onHeld} is told the new count of held jobs after every change. */
  Ledger(int max, IntConsumer onHeld) {
    this.max = max;
    this.onHeld = onHeld;
  }

  int max() {
    return max;
  }

  /** Held jobs (any thread). */
  int held() {
    return held;
  }

  /** Reserved stream slots. */
  int reserved() {
    return reserved;
  }

  int free() {
    return max - held - reserved;
  }

  /** Held above the poll threshold. */
  boolean above() {
    return held > max * THRESHOLD;
  }

  /** Takes a slot for a received job when one is free (no reservation). */
  boolean tryTake() {
    if (free() <= 0) return false;
    take();
    return true;
  }

  private void take() {
    if (held + reserved >= max) {
      throw new IllegalStateException("jobwire: ledger overflow");
    }
    held++;
    onHeld.accept(held);
  }

  /** Releases one held job's slot. */
  void release() {
    if (held <= 0) throw new IllegalStateException("jobwire: ledger underflow (a slot was released twice)");
    held--;
    onHeld.accept(held);
  }

  // ---- the stream reader's one reserved slot ----

  /** The stream reader reserves a slot before it asks the transport for one more job. */
  void reserveStream() {
    reserved++;
  }

  /** A pushed job arrived on the reserved slot: it becomes the job's held slot. */
  void claimStream() {
    reserved--;
    take();
  }

  /** The reserved slot goes back unused (the stream ended or drains). */
  void dropStream() {
    reserved--;
  }

  // ---- the poll in flight (no slots set aside) ----

  /** A poll asking for {@code want} jobs was sent. */
  void pollSent(int want) {
    pollOpen = true;
    pollGot = 0;
    pollWant = want;
    pollParked = false;
  }

  /** The poll in flight brought one job (its slot is taken with {@link #tryTake()}). */
  void pollJob() {
    pollGot++;
  }

  /** The poll in flight got no answer within {@link Poller#PARKED_AFTER_MS}. */
  void pollParked() {
    pollParked = true;
  }

  /** The poll ended; its want and got stay readable until the next poll. */
  void pollEnded() {
    pollOpen = false;
    pollParked = false;
  }

  boolean pollOpen() {
    return pollOpen;
  }

  int pollWant() {
    return pollWant;
  }

  int pollGot() {
    return pollGot;
  }

  boolean pollIsParked() {
    return pollParked;
  }

  /**
   * Whether the stream reader may reserve a slot now (no poll being due is checked by the caller): a
   * slot is free, and an unparked poll's outstanding ask ({@code want - got}) leaves one free.
   */
  boolean streamMayReserve() {
    if (free() <= 0) return false;
    return !(pollOpen && !pollParked && free() - Math.max(0, pollWant - pollGot) <= 0);
  }
}
