package io.jobwire.internal.worker;

import io.jobwire.JobHandler;
import io.jobwire.WorkerState;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/** A worker's options after defaults and validation. */
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
    Consumer<WorkerState> stateListener,
    Consumer<Throwable> errorListener) {}
