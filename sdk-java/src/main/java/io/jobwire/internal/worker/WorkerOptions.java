package io.jobwire.internal.worker;

import io.jobwire.JobHandler;
import io.jobwire.RetryPolicy;
import io.jobwire.WorkerState;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * A worker's options after defaults and validation. {@code handler} is the whole chain
 * (middleware, typed decoding, the handler); {@code retryBackOff} is what a manual
 * {@code job.fail(message)} sends, {@code retryPolicy} decides automatic failures.
 */
public record WorkerOptions(
    String jobType,
    JobHandler handler,
    String workerName,
    int maxJobsActive,
    int concurrency,
    Duration jobTimeout,
    Duration requestTimeout,
    Duration pollInterval,
    boolean streamEnabled,
    Duration streamTimeout,
    List<String> fetchVariables,
    List<String> tenantIds,
    boolean autoComplete,
    boolean autoExtend,
    Duration retryBackOff,
    RetryPolicy retryPolicy,
    Consumer<WorkerState> stateListener,
    Consumer<Throwable> errorListener) {}
