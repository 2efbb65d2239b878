/**
 * Handler tests without a network: build a job with {@link io.jobwire.testing.TestJob#builder()}
 * and run a {@link io.jobwire.JobHandler} on it with
 * {@link io.jobwire.testing.TestJobs#runHandler(io.jobwire.JobHandler, TestJob)}. The handler runs
 * through the worker's own executor and outcome code (the same job object, result and exception
 * mapping, auto-extend and close), with an in-process recorder instead of the gateway; the
 * {@link io.jobwire.testing.HandlerResult} says what the worker would have sent. Process tests on a
 * real engine are in the separate io.jobwire:jobwire-test artifact.
 */
package io.jobwire.testing;
