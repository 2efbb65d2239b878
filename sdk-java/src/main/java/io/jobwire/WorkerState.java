package io.jobwire;

/** Lifecycle states of a {@link JobWorker}: {@code idle → polling | streaming ⇄ backoff → closing → closed}. */
public enum WorkerState {
  /** Created, not started yet. */
  IDLE,
  /** Receiving jobs by polling only (no stream, or the gateway has no streaming). */
  POLLING,
  /** A job stream is open (polls backfill). */
  STREAMING,
  /** Waiting after an error before the next attempt. */
  BACKOFF,
  /** {@link JobWorker#close} was called. */
  CLOSING,
  /** Closed; no further jobs. */
  CLOSED;

  /** @return the lower-case name used by every jobwire SDK ({@code streaming}, ...) */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
