/**
 * Process tests on a real jobwire engine with JUnit 5: annotate a test class with
 * {@link io.jobwire.test.JobwireTest} and take a {@link io.jobwire.test.JobwireTestEngine} and/or a
 * {@link io.jobwire.JobwireClient} parameter. One engine runs per JVM; its state is reset before
 * every test. Handler tests without an engine: {@link io.jobwire.testing.TestJobs} in jobwire-sdk.
 */
package io.jobwire.test;
