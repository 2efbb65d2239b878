/**
 * The jobwire Java SDK: {@link io.jobwire.JobwireClient} (every gateway RPC, configuration from
 * the builder or the {@code ZEEBE_*} / {@code CAMUNDA_*} environment) and
 * {@link io.jobwire.JobWorker} (push + poll under one capacity of {@code maxJobsActive} jobs,
 * graceful close, truthful outcomes), typed exceptions mapped from gRPC status codes in one table
 * ({@link io.jobwire.JobwireException#fromStatus}). Everything under {@code io.jobwire.internal}
 * is implementation, not API.
 */
package io.jobwire;
