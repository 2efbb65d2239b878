package io.jobwire.internal.worker;

/**
 * The poller's decisions as pure functions (docs/worker-semantics.md, "Push and poll"), so the shared
 * vectors (conformance-tests/vectors/poller.json) check the same rules in every SDK: which poll to
 * send now, its deadline, the pause after an empty answer, and what an answer means for the next one.
 */
final class PollPlan {
  /** Pushing above the threshold, a fairness poll is due this long after the last poll ended (rule 8). */
  static final long FAIRNESS_MS = 1_000;
  /** A long poll whose first job came at least this long after sending was parked by the gateway. */
  static final long STALL_PARKED_MIN_MS = 500;
  static final long DEADLINE_OFFSET_MS = 10_000;
  static final long DEFAULT_LONG_POLL_MS = 10_000;

  private PollPlan() {}

  /**
   * What the poller knows when it decides: {@code free} and {@code below} from {@link
   * Ledger#pollWanted()}; {@code pushing}: a stream is open; {@code backfill}: the first poll, or
   * one after the stream (re)opened; {@code due}: the last poll got all it asked for while pushing;
   * {@code streamEnabled} and {@code requestTimeoutMs} (0: the gateway's default, &lt; 0: no long
   * polling): the worker's options.
   */
  record Input(int free, boolean below, boolean pushing, boolean backfill, boolean due, long sinceLastEndMs,
      boolean streamEnabled, long requestTimeoutMs) {}

  /**
   * Send a poll for {@code ask} jobs with {@code requestTimeoutMs} ({@code parks}: the reader may
   * borrow from its pool), or wait ({@code markDue}: the reader leaves the next free slot to this
   * poll; {@code fairnessInMs} &gt; 0: look again after this long even if nothing changes).
   */
  record Decision(boolean send, int ask, long requestTimeoutMs, boolean parks, boolean markDue, long fairnessInMs) {}

  /** What a poll's answer means: the next poll is due at once; evidence for the stall watchdog (rule 6). */
  record After(boolean due, boolean stall) {}

  /**
   * A poll is sent when a slot is free and the jobs held are at or below the threshold, or a
   * backfill or fairness poll is due (pushing above the threshold: 1 s after the last poll ended,
   * at once after a full one). Backfill (with streaming) and fairness polls do not park.
   */
  static Decision plan(Input in) {
    boolean fairness = false;
    long fairnessIn = 0;
    if (!in.backfill() && !in.below() && in.pushing()) {
      if (in.due() || in.sinceLastEndMs() >= FAIRNESS_MS) {
        fairness = true;
      } else {
        fairnessIn = FAIRNESS_MS - in.sinceLastEndMs();
      }
    }
    boolean special = in.backfill() || fairness;
    if (in.free() <= 0 || !(special || in.below())) {
      return new Decision(false, 0, 0, false, special && in.free() <= 0, fairnessIn);
    }
    long rt = fairness || (in.backfill() && in.streamEnabled()) || in.requestTimeoutMs() < 0 ? -1 : in.requestTimeoutMs();
    return new Decision(true, in.free(), rt, rt >= 0, false, 0);
  }

  /**
   * A poll that got as many jobs as it asked for while pushing makes the next poll due at once. A
   * long poll (not a backfill) whose first job came at least {@link #STALL_PARKED_MIN_MS} after
   * sending is stall evidence: its jobs became activatable while the stream should have pushed them.
   */
  static After afterPoll(boolean pushing, boolean failed, int asked, int got, boolean backfill, boolean parks, long firstJobMs) {
    if (failed) return new After(false, false);
    return new After(pushing && got > 0 && got >= asked, got > 0 && !backfill && parks && firstJobMs >= STALL_PARKED_MIN_MS);
  }

  /**
   * After an empty answer the poller pauses pollInterval unless the gateway parked the call for at
   * least half its long-poll time (requestTimeout, or the gateway's default 10 s for 0); without
   * long polling it always pauses.
   */
  static boolean emptyPollPause(long requestTimeoutMs, long elapsedMs) {
    if (requestTimeoutMs < 0) return true;
    return elapsedMs < (requestTimeoutMs == 0 ? DEFAULT_LONG_POLL_MS : requestTimeoutMs) / 2;
  }

  /** The ActivateJobs deadline: requestTimeout + 10 s; 20 s for 0 (the gateway's default 10 s long poll); 10 s without long polling. */
  static long pollDeadline(long requestTimeoutMs) {
    if (requestTimeoutMs > 0) return requestTimeoutMs + DEADLINE_OFFSET_MS;
    if (requestTimeoutMs == 0) return DEFAULT_LONG_POLL_MS + DEADLINE_OFFSET_MS;
    return DEADLINE_OFFSET_MS;
  }
}
