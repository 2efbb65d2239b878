package io.jobwire.internal.worker;

import io.jobwire.JobwireException;
import io.jobwire.internal.TlsAdvice;
import io.jobwire.internal.Transport;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every part of one worker shares: its one control thread ({@link #ctl}, and {@link #post} to
 * hand an event to it), the options, the transport, the ledger, the state machine, telemetry, the
 * stopping/closing flags and error reporting. All parts keep their state on the control thread;
 * gRPC callbacks and handlers only post events to it.
 */
final class Control {
  static final Logger LOG = LoggerFactory.getLogger(io.jobwire.JobWorker.class);

  final WorkerOptions o;
  final Transport transport;
  final Transport.Lease lease;
  final ScheduledExecutorService ctl;
  /** Posts to the control thread; silently drops events that arrive after the worker closed. */
  final Executor post;
  final Telemetry tel;
  final StateMachine machine;
  final Ledger ledger;
  private final Runnable reevaluate;

  boolean stopping;
  boolean closing;
  private boolean tlsWarned;

  /** {@code reevaluate} re-evaluates the poller and the stream reader (see {@link #onLedgerChange()}). */
  Control(WorkerOptions o, Transport transport, Transport.Lease lease, ScheduledExecutorService ctl, Executor post,
      Telemetry tel, StateMachine machine, Ledger ledger, Runnable reevaluate) {
    this.o = o;
    this.transport = transport;
    this.lease = lease;
    this.ctl = ctl;
    this.post = post;
    this.tel = tel;
    this.machine = machine;
    this.ledger = ledger;
    this.reevaluate = reevaluate;
  }

  /** Re-evaluates the poller and the stream reader after every change. */
  void onLedgerChange() {
    if (stopping) return;
    reevaluate.run();
  }

  /** A call succeeded: the next TLS failure is worth a warning again. */
  void tlsOk() {
    tlsWarned = false;
  }

  /**
   * A TLS handshake failure (untrusted certificate, hostname mismatch, a client certificate the
   * gateway requires but is not configured, or refuses) never fixes itself: say which, and so
   * at warn once (until the next successful call), with the reason; the worker keeps retrying.
   */
  void warnIfTls(JobwireException je) {
    Throwable t = TlsAdvice.tlsCause(je);
    if (t == null || tlsWarned) return;
    tlsWarned = true;
    LOG.warn("worker {}: TLS handshake with the gateway failed ({}): {}", o.jobType(),
        TlsAdvice.advice(t, transport.config().clientCertificatePath() != null), t.getMessage());
  }

  void reportError(Throwable e) {
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
}
