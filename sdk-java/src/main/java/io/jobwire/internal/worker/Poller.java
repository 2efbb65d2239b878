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
 * The poller: ActivateJobs for the free slots, at most one poll in flight, as {@link PollPlan}
 * decides: while at most the threshold is held, and above it for a backfill (after the stream
 * opened) or a fairness poll (pushing: 1 s after the last poll ended, at once after a full one).
 * A poll sets its slots aside in the {@link Ledger} from just before it is sent until it ends; the
 * jobs take them, and what a parked poll brings after the stream reader borrowed its last slot is
 * handed back at once (overflow). Control thread.
 *
 * <p>A parked poll is never cancelled because the stream filled the worker (push and poll, rule 3,
 * the same in every SDK): a cancel drops whatever the gateway had already sent for the poll, and
 * each of those jobs waits out its activation timeout.
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

  private final Control c;
  private final Ledger ledger;
  private final JobExecutor executor;
  private final Outcomes outcomes;
  private StreamView stream;

  private ClientCall<ActivateJobsRequest, ActivateJobsResponse> pollCall;
  private boolean pollWaiting;
  private boolean backfillDue = true;
  private boolean moreDue;
  private long lastPollEnd = nowMs();
  private ScheduledFuture<?> fairnessTimer;
  private boolean pollAuthRetried;
  private final Backoff pollBackoff;
  // the poll in flight
  private PollPlan.Decision poll;
  private int pollAsked;
  private int pollGot;
  private boolean pollPushing;
  private boolean pollIsBackfill;
  private long pollStarted;
  private long pollFirstJobAt;

  Poller(Control c, JobExecutor executor, Outcomes outcomes) {
    this.c = c;
    this.pollBackoff = new Backoff(c.transport.config().backoff());
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

  private static long nowMs() {
    return System.nanoTime() / 1_000_000;
  }

  /** Sends the next poll when {@link PollPlan#plan} says so (at most one in flight). */
  void maybePoll() {
    if (c.stopping || pollCall != null) return;
    if (pollWaiting) return; // a poller that sleeps has no poll due (Ledger.restPoll)
    Ledger.Wanted w = ledger.pollWanted();
    boolean pushing = stream.active() && stream.open();
    PollPlan.Decision d = PollPlan.plan(new PollPlan.Input(w.free(), w.below(), pushing, backfillDue, moreDue,
        nowMs() - lastPollEnd, stream.active(), c.o.requestTimeout().toMillis()));
    ledger.setPollDue(d.markDue()); // the stream reader leaves the next free slot to a due poll
    if (!d.send()) {
      if (d.fairnessInMs() > 0 && fairnessTimer == null) {
        fairnessTimer = c.ctl.schedule(() -> {
          fairnessTimer = null;
          c.onLedgerChange();
        }, d.fairnessInMs() + 1, TimeUnit.MILLISECONDS);
      }
      return;
    }
    int got = ledger.reservePoll(d.ask(), d.parks());
    if (got == 0) return;
    startPoll(d, got, pushing);
  }

  private void startPoll(PollPlan.Decision d, int want, boolean pushing) {
    ActivateJobsRequest req = ActivateJobsRequest.newBuilder()
        .setType(c.o.jobType())
        .setWorker(c.o.workerName())
        .setTimeout(c.o.jobTimeout().toMillis())
        .setMaxJobsToActivate(want)
        .addAllFetchVariable(c.o.fetchVariables())
        .setRequestTimeout(d.requestTimeoutMs())
        .addAllTenantIds(c.o.tenantIds())
        .build();
    ClientCall<ActivateJobsRequest, ActivateJobsResponse> call =
        c.lease.newCall(GatewayGrpc.getActivateJobsMethod(), Duration.ofMillis(PollPlan.pollDeadline(d.requestTimeoutMs())));
    pollCall = call;
    poll = d;
    pollAsked = want;
    pollGot = 0;
    pollPushing = pushing;
    pollIsBackfill = backfillDue;
    backfillDue = false;
    moreDue = false;
    pollStarted = nowMs();
    pollFirstJobAt = 0;
    ClientCalls.asyncServerStreamingCall(call, req, new StreamObserver<>() {
      @Override
      public void onNext(ActivateJobsResponse res) {
        c.post.execute(() -> {
          for (ActivatedJob j : res.getJobsList()) {
            if (pollCall == call) {
              if (pollGot == 0) pollFirstJobAt = nowMs();
              pollGot++;
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
    Ledger.Slot slot = ledger.takePoll();
    if (slot != null) {
      executor.submit(j, "poll", false, slot);
    } else {
      // the stream reader borrowed from this parked poll's pool meanwhile: give the job back at once
      outcomes.giveBack(j, "poll");
    }
  }

  private void pollEnded(ClientCall<?, ?> call, Throwable err) {
    if (pollCall != call) return;
    pollCall = null;
    ledger.returnPoll();
    lastPollEnd = nowMs();
    if (c.stopping) return;
    boolean failed = false;
    if (err != null) {
      JobwireException je = JobwireException.from(err, "ActivateJobs");
      boolean emptyDeadline = je.code() == Status.Code.DEADLINE_EXCEEDED && pollGot == 0;
      if (!emptyDeadline && pollGot == 0) {
        onPollError(je);
        return;
      }
      if (emptyDeadline) LOG.debug("long poll ended with DEADLINE_EXCEEDED and no job: an empty poll");
      failed = !emptyDeadline;
    }
    pollBackoff.reset();
    pollAuthRetried = false;
    c.tlsOk();
    c.tel.pollRequest(pollGot > 0 ? "jobs" : "empty");
    PollPlan.After after = PollPlan.afterPoll(pollPushing, failed, pollAsked, pollGot, pollIsBackfill, poll.parks(),
        pollFirstJobAt - pollStarted);
    moreDue = after.due();
    // the stall watchdog: jobs became activatable while this long poll was parked (not a backlog
    // answered at once): did the stream deliver?
    if (after.stall()) stream.checkStall();
    boolean longPolled = !PollPlan.emptyPollPause(poll.requestTimeoutMs(), lastPollEnd - pollStarted);
    if (pollGot == 0 && !longPolled && c.o.pollInterval().toMillis() > 0) {
      rest(c.o.pollInterval().toMillis(), () -> {});
    }
    c.onLedgerChange();
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
    rest(delay, () -> {
      c.machine.pollBackoff = false;
      c.machine.update();
    });
    c.onLedgerChange();
  }

  /**
   * Pauses the poller for {@code ms} (pollInterval after an empty answer, back-off after an error),
   * then runs {@code woke} and plans again. No poll is due meanwhile ({@link Ledger#restPoll}): the
   * stream reader is not held back through the pause.
   */
  private void rest(long ms, Runnable woke) {
    pollWaiting = true;
    ledger.restPoll(true);
    c.ctl.schedule(() -> {
      pollWaiting = false;
      ledger.restPoll(false);
      woke.run();
      c.onLedgerChange();
    }, ms, TimeUnit.MILLISECONDS);
  }

  /** Close: cancel the poll in flight and the poller's timers (control thread). */
  void stop() {
    if (pollCall != null) pollCall.cancel("jobwire: worker closing", null);
    if (fairnessTimer != null) fairnessTimer.cancel(false);
  }
}
