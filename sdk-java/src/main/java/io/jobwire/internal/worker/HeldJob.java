package io.jobwire.internal.worker;

import io.jobwire.internal.gateway.GatewayOuterClass.ActivatedJob;
import io.opentelemetry.api.trace.Span;
import java.util.concurrent.ScheduledFuture;

/**
 * One job the worker holds: the activated job, its handler's progress and its outcome. Its slot in
 * the {@link Ledger} is released exactly once, when the job finishes. Control thread, except
 * {@link #thread}.
 */
final class HeldJob {
  final ActivatedJob raw;
  final String activation;
  final Ledger.Slot slot;
  JobImpl job;
  boolean running;
  boolean handlerDone;
  boolean abandoned;
  boolean finished;
  boolean outcomeSent;
  String outcome; // set when the outcome settled (acknowledged, not found, given up)
  Throwable failure;
  HeldJob redelivery;
  Span span;
  long t0;
  volatile Thread thread;
  ScheduledFuture<?> extendTimer;
  Backoff extendBackoff; // auto-extend retries; created on the first failure
  ScheduledFuture<?> unsettledTimer;

  HeldJob(ActivatedJob raw, String activation, Ledger.Slot slot) {
    this.raw = raw;
    this.activation = activation;
    this.slot = slot;
  }
}
