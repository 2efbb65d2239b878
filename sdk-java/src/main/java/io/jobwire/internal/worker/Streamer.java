package io.jobwire.internal.worker;

import static io.jobwire.internal.worker.Control.LOG;

import io.grpc.ClientCall;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.jobwire.JobwireException;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.gateway.GatewayOuterClass.StreamActivatedJobsRequest;
import io.jobwire.internal.worker.Outcomes.Sent;
import io.jobwire.stream.v1.ReleaseUnreadRequest;
import io.jobwire.stream.v1.ReleaseUnreadResponse;
import io.jobwire.stream.v1.StreamControlServiceGrpc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The streamer: one StreamActivatedJobs session at a time ({@link StreamSession}), read only with a
 * reserved slot (manual flow control, {@code request(1)} per reserved slot); reopened with backoff
 * (and a backfill poll) when it ends; recycled at streamTimeout or when stalled; drained, never
 * dropped: what it sends after the worker stopped reading is handed back. Control thread.
 */
final class Streamer implements Poller.StreamView {
  static final long STALL_MS = 2_000;
  static final long STALL_RECYCLE_GAP_MS = 10_000;
  static final long DRAIN_QUIET_MS = 50;
  static final long DRAIN_MAX_MS = 500;
  static final long SHORT_LIVED_MS = 1_000;
  /** Bound on one ReleaseUnread call (as in every SDK). */
  static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(2);

  private final Control c;
  private final Ledger ledger;
  private final Poller poller;
  private final JobExecutor executor;
  private final Outcomes outcomes;

  private StreamSession current;
  private final Backoff streamBackoff;
  private boolean streamAuthRetried;
  private long lastStallRecycle = -STALL_RECYCLE_GAP_MS;
  private boolean streamActive;

  Streamer(Control c, Poller poller, JobExecutor executor, Outcomes outcomes) {
    this.c = c;
    this.streamBackoff = new Backoff(c.transport.config().backoff());
    this.ledger = c.ledger;
    this.poller = poller;
    this.executor = executor;
    this.outcomes = outcomes;
  }

  @Override
  public boolean active() {
    return streamActive;
  }

  @Override
  public boolean open() {
    return current != null;
  }

  /** Starts streaming (the worker's start, when the stream is enabled). */
  void start() {
    streamActive = true;
    c.machine.streamActive = true;
    openStream();
  }

  private void openStream() {
    if (c.stopping || !streamActive) return;
    StreamSession s = new StreamSession();
    s.openedAt = System.currentTimeMillis();
    StreamActivatedJobsRequest req = StreamActivatedJobsRequest.newBuilder()
        .setType(c.o.jobType())
        .setWorker(c.o.workerName())
        .setTimeout(c.o.jobTimeout().toMillis())
        .addAllFetchVariable(c.o.fetchVariables())
        .addAllTenantIds(c.o.tenantIds())
        .build();
    // the deadline only guards against a lost recycle timer; recycling happens at streamTimeout
    s.channel = c.lease.pickChannel();
    s.call = s.notingStreamId(c.lease.newCall(GatewayGrpc.getStreamActivatedJobsMethod(), c.o.streamTimeout().plusMinutes(1), s.channel));
    current = s;
    ClientCalls.asyncServerStreamingCall(s.call, req, new ClientResponseObserver<StreamActivatedJobsRequest, ActivatedJob>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<StreamActivatedJobsRequest> r) {
        r.disableAutoRequestWithInitial(0);
        s.obs = r;
      }

      @Override
      public void onNext(ActivatedJob job) {
        c.post.execute(() -> streamJob(s, job));
      }

      @Override
      public void onError(Throwable t) {
        c.post.execute(() -> streamEnded(s, t));
      }

      @Override
      public void onCompleted() {
        c.post.execute(() -> streamEnded(s, null));
      }
    });
    c.machine.streamOpen = true;
    c.machine.streamBackoff = false;
    c.machine.update();
    s.recycleTimer = c.ctl.schedule(() -> recycle(s, "recycled"), c.o.streamTimeout().toMillis(), TimeUnit.MILLISECONDS);
    // jobs created before (or while we were away) are not pushed: collect them with a poll
    poller.requestBackfill();
    c.onLedgerChange();
  }

  /**
   * Reserves a slot and asks the transport for one more job: a free slot, or one of a parked long
   * poll's pool; none while a poll is due (the ledger decides).
   */
  void maybeReserve() {
    StreamSession s = current;
    if (s == null || s.draining || s.ended || s.hasReservation || c.stopping || s.obs == null) return;
    if (!ledger.tryReserveStream()) return;
    s.hasReservation = true;
    s.reservedSince = System.currentTimeMillis();
    s.obs.request(1);
  }

  private void streamJob(StreamSession s, ActivatedJob job) {
    // after the drain finished (and ReleaseUnread was sent with the count): never run; the gateway
    // hands it back when it released the stream, else this worker does
    if (s.drainFinished) {
      if (s.release == StreamSession.NOT_RELEASED) handBackLate(s, List.of(job));
      else if (s.release == StreamSession.RELEASE_PENDING) s.late.add(job);
      return;
    }
    s.nread++;
    s.lastRead = System.currentTimeMillis();
    if (s.draining) {
      c.tel.jobActivated("push");
      s.aside.add(job);
      return;
    }
    streamBackoff.reset();
    streamAuthRetried = false;
    if (s.hasReservation) {
      s.hasReservation = false;
      s.lastDelivery = s.lastRead;
      executor.submit(job, "push", false, ledger.claimStream());
    } else {
      outcomes.giveBack(job, "push");
    }
    c.onLedgerChange();
  }

  private void streamEnded(StreamSession s, Throwable t) {
    if (s.ended) return;
    s.ended = true;
    if (s.recycleTimer != null) s.recycleTimer.cancel(false);
    if (s.hasReservation) {
      s.hasReservation = false;
      ledger.dropStream();
    }
    if (s.draining) {
      finishDrain(s);
      return;
    }
    if (current != s) return;
    current = null;
    c.machine.streamOpen = false;
    if (c.stopping) return;
    JobwireException je = t == null ? null : JobwireException.from(t, "StreamActivatedJobs");
    if (je != null && StatusRules.activationDecision(StatusRules.Call.STREAM, je.code()) == StatusRules.Activation.POLLING_ONLY) {
      LOG.warn("the gateway does not implement StreamActivatedJobs; worker {} polls only", c.o.jobType());
      streamActive = false;
      c.machine.streamActive = false;
      c.machine.update();
      c.onLedgerChange();
      return;
    }
    c.tel.streamReconnect(t == null ? "closed" : "error");
    boolean shortLived = System.currentTimeMillis() - s.openedAt < SHORT_LIVED_MS;
    if (t == null) {
      if (!shortLived) {
        LOG.debug("job stream ended by the gateway; reopening");
        streamBackoff.reset();
        openStream();
      } else {
        long delay = streamBackoff.next();
        LOG.debug("job stream ended by the gateway right after opening; reopening in {} ms", delay);
        c.machine.streamOpen = true; // an expected close: the state stays streaming
        c.ctl.schedule(this::reopenIfIdle, delay, TimeUnit.MILLISECONDS);
        c.onLedgerChange();
      }
      return;
    }
    Status.Code code = je.code();
    if (code == Status.Code.UNAUTHENTICATED && c.transport.hasAuth() && !streamAuthRetried) {
      streamAuthRetried = true;
      c.transport.invalidateToken();
      openStream();
      return;
    }
    c.warnIfTls(je);
    long delay;
    if (StatusRules.activationDecision(StatusRules.Call.STREAM, code) == StatusRules.Activation.MAX_BACKOFF_REPORT) {
      c.reportError(je);
      delay = streamBackoff.max();
    } else {
      delay = streamBackoff.next();
    }
    LOG.debug("job stream closed ({}); reopening in {} ms", je.getMessage(), delay);
    c.machine.streamBackoff = true;
    c.machine.update();
    c.ctl.schedule(this::reopenIfIdle, delay, TimeUnit.MILLISECONDS);
    c.onLedgerChange();
  }

  private void reopenIfIdle() {
    if (c.stopping || current != null) return;
    c.machine.streamBackoff = false;
    openStream();
  }

  /** Replaces a stream: the new one opens first, then the old one is drained. */
  private void recycle(StreamSession s, String reason) {
    if (current != s || c.stopping || s.ended) return;
    c.tel.streamReconnect(reason);
    if ("stalled".equals(reason)) {
      LOG.info("job stream of {} stalled (a poll found jobs the stream did not deliver); recycling it", c.o.jobType());
    } else {
      LOG.debug("recycling the job stream of {} ({})", c.o.jobType(), reason);
    }
    current = null;
    openStream();
    startDrain(s, Outcomes.MSG_RECYCLED, DRAIN_MAX_MS);
  }

  /** A poll (not a backfill) returned jobs: a stream that held a slot and delivered nothing for 2 s is stalled. */
  @Override
  public void checkStall() {
    StreamSession s = current;
    long now = System.currentTimeMillis();
    if (s == null || !s.hasReservation || s.draining) return;
    if (now - s.reservedSince < STALL_MS || now - Math.max(s.lastDelivery, s.openedAt) < STALL_MS) return;
    if (now - lastStallRecycle < STALL_RECYCLE_GAP_MS) return;
    lastStallRecycle = now;
    recycle(s, "stalled");
  }

  /** Close: stops streaming and drains the current stream (not cut by the close timeout, rule 7); completes when drained. */
  CompletableFuture<Void> stop() {
    StreamSession s = current;
    current = null;
    c.machine.streamOpen = false;
    if (s == null) return CompletableFuture.completedFuture(null);
    startDrain(s, Outcomes.MSG_CLOSING, DRAIN_MAX_MS);
    return s.drained;
  }

  /**
   * Drains a stream instead of dropping it: keeps reading and sets every job aside; when quiet for
   * 50 ms (or after maxMs) cancels it and then fails back every job set aside.
   */
  private void startDrain(StreamSession s, String msg, long maxMs) {
    s.draining = true;
    s.drainMsg = msg;
    s.drainStart = System.currentTimeMillis();
    s.drainMaxMs = maxMs;
    s.lastRead = s.drainStart;
    if (s.recycleTimer != null) s.recycleTimer.cancel(false);
    if (s.hasReservation) {
      s.hasReservation = false;
      ledger.dropStream();
      c.onLedgerChange();
    }
    if (s.ended) {
      finishDrain(s);
      return;
    }
    if (s.obs != null) s.obs.request(Integer.MAX_VALUE / 2);
    drainTick(s);
  }

  private void drainTick(StreamSession s) {
    if (s.drainFinished) return;
    long now = System.currentTimeMillis();
    if (s.ended || now - s.lastRead >= DRAIN_QUIET_MS || now - s.drainStart >= s.drainMaxMs) {
      if (!s.ended) s.call.cancel("jobwire: stream drained", null);
      finishDrain(s);
      return;
    }
    c.ctl.schedule(() -> drainTick(s), 10, TimeUnit.MILLISECONDS);
  }

  private void finishDrain(StreamSession s) {
    if (s.drainFinished) return;
    s.drainFinished = true;
    List<CompletableFuture<Sent>> sends = new ArrayList<>();
    for (ActivatedJob j : s.aside) {
      sends.add(outcomes.handBack(j, s.drainMsg));
    }
    if (!s.aside.isEmpty()) LOG.debug("handed back {} job(s) read from a drained stream", s.aside.size());
    s.aside.clear();
    List<CompletableFuture<?>> all = new ArrayList<>(sends);
    all.add(releaseUnread(s));
    CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).whenComplete((v, e) -> s.drained.complete(null));
  }

  /** Hands back jobs a drained stream delivered after its drain finished, when no release covers them. */
  private void handBackLate(StreamSession s, List<ActivatedJob> jobs) {
    for (ActivatedJob j : jobs) {
      c.tel.jobActivated("push");
      outcomes.handBack(j, s.drainMsg);
    }
    if (!jobs.isEmpty()) LOG.debug("handed back {} job(s) a drained stream delivered after its drain (no release)", jobs.size());
  }

  /** Control thread: the release answered (or there is none); settles the jobs that arrived late. */
  private void releaseSettled(StreamSession s, boolean released) {
    s.release = released ? StreamSession.RELEASED : StreamSession.NOT_RELEASED;
    if (!released) handBackLate(s, s.late);
    s.late.clear();
  }

  /**
   * Asks a jobwire gateway to hand back what the (cancelled) stream sent and this worker never read:
   * jobs still in transport when the drain ended (docs/worker-semantics.md, push and poll rule 7).
   * Runs on the control thread after drainFinished is set, so the count is final: a job delivered later
   * is dropped, never run. A gateway without the stream id header (Zeebe) is not asked; an error is
   * logged at debug level (those jobs return after their activation timeout).
   */
  private CompletableFuture<Void> releaseUnread(StreamSession s) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    String id = s.streamId;
    if (id == null) {
      releaseSettled(s, false);
      done.complete(null);
      return done;
    }
    long read = s.nread;
    ReleaseUnreadRequest req = ReleaseUnreadRequest.newBuilder().setStreamId(id).setMessagesRead(read).build();
    ClientCall<ReleaseUnreadRequest, ReleaseUnreadResponse> call =
        c.lease.newCall(StreamControlServiceGrpc.getReleaseUnreadMethod(), RELEASE_TIMEOUT, s.channel);
    ClientCalls.asyncUnaryCall(call, req, new StreamObserver<ReleaseUnreadResponse>() {
      @Override
      public void onNext(ReleaseUnreadResponse r) {
        if (r.getReleased() > 0) {
          LOG.debug("released {} unread job(s) of the job stream (sent {}, read {})", r.getReleased(), r.getMessagesSent(), read);
        }
      }

      @Override
      public void onError(Throwable t) {
        LOG.debug("could not release the job stream's unread jobs; they return after their activation timeout: {}", t.toString());
        // UNIMPLEMENTED: nothing was released, the worker hands back late jobs itself; any other
        // error may have come after a release, so late jobs are dropped (a FailJob could hit a job
        // the gateway already gave another worker)
        boolean unimplemented = Status.fromThrowable(t).getCode() == Status.Code.UNIMPLEMENTED;
        c.post.execute(() -> releaseSettled(s, !unimplemented));
        done.complete(null); // after the post: close's next look at the sends queues behind it
      }

      @Override
      public void onCompleted() {
        c.post.execute(() -> releaseSettled(s, true));
        done.complete(null);
      }
    });
    return done;
  }
}
