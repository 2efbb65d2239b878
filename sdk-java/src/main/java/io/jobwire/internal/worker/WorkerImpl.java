package io.jobwire.internal.worker;

import static io.jobwire.internal.worker.Control.LOG;

import io.jobwire.RequestCancelledException;
import io.jobwire.JobWorker;
import io.jobwire.JobwireException;
import io.jobwire.WorkerState;
import io.jobwire.internal.Transport;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The job worker (docs/worker-semantics.md): wires its parts and implements close. All of their
 * state — the capacity {@link Ledger}, the {@link Poller}, the {@link Streamer}, the held jobs of the
 * {@link JobExecutor} — lives on one control thread; gRPC callbacks only hand their events to it, and
 * handlers run on a separate executor bounded by {@code concurrency}. Nothing here ever blocks a gRPC
 * or event-loop thread: backpressure on the stream is manual flow control ({@code request(1)} per
 * reserved slot) plus a small HTTP/2 window on the long-call connection.
 */
public final class WorkerImpl implements JobWorker {
  static final long CLOSE_GRACE_MS = 1_000;
  public static final String MSG_CLOSING = Outcomes.MSG_CLOSING;
  public static final String MSG_AT_CAPACITY = Outcomes.MSG_AT_CAPACITY;
  public static final String MSG_RECYCLED = Outcomes.MSG_RECYCLED;

  private final Transport.Lease lease;
  final WorkerOptions o;
  private final Consumer<WorkerImpl> onClosed;
  private final ScheduledExecutorService ctl;
  private final Ledger ledger;
  private final Telemetry tel;
  private final StateMachine machine;
  private final Control c;
  private final Outcomes outcomes;
  private final JobExecutor executor;
  private final Poller poller;
  private final Streamer streamer;

  private CompletableFuture<Void> closeFuture;

  public WorkerImpl(Transport transport, WorkerOptions o, Consumer<WorkerImpl> onClosed) {
    this(transport, o, onClosed, GuardedRecorder.NONE, null);
  }

  /**
   * A worker whose metrics also go to {@code recorder} (the client's {@code MetricsRecorder}) and
   * whose span and instruments come from {@code openTelemetry} (null: the global one).
   */
  public WorkerImpl(Transport transport, WorkerOptions o, Consumer<WorkerImpl> onClosed, GuardedRecorder recorder,
      io.opentelemetry.api.OpenTelemetry openTelemetry) {
    this.o = o;
    this.onClosed = onClosed;
    this.lease = transport.leaseLong();
    String tname = "jobwire-worker-" + o.jobType();
    ScheduledThreadPoolExecutor exec = new ScheduledThreadPoolExecutor(1, JobExecutor.daemon(tname, false));
    exec.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    exec.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    exec.setRemoveOnCancelPolicy(true);
    this.ctl = exec;
    Executor post = new ControlPost(ctl);
    this.ledger = new Ledger(o.maxJobsActive(), this::capacityUsed);
    this.tel = new Telemetry(o.jobType(), o.workerName(), ledger::jobs, recorder, openTelemetry);
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
    this.c = new Control(o, transport, lease, ctl, post, tel, machine, ledger, this::reevaluate);
    this.outcomes = new Outcomes(c);
    this.executor = new JobExecutor(c, outcomes, new Extender(c));
    this.poller = new Poller(c, executor, outcomes);
    this.streamer = new Streamer(c, poller, executor, outcomes);
    poller.setStream(streamer);
  }

  private void capacityUsed(int held) {
    tel.capacityUsed(held);
  }

  /** After every change of the ledger (control thread, not stopping): the poller, then the stream reader. */
  private void reevaluate() {
    poller.maybePoll();
    streamer.maybeReserve();
  }

  /** Virtual threads when the runtime has them (21+), else a fixed pool of {@code concurrency} threads. */
  static ExecutorService handlerExecutor(int concurrency, String name) {
    return JobExecutor.handlerExecutor(concurrency, name);
  }

  /** The wait before the next auto-extend (see {@link Extender#extendWaitMs}). */
  static long extendWaitMs(long leftMs, boolean retry, Backoff backoff) {
    return Extender.extendWaitMs(leftMs, retry, backoff);
  }

  /** Starts the loops (stream first, then the backfill poll). */
  public void start() {
    c.post.execute(() -> {
      if (c.stopping) return;
      if (o.streamEnabled()) {
        streamer.start(); // the stream first (no state report while idle), then the backfill poll
      }
      machine.start();
      c.onLedgerChange();
    });
  }

  // =====================================================================================
  // public API
  // =====================================================================================

  @Override
  public WorkerState state() {
    return machine.state();
  }

  @Override
  public int heldJobs() {
    return ledger.jobs();
  }

  @Override
  public String workerName() {
    return o.workerName();
  }

  @Override
  public String jobType() {
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
  // close
  // =====================================================================================

  private <T> T onCtl(Callable<T> task) {
    try {
      return ctl.submit(task).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RequestCancelledException("close interrupted", null, "", e);
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
      c.closing = true;
      c.stopping = true;
      machine.closing();
      // stop taking jobs at once: cancel the parked poll, drain the stream
      poller.stop();
      CompletableFuture<Void> d = streamer.stop();
      // jobs received but not started go back at once
      executor.failBackQueued();
      return d;
    });
    CompletableFuture<Void> idle = onCtl(executor::idleFuture);
    await(idle, timeoutMs - (System.currentTimeMillis() - started));
    if (!idle.isDone()) {
      onCtl(() -> {
        executor.cancelRunning();
        return null;
      });
      CompletableFuture<Void> idle2 = onCtl(executor::idleFuture);
      await(idle2, CLOSE_GRACE_MS);
      if (!idle2.isDone()) {
        int stuck = onCtl(executor::abandonStuck);
        if (stuck > 0) LOG.warn("{} handler(s) ignored cancellation; their jobs were handed back and close returns without them", stuck);
      }
    }
    await(drained, 2_000);
    // outcomes and hand-backs in flight, including their bookkeeping on the control thread (a
    // settled send may start another, e.g. a redelivery handed back): wait until none is left
    long sendsEnd = System.currentTimeMillis() + 5_000;
    while (System.currentTimeMillis() < sendsEnd) {
      CompletableFuture<?>[] pending = onCtl(outcomes::pending);
      if (pending.length == 0) break;
      await(CompletableFuture.allOf(pending), sendsEnd - System.currentTimeMillis());
    }
    onCtl(() -> {
      machine.closed();
      return null;
    });
    onCtl(() -> {
      tel.capacityUsed(ledger.jobs());
      return null;
    });
    lease.release();
    ctl.shutdown();
    executor.shutdown();
    if (onClosed != null) onClosed.accept(this);
  }
}
