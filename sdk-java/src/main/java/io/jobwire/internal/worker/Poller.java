package io.jobwire.internal.worker;

import static io.jobwire.internal.worker.Control.LOG;

import io.grpc.ClientCall;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import io.jobwire.JobwireException;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivateJobsRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivateJobsResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The poller: ActivateJobs for the free slots, at most one poll in flight; hands the jobs to the
 * executor (or back to the engine when the stream filled the worker meanwhile). Polls while at most
 * the threshold is held, and above it for a backfill (after the stream opened), for more (the last
 * poll was answered in full) or for fairness (every second while a stream runs). Control thread.
 *
 * <p>A parked poll is never cancelled because the stream filled the worker (push and poll, rule 3,
 * the same in every SDK): a cancel drops whatever the gateway had already sent for the poll, and
 * each of those jobs waits out its activation timeout. What a parked poll brings while the worker
 * is full is handed back at once (overflow).
 */
final class Poller {
  /** What the poller asks of the stream reader (implemented by {@link Streamer}). */
  interface StreamView {
    /** Streaming is on (not polling only). */
    boolean active();

    /** A stream session is current. */
    boolean open();

    /** A long poll found jobs the stream should have delivered: recycle a stalled stream. */
    void checkStall();
  }

  /**
   * A poll that got no answer for this long is parked (the gateway answers at once when jobs are
   * waiting). Until then the stream reader does not reserve a slot the poll asked for, so a
   * backfill poll that finds jobs never makes a pushed job overflow, and a parked poll never
   * stops the stream.
   */
  static final long PARKED_AFTER_MS = 100;
  static final long DEADLINE_OFFSET_MS = 10_000;
  static final long DEFAULT_LONG_POLL_MS = 10_000;
  static final long STALL_PARKED_MIN_MS = 500;
  static final long FAIRNESS_MS = 1_000;

  private final Control c;
  private final Ledger ledger;
  private final JobExecutor executor;
  private final Outcomes outcomes;
  private StreamView stream;

  private ClientCall<ActivateJobsRequest, ActivateJobsResponse> pollCall;
  private boolean pollWaiting;
  private boolean backfillDue = true;
  private boolean moreDue;
  private long lastPollEnd;
  private long pollRtMs;
  private long pollStarted;
  private boolean pollIsBackfill;
  private long pollFirstJobAt;
  private ScheduledFuture<?> fairnessTimer;
  private boolean pollAuthRetried;
  private final Backoff pollBackoff = new Backoff();

  Poller(Control c, JobExecutor executor, Outcomes outcomes) {
    this.c = c;
    this.ledger = c.ledger;
    this.executor = executor;
    this.outcomes = outcomes;
  }

  void setStream(StreamView stream) {
    this.stream = stream;
  }

  /** The stream (re)opened: collect what it will not push with a poll. */
  void requestBackfill() {
    backfillDue = true;
  }

  private boolean fairnessDue() {
    return stream.active() && stream.open() && ledger.above() && System.currentTimeMillis() - lastPollEnd >= FAIRNESS_MS;
  }

  boolean pollDue() {
    if (c.stopping || ledger.pollOpen() || pollWaiting) return false;
    return !ledger.above() || backfillDue || moreDue || fairnessDue();
  }

  void maybePoll() {
    if (!pollDue() || ledger.free() <= 0) return;
    startPoll();
  }

  private void startPoll() {
    boolean below = !ledger.above();
    boolean backfill = backfillDue;
    boolean fairness = !below && !backfill;
    backfillDue = false;
    moreDue = false;
    // fairness and backfill polls (with a stream) do not park: they hold the stream reader back
    // only for the moment it takes to collect what waits
    long rt = fairness || (backfill && stream.active()) ? -1 : c.o.requestTimeout().toMillis();
    long deadline = rt > 0 ? rt + DEADLINE_OFFSET_MS : rt == 0 ? DEFAULT_LONG_POLL_MS + DEADLINE_OFFSET_MS : DEADLINE_OFFSET_MS;
    int want = ledger.free();
    ActivateJobsRequest req = ActivateJobsRequest.newBuilder()
        .setType(c.o.jobType())
        .setWorker(c.o.workerName())
        .setTimeout(c.o.jobTimeout().toMillis())
        .setMaxJobsToActivate(want)
        .addAllFetchVariable(c.o.fetchVariables())
        .setRequestTimeout(rt)
        .addAllTenantIds(c.o.tenantIds())
        .build();
    ClientCall<ActivateJobsRequest, ActivateJobsResponse> call = c.lease.newCall(GatewayGrpc.getActivateJobsMethod(), Duration.ofMillis(deadline));
    pollCall = call;
    ledger.pollSent(want);
    pollRtMs = rt;
    pollStarted = System.currentTimeMillis();
    pollIsBackfill = backfill;
    pollFirstJobAt = 0;
    if (rt >= 0) c.ctl.schedule(() -> {
      if (pollCall == call && ledger.pollGot() == 0) {
        ledger.pollParked();
        c.onLedgerChange();
      }
    }, PARKED_AFTER_MS, TimeUnit.MILLISECONDS);
    ClientCalls.asyncServerStreamingCall(call, req, new StreamObserver<>() {
      @Override
      public void onNext(ActivateJobsResponse res) {
        c.post.execute(() -> {
          for (ActivatedJob j : res.getJobsList()) {
            if (pollCall == call) {
              if (ledger.pollGot() == 0) pollFirstJobAt = System.currentTimeMillis();
              ledger.pollJob();
            }
            receivePolled(j);
          }
        });
      }

      @Override
      public void onError(Throwable t) {
        c.post.execute(() -> pollEnded(call, t));
      }

      @Override
      public void onCompleted() {
        c.post.execute(() -> pollEnded(call, null));
      }
    });
  }

  private void receivePolled(ActivatedJob j) {
    if (ledger.tryTake()) {
      executor.submit(j, "poll", false);
    } else {
      // the stream filled the capacity while this poll was parked: give the job back at once
      outcomes.giveBack(j, "poll");
    }
  }

  private void pollEnded(ClientCall<?, ?> call, Throwable err) {
    if (pollCall != call) return;
    pollCall = null;
    ledger.pollEnded();
    lastPollEnd = System.currentTimeMillis();
    if (c.stopping) return;
    int pollGot = ledger.pollGot();
    int pollWant = ledger.pollWant();
    if (err != null) {
      JobwireException je = JobwireException.from(err, "ActivateJobs");
      boolean emptyDeadline = je.code() == Status.Code.DEADLINE_EXCEEDED && pollGot == 0;
      if (!emptyDeadline && pollGot == 0) {
        onPollError(je);
        return;
      }
      if (emptyDeadline) LOG.debug("long poll ended with DEADLINE_EXCEEDED and no job: an empty poll");
    }
    pollBackoff.reset();
    pollAuthRetried = false;
    c.tlsOk();
    c.tel.pollRequest(pollGot > 0 ? "jobs" : "empty");
    // the stall watchdog: jobs became activatable while this long poll was parked (not a backlog
    // answered at once): did the stream deliver?
    if (pollGot > 0 && !pollIsBackfill && pollRtMs >= 0 && pollFirstJobAt - pollStarted >= STALL_PARKED_MIN_MS) stream.checkStall();
    if (pollWant > 0 && pollGot >= pollWant) moreDue = true;
    long elapsed = lastPollEnd - pollStarted;
    boolean longPolled = pollRtMs >= 0 && elapsed >= (pollRtMs == 0 ? DEFAULT_LONG_POLL_MS : pollRtMs) / 2;
    scheduleFairness();
    if (pollGot == 0 && !longPolled && c.o.pollInterval().toMillis() > 0) {
      pollWaiting = true;
      c.ctl.schedule(() -> {
        pollWaiting = false;
        c.onLedgerChange();
      }, c.o.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
    }
    c.onLedgerChange();
  }

  private void scheduleFairness() {
    if (fairnessTimer != null) fairnessTimer.cancel(false);
    if (!stream.active()) return;
    fairnessTimer = c.ctl.schedule(c::onLedgerChange, FAIRNESS_MS + 5, TimeUnit.MILLISECONDS);
  }

  private void onPollError(JobwireException je) {
    c.tel.pollRequest("error");
    Status.Code code = je.code();
    if (code == Status.Code.UNAUTHENTICATED && c.transport.hasAuth() && !pollAuthRetried) {
      // the token was refused (expired early, rotated): fetch a new one and retry once at once
      pollAuthRetried = true;
      c.transport.invalidateToken();
      c.onLedgerChange();
      return;
    }
    c.warnIfTls(je);
    long delay;
    if (StatusRules.activationDecision(StatusRules.Call.POLL, code) == StatusRules.Activation.MAX_BACKOFF_REPORT) {
      c.reportError(je);
      delay = pollBackoff.max();
    } else {
      delay = pollBackoff.next();
      LOG.debug("poll failed ({}); backing off {} ms", je.getMessage(), delay);
    }
    c.machine.pollBackoff = true;
    c.machine.update();
    pollWaiting = true;
    c.ctl.schedule(() -> {
      pollWaiting = false;
      c.machine.pollBackoff = false;
      c.machine.update();
      c.onLedgerChange();
    }, delay, TimeUnit.MILLISECONDS);
  }

  /** Close: cancel the poll in flight and the poller's timers (control thread). */
  void stop() {
    if (pollCall != null) pollCall.cancel("jobwire: worker closing", null);
    if (fairnessTimer != null) fairnessTimer.cancel(false);
  }
}
