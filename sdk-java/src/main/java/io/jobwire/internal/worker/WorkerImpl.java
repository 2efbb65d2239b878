package io.jobwire.internal.worker;

import com.google.protobuf.GeneratedMessage;
import io.grpc.ClientCall;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.jobwire.CancelledException;
import io.jobwire.InvalidVariablesException;
import io.jobwire.JobError;
import io.jobwire.JobWorker;
import io.jobwire.JobwireException;
import io.jobwire.WorkerState;
import io.jobwire.internal.Json;
import io.jobwire.internal.Transport;
import io.jobwire.internal.gateway.GatewayGrpc;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivateJobsRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivateJobsResponse;
import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.jobwire.internal.gateway.GatewayOuterClass.CompleteJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.FailJobRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.StreamActivatedJobsRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.ThrowErrorRequest;
import io.jobwire.internal.gateway.GatewayOuterClass.UpdateJobTimeoutRequest;
import io.jobwire.stream.v1.ReleaseUnreadRequest;
import io.jobwire.stream.v1.ReleaseUnreadResponse;
import io.jobwire.stream.v1.StreamControlServiceGrpc;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The job worker (docs/worker-semantics.md). All of its state — the capacity ledger, the poller,
 * the streamer and the held jobs — lives on one control thread; gRPC callbacks only hand their
 * events to it, and handlers run on a separate executor bounded by {@code concurrency}. Nothing
 * here ever blocks a gRPC or event-loop thread: backpressure on the stream is manual flow control
 * ({@code request(1)} per reserved slot) plus a small HTTP/2 window on the long-call connection.
 */
public final class WorkerImpl implements JobWorker {
  private static final Logger LOG = LoggerFactory.getLogger(JobWorker.class);

  static final double THRESHOLD = 0.3;
  static final long CANCEL_DELAY_MS = 100;
  /**
   * A parked poll is not cancelled when the stream fills the worker (push and poll, rule 3, the same
   * in every SDK): a cancel drops whatever the gateway had already sent for the poll (measured under
   * overload in Go and Node: 1-15 jobs per cancel, each waiting out its activation timeout). What a
   * parked poll brings while the worker is full is handed back at once (overflow).
   */
  static final boolean CANCEL_PARKED_POLL = false;
  /**
   * A poll that got no answer for this long is parked (the gateway answers at once when jobs are
   * waiting). Until then the stream reader does not reserve a slot the poll asked for, so a
   * backfill poll that finds jobs never makes a pushed job overflow, and a parked poll never
   * stops the stream.
   */
  static final long PARKED_AFTER_MS = 100;
  static final long DEADLINE_OFFSET_MS = 10_000;
  static final long DEFAULT_LONG_POLL_MS = 10_000;
  static final long EXPIRY_MARGIN_MS = 100;
  static final long CLOSE_GRACE_MS = 1_000;
  static final long STALL_MS = 2_000;
  static final long STALL_PARKED_MIN_MS = 500;
  static final long STALL_RECYCLE_GAP_MS = 10_000;
  static final long FAIRNESS_MS = 1_000;
  static final long DRAIN_QUIET_MS = 50;
  static final long DRAIN_MAX_MS = 500;
  static final long SHORT_LIVED_MS = 1_000;
  static final int MAX_MESSAGE = 2_000;
  public static final String MSG_CLOSING = "jobwire: worker closing; job returned";
  public static final String MSG_AT_CAPACITY = "jobwire: worker at capacity; job returned";
  public static final String MSG_RECYCLED = "jobwire: stream recycled; job returned";

  enum OutcomeKind { COMPLETE, FAIL, ERROR }

  enum SendResult { OK, NOT_FOUND, GAVE_UP }

  record Sent(SendResult result, JobwireException error) {}

  private final Transport transport;
  private final Transport.Lease lease;
  final WorkerOptions o;
  private final Consumer<WorkerImpl> onClosed;
  private final ScheduledExecutorService ctl;
  /** Posts to the control thread; silently drops events that arrive after the worker closed. */
  private final Executor post;
  private final ExecutorService handlers;
  private final Telemetry tel;
  private final StateMachine machine;

  // ---- the ledger (control thread; `held` volatile for readers elsewhere) ----
  private volatile int held;
  private int reserved;

  private boolean stopping;
  private boolean closing;
  private CompletableFuture<Void> closeFuture;

  // ---- poller ----
  private ClientCall<ActivateJobsRequest, ActivateJobsResponse> pollCall;
  private boolean pollInFlight;
  private boolean pollWaiting;
  private boolean backfillDue = true;
  private boolean moreDue;
  private long lastPollEnd;
  private int pollGot;
  private int pollWant;
  private long pollRtMs;
  private long pollStarted;
  private boolean pollIsBackfill;
  private boolean pollCancelled;
  private boolean pollWasBelow;
  /** The poll in flight has waited PARKED_AFTER_MS without an answer: the stream may take from its ask. */
  private boolean pollParked;
  private long pollFirstJobAt;
  private ScheduledFuture<?> cancelTimer;
  private ScheduledFuture<?> fairnessTimer;
  private boolean pollAuthRetried;
  private final Backoff pollBackoff = new Backoff();

  // ---- streamer ----
  private StreamCtx current;
  private final Backoff streamBackoff = new Backoff();
  private boolean streamAuthRetried;
  private long lastStallRecycle = -STALL_RECYCLE_GAP_MS;
  private boolean streamActive;

  // ---- executor ----
  private final Map<Long, Held> heldJobs = new HashMap<>();
  private final ArrayDeque<Held> queue = new ArrayDeque<>();
  private int running;
  private final List<CompletableFuture<Void>> idleWaiters = new ArrayList<>();
  private final Set<CompletableFuture<?>> pendingSends = new HashSet<>();

  /** One held job. */
  static final class Held {
    final ActivatedJob raw;
    final String activation;
    JobImpl job;
    boolean running;
    boolean handlerDone;
    boolean abandoned;
    boolean finished;
    boolean outcomeSent;
    String outcome; // set when the outcome settled (acknowledged, not found, given up)
    Throwable failure;
    Held redelivery;
    Span span;
    long t0;
    volatile Thread thread;
    ScheduledFuture<?> extendTimer;
    Backoff extendBackoff; // auto-extend retries; created on the first failure
    ScheduledFuture<?> unsettledTimer;

    Held(ActivatedJob raw, String activation) {
      this.raw = raw;
      this.activation = activation;
    }
  }

  /** One StreamActivatedJobs call. */
  private static final class StreamCtx {
    ClientCall<StreamActivatedJobsRequest, ActivatedJob> call;
    ClientCallStreamObserver<StreamActivatedJobsRequest> obs;
    long openedAt;
    boolean hasReservation;
    long reservedSince;
    long lastDelivery;
    boolean draining;
    boolean drainFinished;
    boolean ended;
    long drainStart;
    long drainMaxMs;
    long lastRead;
    String drainMsg;
    final List<ActivatedJob> aside = new ArrayList<>();
    ScheduledFuture<?> recycleTimer;
    final CompletableFuture<Void> drained = new CompletableFuture<>();
    /** The lease channel the call runs on (ReleaseUnread goes there too). */
    int channel;
    /** Jobs this worker took from the stream, counted on the control thread (each is run or handed back). */
    long nread;
    /** The gateway's jobwire-stream-id response header (absent on Zeebe); set on a transport thread. */
    volatile String streamId;
    /**
     * Whether the gateway hands back what this worker did not read (control thread): RELEASE_PENDING
     * until ReleaseUnread answered, RELEASED when it did, NOT_RELEASED when there is no release (no
     * stream id: Zeebe, or UNIMPLEMENTED). A job delivered after the drain finished is dropped when
     * RELEASED (the gateway hands it back), handed back by the worker when NOT_RELEASED, and held
     * until the answer while RELEASE_PENDING.
     */
    int release = RELEASE_PENDING;
    final List<ActivatedJob> late = new ArrayList<>();
  }

  static final int RELEASE_PENDING = 0;
  static final int RELEASED = 1;
  static final int NOT_RELEASED = 2;

  /** Response header by which a jobwire gateway names a job stream for ReleaseUnread. */
  static final Metadata.Key<String> STREAM_ID_HEADER = Metadata.Key.of("jobwire-stream-id", Metadata.ASCII_STRING_MARSHALLER);
  /** Bound on one ReleaseUnread call (as in every SDK). */
  static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(2);

  /** Wraps a stream's call to note its jobwire-stream-id response header. */
  private static <Q, R> ClientCall<Q, R> notingStreamId(ClientCall<Q, R> call, StreamCtx s) {
    return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(call) {
      @Override
      public void start(Listener<R> listener, Metadata headers) {
        super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<R>(listener) {
          @Override
          public void onHeaders(Metadata md) {
            s.streamId = md.get(STREAM_ID_HEADER);
            super.onHeaders(md);
          }
        }, headers);
      }
    };
  }

  public WorkerImpl(Transport transport, WorkerOptions o, Consumer<WorkerImpl> onClosed) {
    this.transport = transport;
    this.o = o;
    this.onClosed = onClosed;
    this.lease = transport.leaseLong();
    String tname = "jobwire-worker-" + o.jobType();
    ScheduledThreadPoolExecutor exec = new ScheduledThreadPoolExecutor(1, daemon(tname, false));
    exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    exec.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    exec.setRemoveOnCancelPolicy(true);
    this.ctl = exec;
    this.post = r -> {
      try {
        ctl.execute(r);
      } catch (RejectedExecutionException closed) {
        // the worker is closed: nothing is waiting for this event any more
      }
    };
    this.handlers = handlerExecutor(o.concurrency(), "jobwire-handler-" + o.jobType());
    this.tel = new Telemetry(o.jobType(), o.workerName(), () -> held);
    this.machine = new StateMachine(s -> {
      LOG.debug("worker {}: {}", o.jobType(), s.wireName());
      Consumer<WorkerState> l = o.stateListener();
      if (l != null) {
        try {
          l.accept(s);
        } catch (RuntimeException e) {
          LOG.error("a state listener threw", e);
        }
      }
    });
  }

  private static ThreadFactory daemon(String name, boolean numbered) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, numbered ? name + "-" + n.incrementAndGet() : name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Virtual threads when the runtime has them (21+), else a fixed pool of {@code concurrency} threads. */
  static ExecutorService handlerExecutor(int concurrency, String name) {
    try {
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
      builder = ofVirtual.getMethod("name", String.class, long.class).invoke(builder, name + "-", 1L);
      ThreadFactory f = (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
      return (ExecutorService) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class).invoke(null, f);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Executors.newFixedThreadPool(concurrency, daemon(name, true));
    }
  }

  /** Starts the loops (stream first, then the backfill poll). */
  public void start() {
    post.execute(() -> {
      if (stopping) return;
      if (o.streamEnabled()) {
        streamActive = true;
        machine.streamActive = true;
        openStream(); // the stream first (no state report while idle), then the backfill poll
      }
      machine.start();
      onLedgerChange();
    });
  }

  // =====================================================================================
  // public API
  // =====================================================================================

  @Override
  public WorkerState getState() {
    return machine.state();
  }

  @Override
  public int getHeldJobs() {
    return held;
  }

  @Override
  public String getJobType() {
    return o.jobType();
  }

  @Override
  public synchronized CompletableFuture<Void> closeAsync(Duration timeout) {
    if (closeFuture == null) {
      long t = timeout == null ? 30_000 : Math.max(0, timeout.toMillis());
      CompletableFuture<Void> f = new CompletableFuture<>();
      closeFuture = f;
      Thread th = new Thread(() -> {
        try {
          doClose(t);
          f.complete(null);
        } catch (Throwable e) {
          f.completeExceptionally(e);
        }
      }, "jobwire-close-" + o.jobType());
      th.setDaemon(true);
      th.start();
    }
    return closeFuture;
  }

  @Override
  public void close(Duration timeout) {
    try {
      closeAsync(timeout).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      throw JobwireException.from(e.getCause(), "close");
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(30));
  }

  // =====================================================================================
  // ledger
  // =====================================================================================

  private int free() {
    return o.maxJobsActive() - held - reserved;
  }

  private boolean above() {
    return held > o.maxJobsActive() * THRESHOLD;
  }

  private void takeSlot() {
    if (held + reserved >= o.maxJobsActive()) {
      throw new IllegalStateException("jobwire: ledger overflow");
    }
    held++;
    tel.capacityUsed(held);
  }

  private void releaseSlot() {
    if (held <= 0) throw new IllegalStateException("jobwire: ledger underflow (a slot was released twice)");
    held--;
    tel.capacityUsed(held);
    onLedgerChange();
  }

  /** Re-evaluates the poller and the stream reader after every change. */
  private void onLedgerChange() {
    if (stopping) return;
    checkCancelParkedPoll();
    maybePoll();
    maybeReserve();
  }

  // =====================================================================================
  // poller
  // =====================================================================================

  private boolean fairnessDue() {
    return streamActive && current != null && above() && System.currentTimeMillis() - lastPollEnd >= FAIRNESS_MS;
  }

  private boolean pollDue() {
    if (stopping || pollInFlight || pollWaiting) return false;
    return !above() || backfillDue || moreDue || fairnessDue();
  }

  private void maybePoll() {
    if (!pollDue() || free() <= 0) return;
    startPoll();
  }

  private void startPoll() {
    boolean below = !above();
    boolean backfill = backfillDue;
    boolean fairness = !below && !backfill;
    backfillDue = false;
    moreDue = false;
    // fairness and backfill polls (with a stream) do not park: they hold the stream reader back
    // only for the moment it takes to collect what waits
    long rt = fairness || (backfill && streamActive) ? -1 : o.requestTimeout().toMillis();
    long deadline = rt > 0 ? rt + DEADLINE_OFFSET_MS : rt == 0 ? DEFAULT_LONG_POLL_MS + DEADLINE_OFFSET_MS : DEADLINE_OFFSET_MS;
    int want = free();
    ActivateJobsRequest req = ActivateJobsRequest.newBuilder()
        .setType(o.jobType())
        .setWorker(o.workerName())
        .setTimeout(o.jobTimeout().toMillis())
        .setMaxJobsToActivate(want)
        .addAllFetchVariable(o.fetchVariables())
        .setRequestTimeout(rt)
        .addAllTenantIds(o.tenantIds())
        .build();
    ClientCall<ActivateJobsRequest, ActivateJobsResponse> call = lease.newCall(GatewayGrpc.getActivateJobsMethod(), Duration.ofMillis(deadline));
    pollCall = call;
    pollInFlight = true;
    pollGot = 0;
    pollWant = want;
    pollRtMs = rt;
    pollStarted = System.currentTimeMillis();
    pollIsBackfill = backfill;
    pollCancelled = false;
    pollWasBelow = below;
    pollParked = false;
    pollFirstJobAt = 0;
    if (rt >= 0) ctl.schedule(() -> {
      if (pollCall == call && pollGot == 0) {
        pollParked = true;
        onLedgerChange();
      }
    }, PARKED_AFTER_MS, TimeUnit.MILLISECONDS);
    ClientCalls.asyncServerStreamingCall(call, req, new StreamObserver<>() {
      @Override
      public void onNext(ActivateJobsResponse res) {
        post.execute(() -> {
          for (ActivatedJob j : res.getJobsList()) {
            if (pollCall == call) {
              if (pollGot == 0) pollFirstJobAt = System.currentTimeMillis();
              pollGot++;
            }
            receivePolled(j);
          }
        });
      }

      @Override
      public void onError(Throwable t) {
        post.execute(() -> pollEnded(call, t));
      }

      @Override
      public void onCompleted() {
        post.execute(() -> pollEnded(call, null));
      }
    });
  }

  private void receivePolled(ActivatedJob j) {
    if (free() > 0) {
      takeSlot();
      submit(j, "poll", false);
    } else {
      // the stream filled the capacity while this poll was parked: give the job back at once
      giveBack(j, "poll");
    }
  }

  private void pollEnded(ClientCall<?, ?> call, Throwable err) {
    if (pollCall != call) return;
    pollCall = null;
    pollInFlight = false;
    pollParked = false;
    if (cancelTimer != null) {
      cancelTimer.cancel(false);
      cancelTimer = null;
    }
    lastPollEnd = System.currentTimeMillis();
    if (stopping) return;
    if (pollCancelled && pollGot == 0) {
      LOG.debug("parked poll cancelled: the stream filled the worker past the poll threshold");
      tel.pollRequest("cancelled");
      onLedgerChange();
      return;
    }
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
    tlsWarned = false;
    tel.pollRequest(pollGot > 0 ? "jobs" : "empty");
    // the stall watchdog: jobs became activatable while this long poll was parked (not a backlog
    // answered at once): did the stream deliver?
    if (pollGot > 0 && !pollIsBackfill && pollRtMs >= 0 && pollFirstJobAt - pollStarted >= STALL_PARKED_MIN_MS) checkStall();
    if (pollWant > 0 && pollGot >= pollWant) moreDue = true;
    long elapsed = lastPollEnd - pollStarted;
    boolean longPolled = pollRtMs >= 0 && elapsed >= (pollRtMs == 0 ? DEFAULT_LONG_POLL_MS : pollRtMs) / 2;
    scheduleFairness();
    if (pollGot == 0 && !longPolled && o.pollInterval().toMillis() > 0) {
      pollWaiting = true;
      ctl.schedule(() -> {
        pollWaiting = false;
        onLedgerChange();
      }, o.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
    }
    onLedgerChange();
  }

  private void scheduleFairness() {
    if (fairnessTimer != null) fairnessTimer.cancel(false);
    if (!streamActive) return;
    fairnessTimer = ctl.schedule(this::onLedgerChange, FAIRNESS_MS + 5, TimeUnit.MILLISECONDS);
  }

  private void onPollError(JobwireException je) {
    tel.pollRequest("error");
    Status.Code c = je.code();
    if (c == Status.Code.UNAUTHENTICATED && transport.hasAuth() && !pollAuthRetried) {
      // the token was refused (expired early, rotated): fetch a new one and retry once at once
      pollAuthRetried = true;
      transport.invalidateToken();
      onLedgerChange();
      return;
    }
    warnIfTls(je);
    long delay;
    if (c == Status.Code.INVALID_ARGUMENT || c == Status.Code.PERMISSION_DENIED || c == Status.Code.UNAUTHENTICATED) {
      reportError(je);
      delay = pollBackoff.max();
    } else {
      delay = pollBackoff.next();
      LOG.debug("poll failed ({}); backing off {} ms", je.getMessage(), delay);
    }
    machine.pollBackoff = true;
    machine.update();
    pollWaiting = true;
    ctl.schedule(() -> {
      pollWaiting = false;
      machine.pollBackoff = false;
      machine.update();
      onLedgerChange();
    }, delay, TimeUnit.MILLISECONDS);
  }

  /**
   * While a poll is parked (no job yet), a rise of held from at most the threshold to above it
   * that lasts CANCEL_DELAY_MS cancels the poll (the gateway fails back what it activated for it).
   */
  private void checkCancelParkedPoll() {
    if (!CANCEL_PARKED_POLL) return;
    if (!pollInFlight || pollGot > 0 || pollCancelled) return;
    if (!above()) {
      pollWasBelow = true;
      if (cancelTimer != null) {
        cancelTimer.cancel(false);
        cancelTimer = null;
      }
      return;
    }
    if (pollWasBelow && cancelTimer == null) {
      ClientCall<?, ?> call = pollCall;
      cancelTimer = ctl.schedule(() -> {
        cancelTimer = null;
        if (pollCall == call && pollInFlight && above() && pollGot == 0 && !pollCancelled) {
          pollCancelled = true;
          call.cancel("jobwire: worker filled by the stream", null);
        }
      }, CANCEL_DELAY_MS, TimeUnit.MILLISECONDS);
    }
  }

  // =====================================================================================
  // streamer
  // =====================================================================================

  private void openStream() {
    if (stopping || !streamActive) return;
    StreamCtx s = new StreamCtx();
    s.openedAt = System.currentTimeMillis();
    StreamActivatedJobsRequest req = StreamActivatedJobsRequest.newBuilder()
        .setType(o.jobType())
        .setWorker(o.workerName())
        .setTimeout(o.jobTimeout().toMillis())
        .addAllFetchVariable(o.fetchVariables())
        .addAllTenantIds(o.tenantIds())
        .build();
    // the deadline only guards against a lost recycle timer; recycling happens at streamTimeout
    s.channel = lease.pickChannel();
    s.call = notingStreamId(lease.newCall(GatewayGrpc.getStreamActivatedJobsMethod(), o.streamTimeout().plusMinutes(1), s.channel), s);
    current = s;
    ClientCalls.asyncServerStreamingCall(s.call, req, new ClientResponseObserver<StreamActivatedJobsRequest, ActivatedJob>() {
      @Override
      public void beforeStart(ClientCallStreamObserver<StreamActivatedJobsRequest> r) {
        r.disableAutoRequestWithInitial(0);
        s.obs = r;
      }

      @Override
      public void onNext(ActivatedJob job) {
        post.execute(() -> streamJob(s, job));
      }

      @Override
      public void onError(Throwable t) {
        post.execute(() -> streamEnded(s, t));
      }

      @Override
      public void onCompleted() {
        post.execute(() -> streamEnded(s, null));
      }
    });
    machine.streamOpen = true;
    machine.streamBackoff = false;
    machine.update();
    s.recycleTimer = ctl.schedule(() -> recycle(s, "recycled"), o.streamTimeout().toMillis(), TimeUnit.MILLISECONDS);
    // jobs created before (or while we were away) are not pushed: collect them with a poll
    backfillDue = true;
    onLedgerChange();
  }

  /** Reserves a slot and asks the transport for one more job, when no poll is due and a slot is free. */
  private void maybeReserve() {
    StreamCtx s = current;
    if (s == null || s.draining || s.ended || s.hasReservation || stopping || s.obs == null) return;
    if (pollDue() || free() <= 0) return;
    // the slots an unparked poll asked for are its own until it answers
    if (pollInFlight && !pollParked && free() - Math.max(0, pollWant - pollGot) <= 0) return;
    reserved++;
    s.hasReservation = true;
    s.reservedSince = System.currentTimeMillis();
    s.obs.request(1);
  }

  private void streamJob(StreamCtx s, ActivatedJob job) {
    // after the drain finished (and ReleaseUnread was sent with the count): never run; the gateway
    // hands it back when it released the stream, else this worker does
    if (s.drainFinished) {
      if (s.release == NOT_RELEASED) handBackLate(s, List.of(job));
      else if (s.release == RELEASE_PENDING) s.late.add(job);
      return;
    }
    s.nread++;
    s.lastRead = System.currentTimeMillis();
    if (s.draining) {
      tel.jobActivated("push");
      s.aside.add(job);
      return;
    }
    streamBackoff.reset();
    streamAuthRetried = false;
    if (s.hasReservation) {
      s.hasReservation = false;
      reserved--;
      s.lastDelivery = s.lastRead;
      takeSlot();
      submit(job, "push", false);
    } else {
      giveBack(job, "push");
    }
    onLedgerChange();
  }

  private void streamEnded(StreamCtx s, Throwable t) {
    if (s.ended) return;
    s.ended = true;
    if (s.recycleTimer != null) s.recycleTimer.cancel(false);
    if (s.hasReservation) {
      s.hasReservation = false;
      reserved--;
    }
    if (s.draining) {
      finishDrain(s);
      return;
    }
    if (current != s) return;
    current = null;
    machine.streamOpen = false;
    if (stopping) return;
    JobwireException je = t == null ? null : JobwireException.from(t, "StreamActivatedJobs");
    if (je != null && je.code() == Status.Code.UNIMPLEMENTED) {
      LOG.warn("the gateway does not implement StreamActivatedJobs; worker {} polls only", o.jobType());
      streamActive = false;
      machine.streamActive = false;
      machine.update();
      onLedgerChange();
      return;
    }
    tel.streamReconnect(t == null ? "closed" : "error");
    boolean shortLived = System.currentTimeMillis() - s.openedAt < SHORT_LIVED_MS;
    if (t == null) {
      if (!shortLived) {
        LOG.debug("job stream ended by the gateway; reopening");
        streamBackoff.reset();
        openStream();
      } else {
        long delay = streamBackoff.next();
        LOG.debug("job stream ended by the gateway right after opening; reopening in {} ms", delay);
        machine.streamOpen = true; // an expected close: the state stays streaming
        ctl.schedule(this::reopenIfIdle, delay, TimeUnit.MILLISECONDS);
        onLedgerChange();
      }
      return;
    }
    Status.Code c = je.code();
    if (c == Status.Code.UNAUTHENTICATED && transport.hasAuth() && !streamAuthRetried) {
      streamAuthRetried = true;
      transport.invalidateToken();
      openStream();
      return;
    }
    warnIfTls(je);
    long delay;
    if (c == Status.Code.UNAUTHENTICATED || c == Status.Code.PERMISSION_DENIED || c == Status.Code.INVALID_ARGUMENT) {
      reportError(je);
      delay = streamBackoff.max();
    } else {
      delay = streamBackoff.next();
    }
    LOG.debug("job stream closed ({}); reopening in {} ms", je.getMessage(), delay);
    machine.streamBackoff = true;
    machine.update();
    ctl.schedule(this::reopenIfIdle, delay, TimeUnit.MILLISECONDS);
    onLedgerChange();
  }

  private void reopenIfIdle() {
    if (stopping || current != null) return;
    machine.streamBackoff = false;
    openStream();
  }

  /** Replaces a stream: the new one opens first, then the old one is drained. */
  private void recycle(StreamCtx s, String reason) {
    if (current != s || stopping || s.ended) return;
    tel.streamReconnect(reason);
    if ("stalled".equals(reason)) {
      LOG.info("job stream of {} stalled (a poll found jobs the stream did not deliver); recycling it", o.jobType());
    } else {
      LOG.debug("recycling the job stream of {} ({})", o.jobType(), reason);
    }
    current = null;
    openStream();
    startDrain(s, MSG_RECYCLED, DRAIN_MAX_MS);
  }

  /** A poll (not a backfill) returned jobs: a stream that held a slot and delivered nothing for 2 s is stalled. */
  private void checkStall() {
    StreamCtx s = current;
    long now = System.currentTimeMillis();
    if (s == null || !s.hasReservation || s.draining) return;
    if (now - s.reservedSince < STALL_MS || now - Math.max(s.lastDelivery, s.openedAt) < STALL_MS) return;
    if (now - lastStallRecycle < STALL_RECYCLE_GAP_MS) return;
    lastStallRecycle = now;
    recycle(s, "stalled");
  }

  /**
   * Drains a stream instead of dropping it: keeps reading and sets every job aside; when quiet for
   * 50 ms (or after maxMs) cancels it and then fails back every job set aside.
   */
  private void startDrain(StreamCtx s, String msg, long maxMs) {
    s.draining = true;
    s.drainMsg = msg;
    s.drainStart = System.currentTimeMillis();
    s.drainMaxMs = maxMs;
    s.lastRead = s.drainStart;
    if (s.recycleTimer != null) s.recycleTimer.cancel(false);
    if (s.hasReservation) {
      s.hasReservation = false;
      reserved--;
      onLedgerChange();
    }
    if (s.ended) {
      finishDrain(s);
      return;
    }
    if (s.obs != null) s.obs.request(Integer.MAX_VALUE / 2);
    drainTick(s);
  }

  private void drainTick(StreamCtx s) {
    if (s.drainFinished) return;
    long now = System.currentTimeMillis();
    if (s.ended || now - s.lastRead >= DRAIN_QUIET_MS || now - s.drainStart >= s.drainMaxMs) {
      if (!s.ended) s.call.cancel("jobwire: stream drained", null);
      finishDrain(s);
      return;
    }
    ctl.schedule(() -> drainTick(s), 10, TimeUnit.MILLISECONDS);
  }

  private void finishDrain(StreamCtx s) {
    if (s.drainFinished) return;
    s.drainFinished = true;
    List<CompletableFuture<Sent>> sends = new ArrayList<>();
    for (ActivatedJob j : s.aside) {
      CompletableFuture<Sent> f = sendFail(j.getKey(), j.getRetries(), s.drainMsg, 0, "", Math.min(j.getDeadline(), System.currentTimeMillis() + 5_000), true);
      track(f.thenAcceptAsync(r -> tel.jobHandled(r.result() == SendResult.NOT_FOUND ? "not_found" : r.result() == SendResult.OK ? "returned" : "undelivered", null), post));
      sends.add(f);
    }
    if (!s.aside.isEmpty()) LOG.debug("handed back {} job(s) read from a drained stream", s.aside.size());
    s.aside.clear();
    List<CompletableFuture<?>> all = new ArrayList<>(sends);
    all.add(releaseUnread(s));
    CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).whenComplete((v, e) -> s.drained.complete(null));
  }

  /**
   * Asks a jobwire gateway to hand back what the (cancelled) stream sent and this worker never read:
   * jobs still in transport when the drain ended (docs/worker-semantics.md, push and poll rule 7).
   * Runs on the control thread after drainFinished is set, so the count is final: a job delivered later
   * is dropped, never run. A gateway without the stream id header (Zeebe) is not asked; an error is
   * logged at debug level (those jobs return after their activation timeout).
   */
  /** Hands back jobs a drained stream delivered after its drain finished, when no release covers them. */
  private void handBackLate(StreamCtx s, List<ActivatedJob> jobs) {
    for (ActivatedJob j : jobs) {
      tel.jobActivated("push");
      CompletableFuture<Sent> f = sendFail(j.getKey(), j.getRetries(), s.drainMsg, 0, "", Math.min(j.getDeadline(), System.currentTimeMillis() + 5_000), true);
      track(f.thenAcceptAsync(r -> tel.jobHandled(r.result() == SendResult.NOT_FOUND ? "not_found" : r.result() == SendResult.OK ? "returned" : "undelivered", null), post));
    }
    if (!jobs.isEmpty()) LOG.debug("handed back {} job(s) a drained stream delivered after its drain (no release)", jobs.size());
  }

  /** Control thread: the release answered (or there is none); settles the jobs that arrived late. */
  private void releaseSettled(StreamCtx s, boolean released) {
    s.release = released ? RELEASED : NOT_RELEASED;
    if (!released) handBackLate(s, s.late);
    s.late.clear();
  }

  private CompletableFuture<Void> releaseUnread(StreamCtx s) {
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
        lease.newCall(StreamControlServiceGrpc.getReleaseUnreadMethod(), RELEASE_TIMEOUT, s.channel);
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
        boolean unimplemented = io.grpc.Status.fromThrowable(t).getCode() == Status.Code.UNIMPLEMENTED;
        post.execute(() -> releaseSettled(s, !unimplemented));
        done.complete(null); // after the post: close's next look at the sends queues behind it
      }

      @Override
      public void onCompleted() {
        post.execute(() -> releaseSettled(s, true));
        done.complete(null);
      }
    });
    return done;
  }

  // =====================================================================================
  // executor
  // =====================================================================================

  /** A received job whose slot is taken. */
  private void submit(ActivatedJob raw, String activation, boolean counted) {
    if (!counted) tel.jobActivated(activation);
    Held prev = heldJobs.get(raw.getKey());
    if (prev != null) {
      if (!prev.outcomeSent) {
        // redelivered while queued/running: do not run it twice; the newer deadline counts
        LOG.debug("job {} delivered again while its handler runs; keeping the running attempt", raw.getKey());
        prev.job.deadline = Math.max(prev.job.deadline, raw.getDeadline());
        tel.jobHandled("duplicate", null);
        releaseSlot();
      } else {
        // the outcome is in flight and the engine activated the job again: run it after the acknowledgement
        LOG.debug("job {} delivered again while its outcome is in flight; it runs after the acknowledgement", raw.getKey());
        if (prev.redelivery != null) {
          tel.jobHandled("duplicate", null);
          releaseSlot();
        }
        prev.redelivery = new Held(raw, activation);
      }
      return;
    }
    Held h = new Held(raw, activation);
    h.job = new JobImpl(raw, activation, this, h);
    heldJobs.put(raw.getKey(), h);
    if (closing) {
      failBack(h, MSG_CLOSING);
      return;
    }
    queue.add(h);
    pump();
  }

  private void pump() {
    while (!closing && running < o.concurrency() && !queue.isEmpty()) {
      Held h = queue.poll();
      if (h.job.deadline - System.currentTimeMillis() < EXPIRY_MARGIN_MS) {
        LOG.debug("job {} expired before its handler could start; dropped", h.raw.getKey());
        tel.jobHandled("expired", null);
        h.outcome = "expired";
        finish(h);
        continue;
      }
      running++;
      h.running = true;
      startHandler(h);
    }
    checkIdle();
  }

  private void startHandler(Held h) {
    h.t0 = System.nanoTime();
    h.span = tel.startJobSpan(h.job, h.activation, h.job.traceparent());
    if (o.autoExtend()) scheduleExtend(h);
    Context spanCtx = Context.current().with(h.span);
    handlers.execute(() -> {
      h.thread = Thread.currentThread();
      Object result = null;
      Throwable err = null;
      try (Scope ignored = spanCtx.makeCurrent()) {
        result = o.handler().handle(h.job);
      } catch (Throwable t) {
        err = t;
      } finally {
        h.thread = null;
        Thread.interrupted(); // never leak an interrupt to the next handler on this thread
      }
      Object r = result;
      Throwable e = err;
      try {
        post.execute(() -> handlerDone(h, r, e));
      } catch (RuntimeException rejected) {
        // the worker is gone (closed without waiting for this abandoned handler)
      }
    });
  }

  private void handlerDone(Held h, Object result, Throwable err) {
    if (h.running) { // an abandoned handler was already taken off the running count by close
      running--;
      h.running = false;
    }
    h.handlerDone = true;
    stopExtend(h);
    try {
      if (h.abandoned) {
        // handed back by close(): whatever the handler returns later is not sent
        Telemetry.endJobSpan(h.span, "cancelled", err);
        h.span = null;
        return;
      }
      if (err == null) {
        if (result instanceof JobError) {
          autoOutcome(h, OutcomeKind.ERROR, (JobError) result);
        } else if (o.autoComplete() && !h.outcomeSent) {
          String vars;
          try {
            vars = Json.variablesToJson(result, "handler result of job " + h.raw.getKey());
          } catch (InvalidVariablesException e) {
            reportError(e);
            h.failure = e;
            sendOutcome(h, OutcomeKind.FAIL, "", e.getMessage(), Math.max(0, h.raw.getRetries() - 1), o.retryBackOff().toMillis(), null, null);
            return;
          }
          sendOutcome(h, OutcomeKind.COMPLETE, vars, null, 0, 0, null, null);
        } else if (!h.outcomeSent) {
          // manual mode: the slot stays held until an outcome is acknowledged or the deadline passes
          long wait = Math.max(0, h.job.deadline - System.currentTimeMillis());
          h.unsettledTimer = ctl.schedule(() -> {
            if (!h.outcomeSent && !h.finished) {
              LOG.warn("job {}: no outcome before its deadline (manual mode); releasing its slot", h.raw.getKey());
              h.outcome = "unsettled";
              settle(h);
            }
          }, wait, TimeUnit.MILLISECONDS);
        } else {
          maybeSettle(h);
        }
      } else {
        h.failure = err;
        Throwable cause = err;
        if (cause instanceof JobError) {
          autoOutcome(h, OutcomeKind.ERROR, (JobError) cause);
        } else if (h.job.cancelled && closing && !h.outcomeSent) {
          failBackInRun(h);
        } else if (h.outcomeSent) {
          maybeSettle(h);
        } else {
          sendOutcome(h, OutcomeKind.FAIL, "", errorMessage(err), Math.max(0, h.raw.getRetries() - 1), o.retryBackOff().toMillis(), null, null);
        }
      }
    } finally {
      pump();
    }
  }

  private void autoOutcome(Held h, OutcomeKind kind, JobError e) {
    if (h.outcomeSent) {
      maybeSettle(h);
      return;
    }
    String vars;
    try {
      vars = Json.variablesToJson(e.variables(), "error variables of job " + h.raw.getKey());
    } catch (InvalidVariablesException x) {
      reportError(x);
      h.failure = x;
      sendOutcome(h, OutcomeKind.FAIL, "", x.getMessage(), Math.max(0, h.raw.getRetries() - 1), o.retryBackOff().toMillis(), null, null);
      return;
    }
    sendOutcome(h, kind, vars, e.getMessage(), 0, 0, e.code(), null);
  }

  /**
   * Sends an outcome for a held job; when acknowledged (or not found / given up) records it and
   * settles the job once its handler returned.
   */
  private void sendOutcome(Held h, OutcomeKind kind, String vars, String message, int retries, long backoffMs, String code, CompletableFuture<Void> caller) {
    h.outcomeSent = true;
    if (h.unsettledTimer != null) h.unsettledTimer.cancel(false);
    long key = h.raw.getKey();
    CompletableFuture<Sent> f;
    String name;
    switch (kind) {
      case COMPLETE:
        name = "completed";
        f = send(GatewayGrpc.getCompleteJobMethod(), CompleteJobRequest.newBuilder().setJobKey(key).setVariables(vars).build(), key, h.job.deadline, false);
        break;
      case FAIL:
        name = "failed";
        f = sendFail(key, retries, message == null ? "job failed" : message, backoffMs, vars, h.job.deadline, false);
        break;
      default:
        name = "error";
        f = send(GatewayGrpc.getThrowErrorMethod(), ThrowErrorRequest.newBuilder().setJobKey(key).setErrorCode(code)
            .setErrorMessage(cut(message == null ? "" : message)).setVariables(vars).build(), key, h.job.deadline, false);
    }
    track(f.thenAcceptAsync(r -> {
      switch (r.result()) {
        case OK:
          h.outcome = name;
          if (caller != null) caller.complete(null);
          break;
        case NOT_FOUND:
          h.outcome = "not_found";
          if (caller != null) caller.completeExceptionally(r.error());
          break;
        default:
          h.outcome = "undelivered";
          if (h.failure == null) h.failure = r.error();
          LOG.warn("job {}: outcome {} was not delivered: {}", key, name, r.error().getMessage());
          if (caller != null) caller.completeExceptionally(r.error());
      }
      maybeSettle(h);
    }, post));
  }

  private void maybeSettle(Held h) {
    if (h.handlerDone && h.outcome != null && !h.finished) settle(h);
  }

  /** Records the outcome (metric, span) and releases the slot. */
  private void settle(Held h) {
    Double durationS = h.t0 == 0 ? null : (System.nanoTime() - h.t0) / 1e9;
    tel.jobHandled(h.outcome, durationS);
    if (h.span != null) {
      Telemetry.endJobSpan(h.span, h.outcome, h.failure);
      h.span = null;
    }
    finish(h);
  }

  /** Releases a held job's slot, exactly once; a redelivery waiting for this job runs next. */
  private void finish(Held h) {
    if (h.finished) return;
    h.finished = true;
    if (heldJobs.get(h.raw.getKey()) == h) heldJobs.remove(h.raw.getKey());
    Held next = h.redelivery;
    h.redelivery = null;
    releaseSlotQuiet();
    if (next != null) {
      held++; // the redelivery's slot was counted when it arrived; re-taken for its own run
      tel.capacityUsed(held);
      submit(next.raw, next.activation, true);
    }
    onLedgerChange();
    pump();
  }

  private void releaseSlotQuiet() {
    if (held <= 0) throw new IllegalStateException("jobwire: ledger underflow (a slot was released twice)");
    held--;
    tel.capacityUsed(held);
  }

  private void checkIdle() {
    if (running == 0 && !idleWaiters.isEmpty()) {
      for (CompletableFuture<Void> w : idleWaiters) w.complete(null);
      idleWaiters.clear();
    }
  }

  /** Fails a queued/held job back at once (retries unchanged, no backoff) over the long-call connection. */
  private void failBack(Held h, String msg) {
    h.outcomeSent = true;
    h.handlerDone = true;
    CompletableFuture<Sent> f = sendFail(h.raw.getKey(), h.raw.getRetries(), msg, 0, "", Math.min(h.job.deadline, System.currentTimeMillis() + 5_000), true);
    track(f.thenAcceptAsync(r -> {
      h.outcome = r.result() == SendResult.NOT_FOUND ? "not_found" : r.result() == SendResult.OK ? "returned" : "undelivered";
      h.t0 = 0;
      settle(h);
    }, post));
  }

  /** A cancelled handler's job: failed back with retries unchanged, no backoff. */
  private void failBackInRun(Held h) {
    h.outcomeSent = true;
    CompletableFuture<Sent> f = sendFail(h.raw.getKey(), h.raw.getRetries(), MSG_CLOSING, 0, "", Math.min(h.job.deadline, System.currentTimeMillis() + 5_000), true);
    track(f.thenAcceptAsync(r -> {
      h.outcome = r.result() == SendResult.NOT_FOUND ? "not_found" : r.result() == SendResult.OK ? "returned" : "undelivered";
      maybeSettle(h);
    }, post));
  }

  /** A received job that found no free slot: failed back at once, counted `returned`; never run. */
  private void giveBack(ActivatedJob raw, String activation) {
    tel.jobActivated(activation);
    LOG.debug("job {}: no free slot ({}); returning it to the engine", raw.getKey(), activation);
    track(sendFail(raw.getKey(), raw.getRetries(), MSG_AT_CAPACITY, 0, "", Math.min(raw.getDeadline(), System.currentTimeMillis() + 10_000), false)
        .thenAcceptAsync(r -> tel.jobHandled(r.result() == SendResult.NOT_FOUND ? "not_found" : r.result() == SendResult.OK ? "returned" : "undelivered", null), post));
  }

  private CompletableFuture<Sent> sendFail(long key, int retries, String message, long backoffMs, String vars, long deadline, boolean viaLong) {
    FailJobRequest req = FailJobRequest.newBuilder().setJobKey(key).setRetries(retries).setErrorMessage(cut(message))
        .setRetryBackOff(backoffMs).setVariables(vars == null ? "" : vars).build();
    return send(GatewayGrpc.getFailJobMethod(), req, key, deadline, viaLong);
  }

  /**
   * Sends an outcome; retries UNAVAILABLE / RESOURCE_EXHAUSTED / DEADLINE_EXCEEDED / ABORTED
   * ({@link JobwireException#isOutcomeRetryable()}) with backoff until the job's deadline.
   * NOT_FOUND / FAILED_PRECONDITION are benign.
   */
  private <Q extends GeneratedMessage, R> CompletableFuture<Sent> send(MethodDescriptor<Q, R> method, Q req, long key, long deadline, boolean viaLong) {
    CompletableFuture<Sent> out = new CompletableFuture<>();
    track(out);
    attempt(method, req, key, deadline, viaLong, new Backoff(), out);
    return out;
  }

  private <Q extends GeneratedMessage, R> void attempt(MethodDescriptor<Q, R> method, Q req, long key, long deadline, boolean viaLong, Backoff backoff, CompletableFuture<Sent> out) {
    long left = deadline - System.currentTimeMillis();
    Duration timeout = Duration.ofMillis(Math.max(1_000, Math.min(transport.config().commandTimeout().toMillis(), left)));
    CompletableFuture<R> f = viaLong ? lease.unary(method, req, timeout) : transport.unary(method, req, timeout);
    f.whenComplete((r, e) -> {
      if (e == null) {
        out.complete(new Sent(SendResult.OK, null));
        return;
      }
      JobwireException je = JobwireException.from(e, method.getBareMethodName());
      if (je.code() == Status.Code.NOT_FOUND || je.code() == Status.Code.FAILED_PRECONDITION) {
        LOG.info("{} for job {}: {} (job timed out, was cancelled or completed elsewhere)", method.getBareMethodName(), key, je.codeName());
        out.complete(new Sent(SendResult.NOT_FOUND, je));
        return;
      }
      long delay = backoff.next();
      // a message over the gateway's size limit is refused the same way every time
      boolean tooLarge = je.code() == Status.Code.RESOURCE_EXHAUSTED && (je.details().contains("larger than max") || je.details().contains("exceeds maximum size"));
      if (je.isOutcomeRetryable() && !tooLarge && System.currentTimeMillis() + delay < deadline && !transport.isClosed()) {
        LOG.debug("{} for job {} failed ({}); retrying in {} ms", method.getBareMethodName(), key, je.codeName(), delay);
        try {
          ctl.schedule(() -> attempt(method, req, key, deadline, viaLong, backoff, out), delay, TimeUnit.MILLISECONDS);
        } catch (RuntimeException rejected) {
          out.complete(new Sent(SendResult.GAVE_UP, je));
        }
        return;
      }
      reportError(je);
      out.complete(new Sent(SendResult.GAVE_UP, je));
    });
  }

  private void track(CompletableFuture<?> f) {
    pendingSends.add(f);
    f.whenCompleteAsync((r, e) -> pendingSends.remove(f), post);
  }

  // ---- manual outcomes and timeouts (called from any thread) ----

  CompletableFuture<Void> manualOutcome(Held h, OutcomeKind kind, String vars, String message, int retries, Duration backoff, String code) {
    CompletableFuture<Void> caller = new CompletableFuture<>();
    try {
      post.execute(() -> {
        if (h.outcomeSent || h.finished) {
          caller.completeExceptionally(new IllegalStateException("jobwire: job " + h.raw.getKey() + " already has an outcome; nothing sent"));
          return;
        }
        long b = backoff == null ? o.retryBackOff().toMillis() : backoff.toMillis();
        sendOutcome(h, kind, vars, message, retries, b, code, caller);
      });
    } catch (RuntimeException rejected) {
      caller.completeExceptionally(new CancelledException("jobwire: the worker is closed", null, "", rejected));
    }
    return caller;
  }

  CompletableFuture<Void> extendTimeout(JobImpl job, long timeoutMs) {
    long sentAt = System.currentTimeMillis();
    return transport.unary(GatewayGrpc.getUpdateJobTimeoutMethod(), UpdateJobTimeoutRequest.newBuilder().setJobKey(job.getKey()).setTimeout(timeoutMs).build(), null)
        .thenApply(r -> {
          job.deadline = sentAt + timeoutMs;
          return null;
        });
  }

  // ---- auto-extend: push the deadline out by jobTimeout whenever half the remaining time passed ----

  static final long EXTEND_MIN_WAIT_MS = 50;
  static final long EXTEND_MIN_RETRY_MS = 20;

  /**
   * How long to wait before the next UpdateJobTimeout (docs/worker-semantics.md, the same in every
   * SDK): half of the time left until the deadline (at least 50 ms); after a failed attempt, the
   * back-off's next delay alone, capped at half of the time still left (at least 20 ms), so that the
   * retries fall before the deadline.
   */
  static long extendWaitMs(long leftMs, boolean retry, Backoff backoff) {
    if (retry) return Math.min(backoff.next(), Math.max(leftMs / 2, EXTEND_MIN_RETRY_MS));
    return Math.max(EXTEND_MIN_WAIT_MS, leftMs / 2);
  }

  private void scheduleExtend(Held h) {
    scheduleExtend(h, false);
  }

  private void scheduleExtend(Held h, boolean retry) {
    if (h.handlerDone || stopping && !closing) return;
    if (h.extendBackoff == null) h.extendBackoff = new Backoff();
    long wait = extendWaitMs(h.job.deadline - System.currentTimeMillis(), retry, h.extendBackoff);
    h.extendTimer = ctl.schedule(() -> {
      if (h.handlerDone) return;
      extendTimeout(h.job, o.jobTimeout().toMillis()).whenCompleteAsync((v, e) -> {
        if (e != null) {
          JobwireException je = JobwireException.from(e, "UpdateJobTimeout");
          if (je.code() == Status.Code.NOT_FOUND || je.code() == Status.Code.FAILED_PRECONDITION) return; // the job is gone
          LOG.debug("auto-extend of job {} failed: {}", h.raw.getKey(), je.getMessage());
          scheduleExtend(h, true); // after the back-off alone
          return;
        }
        h.extendBackoff.reset();
        scheduleExtend(h, false);
      }, post);
    }, wait, TimeUnit.MILLISECONDS);
  }

  private void stopExtend(Held h) {
    if (h.extendTimer != null) h.extendTimer.cancel(false);
  }

  // =====================================================================================
  // close
  // =====================================================================================

  private <T> T onCtl(Callable<T> c) {
    try {
      return ctl.submit(c).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancelledException("close interrupted", null, "", e);
    } catch (ExecutionException e) {
      throw JobwireException.from(e.getCause(), "close");
    }
  }

  private static void await(CompletableFuture<?> f, long ms) {
    try {
      f.get(Math.max(0, ms), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // waited long enough
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void doClose(long timeoutMs) {
    long started = System.currentTimeMillis();
    CompletableFuture<Void> drained = onCtl(() -> {
      closing = true;
      stopping = true;
      machine.closing();
      // stop taking jobs at once: cancel the parked poll, drain the stream
      if (pollCall != null) pollCall.cancel("jobwire: worker closing", null);
      if (cancelTimer != null) cancelTimer.cancel(false);
      if (fairnessTimer != null) fairnessTimer.cancel(false);
      StreamCtx s = current;
      current = null;
      machine.streamOpen = false;
      CompletableFuture<Void> d = CompletableFuture.completedFuture(null);
      if (s != null) {
        startDrain(s, MSG_CLOSING, DRAIN_MAX_MS); // not cut by the close timeout (rule 7)
        d = s.drained;
      }
      // jobs received but not started go back at once
      for (Held h : queue) failBack(h, MSG_CLOSING);
      queue.clear();
      return d;
    });
    CompletableFuture<Void> idle = onCtl(this::idleFuture);
    await(idle, timeoutMs - (System.currentTimeMillis() - started));
    if (!idle.isDone()) {
      onCtl(() -> {
        for (Held h : heldJobs.values()) {
          if (h.running) {
            h.job.cancelled = true;
            Thread t = h.thread;
            if (t != null) t.interrupt();
          }
        }
        return null;
      });
      CompletableFuture<Void> idle2 = onCtl(this::idleFuture);
      await(idle2, CLOSE_GRACE_MS);
      if (!idle2.isDone()) {
        int stuck = onCtl(() -> {
          int n = 0;
          for (Held h : new ArrayList<>(heldJobs.values())) {
            if (h.running && !h.abandoned && !h.outcomeSent) {
              h.abandoned = true;
              n++;
              running--;
              h.running = false;
              failBack(h, MSG_CLOSING);
            }
          }
          checkIdle();
          return n;
        });
        if (stuck > 0) LOG.warn("{} handler(s) ignored cancellation; their jobs were handed back and close returns without them", stuck);
      }
    }
    await(drained, 2_000);
    // outcomes and hand-backs in flight, including their bookkeeping on the control thread (a
    // settled send may start another, e.g. a redelivery handed back): wait until none is left
    long sendsEnd = System.currentTimeMillis() + 5_000;
    while (System.currentTimeMillis() < sendsEnd) {
      CompletableFuture<?>[] pending = onCtl(() -> pendingSends.toArray(new CompletableFuture[0]));
      if (pending.length == 0) break;
      await(CompletableFuture.allOf(pending), sendsEnd - System.currentTimeMillis());
    }
    onCtl(() -> {
      machine.closed();
      return null;
    });
    onCtl(() -> {
      tel.capacityUsed(held);
      return null;
    });
    lease.release();
    ctl.shutdown();
    handlers.shutdown();
    if (onClosed != null) onClosed.accept(this);
  }

  private CompletableFuture<Void> idleFuture() {
    CompletableFuture<Void> f = new CompletableFuture<>();
    if (running == 0) f.complete(null);
    else idleWaiters.add(f);
    return f;
  }

  // =====================================================================================
  // helpers
  // =====================================================================================

  private boolean tlsWarned;

  /**
   * A TLS handshake failure (untrusted certificate, hostname mismatch, a client certificate the
   * gateway requires but is not configured, or refuses) never fixes itself: say which, and so
   * at warn once (until the next successful call), with the reason; the worker keeps retrying.
   */
  private void warnIfTls(JobwireException je) {
    Throwable t = io.jobwire.internal.TlsAdvice.tlsCause(je);
    if (t == null || tlsWarned) return;
    tlsWarned = true;
    LOG.warn("worker {}: TLS handshake with the gateway failed ({}): {}", o.jobType(),
        io.jobwire.internal.TlsAdvice.advice(t, transport.config().clientCertificatePath() != null), t.getMessage());
  }

  private void reportError(Throwable e) {
    Consumer<Throwable> l = o.errorListener();
    if (l != null) {
      try {
        l.accept(e);
      } catch (RuntimeException x) {
        LOG.error("an error listener threw", x);
      }
    } else {
      LOG.error("worker {}: {}", o.jobType(), e.getMessage());
    }
  }

  static String cut(String s) {
    return s.length() > MAX_MESSAGE ? s.substring(0, MAX_MESSAGE) : s;
  }

  static String errorMessage(Throwable err) {
    StringWriter w = new StringWriter();
    err.printStackTrace(new PrintWriter(w));
    return cut(w.toString());
  }
}
